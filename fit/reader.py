"""Fit the reader (sentence and span scorers) on training ids, report it on held-back ones, and save it.

    RQRAG_BENCHMARKS_DIR=<full benchmark files> rqrag fit reader runs/trees/train \
        --documents golden second --out models/reader

Reads every `predictions.jsonl` under the given folders (`rqrag eval --split train`: the default model's trees on
training ids, made by scripts/verifier_trees.sh; eval ids are refused), adds each question's own BM25 search of its
candidate paragraphs when the record does not keep it, and with `--documents` the tuning manuals' questions over
their own library (the golden Debian Edu manual, the Calc guide; never the held-out set). Prints and writes the
out-of-fold report (5 folds by question) beside a baseline: the extractive answerer's hand-set sentence score.
Writes `reader.json`, `report.json` and `resolved_config.yaml` to --out.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from rqrag.config_loader import save_resolved_config


def main(argv=None, prog: str = "rqrag fit reader") -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("trees", nargs="*", type=Path, help="folders of `rqrag eval --split train` predictions")
    parser.add_argument("--documents", nargs="*", default=[], choices=["golden", "second"], help="tuning manuals")
    parser.add_argument("--k", type=int, default=3, help="hits of the question's own search")
    parser.add_argument("--C", type=float, default=1.0, help="inverse L2 strength of both logistic models")
    parser.add_argument("--out", type=Path, default=Path("models/reader"), help="output folder")
    parser.add_argument(
        "--reads_cache",
        type=Path,
        default=None,
        help="pickle of the featurised training trees: read if it exists, else written (rqrag fit verifier "
        "--reader_reads reads it to give the verifier out-of-fold reader features without embedding again)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from rqrag.answer.reading.span_reader import Reader
    from rqrag.eval.saved_trees import load_trees
    from rqrag.fit.reader_fit import featurise, fit_reader, load_reads, own_searches, save_reads, tree_items

    if args.reads_cache is not None and args.reads_cache.is_file():
        items, reads = load_reads(args.reads_cache)
    else:
        trees = load_trees(args.trees)
        items = tree_items(trees, own_searches(trees, args.k)) if trees else []
        reads = featurise(items, Reader(None))
        if args.reads_cache is not None:
            save_reads(args.reads_cache, items, reads)
    if args.documents:
        from rqrag.fit.reader_documents import document_items

        more = document_items(args.documents)
        items, reads = list(items) + more, list(reads) + featurise(more, Reader(None))
    if not items:
        parser.error("nothing to fit on: give tree folders and/or --documents")
    report, model = fit_reader(items, C=args.C, reads=reads)
    args.out.mkdir(parents=True, exist_ok=True)
    model.save(args.out)
    (args.out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    save_resolved_config(args.out, "rqrag fit reader")  # the command line and git commit
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
