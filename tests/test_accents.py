"""Accents put back on their letters (rqrag.ingest.accents) in PDF text from LaTeX's OT1 encoding.

    python -m pytest tests/test_accents.py -q

The fixture (`tests/data/latex_pt/acentos.pdf`, its source beside it) is a Portuguese page built with pdflatex and
no T1 font encoding: its text layer carries 67 accents apart from their letters, one of them out of reading order.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from rqrag.ingest.accents import broken_words, recompose_accents
from rqrag.ingest.clean import clean_pages
from rqrag.ingest.extract import extract_pdf_pages


LATEX_PDF = Path(__file__).parent / "data" / "latex_pt" / "acentos.pdf"
WORDS = ["Introdução", "seção", "informações", "música", "Você", "decisões", "São Paulo", "Belém", "Florianópolis",
         "análise", "rítmicos", "critérios", "inéditas", "síncope", "É necessário", "à coordenação", "possível"]  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "whole"),
    [
        ("Introdu¸c˜ao", "Introdução"),  # OT1 order: the accent before its letter
        ("m´usica e vocˆe", "música e você"),
        ("informa ̧c ̃oes", "informações"),  # after NFKC: a space and a combining mark
        ("m ́usica", "música"),
        ("pa´ıs", "país"),  # LaTeX's dotless i under the acute
        ("c¸ao", "çao"),  # a producer that puts the cedilla after its letter
        ("`a coordena¸c˜ao", "à coordenação"),  # OT1's grave is the ASCII backquote
        ("visı\u0301veis e polı\u0301gono", "visíveis e polígono"),  # pdftotext: dotless i + combining acute
    ],
)
def test_separated_accents_are_recomposed(raw, whole):
    assert recompose_accents(raw) == whole
    assert broken_words(raw) > 0 or "`" in raw or "\u0131" in raw
    assert broken_words(whole) == 0


@pytest.mark.parametrize(
    "kept", ["~/.bashrc", "`apt update`", "rock´n´roll", "echo `date`", "a ~ b", "preço: R$ 10", "x^2 + y^2"]
)
def test_code_and_marks_that_accent_nothing_are_left_alone(kept):
    assert recompose_accents(kept) == kept


def test_the_latex_page_extracts_with_every_word_whole():
    raw = extract_pdf_pages(LATEX_PDF.read_bytes(), LATEX_PDF.name)
    cleaned = "\n".join(page.text for page in clean_pages(raw))
    assert broken_words(cleaned) == 0, cleaned
    assert cleaned == unicodedata.normalize("NFC", cleaned)
    for word in WORDS:
        assert word in cleaned, (word, cleaned)


def test_the_raw_text_layer_is_broken_so_the_fixture_means_something():
    import pypdf

    layer = pypdf.PdfReader(LATEX_PDF).pages[0].extract_text()
    assert broken_words(layer) >= 60 and "música" not in layer
