"""A paper's authors one per line under its title, each followed on that line by an affiliation in brackets or
parentheses, an e-mail, an ORCID or a mark (rqrag/ingest/front_matter.py `_authors`, Markdown lines kept by
rqrag/ingest/article_layout.py). Fixtures: tests/data/front_matter (t11-t14 tuning, h07-h10 held out, written
before the reader was changed)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rqrag.ingest.front_matter import _authors


ROOT = Path(__file__).resolve().parents[1]
SETS = ROOT / "tests" / "data" / "front_matter"
TITLE = "A Study of Something"


@pytest.mark.parametrize(
    ("lines", "names"),
    [
        (["Ana Beatriz Fontes   [Departamento de Física | Universidade do Norte]",
          "Caio Morato   [Instituto de Geociências | Universidade do Sul]"], ["Ana Beatriz Fontes", "Caio Morato"]),
        (["Maya R. Okafor (Department of Statistics, University of", "Westbrook)", "Henrik Dahlgren (Norrvik University)"],
         ["Maya R. Okafor", "Henrik Dahlgren"]),  # an affiliation wrapped onto the next line is not a name
        (["Juliana Prado Menezes — juliana@ufvr.edu.br", "Otávio Lins Carvalho <otavio@ufvr.edu.br>"],
         ["Juliana Prado Menezes", "Otávio Lins Carvalho"]),
        (["Renata Siqueira Lobo", "1 https://orcid.org/0000-0001-5432-1098", "Gustavo Ferraz Arantes",
          "2 https://orcid.org/0000-0003-2211-7788", "1Departamento de Engenharia Civil, Universidade Federal"],
         ["Renata Siqueira Lobo", "Gustavo Ferraz Arantes"]),  # the marks printed apart, the ORCID on its own line
        (["Lívia Barros · ORCID 0000-0002-7788-1122", "Samuel K. Adeyemi* <s.adeyemi@harrow.ac.uk>"],
         ["Lívia Barros", "Samuel K. Adeyemi"]),
    ],
)  # fmt: skip
def test_each_name_is_read_whatever_follows_it_on_its_line(lines, names):
    assert _authors(lines, TITLE) == names


def test_a_name_with_an_elided_particle_and_marks_after_a_comma_are_names():
    """Found reading the first held-out set's misses (h05, h09), written here in other words: "d'Almeida" is a name's
    last word, and "Lins1,2" carries two marks, neither of which ends the list of names."""
    lines = ["Joana Prates d'Almeida · ORCID 0000-0002-1111-2222", "Tomás Viana D'Ângelo <tomas@uvr.br>"]
    assert _authors(lines, TITLE) == ["Joana Prates d'Almeida", "Tomás Viana D'Ângelo"]
    printed = [
        "Olga Mendes-Prado1†",
        ", Kofi Boateng2†",
        ", Ana Clara da Rosa Leme1,2",
        ",",
        "Peter Nolan3",
        "1Instituto de Biologia, Universidade do Planalto 2School of Life Sciences, Westbrook University",
    ]
    assert _authors(printed, TITLE) == ["Olga Mendes-Prado", "Kofi Boateng", "Ana Clara da Rosa Leme", "Peter Nolan"]


def test_a_catalogue_cards_title_broken_after_its_colon_is_read_whole():
    """A card whose title runs over two paragraphs, broken after the colon before the subtitle (h02's miss, in
    other words): the subtitle alone was taken for the title."""
    from rqrag.ingest.front_matter import _catalogue_card

    paragraphs = [(3, "Dados Internacionais de Catalogação na Publicação (CIP)"),
                  (3, "S586m Silveira, Marta Queiroz da"),
                  (3, "A pesca artesanal no litoral do Piauí:"),
                  (3, "saberes e conflitos / Marta Queiroz da Silveira. – Teresina, 2021."),
                  (3, "112 f. : il.")]  # fmt: skip
    title, authors, year = _catalogue_card(paragraphs)
    assert title == "A pesca artesanal no litoral do Piauí: saberes e conflitos", title
    assert authors == ["Marta Queiroz da Silveira"] and year == 2021


def test_a_department_in_brackets_alone_is_not_an_author():
    assert _authors(["[Departamento de Física | Universidade do Norte]"], TITLE) == []


def _measured(set_name: str) -> dict[str, bool]:
    sys.path.insert(0, str(ROOT / "scripts"))
    from eval_front_matter import read, score

    golds = [json.loads(line) for line in (SETS / set_name / "gold.jsonl").read_text().splitlines() if line]
    return {g["id"]: all(score(g, read(SETS / set_name / g["file"])).values()) for g in golds}


def test_every_tuning_document_reads_its_title_every_author_and_year():
    right = _measured("tuning")
    assert all(right.values()), [k for k, v in right.items() if not v]


def test_the_held_out_documents_as_measured():
    """heldout/ (h01-h10) was measured once after tuning on t01-t14: 7 of 10 (title, every author and year right).
    Its three misses were then read and fixed (the tests above), so it is tuning data now: 10 of 10. heldout2/
    (h11-h14), written before that fix and scored then (4 of 4), measures it: still 4 of 4 after. This guards both
    figures from falling."""
    assert all(_measured("heldout").values())
    right = _measured("heldout2")
    assert all(right.values()), right
