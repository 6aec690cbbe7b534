"""The reader's Portuguese training questions: the two tuning manuals, asked over their own library.

Only the golden Debian Edu manual (40 questions) and the LibreOffice Calc guide (20) are read here: the held-out
set 3 (`tests/data/heldout_pt`) is never fitted or tuned on, and `document_items` refuses it. Each question is
searched as `rqrag serve` searches it by default (hybrid, `docs_per_search` 3 passages, chunks of 1000/150
characters), and its sentences are labelled by the question's key facts and golden evidence quote
(`reader_fit.sentence_label`).

    items = document_items(["golden", "second"])     # ReadItem per question, language "pt"
"""

from __future__ import annotations

from pathlib import Path

from rqrag.eval.golden import load_questions
from rqrag.fit.reader_fit import ReadItem


ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "reader_documents"
TUNING_SETS = {  # name: (PDF, questions, key facts by id)
    "golden": (
        ROOT / "data" / "documents" / "pt" / "debian-edu-bookworm-manual.pdf",
        ROOT / "tests" / "data" / "golden_pt" / "debian_edu_golden.jsonl",
        ROOT / "tests" / "data" / "golden_pt" / "debian_edu_key_facts.jsonl",
    ),
    "second": (
        ROOT / "tests" / "data" / "second_pt" / "libreoffice_calc_guia_pt_br.pdf",
        ROOT / "tests" / "data" / "second_pt" / "questions.jsonl",
        None,
    ),
}
HELD_OUT = ROOT / "tests" / "data" / "heldout_pt"


def library_for(name: str, pdf: Path, k_chunk: tuple[int, int] = (1000, 150)):
    """The manual's library (built once, kept under .cache/), with the served default chunking."""
    from rqrag.ingest.chunking import ChunkingConfig
    from rqrag.ingest.libraries import open_library

    library = open_library(
        CACHE / f"{name}-{k_chunk[0]}-{k_chunk[1]}",
        chunking=ChunkingConfig(chunk_size=k_chunk[0], chunk_overlap=k_chunk[1]),
        language="pt",
    )
    if pdf.name not in {record["name"] for record in library.list()}:
        library.add(pdf.read_bytes(), pdf.name)
    return library


def document_items(sets, k: int = 3, mode: str = "hybrid") -> list[ReadItem]:
    """A `ReadItem` for every question of the named tuning sets, with the passages a served question reads."""
    items = []
    for name in sets:
        if name not in TUNING_SETS:
            raise ValueError(
                f"{name!r} is not a tuning set ({sorted(TUNING_SETS)}): held-out documents are never fitted on"
            )
        pdf, path, facts = TUNING_SETS[name]
        if HELD_OUT in path.parents:
            raise ValueError(f"{path} is held out")
        library = library_for(name, pdf)
        retriever = library.retriever(mode)
        questions = load_questions(path, facts)
        found = retriever.batch_search([q["question"] for q in questions], k)
        for question, hits in zip(questions, found):
            items.append(
                ReadItem(
                    f"{name}:{question['id']}",
                    name,
                    question["question"],
                    list(hits),
                    key_facts=list(question.get("key_facts") or []),
                    evidence=[e["quote"] for e in question.get("evidence", [])],
                    language="pt",
                )
            )
        library.close()
    return items
