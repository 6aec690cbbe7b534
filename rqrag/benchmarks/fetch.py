"""`rqrag data fetch`: download a benchmark's full file, check it byte for byte, and put it where readers look.

    rqrag data fetch hotpotqa musique        # into benchmarks_dir(): RQRAG_BENCHMARKS_DIR, else the rq-rag cache
    rqrag data fetch all --dir DIR

The package ships slices (`rqrag/benchmarks/data/`); a full training build (`configs/data/offline.yaml` reads
every training id) needs the full files. Each is read from the public GitHub repository and commit recorded in
`rqrag/benchmarks/data/SOURCES.md`, and its SHA-256 must equal the one below, taken from the copies the slices
were cut from. Three files are derived (MuSiQue's union of two samples, ARC's hub layout): their inputs are
checked, the documented re-keying is applied, and the result is checked too, so a fetched file is the file the
splits were made on. Nothing is written unless every check passes; no network means a clear error, not a trace.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rqrag.benchmarks.files import full_file
from rqrag.benchmarks.sources import DEFAULT_FILES
from rqrag.records import jsonl_objects


RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"


class FetchError(RuntimeError):
    """A download failed or did not match its checksum; the message says which and what to do."""


@dataclass(frozen=True)
class Remote:
    repo: str
    commit: str
    path: str
    sha256: str

    @property
    def url(self) -> str:
        return RAW.format(repo=self.repo, commit=self.commit, path=self.path)


def _arc_hub_layout(basic_evaluator: bytes) -> bytes:
    """basic_evaluator's `options` / `answer` as the HF `ai2_arc` layout (`choices`, `answerKey`), line for line."""
    out = []
    for _, r in jsonl_objects(basic_evaluator.decode("utf-8").splitlines(), source="basic_evaluator ARC file"):
        choices = {"text": [o["text"] for o in r["options"]], "label": [o["label"] for o in r["options"]]}
        record = {"id": r["id"], "question": r["question"], "choices": choices, "answerKey": r["answer"]}
        out.append(json.dumps(record, ensure_ascii=False))
    return "".join(line + "\n" for line in out).encode("utf-8")


def _musique_union(migres: bytes, kag: bytes) -> bytes:
    """The two MuSiQue dev samples deduplicated by id (MIGRES first), with IRCoT keys; aliases kept apart."""
    samples = (
        ("migres", [r for _, r in jsonl_objects(migres.decode("utf-8").splitlines(), source="MIGRES MuSiQue file")]),
        ("kag", json.loads(kag.decode("utf-8"))),
    )
    seen: set[str] = set()
    out = []
    for origin, records in samples:
        for r in records:
            if r["id"] in seen:
                continue
            seen.add(r["id"])
            answer = {"number": "", "date": {"day": "", "month": "", "year": ""}, "spans": [r["answer"]]}
            record = {
                "question_id": r["id"],
                "question_text": r["question"],
                "answers_objects": [answer],
                "answer_aliases": r["answer_aliases"],
                "contexts": r["paragraphs"],
                "question_decomposition": r["question_decomposition"],
                "source_file": origin,
            }
            out.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(out).encode("utf-8")


@dataclass(frozen=True)
class Recipe:
    inputs: tuple[Remote, ...]
    sha256: str  # of the file written
    derive: Callable[..., bytes] | None = None  # inputs' bytes -> the file; None: the one input as it is


_MIGRES = ("AdelWang/MIGRES", "1de6265c9ca1014054d6ba875738e785830908f8")

RECIPES: dict[str, Recipe] = {
    "hotpotqa": Recipe(
        (
            Remote(
                "xindili-cmu/anlp-project-multihop",
                "df0d5757f42f098ab6026f40323e91c369307506",
                "processed_data/hotpotqa/dev_subsampled.jsonl",
                "837a919903fedf521211c4271f168ad5458488198e9c4d967bf5f3a579525ce8",
            ),
        ),
        "837a919903fedf521211c4271f168ad5458488198e9c4d967bf5f3a579525ce8",
    ),
    "2wikimultihopqa": Recipe(
        (Remote(*_MIGRES, "data/wikihop.json", "65dc34d5b9f275457b2c6524443916730f0d6a3a59281d828b38028d0fbf0e3b"),),
        "65dc34d5b9f275457b2c6524443916730f0d6a3a59281d828b38028d0fbf0e3b",
    ),
    "musique": Recipe(
        (
            Remote(*_MIGRES, "data/musique.json", "bbc98ab676941cf3a481cb3361cfab334cd2a24c74ed42473e4d5c14cf7577d4"),
            Remote(
                "OpenSPG/KAG",
                "8901a93e04cd70c90e2fe029bb838a93c58c65ed",
                "kag/examples/musique_pike/solver/data/musique_qa_100.json",
                "7ee7b3f9533586b38d8ebe579dcb8d3daa8f52600b7777a6daa085ccac470467",
            ),
        ),
        "6c572b2f59d8da369c8c078b38b8004a89aecefea87d79e1168063fb3498bcb1",
        _musique_union,
    ),
    "asqa": Recipe(
        (
            Remote(
                "Siddharthajz/agentic-disambiguation",
                "fe1a846e593ab37602f46162d7dcb8dc9f46eee7",
                "data/asqa_dev.json",
                "f591478bef30a377438b717abaf9ddb92ca8306031560df4ea7a2540d9957501",
            ),
        ),
        "f591478bef30a377438b717abaf9ddb92ca8306031560df4ea7a2540d9957501",
    ),
    "arc_challenge": Recipe(
        (
            Remote(
                "yukangZhuu/basic_evaluator",
                "a85b6686ee9c716a69ca865ef77f408a29e3d5c2",
                "data/arc_challenge_test.jsonl",
                "bafb2fcb61ad7fdf85d3540d36a00d48228317298ae976ad2c0c0f24e247151c",
            ),
        ),
        "a03a11a8fee86f6d0607f426e7b3b7a9180a4894170e934da75596e93c4b51f1",
        _arc_hub_layout,
    ),
    "openbookqa": Recipe(
        (
            Remote(
                "araag2/TAI_Project-2",
                "6fe20de9e3e431a31eec49ac139a3d8961603931",
                "data/OpenBookQA/source/main-test.jsonl",
                "e506e954756911cc6e59ff36fc1840b69f49faa0770c2ab0c1dbd652abcd7188",
            ),
        ),
        "e506e954756911cc6e59ff36fc1840b69f49faa0770c2ab0c1dbd652abcd7188",
    ),
    "alpaca": Recipe(
        (
            Remote(
                "wujindou/BLOOM-LORA",
                "11c488c814c650c52e4ebbe1e284085e3a0a5c2d",
                "data/alpaca_data_1k.json",
                "308ff96375b5a08f7ebf0c763aaf02f7436beb974a28f868eba9823919e6b74c",
            ),
        ),
        "308ff96375b5a08f7ebf0c763aaf02f7436beb974a28f868eba9823919e6b74c",
    ),
    "self_instruct": Recipe(
        (
            Remote(
                "tatsu-lab/stanford_alpaca",
                "761dc5bfbdeeffa89b8bff5d038781a4055f796a",
                "seed_tasks.jsonl",
                "7779004fa198fdf27cf70a159363879d8a26c53329e11b436af17b3941875f48",
            ),
        ),
        "7779004fa198fdf27cf70a159363879d8a26c53329e11b436af17b3941875f48",
    ),
    "oasst": Recipe(
        (
            Remote(
                "Open-Assistant/oasst-model-eval",
                "ce935dee6922ec75d5a4006dd1c3595b39a01fdf",
                "model_eval/manual/data/en_100_tree.jsonl",
                "a27639214a5098bf9e1cc62a855c85c630b64ab48ee94655e7f6046438b0aedb",
            ),
        ),
        "a27639214a5098bf9e1cc62a855c85c630b64ab48ee94655e7f6046438b0aedb",
    ),
    "mt_bench": Recipe(
        (
            Remote(
                "lm-sys/FastChat",
                "0e6d3e4beaab66f4d3f93db72541a4abab8af28d",
                "fastchat/llm_judge/data/mt_bench/question.jsonl",
                "119565adbab82227089cefdb44c8d7e2cf04dc0a0ec233634c82e7d4e2a944f7",
            ),
        ),
        "119565adbab82227089cefdb44c8d7e2cf04dc0a0ec233634c82e7d4e2a944f7",
    ),
}

# PopQA's long-tail file is derived from a file whose path was not recorded; its slice is the whole file (all
# 1,399 ids are held out for evaluation), so there is nothing more to fetch.
SHIPPED_WHOLE = {"popqa"}

Opener = Callable[[str], bytes]


def _download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as response:  # noqa: S310 (a fixed https URL)
        return response.read()


def _checked(data: bytes, expected: str, what: str) -> bytes:
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise FetchError(f"{what}: SHA-256 {actual} is not the recorded {expected}; the file was not written")
    return data


def fetch(source: str, root: str | Path | None = None, opener: Opener | None = None) -> Path:
    """Download, check and write the full file of `source`; returns its path (already there and intact: kept).
    `opener(url) -> bytes` is the download (default: urllib over HTTPS)."""
    opener = opener or _download
    if source in SHIPPED_WHOLE:
        raise FetchError(f"{source}: nothing to fetch, the slice shipped with rq-rag is the whole file")
    if source not in RECIPES:
        raise FetchError(f"unknown source {source!r}; fetchable: {', '.join(sorted(RECIPES))}")
    recipe, target = RECIPES[source], full_file(source, root)
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == recipe.sha256:
        return target
    parts = []
    for remote in recipe.inputs:
        try:
            data = opener(remote.url)
        except (urllib.error.URLError, OSError, TimeoutError) as err:
            raise FetchError(
                f"{source}: could not download {remote.url} ({err}). No network? The slice shipped with rq-rag "
                f"still serves `rqrag eval`; for a hub copy pass --source_files {source}=hf:<dataset>[:<config>]:<split>"
            ) from err
        parts.append(_checked(data, remote.sha256, remote.url))
    content = _checked(recipe.derive(*parts) if recipe.derive else parts[0], recipe.sha256, f"{source} (derived)")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    with os.fdopen(fd, "wb") as f:
        f.write(content)
    os.replace(tmp, target)  # readers never see half a file
    return target


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rqrag data fetch", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="+", help=f"sources, or `all`: {', '.join(sorted(DEFAULT_FILES))}")
    parser.add_argument("--dir", default=None, help="where to write (default: RQRAG_BENCHMARKS_DIR or the cache)")
    args = parser.parse_args(argv)
    names = sorted(RECIPES) if args.names == ["all"] else args.names
    failed = 0
    for name in names:
        try:
            print(f"{name}: {fetch(name, args.dir)}")
        except FetchError as err:
            print(f"rqrag data fetch: {err}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0
