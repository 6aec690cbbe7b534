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


def test_the_held_out_documents_as_measured_once():
    """Measured once, after tuning on t01-t14 (runs/front_matter/heldout_author_lines): 7 of 10 documents with title,
    every author and year right (4 of 10 before; the four new one-per-line papers 0 of 4 before, 3 of 4 after). The
    issue's bar is 9 of 10; the misses (h02's title, h05's last two authors, h09's name with "d'") stay as measured:
    a reader adjusted after reading them needs a new held-out set. This guards the figure from falling."""
    right = _measured("heldout")
    assert sum(right.values()) >= 7, right
