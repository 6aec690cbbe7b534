"""`search_question_first`: standard RAG's given first step, shared by the eval runner and the server."""

from __future__ import annotations

from rqrag.inference.decoding.search_first import search_question_first
from rqrag.inference.decoding.tree import Question
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.candidate_paragraphs import CandidateRetriever
from rqrag.retrieval.passages import Passage
from rqrag.trajectory import Action, Step


def _ask(qid: str, text: str, steps=()) -> Question:
    return Question(qid, [{"role": "user", "content": text}], steps=steps)


def test_each_fresh_question_is_searched_with_its_own_words_in_one_call():
    retriever = BM25Retriever.from_passages(
        [
            Passage("a", "Seine", "The river Seine flows through Paris."),
            Passage("b", "Brie", "Brie is a soft cheese from France."),
        ]
    )
    calls = []
    original = retriever.batch_search
    retriever.batch_search = lambda queries, **kw: calls.append(list(queries)) or original(queries, **kw)
    kept = (Step(Action.DECOMPOSE, "cheese", ()),)
    questions = [_ask("1", "Which   river flows\nthrough Paris?"), _ask("2", "What is Brie?", kept)]
    out = search_question_first(retriever, questions, k=1)
    assert calls == [["Which river flows through Paris?"]]  # one batched call, whitespace normalised
    assert out[0].steps[0].action == Action.REWRITE and out[0].steps[0].text == "Which river flows through Paris?"
    assert [h.docid for h in out[0].steps[0].evidence] == ["a"]
    assert out[1] is questions[1]  # a question that carries steps keeps them, unsearched
    assert search_question_first(retriever, [questions[1]], k=1) == [questions[1]] and len(calls) == 1


def test_a_candidates_retriever_searches_each_question_in_its_own_pool():
    pools = {
        "q1": [Passage("q1::0", "Paris", "Paris lies on the river Seine.")],
        "q2": [Passage("q2::0", "Vienna", "Vienna lies on the river Danube.")],
    }
    out = search_question_first(CandidateRetriever(pools), [_ask("q1", "river city"), _ask("q2", "river city")], k=2)
    assert [h.docid for h in out[0].steps[0].evidence] == ["q1::0"]
    assert [h.docid for h in out[1].steps[0].evidence] == ["q2::0"]
