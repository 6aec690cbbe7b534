"""How often the front matter is read right: title, authors (the first, and every one in order) and year of the
front-matter fixture set.

    python scripts/eval_front_matter.py --set tuning            # the documents the reader was tuned on
    python scripts/eval_front_matter.py --set heldout           # measured once, at the end (never tuned on)
    python scripts/eval_front_matter.py --set heldout2          # written before the reader was tuned on heldout's misses
    python scripts/eval_front_matter.py --set tuning --out runs/front_matter

Each document of tests/data/front_matter/<set> goes through the ingestion a library uses (extract, clean, read the
article: `rqrag.ingest.pipeline.ingest_bytes`); its title, authors and year are compared with the set's
gold.jsonl, case, accents, spacing and end punctuation aside. Prints one line per document (the misses with what
was read) and the share right for each field and for all three; writes results.jsonl and the resolved config to
`--out` when given.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
SETS = ROOT / "tests" / "data" / "front_matter"


@dataclass
class EvalConfig:
    set: str = "tuning"
    out: str | None = None


def folded(text: str | None) -> str:
    text = unicodedata.normalize("NFKD", str(text or "")).encode("ascii", "ignore").decode().lower()
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


def read(path: Path) -> dict:
    from rqrag.ingest.pipeline import ingest_bytes

    ingested = ingest_bytes(path.read_bytes(), path.name)
    article = ingested.article or {}
    return {"title": article.get("title"), "authors": article.get("authors") or [], "year": article.get("year"),
            "article": bool(ingested.article)}  # fmt: skip


def score(gold: dict, got: dict) -> dict:
    first = got["authors"][0] if got["authors"] else None
    return {
        "title": folded(got["title"]) == folded(gold["title"]),
        "first_author": folded(first) == folded(gold["authors"][0]),
        "every_author": [folded(a) for a in got["authors"]] == [folded(a) for a in gold["authors"]],
        "year": got["year"] == gold["year"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="tuning", choices=["tuning", "heldout", "heldout2"])
    parser.add_argument("--out", default=None, help="folder for results.jsonl and the resolved config")
    config = EvalConfig(**vars(parser.parse_args(argv)))
    golds = [json.loads(line) for line in (SETS / config.set / "gold.jsonl").read_text().splitlines() if line]
    rows = []
    for gold in golds:
        got = read(SETS / config.set / gold["file"])
        right = score(gold, got)
        rows.append({"id": gold["id"], "file": gold["file"], **right, "read": got})
        mark = "ok  " if all(right.values()) else "MISS"
        print(
            f"{mark} {gold['id']:4} {gold['format']:4} " + " ".join(k for k, v in right.items() if not v), flush=True
        )
        if not all(right.values()):
            print(f"       title  {got['title']!r}\n       gold   {gold['title']!r}")
            print(f"       authors {got['authors']} / gold {gold['authors']}; year {got['year']} / {gold['year']}")
    n = len(rows)
    for field in ("title", "first_author", "every_author", "year"):
        print(f"{field:13} {sum(r[field] for r in rows)}/{n} = {sum(r[field] for r in rows) / n:.0%}")
    everything = sum(r["title"] and r["every_author"] and r["year"] for r in rows)
    print(f"{'title, every author, year':13} {everything}/{n} = {everything / n:.0%}")
    if config.out:
        from rqrag.config_loader import save_resolved_config

        out = Path(config.out)
        out.mkdir(parents=True, exist_ok=True)
        save_resolved_config(out, "scripts/eval_front_matter.py", config)
        (out / "results.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
