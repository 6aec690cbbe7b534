"""The fuzzing campaign, kept as a test: `scripts/fuzz_uploads.py` against a real `rqrag serve` (docs/reliability.md).

    python -m pytest tests/test_fuzz_uploads.py -q               # the short run: every adversarial file + mutants
    python -m pytest tests/test_fuzz_uploads.py -q -m heavy      # the long run (make test-heavy)

Every hand-built adversarial file and a few seeded mutants of the real fixtures go through upload, ingestion, the
page images, the download and the review: the server never dies, never answers 5xx, no job fails `internal`, the
server's own memory stays under its ceiling, and another user's requests keep being answered meanwhile.
"""

from __future__ import annotations

import pytest
from script_modules import load_script


# The server process's ceiling: it starts near 1.1 GB (the model, the encoder, the app); drawing and parsing happen
# in its file workers, so the files add little (before the workers, one page image grew it by 3.5 GB).
SERVER_RSS_CEILING_MB = 2048
# Each file worker's address space is capped at 1 GiB (`file_worker_memory_mb`): two of them stay under this.
WORKERS_RSS_CEILING_MB = 2 * 1024
# Error codes a person can act on; anything else reaching a reply or a job is a defect.
KNOWN_REASONS = {
    "corrupt",
    "empty",
    "unsupported",
    "encoding",
    "encrypted",
    "archive_too_large",
    "compression_ratio",
    "too_many_chunks",
    "file_too_complex",
    "parser_crashed",
    "page_unreadable",
    "page_not_found",
    "no_page_images",
    "document_not_found",
}


def check(summary: dict, files: int) -> None:
    assert summary["files_tried"] == files
    assert summary["server_deaths"] == 0, summary
    assert summary["responses_5xx"] == 0, summary
    assert summary["jobs_failed_internal"] == 0, summary
    assert set(summary["reasons"]) <= KNOWN_REASONS, summary["reasons"]
    assert summary["peak_server_rss_mb"] < SERVER_RSS_CEILING_MB, summary
    assert summary["peak_workers_rss_mb"] < WORKERS_RSS_CEILING_MB, summary
    assert summary["bystander_requests"] > 0 and not summary["bystander_failures"], summary
    # some files were refused for a reason of the worker's own, so the attack reached the workers
    assert summary["reasons"].get("file_too_complex", 0) + summary["reasons"].get("page_unreadable", 0) > 0
    assert summary["statuses"].get("review 202") and summary["statuses"].get("review.md 200"), summary["statuses"]


@pytest.mark.slow
def test_the_short_campaign_never_takes_the_server_down(tmp_path):
    fuzz = load_script("fuzz_uploads")
    files = len(list(load_script("fuzz_files").adversarial_files())) + 20
    summary = fuzz.main(["--files", str(files), "--out", str(tmp_path), "--review-every", str(files)])
    check(summary, files)


@pytest.mark.slow
@pytest.mark.heavy
def test_the_long_campaign_never_takes_the_server_down(tmp_path):
    fuzz = load_script("fuzz_uploads")
    flags = ["--files", "1000", "--seed", "3", "--max-chunks", "2", "--out", str(tmp_path), "--review-every", "500"]
    check(fuzz.main(flags), 1000)
