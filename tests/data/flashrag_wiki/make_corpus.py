"""Write corpus.jsonl: 200 paragraphs of the embedded corpus in FlashRAG's wiki-18 layout.

    .venv/bin/python tests/data/flashrag_wiki/make_corpus.py

Every 53rd record of `rqrag/retrieval/data/wiki_paragraphs.jsonl.gz` (records sorted by title, so the sample
spreads over the alphabet), as `{"id": "N", "contents": "\\"Title\\"\\nText"}`: the title quoted on the first
line, as in FlashRAG's wiki-18 dump.
"""

import gzip
import json
from pathlib import Path


HERE = Path(__file__).parent
SOURCE = HERE.parents[2] / "rqrag" / "retrieval" / "data" / "wiki_paragraphs.jsonl.gz"

with gzip.open(SOURCE, "rt", encoding="utf-8") as f:
    records = [json.loads(line) for line in f]
picked = records[::53][:200]
with (HERE / "corpus.jsonl").open("w", encoding="utf-8") as out:
    for number, record in enumerate(picked):
        contents = f'"{record["title"]}"\n{record["text"]}'
        out.write(json.dumps({"id": str(number), "contents": contents}, ensure_ascii=False) + "\n")
