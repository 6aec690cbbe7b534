"""Answers a person reads over their own PDF, through a real `rqrag serve`: key facts found, echoes, language,
citations.

    python scripts/eval_document_answers.py                                         # the golden manual, 40 questions
    python scripts/eval_document_answers.py --pdf tests/data/second_pt/libreoffice_calc_guia_pt_br.pdf \
        --questions tests/data/second_pt/questions.jsonl --out runs/answers/second_pt    # the held-out document
    python scripts/eval_document_answers.py --extra "--no_grounded"                  # the model's answers, unchecked
    python scripts/eval_document_answers.py --set heldout --out runs/answers/heldout_pt   # held-out set 3: 3 PDFs, 64 q

Starts the server on localhost with the default serve config (the shipped model, the `documents` retriever first,
the library's language detected from the PDFs), uploads the PDFs through `POST /v1/documents` into one library
(`--set heldout`: the three of tests/data/heldout_pt, each question naming its `document`), asks every question on
`/v1/ask`, and scores each answer by the key facts it must contain (accent- and case-folded substrings), whether
it says the question back, whether it is in the question's language (Portuguese), and whether it cites a source
holding the golden page. Writes answers.jsonl, summary.json and the resolved flags to --out; prints the table.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

from rqrag.eval.golden import load_questions
from rqrag.serve.server.process import RQRAGServer
from rqrag.text.text_quality import echoes, fold, guess_language


ROOT = Path(__file__).resolve().parents[1]
MANUAL = ROOT / "data" / "documents" / "pt" / "debian-edu-bookworm-manual.pdf"
GOLDEN = ROOT / "tests" / "data" / "golden_pt" / "debian_edu_golden.jsonl"
KEY_FACTS = ROOT / "tests" / "data" / "golden_pt" / "debian_edu_key_facts.jsonl"
SECOND = ROOT / "tests" / "data" / "second_pt"
HELDOUT = ROOT / "tests" / "data" / "heldout_pt"
SETS = {  # --set NAME: (PDFs, question files)
    "golden": ([MANUAL], [GOLDEN]),
    "second": ([SECOND / "libreoffice_calc_guia_pt_br.pdf"], [SECOND / "questions.jsonl"]),
    "heldout": (sorted(HELDOUT.glob("*.pdf")), sorted(HELDOUT.glob("questions_*.jsonl"))),
}


def questions_with_key_facts(path: Path, key_facts: Path | None) -> list[dict]:
    """The golden questions of `path`; each must have key facts (its own, or by id from `key_facts`)."""
    questions = load_questions(path, key_facts)
    missing = [q["id"] for q in questions if not q.get("key_facts")]
    if missing:
        raise SystemExit(f"questions without key facts: {missing}")
    return questions


def has_fact(answer: str, fact: str) -> bool:
    return " ".join(fold(fact).split()) in " ".join(fold(answer).split())


def upload(client: httpx.Client, pdf: Path) -> dict:
    accepted = client.post("/v1/documents", files={"file": (pdf.name, pdf.read_bytes(), "application/pdf")})
    accepted.raise_for_status()
    job_id = accepted.json()["job_id"]
    while (job := client.get(f"/v1/documents/jobs/{job_id}").json())["status"] not in ("done", "failed"):
        time.sleep(1)
    if job["status"] != "done":
        raise SystemExit(f"ingestion failed: {job}")
    return job


def score(question: dict, body: dict) -> dict:
    answer = body.get("answer") or ""
    # What a person reads: the answer, then the sentence quoted under it (a short answer's quote states it in full;
    # a quoted answer is its own quote). Key facts count wherever in that they are, as HotpotQA's "holds gold" does.
    quote = (body.get("quote") or {}).get("text") or ""
    if body.get("answer_kind") == "written":  # under a written answer: each cited source's sentence, verbatim
        quote = "\n".join(s["quote"] for s in body.get("sources") or [] if s.get("cited") and s.get("quote"))
    read = answer if not quote or quote in answer else f"{answer}\n{quote}"
    pages = {e["page"] for e in question.get("evidence", [])}
    sources = body.get("sources") or []
    cited = [s for s in sources if s.get("cited")]
    facts = question["key_facts"]
    return {
        "id": question["id"],
        "category": question.get("category"),
        "question": question["question"],
        "answer": answer,
        "answer_kind": body.get("answer_kind"),
        "generated_answer": body.get("generated_answer"),
        "key_facts": facts,
        "quote": quote,
        "facts_found": [f for f in facts if has_fact(read, f)],
        "all_facts": all(has_fact(read, f) for f in facts),
        "any_fact": any(has_fact(read, f) for f in facts),
        "echo": echoes(answer, question["question"]),
        "language": guess_language(answer),
        "cited": bool(cited),
        "cites_golden_page": any(
            s.get("page_start", 0) <= p <= s.get("page_end", -1)
            and (not question.get("document") or s.get("file") in (None, question["document"]))
            for s in cited
            for p in pages
        ),
        "words": len(answer.split()),
        "seconds": body.get("timings", {}).get("request_seconds"),  # the server's span for the request
        "first_sentence_seconds": body.get("timings", {}).get("first_sentence_seconds"),
        "written": body.get("written"),  # the writer's sentences, shown and dropped, each with its check
        # What the model's own refinements were worth: searched (a step after the question's own search), or
        # guarded and why (a query in another language than the question's, one that loops, ...).
        "refinements_searched": len(
            {s["text"] for t in body.get("trajectories", []) for s in t["steps"][1:] if s["action"] != "answer"}
        ),
        "refinements_guarded": [g["reason"] for g in (body.get("guarded") or {}).values()],
        "sources": [{k: s.get(k) for k in ("file", "page_start", "page_end", "cited")} for s in sources],
    }


def summarize(rows: list[dict]) -> dict:
    n = len(rows)
    by_kind: dict[str, int] = {}
    for r in rows:
        by_kind[r["answer_kind"]] = by_kind.get(r["answer_kind"], 0) + 1
    return {
        "questions": n,
        "key_facts_all": round(sum(r["all_facts"] for r in rows) / n, 3),
        "key_facts_any": round(sum(r["any_fact"] for r in rows) / n, 3),
        "echoes": sum(r["echo"] for r in rows),
        "other_language": sum(r["language"] not in (None, "pt") for r in rows),
        "with_citation": sum(r["cited"] for r in rows),
        "cites_golden_page": sum(r["cites_golden_page"] for r in rows),
        "answer_kinds": by_kind,
        # How long what the reader reads is, for quotes (a quote should say the answer, not the whole page).
        "quoted_median_words": statistics.median([r["words"] for r in rows if r["answer_kind"] == "quoted"] or [0]),
        # Of the answers of each kind, the share holding all their key facts: is the label right?
        "all_facts_by_kind": {
            kind: round(sum(r["all_facts"] for r in rows if r["answer_kind"] == kind) / count, 3)
            for kind, count in by_kind.items()
        },
        "seconds_per_question": round(sum(r["seconds"] or 0 for r in rows) / n, 2),
        "median_seconds": statistics.median([r["seconds"] or 0 for r in rows]),
        "median_first_sentence_seconds": statistics.median(
            [r["first_sentence_seconds"] for r in rows if r["first_sentence_seconds"] is not None] or [0]
        ),
        "written_sentences_shown": sum(len((r["written"] or {}).get("shown", [])) for r in rows),
        "written_sentences_dropped": sum(len((r["written"] or {}).get("dropped", [])) for r in rows),
        "refinements_searched": sum(r["refinements_searched"] for r in rows),
        "refinements_guarded": dict(Counter(reason for r in rows for reason in r["refinements_guarded"])),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=sorted(SETS), default=None, help="a known set: its PDFs and questions")
    parser.add_argument("--pdf", type=Path, nargs="+", default=[MANUAL], help="the documents to upload")
    parser.add_argument(
        "--questions", type=Path, nargs="+", default=[GOLDEN], help="JSONL files: id, question, evidence, key_facts"
    )
    parser.add_argument("--key_facts", type=Path, default=KEY_FACTS, help="JSONL of {id, key_facts} (golden set)")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "answers" / "golden_pt", help="output folder")
    parser.add_argument("--extra", default="", help='more `rqrag serve` flags, e.g. "--backend chat ..."')
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    args = parser.parse_args(argv)

    if args.set:
        args.pdf, args.questions = SETS[args.set]
    questions = [
        q
        for path in args.questions
        for q in questions_with_key_facts(path, args.key_facts if path == GOLDEN else None)
    ][: args.limit]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "resolved_config.json").write_text(json.dumps({k: str(v) for k, v in vars(args).items()}, indent=2))
    with tempfile.TemporaryDirectory() as tmp:
        flags = ["--retrievers", "documents", "corpus", "--documents_dir", f"{tmp}/libraries"]
        server = RQRAGServer(Path(tmp), Path(tmp) / "conversations.db", [*flags, *shlex.split(args.extra)])
        rows, uploads = [], {}
        try:
            with httpx.Client(base_url=server.base, timeout=1800) as client:
                for pdf in args.pdf:
                    job = upload(client, pdf)
                    uploads[pdf.name] = job.get("result")
                    print(f"uploaded {pdf.name}: {job.get('result')}", file=sys.stderr)
                with (args.out / "answers.jsonl").open("w") as out:
                    for i, question in enumerate(questions, 1):
                        ask = {"question": question["question"], "return_trajectories": True}
                        reply = client.post("/v1/ask", json=ask)
                        reply.raise_for_status()
                        row = score(question, reply.json())
                        rows.append(row)
                        out.write(json.dumps(row, ensure_ascii=False) + "\n")
                        out.flush()
                        mark = "✓" if row["all_facts"] else "✗"
                        print(
                            f"[{i}/{len(questions)}] {mark} {row['answer_kind']}: {row['answer'][:110]!r}",
                            file=sys.stderr,
                        )
        finally:
            server.stop()
    summary = summarize(rows)
    # What each upload was read as: its language (detected, with how sure), pages and chunks.
    summary["uploads"] = uploads
    documents = sorted({q.get("document") for q in questions if q.get("document")})
    if len(documents) > 1:
        of = {q["id"]: q.get("document") for q in questions}
        summary["by_document"] = {d: summarize([r for r in rows if of[r["id"]] == d]) for d in documents}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
