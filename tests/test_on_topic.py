"""An answer standing on a passage about something else says nothing found is about the question
(`answer/on_topic.py`): the real multilingual e5, real paragraphs of the embedded corpus, and the shipped
model through the documented Python API. The questions here are the tuning half's and the issue's examples; the
held-out half (`tests/data/library_edges`) is only scored, by `scripts/eval_library_edges.py`."""

from __future__ import annotations

import pytest

from rqrag.answer.grounding import GroundedAnswer
from rqrag.answer.messages import AnswerKind
from rqrag.answer.on_topic import TopicCheck, judged
from rqrag.answer.results import EvidenceSource, PipelineAnswer
from rqrag.retrieval.base import Hit


EUSONIA = Hit(
    "doc-1e75be5075c2a3bc",
    "Eusonia Records",
    "Eusonia Records is an independent record label founded by American record producer, songwriter and "
    "multi-intrumentalist Scott Jacoby.",
    1.0,
)
COMET = Hit(
    "doc-comet",
    "C/2013 R1 (Lovejoy)",
    "C/2013 R1 (Lovejoy) is a long-period comet discovered on 7 September 2013 by Terry Lovejoy using a 0.2-meter "
    "(8.0 in) Schmidt–Cassegrain telescope.",
    1.0,
)
LLOYD = Hit("doc-6bc2bf5ddf8e9eba", "Lloyd (film)", "Lloyd is a 2001 American comedy film.", 1.0)


def shown(question: str, hit: Hit, language: str = "en", kind=AnswerKind.QUOTED, also=()) -> PipelineAnswer:
    """An answer citing `hit`, its question having found `hit` and `also`."""
    grounded = GroundedAnswer(hit.text, kind, [hit], "p0", "a guess", confidence=0.2)
    answer = PipelineAnswer("q", question, hit.text, kind, language, grounded=grounded, searched=[hit, *also])
    answer.sources = [{"docid": h.docid, "title": h.title, "text": h.text, "cited": h is hit} for h in (hit, *also)]
    return answer


@pytest.fixture(scope="module")
def check():
    return TopicCheck()


def test_a_quote_about_something_else_says_so_and_keeps_what_was_read(check):
    off, on = shown("Who discovered penicillin?", COMET), shown("Who founded Eusonia Records?", EUSONIA)
    check.apply([off, on], EvidenceSource(retriever=None, retriever_name="corpus"))

    assert off.kind is AnswerKind.NOT_FOUND and off.text.startswith("Nothing I found is about this")
    assert off.sources and not any(s["cited"] for s in off.sources)  # still listed, to look at, never cited
    assert off.grounded.generated == "a guess" and off.grounded.confidence == 0.2  # the decision stays for evals
    assert off.timings["topic_similarity"] < on.timings["topic_similarity"]
    assert on.kind is AnswerKind.QUOTED and on.text == EUSONIA.text and on.sources[0]["cited"]


def test_a_generated_answer_is_judged_by_its_cited_passage_too(check):
    off = shown("Who discovered penicillin?", COMET, kind=AnswerKind.GENERATED)
    check.apply([off], EvidenceSource(retriever=None))
    assert off.kind is AnswerKind.NOT_FOUND


def test_an_answer_is_kept_when_something_its_question_found_is_about_it(check):
    """The rule is "nothing found is about it": a quote from the wrong passage, with the right one found, is the
    reader's mistake, not the library's silence."""
    asked = shown("Who founded Eusonia Records?", COMET, also=[EUSONIA])
    check.apply([asked], EvidenceSource(retriever=None))
    assert asked.kind is AnswerKind.QUOTED


def test_portuguese_questions_on_english_paragraphs(check):
    asked = shown("Em que ano foi lançado o filme de comédia Lloyd?", LLOYD, language="pt")
    check.apply([asked], EvidenceSource(retriever=None))
    assert asked.kind is AnswerKind.QUOTED, asked.timings
    off = shown("Quem descobriu o elemento rádio?", COMET, language="pt")
    check.apply([off], EvidenceSource(retriever=None))
    assert off.kind is AnswerKind.NOT_FOUND and off.text.startswith("Nada do que encontrei trata disso")


def test_a_users_library_and_memories_are_left_to_their_own_rules(check):
    assert not judged(EvidenceSource(retriever=None, library=object()))
    assert not judged(EvidenceSource(retriever=None, retriever_name="memories"))
    assert not judged(EvidenceSource(retriever=None, personal=True))
    off = shown("Who discovered penicillin?", COMET)
    check.apply([off], EvidenceSource(retriever=None, library=object()))
    assert off.kind is AnswerKind.QUOTED


def test_answers_that_show_nothing_from_a_passage_are_not_touched(check):
    said = PipelineAnswer("q", "Who discovered penicillin?", "I found nothing", AnswerKind.NO_ANSWER, "en")
    check.apply([said], EvidenceSource(retriever=None))
    assert said.kind is AnswerKind.NO_ANSWER and "topic_similarity" not in said.timings


@pytest.mark.slow
def test_the_shipped_pipeline_says_not_found_outside_the_corpus_and_answers_inside():
    """A question of the tuning half the corpus never answers and one it does, through `Pipeline.from_config`;
    `on_topic=False` brings back the quote from a passage about something else."""
    import rqrag

    pipeline = rqrag.Pipeline.from_config("rqrag_trained", query_temperature=0.0)
    outside = pipeline.ask("How many sides does a hexagon have?")
    assert outside.kind is AnswerKind.NOT_FOUND, (outside.text, outside.timings)
    inside = pipeline.ask("Who directed the Hungarian film Forbidden Ground?")
    assert inside.kind.states_an_answer and "Pál Gábor" in (inside.text + str(inside.sources[0]["text"]))

    unchecked = rqrag.Pipeline.from_config("rqrag_trained", query_temperature=0.0, on_topic=False)
    assert unchecked.ask("How many sides does a hexagon have?").kind.states_an_answer
