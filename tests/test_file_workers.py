"""The worker processes that open users' files (`rqrag.ingest.file_workers`) and the page drawing's pixel budget
(`rqrag.ingest.page_image`): real processes, real signals, real limits, real adversarial files.

    python -m pytest tests/test_file_workers.py -q

A worker's task here is sometimes a builtin (`os.abort`, `bytearray`, `time.sleep`): the plainest way to make a real
worker crash, run out of memory or out of time, and see what the server's side of the pool makes of it.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from manual import needs_manual, pdf_pages

from rqrag.ingest.extract import CORRUPT, IngestError
from rqrag.ingest.file_workers import FILE_TOO_COMPLEX, PARSER_CRASHED, FileWorkers, WorkerLimits, WorkersBusy
from rqrag.ingest.page_image import MAX_PAGE_PIXELS, PageUnreadable, render_page
from rqrag.ingest.pipeline import read_file


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from fuzz_files import many_pages, mutants, one_page, self_containing_tree  # noqa: E402


@pytest.fixture
def workers():
    with FileWorkers(WorkerLimits(workers=1, memory_mb=768, cpu_seconds=20, wall_seconds=30)) as pool:
        yield pool


def size_of(png: bytes) -> tuple[int, int]:
    from PIL import Image

    return Image.open(io.BytesIO(png)).size


def test_a_result_and_a_refusal_come_back_and_the_worker_is_kept(workers):
    assert workers.run(sum, [1, 2, 3]) == 6
    first = workers.pids()
    with pytest.raises(IngestError) as refused:
        workers.run(read_file, b"%PDF-1.7\n", "vazio.pdf")
    assert refused.value.reason == CORRUPT and "vazio.pdf" in refused.value.message  # sent back whole
    assert workers.pids() == first and first[0] != os.getpid()  # the same worker, not this process


@pytest.mark.parametrize(
    ("task", "args", "clock", "reason", "said"),
    [
        (os.abort, (), {}, PARSER_CRASHED, "SIGABRT"),
        (signal.raise_signal, (signal.SIGSEGV,), {}, PARSER_CRASHED, "SIGSEGV"),
        (bytearray, (2 << 30,), {}, FILE_TOO_COMPLEX, "768 MB of memory"),
        (sum, (range(10**12),), {"cpu_seconds": 1, "wall_seconds": 20}, FILE_TOO_COMPLEX, "1 s of CPU"),
        (time.sleep, (60,), {"wall_seconds": 2}, FILE_TOO_COMPLEX, "longer than 2 s"),
    ],
    ids=["abort", "segfault", "memory", "cpu", "wall-clock"],
)
def test_a_worker_that_crashes_or_overruns_fails_the_call_clearly_and_is_replaced(
    workers, task, args, clock, reason, said
):
    before = workers.run(os.getpid)
    with pytest.raises(IngestError) as failed:
        workers.run(task, *args, name="relatorio.pdf", **clock)
    assert failed.value.reason == reason and said in failed.value.message and "relatorio.pdf" in failed.value.message
    assert workers.run(os.getpid) != before  # a fresh worker serves the next call
    assert workers.counts[reason] == 1


@needs_manual
def test_progress_comes_through_and_a_progress_that_raises_stops_the_worker(workers):
    seen = []
    read = workers.run(read_file, pdf_pages(1, 6), "manual.pdf", progress=lambda done, total: seen.append(done))
    assert seen == list(range(1, 7)) and read.page_count == 6 and read.pages

    class Cancelled(Exception):
        pass

    def cancel_at_three(done, total):
        if done == 3:
            raise Cancelled

    busy = []

    def note_and_cancel(done, total):
        busy.extend(workers.pids(busy=True))
        cancel_at_three(done, total)

    with pytest.raises(Cancelled):
        workers.run(read_file, pdf_pages(1, 6), "manual.pdf", progress=note_and_cancel)
    assert workers.pids() == [] and workers.pids(busy=True) == []
    with pytest.raises(ProcessLookupError):
        os.kill(busy[0], 0)  # the stopped worker is gone


def test_a_caller_waits_for_a_free_worker_only_as_long_as_it_said(workers):
    sleeping = threading.Thread(target=workers.run, args=(time.sleep, 3))
    sleeping.start()
    time.sleep(0.5)
    with pytest.raises(WorkersBusy):
        workers.run(sum, [1], queue_seconds=0.3)
    assert workers.run(sum, [2], queue_seconds=10) == 2  # waits for the sleeper, then runs
    sleeping.join()


# ---------------------------------------------------------------------------------------------- files


def test_the_reported_page_is_drawn_within_the_pixel_budget_in_a_small_worker(workers):
    """The 14,400-point page (3.6 GB and ~16 s at the viewer's scale before the budget) drawn in a worker of
    768 MB of address space: smaller, and its text still drawn."""
    huge = one_page(b"0 0 14400 14400")
    image = workers.run(render_page, huge, 1, None, 3.0)
    width, height = size_of(image.png)
    assert width * height <= MAX_PAGE_PIXELS and image.scale < 0.2 and width == height
    normal = workers.run(render_page, one_page(), 1, None, 3.0)
    assert normal.scale == 3.0 and size_of(normal.png) == (1836, 2376)  # a Letter page at 3x: untouched


@pytest.mark.parametrize(
    "box", [b"0 0 0.01 0.01", b"-99999 -99999 -1 -1"], ids=["too small to draw", "too large to draw readably"]
)
def test_a_page_that_cannot_be_drawn_readably_is_refused(box):
    with pytest.raises(PageUnreadable):
        render_page(one_page(box), 1)


def test_a_readers_own_failure_on_a_broken_file_is_a_damaged_file():
    with pytest.raises(IngestError) as broken:
        read_file(self_containing_tree(), "arvore.pdf")  # pdfium: "Failed to load page"
    assert broken.value.reason == CORRUPT and "arvore.pdf" in broken.value.message


@pytest.mark.parametrize(
    "data",
    [b"a" * (1 << 18), b"x\n" * 400_000],
    ids=["one word of 256 kB", "400,000 one-letter lines"],
)
def test_text_built_to_be_slow_reads_within_a_few_seconds_of_cpu(workers, data):
    """Both took minutes of CPU before (a regular expression tried from every letter of a word; section names
    looked for in every one of a million paragraphs)."""
    read = workers.run(read_file, data, "texto.md", cpu_seconds=5)
    assert read.pages


def test_three_thousand_pages_are_read_in_a_worker():
    with FileWorkers(WorkerLimits(workers=1, memory_mb=1024)) as pool:
        with pytest.raises(IngestError) as read:
            pool.run(read_file, many_pages(3000), "livro.pdf", cpu_seconds=60)
    # The same two lines on every page: the cleaner takes them for a running header, and nothing is left.
    assert read.value.reason == "empty"


@needs_manual
@pytest.mark.parametrize(
    ("wanted", "raised_before"),
    [
        ("manual-3p-m45.pdf", "OverflowError"),
        ("manual-3p-m638.pdf", "NotImplementedError"),
        ("pt_docx-m4502.docx", "NotImplementedError"),
    ],
)
def test_a_file_that_breaks_a_reader_in_an_unforeseen_way_is_a_damaged_file_at_upload(wanted, raised_before):
    """Three of the mutants the first 10,000-file campaign found (seed 1): pypdf's font code raised OverflowError,
    its stream filters NotImplementedError, zipfile NotImplementedError for a made-up version; each reached the
    upload as a 500."""
    import random

    from fuzz_uploads import seed_files

    from rqrag.ingest.upload_precheck import precheck

    data = dict(mutants(seed_files(), random.Random(1), 4600))[wanted]
    with pytest.raises(IngestError) as refused:
        precheck(data, wanted)
    assert refused.value.reason == CORRUPT and raised_before in refused.value.message
