"""Refinement guards: repeated searches are not made, searches with nothing new are not extended, and no
question is left without an answer because of a guard."""

from __future__ import annotations

import pytest
from fakes import FakeGenerator
from test_decoder import DOCS, _questions, script

from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.inference.decoding.guards import text_guards
from rqrag.inference.decoding.tree import Path, Question
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.trajectory import Action, Step


@pytest.fixture(scope="module")
def retriever():
    return BM25Retriever.from_passages(DOCS, show_progress=False)


def _decode(tok, retriever, script_fn, questions=None, **overrides):
    config = DecodeConfig(prompting="trained", **overrides)  # refinement_guards: on by default
    gen = FakeGenerator(tok, script_fn)
    decoder = TreeDecoder(config, gen, tok, retriever)
    return decoder.decode(questions or _questions()[:1]), decoder, gen


def restating(prompt, action, request):
    """Every refinement is the question nearly verbatim ("alpha: which volcano is in Tanzania?" without its
    marker: 5 of its 6 words), as the shipped small model often writes them."""
    alpha = "alpha" in prompt
    if action is Action.ANSWER:
        return ("Kilimanjaro" if alpha else "Jaguar"), 0.9
    return ("Which volcano is in Tanzania" if alpha else "Which large cat lives in the Americas"), 0.8


def test_restatements_of_the_question_are_searched_once_per_node_and_never_again_on_the_path(
    smollm2_tokenizer, retriever
):
    (result,), decoder, gen = _decode(smollm2_tokenizer, retriever, restating, max_depth=2)
    # Root: the rewrite is the node's one search with the question; decompose and disambiguate restate it again.
    # Depth 1: the rewrite's path has searched the question, so its three restatements are not searched.
    assert result.guarded == {
        path_id: {"reason": "restates_question", "query": "Which volcano is in Tanzania"}
        for path_id in ("0.1", "0.2", "0.0.0", "0.0.1", "0.0.2")
    }
    assert decoder.stats.guarded == {"restates_question": 5}
    assert decoder.stats.searches == 1 and decoder.stats.queries == 3 + 3
    assert decoder.stats.depth_sizes == [4, 4] and gen.stats.model_calls == 2  # nothing was left for depth 2
    assert [t.path_id for t in result.trajectories if t.ok] == ["0.3", "0.0.3"]
    assert result.answer == "Kilimanjaro"
    assert result.to_dict()["guarded"] == result.guarded
    assert decoder.stats.as_dict()["guarded"] == {"restates_question": 5}

    (unguarded,), off, _ = _decode(smollm2_tokenizer, retriever, restating, max_depth=2, refinement_guards=False)
    assert len(unguarded.trajectories) == 13 and not unguarded.guarded and not off.stats.guarded


def test_a_query_that_repeats_its_path_is_not_searched_and_one_with_nothing_new_is_not_extended(
    smollm2_tokenizer, retriever
):
    # The decoder tests' script: each action writes the same query at every depth, and every query finds the
    # one passage about the question's topic. Depth 1: per path, the same action repeats its parent's query
    # (3 in all), the other two find only the passage the path has read (6).
    (result,), decoder, _ = _decode(smollm2_tokenizer, retriever, script, max_depth=2)
    assert decoder.stats.guarded == {"repeats_query": 3, "nothing_new": 6}
    assert result.guarded["0.0.0"] == {"reason": "repeats_query", "query": "rewrite volcano Tanzania"}
    assert result.guarded["0.0.1"] == {"reason": "nothing_new", "query": "decompose volcano Tanzania"}
    assert decoder.stats.searches == 3 + 3  # depth 1: three distinct texts, never the repeated ones
    assert decoder.stats.depth_sizes == [4, 12]
    assert [t.path_id for t in result.trajectories] == ["0.3", "0.0.3", "0.1.3", "0.2.3"]


def test_only_the_search_with_nothing_new_ends(smollm2_tokenizer, retriever):
    def topics(prompt, action, request):
        if action is Action.ANSWER:
            return "Kilimanjaro", 0.9
        depth = prompt.count("[R_Evidences]")
        if depth == 0:
            return ("volcano Tanzania", 0.8) if action is Action.REWRITE else ("large cat Americas", 0.8)
        return ("Kilimanjaro dormant", 0.8) if action is Action.REWRITE else ("capital of France", 0.8)

    (result,), decoder, _ = _decode(
        smollm2_tokenizer, retriever, topics, max_depth=2, actions=["rewrite", "decompose"]
    )
    # Path 0.0 read the Kilimanjaro passage: its rewrite finds only that again. Path 0.1 read the jaguar one: the
    # same query finds something new there. Both decompositions find Paris.
    assert result.guarded == {"0.0.0": {"reason": "nothing_new", "query": "Kilimanjaro dormant"}}
    deep = sorted(t.path_id for t in result.trajectories if len(t.trajectory.steps) == 3)
    assert deep == ["0.0.1.0", "0.1.0.0", "0.1.1.0"]
    assert len(result.trajectories) == 1 + 2 + 3 and all(t.ok for t in result.trajectories)


@pytest.mark.parametrize(
    ("script_fn", "answers", "depth_sizes"),
    [
        # Every depth-1 branch is guarded; without the parents' answers there would be none at all (answers
        # are expanded at the last depth only, and nothing reaches it).
        (script, ["0.0.3", "0.1.3", "0.2.3"], [3, 9, 3]),
        # The root's decompose and disambiguate restate the question, but its rewrite searched: the root has a
        # live child and does not answer. Then every query of path 0.0 is guarded and 0.0 answers at depth 2.
        (restating, ["0.0.3"], [3, 3, 1]),
    ],
)
def test_without_answers_at_every_depth_a_guarded_branch_leaves_its_parents_answer(
    smollm2_tokenizer, retriever, script_fn, answers, depth_sizes
):
    config = {"max_depth": 2, "answer_at_every_depth": False}
    results, decoder, _ = _decode(smollm2_tokenizer, retriever, script_fn, _questions(), **config)
    qa, qb = results
    for result in results:
        assert result.answer and result.error is None
        assert [t.path_id for t in result.trajectories if t.ok] == answers
    assert decoder.stats.depth_sizes == [2 * n for n in depth_sizes]
    assert decoder.stats.answers_for_guarded == 2 * len(answers)

    # The parent's late answer is the answer it would have given at its own depth: same id, context and seed.
    (every_depth,), _, _ = _decode(smollm2_tokenizer, retriever, script_fn, max_depth=2)
    by_id = {t.path_id: t for t in every_depth.trajectories}
    assert all(t == by_id[t.path_id] for t in qa.trajectories)


def test_text_guards_by_hand():
    question = Question("q", [{"role": "user", "content": "Who directed the film Titanic?"}])
    root = Path("q", "0")
    searched = Path("q", "0.0", steps=(Step(Action.REWRITE, "Titanic film director"),))
    given = Path("q", "0", steps=(Step(Action.REWRITE, "Who directed the film Titanic?"),))  # standard RAG
    reasons = text_guards(
        [
            ("who directed Titanic film", question, root),  # the root's first restatement: searched
            ("Who directed the film Titanic", question, root),  # a sibling already searches the question
            ("Titanic director", question, root),
            ("Titanic film director", question, searched),  # repeats the path's query
            ("James Cameron birthplace", question, searched),
            ("who directed the film Titanic", question, given),  # the question was searched as a given step
        ]
    )
    assert reasons == [None, "restates_question", None, "repeats_query", None, "restates_question"]
