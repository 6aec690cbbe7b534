"""Cleaning, on the real Debian Edu manual (pt-BR) and on small hand-made pages for each rule.

Facts about the manual these tests rely on: its running header is the first line of pages 2-104
("Manual do Debian Edu/Skolelinux 12 Bookworm N / 98", roman numerals on pages 2-6), pages 2-6 are the
table of contents, and the golden quotes of tests/data/golden_pt were copied from its body text.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from manual import GOLDEN, MANUAL

from rqrag.ingest.clean import (
    clean_pages,
    dehyphenate,
    edge_line_key,
    is_page_number_line,
    is_toc_page,
    match_form,
    normalise_characters,
    paragraphs,
)
from rqrag.ingest.extract import Page, extract_pages


@pytest.fixture(scope="module")
def raw_pages():
    if not MANUAL.is_file():
        pytest.skip(f"shared data not found: {MANUAL}")
    return extract_pages(MANUAL)


@pytest.fixture(scope="module")
def cleaned(raw_pages):
    return {page.number: page.text for page in clean_pages(raw_pages)}


def golden_evidence() -> list[tuple[int, str]]:
    records = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(int(item["page"]), item["quote"]) for record in records for item in record["evidence"]]


# ------------------------------------------------------------------------------------------ the manual


@pytest.mark.slow
def test_running_header_is_gone_from_every_page(raw_pages, cleaned):
    header = re.compile(r"Manual do Debian Edu/Skolelinux 12 Bookworm\s+(\d+ / 98|[ivx]+)\b")
    assert sum(bool(header.search(page.text)) for page in raw_pages) >= 100  # it was there
    assert [number for number, text in cleaned.items() if header.search(text)] == []
    assert [number for number, text in cleaned.items() if re.search(r"\b\d{1,3} / 98\b", text)] == []


@pytest.mark.slow
def test_table_of_contents_pages_are_skipped(cleaned):
    assert not set(cleaned) & {2, 3, 4, 5, 6}
    assert {1, 7, 8, 104} <= set(cleaned)
    assert not any(re.search(r"(\. ?){6,}", text) for text in cleaned.values())


@pytest.mark.slow
def test_hyphenated_line_breaks_are_joined(raw_pages, cleaned):
    everything = "\n".join(cleaned.values())
    raw = "\n".join(page.text for page in raw_pages)
    for split, word in (("dis-\nponibilizados", "disponibilizados"), ("com-\nputador", "computador")):
        assert split in raw
        assert word in everything
        assert split.replace("\n", " ") not in everything and split not in everything
    assert "/etc/-\nsamba" in raw and "/etc/samba" in everything


@pytest.mark.slow
def test_wrapped_code_lines_lose_the_arrow_but_keep_their_break(raw_pages, cleaned):
    raw_arrow_pages = [page.number for page in raw_pages if "←" in page.text]
    assert {68, 80, 81, 82, 86, 92} <= set(raw_arrow_pages)
    for number in raw_arrow_pages:
        assert "←" not in cleaned[number]
    # A wrapped code line is continued on the next line, not glued to it with a hyphen dropped.
    assert not re.search(r"[^\W\d_]←-\n", "".join(cleaned.values()))
    assert sum(text.count("\n") - 2 * text.count("\n\n") for text in cleaned.values()) > 0


@pytest.mark.slow
def test_golden_quotes_are_on_their_page_after_cleaning(cleaned):
    evidence = golden_evidence()
    missed = [(page, quote) for page, quote in evidence if match_form(quote) not in match_form(cleaned.get(page, ""))]
    assert len(missed) <= 0.05 * len(evidence), missed


@pytest.mark.slow
def test_no_ligatures_or_curly_quotes_survive(cleaned):
    everything = "".join(cleaned.values())
    assert not re.search("[\ufb00-\ufb06“”‘’\u00ad]", everything)


# ----------------------------------------------------------------------------------------- single rules


def test_character_normalisation():
    assert normalise_characters("ﬁcheiro “aspas” d’água\u00a0x\u00adz") == 'ficheiro "aspas" d\'água xz'


def test_edge_line_key_masks_arabic_and_roman_page_numbers():
    assert edge_line_key("Manual 12 Bookworm 3 / 98") == edge_line_key("Manual 12 Bookworm iv")
    assert edge_line_key("Capítulo 3") != edge_line_key("Capítulo Três")
    assert edge_line_key("civil") == "civil"  # not a roman numeral


def test_page_number_lines():
    for line in ("12", " 7 ", "iv", "3 / 98", "Página 4", "page 5 of 9"):
        assert is_page_number_line(line), line
    for line in ("1024 MiB", "civil", "Capítulo 3", ""):
        assert not is_page_number_line(line), line


def test_repeated_footer_and_page_numbers_are_removed_but_body_stays():
    bodies = ["Alfa vem primeiro.", "Beta vem depois.", "Gama é a terceira.", "Delta fecha.", "Épsilon sobra."]
    pages = [Page(n, f"Relatório anual\n{body}\nConfidencial - página {n}\n{n}") for n, body in enumerate(bodies, 1)]
    cleaned = clean_pages(pages)
    assert [page.number for page in cleaned] == [1, 2, 3, 4, 5]
    assert [page.text for page in cleaned] == bodies


def test_two_pages_are_too_few_to_call_a_line_repeated():
    pages = [Page(1, "Introdução\nPrimeira página."), Page(2, "Introdução\nSegunda página.")]
    assert [page.text for page in clean_pages(pages)] == [
        "Introdução\n\nPrimeira página.",
        "Introdução\n\nSegunda página.",
    ]


def test_toc_detection():
    toc = ["Sumário"] + [
        f"{i}.{j} Seção de exemplo . . . . . . . . {3 * i + j}" for i in range(1, 4) for j in range(3)
    ]
    assert is_toc_page(toc)
    numbered = ["Sumário"] + [f"{i} Capítulo {i} {10 * i}" for i in range(1, 9)]
    assert is_toc_page(numbered)
    memory_table = ["Memória por perfil", "Servidor 2048", "Estação 1024", "Cliente 512", "Thin 256", "Diskless 4096"]
    assert not is_toc_page(memory_table)  # numbers do not ascend: a table, not a TOC
    assert not is_toc_page(["Um parágrafo comum que termina em ponto.", "Outro parágrafo."])


def test_dehyphenation_rules():
    vocab = Counter({"guarda-chuva": 2})
    assert dehyphenate("os arquivos são dis-", "ponibilizados aqui", vocab) == "os arquivos são disponibilizados aqui"
    assert dehyphenate("em /etc/-", "samba.", vocab) == "em /etc/samba."
    assert dehyphenate("um guarda-", "chuva", vocab) == "um guarda-chuva"
    assert dehyphenate("é preciso instalá-", "lo antes", vocab) == "é preciso instalá-lo antes"
    assert dehyphenate("código ←-", "continua", vocab) is None
    assert dehyphenate("---", "Servidor", vocab) is None
    assert dehyphenate("HTTP-", "based", vocab) is None  # not a lowercase letter before the hyphen
    assert dehyphenate("com-", "Linux", vocab) is None  # not a lowercase letter after


def test_lines_become_paragraphs():
    lines = [
        "1.2 Sobre o Debian Edu",
        "O projeto começou na Noruega e hoje é usado em escolas de",
        "vários países, com traduções para muitos idiomas.",
        "Ele oferece:",
        "• um servidor principal;",
        "• estações de trabalho.",
        "",
        "Outro parágrafo com com-",
        "putador no meio.",
        "sudo apt install um-pacote-com-nome-muito-longo ←-",
        "--yes",
    ]
    result = paragraphs(lines, full_width=66, vocab=Counter())
    assert result == [
        "1.2 Sobre o Debian Edu",
        "O projeto começou na Noruega e hoje é usado em escolas de vários países, com traduções para muitos idiomas.",
        "Ele oferece:",
        "• um servidor principal;",
        "• estações de trabalho.",
        "Outro parágrafo com computador no meio.",
        "sudo apt install um-pacote-com-nome-muito-longo\n--yes",
    ]
