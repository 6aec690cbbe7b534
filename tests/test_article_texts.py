"""The four texts of an article (review/article_texts.py): headings read, sentences checked against the passages
they cite, limits kept, a text with nothing left says so. The replies here are typed, the check is the real one
(`ordered`, no model); tests/test_article_texts_model.py writes with the real 1.5B."""

from __future__ import annotations

from rqrag.answer.claim_check import ClaimCheck
from rqrag.retrieval.base import Hit
from rqrag.review.article_texts import ArticleWriter, article_messages, heading


PASSAGES = [
    Hit("d:1", "Cover crops", "We measured soil water under three inter-row managements over four seasons. A winter "
        "cover terminated in early spring kept as much water at depth as bare soil.", 0.0, {"page_start": 1}),
    Hit("d:2", "Cover crops", "The aim of this study was to test whether a winter cover crop lowers the soil water "
        "available to the vines in summer.", 0.0, {"page_start": 2}),
    Hit("d:3", "Cover crops", "A winter cover terminated in early spring protects the soil without taking summer "
        "water from rainfed vines.", 0.0, {"page_start": 6}),
]  # fmt: skip


class TypedReply:
    def __init__(self, reply: str):
        self.reply, self.asked = reply, []

    def complete(self, messages, max_tokens):
        self.asked.append(messages)
        return self.reply


def _write(reply: str, language: str = "en"):
    model = TypedReply(reply)
    texts = ArticleWriter(model, ClaimCheck(mode="ordered")).write("soil water in vineyards", "Cover crops", PASSAGES,
                                                                   language)  # fmt: skip
    return texts, model


def test_each_heading_gets_its_checked_sentences_with_their_pages():
    texts, _ = _write(
        "Summary:\nWe measured soil water under three inter-row managements over four seasons. [1]\n"
        "Objectives:\nThe aim of this study was to test whether a winter cover crop lowers the soil water. [2]\n"
        "Conclusions:\nA winter cover terminated in early spring protects the soil without taking summer water. [3]\n"
        "Relevance:\nA winter cover terminated in early spring kept as much water at depth as bare soil. [1]"
    )
    record = texts.to_dict()["texts"]
    assert [s["pages"] for s in record["summary"]["sentences"]] == [[1]]
    assert record["objectives"]["sentences"][0]["pages"] == [2]
    assert record["conclusions"]["sentences"][0]["pages"] == [6]
    assert record["relevance"]["sentences"] and all(t["note"] is None for t in record.values())


def test_a_claim_its_passage_does_not_make_is_not_shown_and_an_empty_text_says_why():
    """Words all from passage 1, the claim not: the passage never says bare soil lost water over four seasons."""
    texts, _ = _write(
        "Summary:\nBare soil lost water over four seasons under three managements. [1]\n"
        "Objectives:\nnot stated\nConclusions:\nA winter cover terminated in early spring protects the soil. [3]"
    )
    assert not texts.texts["summary"].shown and texts.texts["summary"].note == "all_failed"
    assert texts.texts["objectives"].note == "not_stated"
    assert texts.texts["relevance"].note == "not_written"  # the reply never reached it
    assert texts.texts["conclusions"].shown


def test_a_text_stops_at_its_sentence_limit():
    texts, _ = _write(
        "Objectives:\nWe measured soil water under three inter-row managements over four seasons. [1]\n"
        "A winter cover terminated in early spring kept as much water at depth as bare soil. [1]\n"
        "The aim of this study was to test whether a winter cover crop lowers the soil water. [2]\n"
        "A winter cover terminated in early spring protects the soil without taking summer water. [3]"
    )
    assert len(texts.texts["objectives"].shown) == 3 and not texts.texts["objectives"].dropped  # the 4th unread


def test_headings_in_portuguese_and_with_markup_are_read():
    assert heading("**Conclusões:** O gotejamento economiza água. [3]") == (
        "conclusions",
        "O gotejamento economiza água. [3]",
    )
    assert heading("Relevância:")[0] == "relevance" and heading("## Resumo:")[0] == "summary"
    assert heading("Objetivo: verificar") == ("objectives", "verificar")
    assert heading("The summary of the study is long.") is None


def test_the_prompt_is_in_the_articles_language_with_pages():
    messages = article_messages("água no solo", "Coberturas", PASSAGES, "pt")
    assert "português" in messages[0]["content"] and "Tema: água no solo" in messages[-1]["content"]
    assert "[3] (p. 6) A winter cover" in messages[-1]["content"]
    # the worked example is a turn of its own, before the article's
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert "gotejamento" in messages[2]["content"] and "gotejamento" not in messages[-1]["content"]


def test_each_passage_names_its_section_for_the_writer():
    from dataclasses import replace

    labelled = [replace(PASSAGES[2], extra={"page_start": 6, "section": "Conclusões"})]
    assert "[1] (p. 6, Conclusões) A winter cover" in article_messages("t", "T", labelled, "pt")[-1]["content"]


def test_an_endpoint_away_is_a_problem_said_not_a_crash():
    class Away:
        def complete(self, messages, max_tokens):
            raise ConnectionError("refused")

    texts = ArticleWriter(Away(), ClaimCheck(mode="ordered")).write("t", "T", PASSAGES, "en")
    assert texts.problem.startswith("failed: ConnectionError") and not any(t.shown for t in texts.texts.values())


def test_the_texts_reach_review_md_the_bibtex_and_the_csv(tmp_path):
    """A real article (tests/data/articles/tuning/pt_markdown) read and reviewed as `rqrag review` does, its texts
    written from a typed reply that copies its own objective: review.md shows them with pages above the quoted
    fields, the BibTeX has the summary as `annote`, the CSV the written columns."""
    import csv
    from pathlib import Path

    from rqrag.ingest import ingest_path
    from rqrag.review.article_passages import article_passages
    from rqrag.review.article_review import review_article
    from rqrag.review.bibliography import write_bibliography
    from rqrag.review.review_markdown import render_markdown
    from rqrag.review.reviewer import DocumentGroup, review_record

    ingested = ingest_path(Path(__file__).parent / "data" / "articles" / "tuning" / "pt_markdown" / "article.md")
    document = DocumentGroup(ingested.doc_id, ingested.name, ingested.name, article=ingested.article)
    topic = "assistentes conversacionais para estudantes"
    review_article(topic, document, "pt", None, per_field=1)
    passages = article_passages(document, "pt")
    objective = next(h for h in passages if h.text.startswith("O objetivo geral"))
    number = passages.index(objective) + 1
    first = objective.text.split(". ")[0].rstrip(".") + "."
    reply = f"Resumo:\n{first} [{number}]\nObjetivos:\n{first} [{number}]\nConclusões:\nnão informado"
    writer = ArticleWriter(TypedReply(reply), ClaimCheck(mode="ordered"))
    document.texts = writer.write(topic, ingested.article["title"], passages, "pt").to_dict()
    record = review_record(topic, [document], "pt", 3, 0, index="t")
    page = objective.extra["page_start"]
    markdown = render_markdown(record)
    assert f"**Resumo.** {first} (p. {page})" in markdown
    assert "**Conclusões.** *as páginas lidas não dizem*" in markdown
    assert markdown.index("**Resumo.**") < markdown.index("**Objetivo.**")  # the quotes stay under, as evidence
    write_bibliography(record, tmp_path)
    assert f"annote = {{{first} [p. {page}]}}" in (tmp_path / "articles.bib").read_text()
    row = next(csv.DictReader(open(tmp_path / "articles.csv", encoding="utf-8")))
    assert row["written_objectives"] == f"{first} [p. {page}]" and row["written_conclusions"] == ""


def test_a_sentence_citing_a_passage_it_was_not_given_is_dropped_and_recorded():
    texts, _ = _write("Summary:\nBare soil lost all its water in one season. [9]")
    record = texts.to_dict()["texts"]["summary"]
    assert not record["sentences"] and record["dropped"][0]["pages"] == []
    assert record["dropped"][0]["check"]["reason"] == "unknown_passage"


class ScriptedReplies:
    def __init__(self, *replies: str):
        self.replies, self.asked = list(replies), []

    def complete(self, messages, max_tokens):
        self.asked.append(messages)
        return self.replies.pop(0)


def test_texts_the_reply_never_reached_are_asked_for_again_alone_while_each_call_writes_one():
    """The 1.5B often stops after the summary: the headings it never reached are asked for in another call whose
    prompt is the first with one line added (a prompt cache keeps the passages), and only those are read from it;
    again for what that call did not reach, until a call writes none of them."""
    model = ScriptedReplies(
        "Summary:\nWe measured soil water under three inter-row managements over four seasons. [1]",
        "Summary:\nBare soil lost all its water. [1]\n"  # not asked for: skipped, not even checked
        "Objectives:\nThe aim of this study was to test whether a winter cover crop lowers the soil water. [2]\n"
        "Conclusions:\nA winter cover terminated in early spring protects the soil without taking summer water. [3]",
        "Summary:\nWe measured soil water. [1]",  # none of what was asked: not asked a fourth time
    )
    texts = ArticleWriter(model, ClaimCheck(mode="ordered")).write("soil water", "Cover crops", PASSAGES, "en")
    assert len(model.asked) == 3
    first, second, third = (asked[-1]["content"] for asked in model.asked)
    assert second.startswith(first.removesuffix("Texts:"))  # the same prompt, a line added at its end
    assert "'Objectives:', 'Conclusions:', 'Relevance:'" in second and "'Summary:'" not in second
    assert "'Relevance:'" in third and "'Conclusions:'" not in third
    assert [s.text for s in texts.texts["summary"].shown] == [
        "We measured soil water under three inter-row managements over four seasons."
    ] and not texts.texts["summary"].dropped
    assert texts.texts["objectives"].shown and texts.texts["conclusions"].shown
    assert texts.texts["relevance"].note == "not_written"


def test_a_reply_that_reached_every_heading_is_one_call():
    model = ScriptedReplies("Summary:\nnot stated\nObjectives:\nnot stated\nConclusions:\nnot stated\nRelevance:\n")
    texts = ArticleWriter(model, ClaimCheck(mode="ordered")).write("soil water", "Cover crops", PASSAGES, "en")
    assert len(model.asked) == 1 and all(t.note == "not_stated" for t in texts.texts.values())


class StreamedReply:
    """A model that writes its reply piece by piece and records how much of it was read and whether it was closed."""

    def __init__(self, reply: str):
        self.pieces, self.read, self.closed = [line + "\n" for line in reply.split("\n")], 0, False

    def stream(self, messages, max_tokens):
        try:
            for piece in self.pieces:
                self.read += 1
                yield piece
        finally:
            self.closed = True


class StreamedReplies:
    """One `StreamedReply` a call, in turn (the last one again when they run out), each call's messages recorded."""

    def __init__(self, *replies: StreamedReply):
        self.replies, self.asked = replies, []

    def stream(self, messages, max_tokens):
        self.asked.append(messages)
        return self.replies[min(len(self.asked), len(self.replies)) - 1].stream(messages, max_tokens)


def test_the_writing_stops_once_every_text_is_full():
    """A 1.5B wrote its last sentence again to max_tokens (45 s of one tuning article): once every text asked for has
    been reached and the last one is full, the stream is closed and nothing more is read."""
    relevance = "A winter cover terminated in early spring kept as much water at depth as bare soil. [1]"
    model = StreamedReply(
        "Summary:\nWe measured soil water under three inter-row managements over four seasons. [1]\n"
        "Objectives:\nThe aim of this study was to test whether a winter cover crop lowers the soil water. [2]\n"
        "Conclusions:\nA winter cover terminated in early spring protects the soil without taking summer water. [3]\n"
        "Relevance:\nWe measured soil water under three inter-row managements over four seasons. [1]\n"
        + "\n".join([relevance] * 30)
    )
    texts = ArticleWriter(model, ClaimCheck(mode="ordered")).write("soil water", "Cover crops", PASSAGES, "en")
    assert len(texts.texts["relevance"].shown) == 2 and all(t.shown for t in texts.texts.values())
    assert model.closed and model.read < 12  # of 38 lines


def test_a_text_that_repeats_itself_ends_the_reply_and_the_rest_is_asked_for():
    line = "We measured soil water under three inter-row managements over four seasons. [1]"
    first = StreamedReply("Summary:\n" + "\n".join([line] * 40))
    second = StreamedReply("Objectives:\nThe aim of this study was to test whether a winter cover crop lowers the "
                           "soil water. [2]")  # fmt: skip
    model = StreamedReplies(first, second)
    texts = ArticleWriter(model, ClaimCheck(mode="ordered")).write("soil", "Cover crops", PASSAGES, "en")
    assert first.closed and first.read < 6
    again = model.asked[1][-1]["content"]
    assert "'Objectives:'" in again and "'Summary:'" not in again
    assert len(texts.texts["summary"].shown) == 1 and texts.texts["objectives"].shown


def test_the_writer_reads_the_abstract_without_keywords_and_the_conclusion_section_whole():
    """tests/data/articles/tuning/pt_html: its abstract ends with "Palavras-chave: …" (copied into a conclusion as a
    sentence before), its conclusion section has two sentences the reference's facts need; each passage names its
    section."""
    from pathlib import Path

    from rqrag.ingest import ingest_path
    from rqrag.review.article_passages import article_passages
    from rqrag.review.article_review import review_article
    from rqrag.review.reviewer import DocumentGroup

    ingested = ingest_path(Path(__file__).parent / "data" / "articles" / "tuning" / "pt_html" / "article.html")
    document = DocumentGroup(ingested.doc_id, ingested.name, ingested.name, article=ingested.article)
    review_article("atraso de notificação da dengue", document, "pt", None, per_field=1)
    passages = article_passages(document, "pt")
    assert passages[0].extra["section"] == "Resumo" and "Palavras-chave" not in passages[0].text
    conclusion = next(h for h in passages if h.extra.get("section") == "Conclusões")
    section = next(s for s in ingested.article["sections"] if s["role"] == "conclusion")
    assert conclusion.text == " ".join(" ".join(t for _, t in section["paragraphs"]).split())


def test_a_whole_abstract_copied_on_one_line_is_stopped_once_its_text_is_full():
    """The 1.5B copies a whole abstract on one line under "Objectives:": its sentences are read as they end, not when
    the line does, so the writing stops at the text's third sentence and the texts not reached are asked for."""
    sentences = ["We measured soil water under three inter-row managements over four seasons.",
                 "A winter cover terminated in early spring kept as much water at depth as bare soil.",
                 "The aim of this study was to test whether a winter cover crop lowers the soil water.",
                 "A winter cover terminated in early spring protects the soil without taking summer water."]  # fmt: skip
    words = " ".join(sentences * 3).split(" ")
    first = StreamedReply("Summary:\nWe measured soil water under three inter-row managements over four seasons. [1]"
                          "\nObjectives:")  # fmt: skip
    first.pieces += [word + " " for word in words]  # one line, written word by word
    rest = StreamedReply("Conclusions:\n" + sentences[3] + " [3]\nRelevance:\n" + sentences[1] + " [1]")
    model = StreamedReplies(first, rest)
    texts = ArticleWriter(model, ClaimCheck(mode="ordered")).write("soil", "Cover crops", PASSAGES, "en")
    assert len(texts.texts["objectives"].shown) == 3
    assert first.closed and first.read < 2 + len(words) / 3 + 10  # stopped within the fourth sentence
    assert len(model.asked) == 2 and texts.texts["conclusions"].shown and texts.texts["relevance"].shown
