"""`rqrag index build` and `rqrag search`, called through their `main(argv)` like the top-level CLI does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from rqrag.cli.commands import index as index_command
from rqrag.cli.commands import search as search_command
from rqrag.config_loader import RESOLVED_CONFIG_NAME, ConfigError, make_parser, parse


REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = [
    {"id": "everest", "title": "Mount Everest", "text": "Everest is the highest mountain on Earth."},
    {"id": "seine", "title": "Seine", "text": "The Seine is a river that flows through Paris."},
    {"id": "python", "title": "Python", "text": "Python is a programming language."},
]


def exit_code(main, argv) -> int:
    try:
        return main(argv)
    except SystemExit as stop:
        return stop.code or 0


@pytest.mark.parametrize(
    ("main", "argv"),
    [
        (search_command.main, ["--help"]),
        (index_command.main, ["build", "--help"]),
        (index_command.main, ["--help"]),
        (index_command.main, []),
    ],
)
def test_help_exits_zero(main, argv, capsys):
    assert exit_code(main, argv) == 0
    assert "usage" in capsys.readouterr().out.lower()


def test_search_help_lists_the_short_k_flag(capsys):
    exit_code(search_command.main, ["--help"])
    out = capsys.readouterr().out
    assert "-k K" in out and "--retrieval_mode" in out and "--json" in out
    assert "--mode is its deprecated former name" in out


def test_retrieval_mode_is_the_search_mode_without_a_warning(capsys):
    search, _ = parse(make_parser(search_command.SearchConfig), ["--retrieval_mode", "bm25"])
    assert search.retrieval_mode == "bm25" and "deprecated" not in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--mode", "dense"], ["--mode=dense"]])
def test_search_mode_still_works_and_says_it_is_deprecated(capsys, argv):
    search, _ = parse(make_parser(search_command.SearchConfig), argv)
    assert search.retrieval_mode == "dense"
    assert "--mode is deprecated; use --retrieval_mode" in capsys.readouterr().err


def test_a_search_config_that_still_says_mode_is_read_with_a_warning(tmp_path, capsys):
    (tmp_path / "old.yaml").write_text("mode: bm25\nk: 2\n")
    search, _ = parse(make_parser(search_command.SearchConfig), ["--config", str(tmp_path / "old.yaml")])
    assert (search.retrieval_mode, search.k) == ("bm25", 2)
    assert "`mode:` is deprecated; use `retrieval_mode:`" in capsys.readouterr().err


def test_unknown_verb_and_missing_arguments(capsys):
    assert index_command.main(["destroy"]) == 2
    with pytest.raises(ConfigError, match="--corpus FILE and --out DIR"):
        index_command.main(["build", "--modes", "bm25"])


@pytest.fixture
def corpus_file(tmp_path) -> Path:
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in CORPUS))
    return path


def test_bm25_build_and_search_round_trip(tmp_path, corpus_file, capsys):
    out = tmp_path / "index"
    argv = ["build", "--config", str(REPO_ROOT / "configs/retrieval/index_build.yaml")]
    argv += ["--corpus", str(corpus_file), "--out", str(out), "--modes", "bm25"]
    assert index_command.main(argv) == 0
    assert "indexed 3 documents (bm25)" in capsys.readouterr().out
    resolved = yaml.safe_load((out / RESOLVED_CONFIG_NAME).read_text())
    assert resolved["IndexBuildConfig"]["modes"] == "bm25" and resolved["entry_point"] == "rqrag index build"

    assert (
        search_command.main(
            ["river through Paris", "--index", str(out), "--retrieval_mode", "bm25", "-k", "2", "--json"]
        )
        == 0
    )
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(hit["rank"], hit["docid"]) for hit in lines] == [(1, "seine")]
    assert lines[0]["title"] == "Seine" and lines[0]["score"] > 0

    assert search_command.main(["highest", "mountain", "--index", str(out), "--retrieval_mode", "bm25"]) == 0
    table = capsys.readouterr().out
    assert "1 hit(s) for 'highest mountain'" in table and "everest  Mount Everest" in table


def test_search_config_yaml_parses_with_overrides():
    parser = make_parser(search_command.SearchConfig)
    parser.add_argument("query", nargs="+")
    config, extra = parse(
        parser, ["--config", str(REPO_ROOT / "configs/retrieval/embedded_hybrid.yaml"), "who", "?", "-k", "3"]
    )
    assert (config.retrieval_mode, config.k, config.index, config.rrf_k, config.depth) == ("hybrid", 3, None, 60, None)
    assert extra.query == ["who", "?"]


@pytest.mark.slow
def test_hybrid_build_and_search_round_trip(tmp_path, corpus_file, capsys, minilm_encoder):
    out = tmp_path / "index"
    assert index_command.main(["build", "--corpus", str(corpus_file), "--out", str(out)]) == 0
    capsys.readouterr()
    assert search_command.main(["the highest mountain", "--index", str(out), "-k", "3", "--json"]) == 0
    hits = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # BM25 matches only Everest; the dense side ranks all three with Everest first. RRF (k=60) therefore
    # gives Everest 1/61 + 1/61 and the other two their dense ranks only.
    assert [h["docid"] for h in hits][0] == "everest" and len(hits) == 3
    assert [h["score"] for h in hits] == pytest.approx([2 / 61, 1 / 62, 1 / 63])


def test_index_build_with_the_portuguese_analyzer(tmp_path, capsys):
    corpus = tmp_path / "pt.jsonl"
    docs = [
        {"docid": "rede", "title": "Rede", "text": "As configurações da rede do servidor ficam no painel."},
        {"docid": "impressora", "title": "Impressora", "text": "A impressora é adicionada pelo administrador."},
    ]
    corpus.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs))
    for language in ("pt", "en"):
        out = tmp_path / language
        argv = ["build", "--corpus", str(corpus), "--out", str(out), "--modes", "bm25", "--language", language]
        assert index_command.main(argv) == 0
        assert json.loads((out / "meta.json").read_text())["language"] == language
        capsys.readouterr()
        # The Portuguese stemmer maps "configuração" and "configurações" to one stem; the English one does not.
        assert search_command.main(["configuração", "--index", str(out), "--retrieval_mode", "bm25", "--json"]) == 0
        hits = [json.loads(line)["docid"] for line in capsys.readouterr().out.splitlines()]
        assert hits == (["rede"] if language == "pt" else [])
