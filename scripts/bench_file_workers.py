"""What opening files in worker processes costs: the 104-page manual ingested (read in a worker, then cut into
chunks here; the vectors, the same either way, are left out) and one page drawn, against all of it in this process
(the path before the workers), in one run.

    python scripts/bench_file_workers.py                 # prints a table and the ratios (workers / in-process)
    python scripts/bench_file_workers.py --repeats 5

Each row is the median of `--repeats` calls after one warm-up call (`bench_retrieval.median_seconds`). "worker,
first call" includes starting the pool (the forkserver that
imports the readers, then a worker forked from it): what the first upload after a server's start pays once. The
file is sent to the worker and its text sent back through a pipe; that, and the fork, is the overhead measured.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bench_retrieval import median_seconds


ROOT = Path(__file__).resolve().parents[1]
MANUAL = ROOT / "data" / "documents" / "pt" / "debian-edu-bookworm-manual.pdf"


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="calls per row (the median is shown)")
    parser.add_argument("--page", type=int, default=4, help="the manual's page drawn")
    args = parser.parse_args(argv)

    from rqrag.ingest.file_workers import FileWorkers
    from rqrag.ingest.page_image import render_page
    from rqrag.ingest.pipeline import ingest_bytes, read_file

    data = MANUAL.read_bytes()
    mark = "Debian Edu"

    def ingest_here():
        return ingest_bytes(data, MANUAL.name)

    def draw_here():
        return render_page(data, args.page, mark)

    read_file(data, MANUAL.name)  # the readers imported here too, so neither side pays for its imports
    rows = {}
    with FileWorkers() as workers:
        started = time.perf_counter()
        workers.run(render_page, data, args.page, mark)
        rows["worker, first call (pool started)"] = time.perf_counter() - started
        rows["ingest the manual, in-process"] = median_seconds(ingest_here, args.repeats)
        in_worker = lambda: ingest_bytes(data, MANUAL.name, workers=workers)  # noqa: E731
        rows["ingest the manual, read in a worker"] = median_seconds(in_worker, args.repeats)
        rows["draw one page, in-process"] = median_seconds(draw_here, args.repeats)
        rows["draw one page, in a worker"] = median_seconds(
            lambda: workers.run(render_page, data, args.page, mark), args.repeats
        )
    width = max(map(len, rows))
    for label, seconds in rows.items():
        print(f"{label:<{width}}  {seconds * 1000:8.0f} ms")
    ratios = {
        "ingest": rows["ingest the manual, read in a worker"] / rows["ingest the manual, in-process"],
        "draw": rows["draw one page, in a worker"] / rows["draw one page, in-process"],
    }
    print(f"workers / in-process: ingesting {ratios['ingest']:.2f}x, drawing {ratios['draw']:.2f}x")
    return {"seconds": rows, "ratios": ratios}


if __name__ == "__main__":
    sys.exit(main() and 0)
