"""`rqrag review`: retrieval grouped by document under a cap, one structured LLM review per document (a real vLLM
chat endpoint on SmolLM2-135M-Instruct), and a failure that stays with its document."""

from __future__ import annotations

import json

import pytest

from rqrag.cli.commands import review as command
from rqrag.retrieval.base import Hit
from rqrag.retrieval.citations import page_ranges
from rqrag.review.review_markdown import render_markdown
from rqrag.review.reviewer import (
    REVIEW_FILE_SCHEMA,
    MalformedReview,
    group_by_document,
    parse_review,
    review_messages,
)
from rqrag.review.sources import index_language


TOPIC = "solar panel efficiency in hot climates"
GOOD = {
    "summary": "A field study of panels.",
    "objectives": ["measure losses"],
    "conclusions": [],
    "relevance_reason": "It measures efficiency in heat.",
    "relevance": "High",
}


def chunk(doc_id: str, n: int, text: str, page: int | None = None, **extra) -> dict:
    record = {"docid": f"{doc_id}-{n}", "title": doc_id.replace("-", " ").title(), "text": text, "doc_id": doc_id}
    if page is not None:
        record |= {"file": f"papers/{doc_id}.pdf", "page_start": page, "page_end": page + 1}
    return record | extra


# Four chunks of one paper (the cap keeps two), one chunk of a second, and a third document far too long for the
# served model's 2048-token context: its request is rejected, the others must still be reviewed.
CORPUS = [
    *(
        chunk(
            "heat-study",
            i,
            f"Solar panel efficiency drops in hot climates: part {i} of our field study in Arizona "
            f"measured panel temperature and output, finding losses of {i + 8} percent per summer.",
            page=2 * i + 1,
        )
        for i in range(4)
    ),
    chunk(
        "cooling-review", 0, "Passive cooling raises solar panel efficiency in hot desert climates by about 5 percent."
    ),
    chunk(
        "long-report", 0, "Solar panel efficiency in hot climates. " + "Panels lose output as cells heat up. " * 700
    ),
    chunk("unrelated", 0, "Sourdough bread needs a starter, flour, water and salt."),
]


# ---------------------------------------------------------------------------------- no endpoint needed


def test_chunks_are_grouped_by_document_under_the_cap():
    hits = [Hit(r["docid"], r["title"], r["text"], 1.0) for r in CORPUS[:5]]
    extras = [{k: v for k, v in r.items() if k not in ("docid", "title", "text")} for r in CORPUS[:5]]
    documents, over_cap = group_by_document(hits, extras, per_document=2)
    assert [d.key for d in documents] == ["heat-study", "cooling-review"] and over_cap == 2
    assert [c.rank for c in documents[0].chunks] == [1, 2] and documents[0].pages == [1, 2, 3, 4]
    assert documents[0].file == "papers/heat-study.pdf" and documents[1].file is None
    # Without document fields, chunks group by title.
    by_title, _ = group_by_document(hits[:2], [{}, {}], per_document=5)
    assert [d.key for d in by_title] == ["Heat Study"] and len(by_title[0].chunks) == 2


def test_replies_are_parsed_strictly():
    assert parse_review(json.dumps(GOOD))["relevance"] == "high"
    assert parse_review("```json\n" + json.dumps(GOOD) + "\n```")["summary"] == GOOD["summary"]
    for bad, reason in [
        ("not json", "not JSON"),
        ("[1]", "JSON object"),
        (json.dumps({**GOOD, "relevance": "very"}), "relevance must be one of"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "summary"}), "missing key"),
        (json.dumps({**GOOD, "objectives": "one"}), "list of strings"),
        (json.dumps({**GOOD, "summary": " "}), "non-empty"),
    ]:
        with pytest.raises(MalformedReview, match=reason):
            parse_review(bad)


def test_portuguese_instructions_and_report():
    hits = [Hit("a", "Estudo", "Painéis solares perdem eficiência no calor.", 1.0)]
    (document,), _ = group_by_document(hits, [{"page_start": 7}], per_document=5)
    system, user = review_messages("eficiência de painéis solares", document, "pt", passage_chars=500)
    assert "revisão de literatura" in system["content"] and "Tema da revisão" in user["content"]
    assert "(página 7)" in user["content"]
    document.review = parse_review(json.dumps({**GOOD, "conclusions": []}))
    record = {"topic": "t", "language": "pt", "chunks_retrieved": 1, "chunks_over_cap": 0, "documents": []}
    record["documents"] = [{"title": "Estudo", "file": None, "pages": [7], "review": document.review, "error": None}]
    text = render_markdown(record)
    assert "# Revisão de literatura" in text and "relevância: alta" in text and "**Páginas citadas:** 7" in text
    assert "não indicado nos trechos" in text  # the empty conclusions list is said, not left blank
    assert page_ranges([1, 2, 3, 5, 7, 8]) == "1-3, 5, 7-8"


def test_help_works(capsys):
    with pytest.raises(SystemExit) as exit_info:
        command.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "--per_document" in out and "--language" in out and "topic" in out


# ------------------------------------------------------------------------------- the real vLLM endpoint


@pytest.fixture(scope="module")
def paper_index(tmp_path_factory):
    from rqrag.retrieval.corpus_index import CorpusIndex
    from rqrag.retrieval.passages import passage_from_record

    out = tmp_path_factory.mktemp("review-corpus") / "index"
    CorpusIndex.build([passage_from_record(r) for r in CORPUS], out, modes=("bm25",), show_progress=False)
    return out


@pytest.mark.slow
@pytest.mark.vllm
def test_review_end_to_end(openai_server, paper_index, tmp_path, capsys):
    jsonschema = pytest.importorskip("jsonschema")
    out = tmp_path / "review"
    code = command.main(
        [TOPIC, "--index", str(paper_index), "--retrieval_mode", "bm25", "--k", "6", "--per_document", "2"]
        + ["--llm_base_url", openai_server.base_url, "--llm_model", openai_server.served_name]
        + ["--passage_chars", "40000", "--max_tokens", "500", "--max_field_chars", "100", "--out", str(out)]
    )
    printed = capsys.readouterr()
    record = json.loads((out / "review.json").read_text())
    jsonschema.validate(record, REVIEW_FILE_SCHEMA)
    documents = {d["key"]: d for d in record["documents"]}
    assert set(documents) == {"heat-study", "cooling-review", "long-report"}, printed
    assert record["chunks_retrieved"] == 6 and record["chunks_over_cap"] == 2
    assert all(len(d["chunks"]) <= 2 for d in documents.values())
    assert documents["heat-study"]["pages"] == [1, 2, 3, 4]
    # The over-long document failed alone, with the reason, and its fields are its own sentences, quoted with their
    # pages; the others were not lost.
    long_report = documents["long-report"]
    assert "rejected" in long_report["error"] and long_report["review"] is not None
    assert {f["origin"] for f in long_report["provenance"].values()} <= {"quoted", "retrieval"}
    assert "rejected" in long_report["provenance"]["summary"]["why"]
    assert code == 0, [d["error"] for d in documents.values()]
    markdown = (out / "review.md").read_text()
    assert markdown.count("\n## ") == len(documents)
    assert "**Pages cited:** 1-4" in markdown and "papers/heat-study.pdf" in markdown
    assert "quoted from the document" in markdown
    assert "entry_point: rqrag review" in (out / "resolved_config.yaml").read_text()
    assert "no model review for 'Long Report'" in printed.err and "quoted from it instead" in printed.err


def test_the_review_language_follows_the_index(tmp_path):
    (tmp_path / "meta.json").write_text(json.dumps({"language": "pt"}))
    assert index_language(tmp_path, [{}]) == "pt"
    assert index_language(None, [{"language": "pt-BR"}]) == "pt"
    assert index_language(None, [{}, {"language": "de"}]) is None  # no instructions in German: English


def test_review_json_repeats_each_renamed_key_under_its_former_name():
    """For one release review.json writes `kind` beside a field's `origin`, a section's `role` and a defect's
    `problem` (docs/review.md); what the run keeps for itself has the new names only."""
    from rqrag.review.reviewer import DocumentGroup, review_record

    document = DocumentGroup("a", "An article", "a.pdf")
    document.provenance = {"summary": {"origin": "quoted", "pages": [3], "why": "missing"}}
    quote = {"text": "We trained.", "page": 2, "section": "method", "heading": "2 Method", "origin": "quoted"}
    document.article_review = {
        "sections": [{"role": "method", "heading": "2 Method", "pages": [2]}],
        "fields": {"method": [quote]},
        "defects": [{"field": "method", "problem": "cut", "detail": "We tr"}],
    }
    (written,) = review_record(TOPIC, [document], "en", 1, 0)["documents"]
    assert written["provenance"]["summary"] == {"origin": "quoted", "kind": "quoted", "pages": [3], "why": "missing"}
    assert written["article"]["sections"] == [
        {"role": "method", "kind": "method", "heading": "2 Method", "pages": [2]}
    ]
    assert written["article"]["fields"]["method"] == [{**quote, "kind": "quoted"}]
    assert written["article"]["defects"] == [{"field": "method", "problem": "cut", "kind": "cut", "detail": "We tr"}]
    assert "kind" not in document.provenance["summary"] and "kind" not in document.article_review["defects"][0]
