"""Where benchmark records come from: the shipped slice, else a fetched full file; `rqrag data fetch` checks what
it downloads byte for byte and says clearly when the network or the file is not there."""

from __future__ import annotations

import hashlib
import json
import urllib.error
from dataclasses import replace

import pytest

from rqrag.benchmarks import fetch as fetching
from rqrag.benchmarks.files import BenchmarkFileMissing, default_file, full_file, is_slice, slice_path
from rqrag.benchmarks.sources import DEFAULT_FILES, parse_records


@pytest.fixture
def full_dir(tmp_path, monkeypatch):
    """An empty folder of full files (what `rqrag data fetch` fills), as RQRAG_BENCHMARKS_DIR."""
    monkeypatch.setenv("RQRAG_BENCHMARKS_DIR", str(tmp_path / "full"))
    return tmp_path / "full"


def test_every_source_has_a_slice_in_the_package():
    for source in DEFAULT_FILES:
        assert slice_path(source).is_file(), source
    assert (slice_path("hotpotqa").parent / "SOURCES.md").is_file()


def test_the_slice_serves_until_a_full_file_is_fetched(full_dir):
    assert default_file("hotpotqa") == slice_path("hotpotqa") and is_slice(default_file("hotpotqa"))
    full = full_file("hotpotqa")
    full.parent.mkdir(parents=True)
    full.write_text(slice_path("hotpotqa").read_text().splitlines()[0] + "\n")
    assert default_file("hotpotqa") == full and not is_slice(full)


def test_a_folder_named_by_the_user_must_hold_the_file(tmp_path):
    with pytest.raises(BenchmarkFileMissing, match=r"rqrag data fetch musique --dir"):
        default_file("musique", tmp_path)
    with pytest.raises(ValueError, match="unknown source"):
        default_file("squad")


def test_no_slice_and_no_file_says_which_command_fetches_it(full_dir, monkeypatch, tmp_path):
    monkeypatch.setattr("rqrag.benchmarks.files.SLICES_DIR", tmp_path / "no-slices")
    with pytest.raises(BenchmarkFileMissing, match=r"run `rqrag data fetch asqa`"):
        default_file("asqa")


def _recipe_serving(source: str, content: bytes) -> tuple[fetching.Recipe, dict[str, bytes]]:
    """`source`'s recipe with its one input replaced by `content` (and its checksums by content's)."""
    digest = hashlib.sha256(content).hexdigest()
    (remote,) = fetching.RECIPES[source].inputs
    return fetching.Recipe((replace(remote, sha256=digest),), digest), {remote.url: content}


def test_fetch_writes_a_checked_file_where_readers_look(full_dir, monkeypatch):
    content = slice_path("openbookqa").read_bytes()
    recipe, served = _recipe_serving("openbookqa", content)
    monkeypatch.setitem(fetching.RECIPES, "openbookqa", recipe)
    path = fetching.fetch("openbookqa", opener=served.__getitem__)
    assert path == full_file("openbookqa") and path.read_bytes() == content
    assert default_file("openbookqa") == path
    assert fetching.fetch("openbookqa", opener=lambda url: pytest.fail("an intact file is not downloaded again"))


def test_a_download_that_does_not_match_its_checksum_writes_nothing(full_dir):
    with pytest.raises(fetching.FetchError, match="SHA-256 .* is not the recorded"):
        fetching.fetch("openbookqa", opener=lambda url: b'{"id": "tampered"}\n')
    assert not full_file("openbookqa").exists()


def test_no_network_is_a_clear_error_and_the_cli_exits_1(full_dir, monkeypatch, capsys):
    def offline(url):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    with pytest.raises(fetching.FetchError, match=r"could not download .* No network\?"):
        fetching.fetch("hotpotqa", opener=offline)
    monkeypatch.setattr(fetching, "_download", offline)
    assert fetching.main(["hotpotqa", "popqa"]) == 1
    err = capsys.readouterr().err
    assert "hotpotqa: could not download" in err and "popqa: nothing to fetch" in err
    assert not full_file("hotpotqa").exists()


def test_the_two_derivations_keep_the_loaders_reading_the_same_examples():
    arc = [json.loads(line) for line in slice_path("arc_challenge").read_text().splitlines()[:5]]
    basic = "".join(
        json.dumps(
            {
                "index": i,
                "id": r["id"],
                "question": r["question"],
                "options": [{"label": lab, "text": t} for lab, t in zip(r["choices"]["label"], r["choices"]["text"])],
                "answer": r["answerKey"],
            }
        )
        + "\n"
        for i, r in enumerate(arc)
    ).encode()
    derived = [json.loads(line) for line in fetching._arc_hub_layout(basic).decode().splitlines()]
    assert derived == arc

    musique = [json.loads(line) for line in slice_path("musique").read_text().splitlines()[:3]]
    original = [
        {
            "id": r["question_id"],
            "paragraphs": r["contexts"],
            "question": r["question_text"],
            "question_decomposition": r["question_decomposition"],
            "answer": r["answers_objects"][0]["spans"][0],
            "answer_aliases": r["answer_aliases"],
            "answerable": True,
        }
        for r in musique
    ]
    migres = "".join(json.dumps(r) + "\n" for r in original[:2]).encode()
    kag = json.dumps(original[1:]).encode()  # one id in both samples: kept once, from MIGRES
    union = [json.loads(line) for line in fetching._musique_union(migres, kag).decode().splitlines()]
    assert [r["source_file"] for r in union] == ["migres", "migres", "kag"]
    assert [{k: v for k, v in r.items() if k != "source_file"} for r in union] == [
        {k: v for k, v in r.items() if k != "source_file"} for r in musique
    ]
    assert [ex.aliases for ex in parse_records("musique", iter(original), pytest.fail)] == [
        ex.aliases for ex in parse_records("musique", iter(union), pytest.fail)
    ]


def test_every_recipe_names_a_pinned_commit_and_a_checksum():
    for source, recipe in fetching.RECIPES.items():
        assert source in DEFAULT_FILES and len(recipe.sha256) == 64
        for remote in recipe.inputs:
            assert len(remote.commit) == 40 and len(remote.sha256) == 64 and remote.commit in remote.url
    assert set(fetching.RECIPES) | fetching.SHIPPED_WHOLE == set(DEFAULT_FILES)
