"""The writer's reply handling (rqrag.answer.writer) and the pipeline's written answer (rqrag.answer.written_answer),
with a scripted chat model: the reply's format, what is validated, asked again, streamed, renumbered and shown. The
real models write in tests/test_writer_model.py."""

from __future__ import annotations

from rqrag.answer.claim_check import ClaimCheck
from rqrag.answer.messages import AnswerKind
from rqrag.answer.results import PipelineAnswer
from rqrag.answer.writer import AnswerWriter, choose_passages, parse_line
from rqrag.answer.written_answer import show, supported_short
from rqrag.retrieval.base import Hit


PASSAGES = [
    Hit(
        "kt",
        "Kiss and Tell (1945 film)",
        "Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer.",
        1.0,
    ),
    Hit(
        "st",
        "Shirley Temple",
        "Shirley Temple was an American actress. As an adult, she served as Chief of Protocol of the United States.",
        0.9,
    ),
    Hit("rs", "Red Shirley", "Red Shirley is a short documentary film directed by Lou Reed.", 0.5),
]


class ScriptedModel:
    """Replies with the scripted texts in turn, streamed in small pieces; judges with `p` (or a function)."""

    def __init__(self, *replies, p=0.9):
        self.replies, self.p, self.asked = list(replies), p, []

    def stream(self, messages, max_tokens):
        self.asked.append(messages)
        reply = self.replies.pop(0)
        for at in range(0, len(reply), 7):
            yield reply[at : at + 7]

    def yes_probability(self, messages):
        return self.p(messages) if callable(self.p) else self.p


def writer_for(model, mode="align_judge"):
    return AnswerWriter(model, ClaimCheck(model.yes_probability, mode))


def test_parse_line_reads_the_short_answer_and_sentences_with_their_marks():
    assert parse_line("Answer: Chief of Protocol [2]") == ("short", "Chief of Protocol")
    assert parse_line("Resposta: Ctrl+S") == ("short", "Ctrl+S")
    kind, sentences = parse_line("Kiss and Tell stars Shirley Temple. [1] She served as Chief of Protocol. [2][1]")
    assert kind == "sentence" and [(s.text, s.cites) for s in sentences] == [
        ("Kiss and Tell stars Shirley Temple.", (1,)),
        ("She served as Chief of Protocol.", (2, 1)),
    ]
    assert parse_line("No marks at all.")[1][0].cites == ()


def test_sentences_stream_in_order_once_checked_and_failures_are_dropped():
    reply = (
        "Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer. [1]\n"
        "Shirley Temple directed Red Shirley. [3]\n"  # a name of the wrong passage: fails alignment
        "As an adult, she served as Chief of Protocol of the United States. [2]\n"
        "Lou Reed wrote it. [7]\n"  # a passage it was not given
        "Answer: Chief of Protocol"
    )
    streamed = []
    written = writer_for(ScriptedModel(reply)).write("What position?", PASSAGES, "en", on_sentence=streamed.append)
    assert [s.text for s in streamed] == [s.text for s in written.shown]
    assert [s.cites for s in written.shown] == [(1,), (2,)]
    assert {s.verdict.reason for s in written.dropped} == {"unsupported_term"}  # the 4th: past max_sentences
    assert written.short == "Chief of Protocol" and written.problem is None
    assert supported_short(written) == "Chief of Protocol"


def test_a_reply_of_marks_only_is_asked_again_with_a_reminder():
    model = ScriptedModel(
        "[2]\n[1]", "She served as Chief of Protocol of the United States. [2]\nAnswer: Chief of Protocol"
    )
    written = writer_for(model).write("What position?", PASSAGES, "en")
    assert written.attempts == 2 and len(model.asked) == 2
    assert "between 1 and 3" in model.asked[1][-1]["content"]
    assert [s.text for s in written.shown] == ["She served as Chief of Protocol of the United States."]


def test_not_found_writes_nothing():
    written = writer_for(ScriptedModel("Answer: not found")).write("Who?", PASSAGES, "en")
    assert written.shown == [] and written.problem == "not_found"


def test_the_judges_no_keeps_a_rewritten_sentence_off_the_screen():
    reply = "Temple was Chief of Protocol of the United States as an adult. [2]\nAnswer: Chief of Protocol"
    written = writer_for(ScriptedModel(reply, p=0.2)).write("What position?", PASSAGES, "en")
    assert written.shown == [] and written.dropped[0].verdict.reason == "judged_unsupported"
    assert supported_short(written) is None


def test_a_short_answer_no_shown_sentence_holds_is_not_shown():
    reply = "Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer. [1]\nAnswer: Ambassador"
    written = writer_for(ScriptedModel(reply)).write("What position?", PASSAGES, "en")
    assert len(written.shown) == 1 and supported_short(written) is None


def test_show_renumbers_marks_by_source_and_quotes_each_cited_sentence():
    reply = (
        "As an adult, she served as Chief of Protocol of the United States. [2]\n"
        "Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer. [1]\n"
        "Answer: Chief of Protocol"
    )
    written = writer_for(ScriptedModel(reply)).write("What position?", PASSAGES, "en")
    answer = PipelineAnswer("q", "What position?", "old quote", AnswerKind.QUOTED, "en")
    answer.sources = [{"docid": "rs", "title": "Red Shirley", "text": "…", "cited": True}]
    from rqrag.answer.source_view import SourceView

    show(answer, written, PASSAGES, SourceView(600))
    assert answer.kind is AnswerKind.WRITTEN and answer.short_answer == "Chief of Protocol"
    assert answer.text.startswith(
        "Chief of Protocol\n\nAs an adult, she served as Chief of Protocol of the United States. [1] "
    )
    assert answer.text.endswith("Corliss Archer. [2]")
    assert [s["docid"] for s in answer.sources] == ["st", "kt", "rs"]
    assert [s["cited"] for s in answer.sources] == [True, True, False]
    assert answer.sources[0]["quote"] == "As an adult, she served as Chief of Protocol of the United States."
    assert answer.to_dict()["written"]["shown"][0]["cites"] == [2]


def test_choose_passages_reads_those_holding_the_best_sentences_first_and_cuts_long_ones():
    long = Hit(
        "long",
        "Long",
        " ".join(f"Filler sentence number {i} is here." for i in range(40)) + " The key fact is 42.",
        1.0,
    )
    ranked = [(0.9, "The key fact is 42."), (0.5, PASSAGES[1].text.split(". ")[0])]
    chosen = choose_passages("What is the key fact?", [PASSAGES[0], long, PASSAGES[1]], ranked, limit=2, max_words=20)
    assert [h.docid for h in chosen] == ["long", "st"]
    assert "The key fact is 42." in chosen[0].text and len(chosen[0].text.split()) <= 20


def test_a_sentence_citing_the_wrong_passage_cites_the_one_that_supports_it():
    reply = (
        "As an adult, she served as Chief of Protocol of the United States. [3]\n"  # [3] is Red Shirley
        "Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer.\n"  # no marks
        "Answer: Chief of Protocol"
    )
    written = writer_for(ScriptedModel(reply)).write("What position?", PASSAGES, "en")
    assert [s.cites for s in written.shown] == [(2,), (1,)]


def test_a_judged_false_claim_is_not_tried_on_other_passages():
    judged = []

    def judge(messages):
        judged.append(messages[-1]["content"])
        return 0.1

    reply = "Temple was Chief of Protocol of the United States as an adult. [2]\nAnswer: Chief of Protocol"
    written = writer_for(ScriptedModel(reply, p=judge)).write("What position?", PASSAGES, "en")
    assert written.shown == [] and len(judged) == 1


def test_the_decisions_quote_stays_under_the_written_answer():
    reply = "Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer. [1]\nAnswer: none"
    written = writer_for(ScriptedModel(reply)).write("What position?", PASSAGES, "en")
    from rqrag.answer.grounding import GroundedAnswer
    from rqrag.answer.source_view import SourceView

    answer = PipelineAnswer(
        "q",
        "What position?",
        "As an adult, she served as Chief of Protocol of the United States.",
        AnswerKind.QUOTED,
        "en",
    )
    answer.grounded = GroundedAnswer(answer.text, AnswerKind.QUOTED, [PASSAGES[1]])
    show(answer, written, PASSAGES, SourceView(600))
    assert [(s["docid"], s["cited"]) for s in answer.sources[:2]] == [("kt", True), ("st", True)]
    assert answer.sources[1]["quote"] == "As an adult, she served as Chief of Protocol of the United States."
    assert "[2]" not in answer.text  # evidence under the answer, not a mark in it


def test_choose_passages_can_keep_only_the_best_sentences_and_never_joins_a_gap():
    page = Hit("pg", "Page", "Alpha one. Beta two. Gamma three. He was born in 1950.", 1.0)
    ranked = [(0.9, "He was born in 1950."), (0.8, "Alpha one."), (0.1, "Beta two.")]
    (cut,) = choose_passages("When?", [page], ranked, limit=1, sentences=2)
    assert cut.text == "Alpha one.\nHe was born in 1950."
    from rqrag.answer.claim_check import windows

    assert "Alpha one. He was born in 1950." not in windows(cut)  # not neighbours on the page


def test_a_sentence_that_only_says_the_question_back_is_not_shown():
    reply = "The government position held by the woman who portrayed Corliss Archer was. [2]\nAnswer: none"
    question = "What government position was held by the woman who portrayed Corliss Archer?"
    written = writer_for(ScriptedModel(reply)).write(question, PASSAGES, "en")
    assert written.shown == [] and written.dropped[0].verdict.reason == "says_nothing"


def test_a_memory_is_read_with_its_day_and_a_document_with_its_page():
    from rqrag.answer.writer import build_messages

    memory = Hit(
        "m1", "", "O usuário disse: jantei com a Marta ontem.", 1.0, {"origin": "memory", "date": "2026-12-05"}
    )
    page = Hit("d1", "manual.pdf", "Para salvar, use Ctrl+S.", 1.0, {"page_start": 12})
    prompt = build_messages("Com quem eu jantei?", [memory, page], "pt")[-1]["content"]
    assert "[1] (2026-12-05) O usuário disse: jantei com a Marta ontem." in prompt
    assert "[2] (manual.pdf, p. 12) Para salvar, use Ctrl+S." in prompt


def test_the_eval_reads_every_quote_under_a_written_answer_and_scores_its_short_answer():
    from rqrag.eval.benchmark_report import shown_summary

    record = {
        "question": "What government position did she hold?",
        "gold": {"answers": ["Chief of Protocol"]},
        "grounded": {
            "answer": "ambassador\n\nShe was named ambassador to Ghana. [1]",
            "kind": "written",
            "short_answer": "ambassador",
            "quote": {"text": "She was named ambassador to Ghana."},
            "cited_sources": [
                {"quote": "She was named ambassador to Ghana."},
                {"quote": "She also served as Chief of Protocol of the United States."},
            ],
        },
    }
    summary = shown_summary([record])
    assert summary["holds_gold"] == 1.0  # the second quote under the answer holds it
    assert summary["stated_coverage"] == 1.0 and summary["stated_precision"] == 0.0  # "ambassador" is not the gold


def test_the_decisions_quote_stays_when_its_page_is_cited_for_another_sentence():
    reply = "Shirley Temple was an American actress. [2]\nAnswer: none"
    written = writer_for(ScriptedModel(reply)).write("What position?", PASSAGES, "en")
    from rqrag.answer.grounding import GroundedAnswer
    from rqrag.answer.source_view import SourceView

    decision = "As an adult, she served as Chief of Protocol of the United States."
    answer = PipelineAnswer("q", "What position?", decision, AnswerKind.QUOTED, "en")
    answer.grounded = GroundedAnswer(decision, AnswerKind.QUOTED, [PASSAGES[1]])
    show(answer, written, PASSAGES, SourceView(600))
    quotes = [s.get("quote") for s in answer.sources if s["cited"]]
    assert quotes == ["Shirley Temple was an American actress.", decision]
