"""`rqrag data import`: the RQ-RAG authors' released data (zorowin123/rq_rag) read into trajectory records.

The fixture tests/data/released_rq_rag/sample.jsonl is written in the release's exact format (made-up content):
a two-turn conversation with searches, a rewritten query, a no-search answer, two decompositions, a
disambiguation with intermediate answers, then a line that is not JSON, an unknown token, an evidence block
never closed and an empty answer.

    python -m pytest tests/test_released_import.py -q
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rqrag.cli import main as cli_main
from rqrag.data_construction.data_config import DataImportConfig
from rqrag.data_construction.released_import import (
    DATA_FILE,
    DROPPED_FILE,
    REPORT_FILE,
    Rejected,
    import_record,
    parse_turn,
    run_import,
)
from rqrag.training.data import IGNORE_INDEX, record_trajectory, tokenize_record
from rqrag.trajectory import Action, Trajectory, parse_trajectory


REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "tests" / "data" / "released_rq_rag" / "sample.jsonl"
GOOD_IDS = [
    "oasst1:oasst_0417",
    "arc_easy:arc_Mercury_7085",
    "alpaca:alpaca_2291",
    "hotpotqa:5ab3d1f05542992ade7c6e39",
    "musique:2hop__11843_40768",
    "asqa:-4479812370925001337",
]


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Path, dict]:
    out_dir = tmp_path_factory.mktemp("released")
    report = run_import(DataImportConfig(input=str(SAMPLE), out_dir=str(out_dir)))
    return out_dir, report


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _by_id(out_dir: Path) -> dict[str, dict]:
    return {r["id"]: r for r in _lines(out_dir / DATA_FILE)}


def _steps(record: dict) -> list[tuple[str, str]]:
    return [(s["action"], s["text"]) for s in record["trajectory"]["steps"]]


def _evidence(record: dict, step: int) -> list[tuple[str, str]]:
    return [(h["title"], h["text"]) for h in record["trajectory"]["steps"][step]["evidence"]]


# ----------------------------------------------------------------------------------------------- shapes


def test_multi_turn_record_keeps_the_conversation_and_makes_the_last_turn_the_trajectory(imported):
    record = _by_id(imported[0])["oasst1:oasst_0417"]
    roles = [m["role"] for m in record["messages"]]
    assert roles == ["system", "user", "assistant", "user", "assistant"]
    assert record["messages"][0]["content"].startswith("You are a helpful assistant")
    # The earlier turn is its answer only: no special token, no evidence.
    assert record["messages"][2]["content"] == "The tallest mountain in the Alps is Mont Blanc, at about 4,806 metres."
    assert _steps(record) == [
        ("rewrite", "Mont Blanc summit border France Italy"),
        ("rewrite", "Mont Blanc massif countries"),
        ("answer", "The summit sits on the border between France and Italy, although the exact line is disputed."),
    ]
    assert _evidence(record, 0) == [
        ("Mont Blanc", "The summit lies on the watershed between France and Italy; its exact border is disputed.")
    ]
    assert _evidence(record, 1) == [("Mont Blanc massif", "The massif is shared by France, Italy and Switzerland.")]
    meta = record["metadata"]
    assert meta["source"] == "oasst1" and meta["source_id"] == "oasst_0417"
    assert meta["refinement"] == "rewrite" and meta["n_queries"] == 2
    assert meta["intermediate_answers"] == [None, None]
    assert meta["assistant_turns"] == 2 and meta["earlier_turn_queries"] == 1
    assert meta["origin"] == "zorowin123/rq_rag" and meta["answer_source"] == "released"
    assert meta["answer_reformatted"] is False


def test_rewritten_query_with_a_one_letter_answer(imported):
    record = _by_id(imported[0])["arc_easy:arc_Mercury_7085"]
    assert _steps(record) == [("rewrite", "gas plants absorb during photosynthesis"), ("answer", "B")]
    assert _evidence(record, 0) == [
        ("Photosynthesis", "Plants take in carbon dioxide and water and release oxygen using light energy.")
    ]
    assert record["messages"][0] == {
        "role": "system",
        "content": "Given four answer candidates, A, B, C and D, choose the best answer choice.",
    }


def test_no_search_answer_is_a_direct_answer_on_one_line(imported):
    record = _by_id(imported[0])["alpaca:alpaca_2291"]
    assert _steps(record) == [
        ("answer", "1. Put your phone in another room. 2. Work in 25-minute blocks with short breaks.")
    ]
    meta = record["metadata"]
    assert meta["refinement"] == "none" and meta["n_queries"] == 0 and meta["intermediate_answers"] == []
    assert meta["answer_reformatted"] is True
    assert record["messages"][-1]["content"] == (
        "[A_Response] 1. Put your phone in another room. 2. Work in 25-minute blocks with short breaks.[EOS]"
    )


def test_decomposed_record(imported):
    record = _by_id(imported[0])["hotpotqa:5ab3d1f05542992ade7c6e39"]
    assert _steps(record) == [
        ("decompose", "Who directed the film Harbor Lights?"),
        ("decompose", "Where was Maury Dexter born?"),
        ("answer", "Paris, Arkansas"),
    ]
    assert _evidence(record, 0) == [
        ("Harbor Lights (1963 film)", "Harbor Lights is a 1963 drama film directed by Maury Dexter."),
        ("Harbor Lights (song)", "Harbor Lights is a popular song written in 1937."),
    ]
    assert _evidence(record, 1) == [
        ("Maury Dexter", "Maury Dexter was an American film director and producer born in Paris, Arkansas.")
    ]
    assert record["metadata"]["refinement"] == "decompose" and record["metadata"]["answer_reformatted"] is False


def test_decomposed_answer_spans_are_joined_and_an_empty_search_is_kept(imported):
    record = _by_id(imported[0])["musique:2hop__11843_40768"]
    assert _steps(record) == [
        ("decompose", "Which company makes the Lumina tablet?"),
        ("answer", "Orrin Vale; Dana Kessler"),
    ]
    assert _evidence(record, 0) == []
    assert record["metadata"]["answer_reformatted"] is True


def test_disambiguated_record_keeps_its_intermediate_answers(imported):
    record = _by_id(imported[0])["asqa:-4479812370925001337"]
    assert _steps(record) == [
        ("disambiguate", "When did the original Riverside bridge open?"),
        ("disambiguate", "When did the rebuilt Riverside bridge open?"),
        (
            "answer",
            "The original wooden Riverside Bridge opened in 1889; "
            "the steel bridge that replaced it opened on 4 May 1952.",
        ),
    ]
    assert _evidence(record, 1) == [
        ("Riverside Bridge", "After the flood, a steel bridge replaced it and opened on 4 May 1952."),
        ("Riverside flood of 1949", "The 1949 flood destroyed the wooden bridge."),
    ]
    assert record["metadata"]["intermediate_answers"] == ["1889", "4 May 1952\nMay 1952"]
    assert "[S_Response]" not in record["messages"][-1]["content"]  # not a token of our language


def test_every_record_is_well_formed_in_our_language(imported):
    """The rendered assistant message parses back to exactly the stored trajectory."""
    records = _lines(imported[0] / DATA_FILE)
    assert [r["id"] for r in records] == GOOD_IDS  # input order, the broken ones left out
    for record in records:
        parsed = parse_trajectory(record["messages"][-1]["content"])
        assert parsed.well_formed, record["id"]
        assert parsed.trajectory == Trajectory.from_dict(record["trajectory"]), record["id"]


# ------------------------------------------------------------------------------------------- rejections

QUERY = "[S_Rewritten_Query]\nq\n[EOS][R_Evidences]\nTitle: T\nText: x\n[/R_Evidences]"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("[S_Hypothetical_Query]\nq\n[EOS][A_Response]\na\n[EOS]", "unknown_token"),
        ("[S_Rewritten_Query]\nq\n[R_Evidences]\n[/R_Evidences][A_Response]\na\n[EOS]", "query_without_eos"),
        ("[S_Rewritten_Query]\nq\n[EOS][A_Response]\na\n[EOS]", "query_without_evidence"),
        ("[S_Rewritten_Query]\nq\n[EOS][R_Evidences]\nTitle: T\nText: x\n[A_Response]\na\n[EOS]", "unclosed_evidence"),
        ("[S_Rewritten_Query]\n\n[EOS][R_Evidences]\n\n[/R_Evidences][A_Response]\na\n[EOS]", "empty_query"),
        (QUERY + "[A_Response]\n\n[EOS]", "empty_answer"),
        (QUERY + "[A_Response]\na\n", "answer_without_eos"),
        (QUERY + "[A_Response]\na\n[EOS] and more", "text_after_answer"),
        (QUERY + "[S_Response]\nshort\n[A_Response]\na\n[EOS]", "intermediate_answer_without_eos"),
        (QUERY, "no_response"),
        ("Sure! [A_Response]\na\n[EOS]", "stray_text"),
        ("[S_Rewritten_Query]\nq\n[EOS] oops [R_Evidences]\n\n[/R_Evidences][A_Response]\na\n[EOS]", "stray_text"),
        (
            "[S_Rewritten_Query]\nq\n[EOS][R_Evidences]\njust some text\n[/R_Evidences][A_Response]\na\n[EOS]",
            "malformed_evidence",
        ),
        ("[EOS][A_Response]\na\n[EOS]", "unexpected_token"),
        ("a plain chat answer", "no_special_tokens"),
    ],
)
def test_a_turn_outside_the_format_is_rejected_with_its_reason(content, reason):
    with pytest.raises(Rejected) as err:
        parse_turn(content)
    assert err.value.reason == reason


def test_an_intermediate_answer_after_a_query_and_an_empty_passage_text_parse():
    turn = parse_turn(
        "[S_Disambiguated_Query]\nq\n[EOS]\n[R_Evidences]\nTitle: A\nText: one\nTitle: B\nText:\n[/R_Evidences]\n"
        "[S_Response]\n\n[EOS]\n[A_Response]\na\n[EOS]"
    )
    assert [(h.title, h.text) for h in turn.steps[0].evidence] == [("A", "one"), ("B", "")]
    assert turn.intermediate_answers == (None,)  # no short answers: None, not ""
    assert turn.steps[-1].action is Action.ANSWER and turn.answer == "a"


ANSWER = "[A_Response]\na\n[EOS]"


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ({"id": "x", "messages": [{"role": "user", "content": "q"}]}, "missing_field"),
        ({"id": "x", "dataset": "d", "messages": []}, "no_messages"),
        ({"id": "x", "dataset": "d", "messages": [{"role": "tool", "content": "q"}]}, "bad_message"),
        ({"id": "x", "dataset": "d", "messages": [{"role": "user", "content": "q"}]}, "last_not_assistant"),
        (
            {
                "id": "x",
                "dataset": "d",
                "messages": [{"role": "system", "content": "s"}, {"role": "assistant", "content": ANSWER}],
            },
            "no_user_turn",
        ),
        (
            {
                "id": "x",
                "dataset": "d",
                "messages": [
                    {"role": "user", "content": "q1"},
                    {"role": "assistant", "content": "[A_Response]\nfirst\n"},
                    {"role": "user", "content": "q2"},
                    {"role": "assistant", "content": ANSWER},
                ],
            },
            "answer_without_eos",  # an earlier turn is checked too
        ),
    ],
)
def test_a_record_outside_the_format_is_rejected_with_its_reason(raw, reason):
    with pytest.raises(Rejected) as err:
        import_record(raw)
    assert err.value.reason == reason


# ----------------------------------------------------------------------------------------- the whole run


def test_report_counts(imported):
    out_dir, report = imported
    assert json.loads((out_dir / REPORT_FILE).read_text()) == report
    assert report["records_read"] == 9 and report["imported"] == 6 and report["dropped"] == 3
    assert report["drop_reasons"] == {"unknown_token": 1, "unclosed_evidence": 1, "empty_answer": 1}
    assert report["malformed_lines"] == 1 and report["malformed_examples"][0].startswith("line 7: invalid JSON")
    assert report["per_source"]["hotpotqa"] == {"imported": 1, "dropped": 1}
    assert report["per_source"]["lima"] == {"imported": 0, "dropped": 1}
    assert report["per_source"]["asqa"] == {"imported": 1, "dropped": 0}
    assert report["refinement"] == {"rewrite": 2, "decompose": 2, "none": 1, "disambiguate": 1}
    assert report["queries_per_record"] == {"0": 1, "1": 2, "2": 3}
    assert report["mean_queries_per_record"] == round(8 / 6, 3)
    assert report["intermediate_answers_kept"] == 2
    assert report["multi_turn_records"] == 1 and report["earlier_turn_queries_not_kept"] == 1
    assert report["answers_reformatted"] == 2


def test_dropped_records_keep_their_id_reason_and_content(imported):
    dropped = _lines(imported[0] / DROPPED_FILE)
    assert [(d["id"], d["reason"]) for d in dropped] == [
        ("lima:lima_0009", "unknown_token"),
        ("hotpotqa:5a8c7595554299585d9e36b6", "unclosed_evidence"),
        ("dolly:dolly_7312", "empty_answer"),
    ]
    assert dropped[0]["detail"] == "message 2: [S_Hypothetical_Query]"
    assert [d["position"] for d in dropped] == [7, 8, 9]
    assert dropped[2]["record"]["id"] == "dolly_7312" and len(dropped[2]["record"]["messages"]) == 3


def test_rerun_rewrites_the_same_output_without_duplicates(imported, tmp_path):
    out_dir, report = imported
    before = {name: (out_dir / name).read_bytes() for name in (DATA_FILE, DROPPED_FILE)}
    again = run_import(DataImportConfig(input=str(SAMPLE), out_dir=str(out_dir)))
    assert again == report
    for name, content in before.items():
        assert (out_dir / name).read_bytes() == content
    ids = [r["id"] for r in _lines(out_dir / DATA_FILE)]
    assert len(ids) == len(set(ids)) == 6
    assert not list(out_dir.glob("*.tmp"))


def test_a_repeated_id_is_dropped_not_written_twice(tmp_path):
    first = SAMPLE.read_text().splitlines()[0]
    (tmp_path / "twice.jsonl").write_text(first + "\n" + first + "\n")
    report = run_import(DataImportConfig(input=str(tmp_path / "twice.jsonl"), out_dir=str(tmp_path / "out")))
    assert report["imported"] == 1 and report["drop_reasons"] == {"duplicate_id": 1}
    assert len(_lines(tmp_path / "out" / DATA_FILE)) == 1


def test_a_json_array_file_and_a_limit(imported, tmp_path):
    records = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.endswith("}")]
    (tmp_path / "array.json").write_text(json.dumps(records))
    out = tmp_path / "array"
    report = run_import(DataImportConfig(input=str(tmp_path / "array.json"), out_dir=str(out)))
    assert report["imported"] == 6 and report["dropped"] == 3 and report["malformed_lines"] == 0
    assert (out / DATA_FILE).read_bytes() == (imported[0] / DATA_FILE).read_bytes()
    limited = run_import(DataImportConfig(input=str(tmp_path / "array.json"), out_dir=str(out), limit=2))
    assert limited["records_read"] == 2 and [r["id"] for r in _lines(out / DATA_FILE)] == GOOD_IDS[:2]


def test_imported_records_tokenize_for_training(imported, smollm2_tokenizer):
    tok = smollm2_tokenizer
    for record in _lines(imported[0] / DATA_FILE):
        messages, trajectory = record_trajectory(record)
        assert messages[-1]["role"] == "user"
        features = tokenize_record(record, tok)
        ids, labels = features["input_ids"], features["labels"]
        assert len(ids) == len(labels) > 0
        supervised = tok.decode([t for t in labels if t != IGNORE_INDEX])
        assert trajectory.answer in supervised and supervised.count("[EOS]") == len(trajectory.steps)
        for step in trajectory.steps:  # evidence is the system's, never a training target
            for hit in step.evidence:
                assert hit.text not in supervised
    # The earlier turn of the conversation is prompt (masked), not a target.
    multi = _by_id(imported[0])["oasst1:oasst_0417"]
    supervised = tok.decode([t for t in tokenize_record(multi, tok)["labels"] if t != IGNORE_INDEX])
    assert "4,806 metres" not in supervised


# ------------------------------------------------------------------------------------------------- CLI


def test_cli_help_and_verb_listing(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["data", "import", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "usage: rqrag data import" in out and "--input" in out and "--limit" in out
    assert cli_main(["data", "--help"]) == 0
    assert "import" in capsys.readouterr().out


def test_cli_end_to_end(tmp_path):
    out_dir = tmp_path / "cli"
    argv = ["--config", "configs/data/released.yaml", "--input", str(SAMPLE), "--out_dir", str(out_dir)]
    proc = subprocess.run(
        [sys.executable, "-m", "rqrag.cli", "data", "import", *argv], cwd=REPO, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    final = json.loads(proc.stdout.strip().splitlines()[-1])
    assert final == {"out_dir": str(out_dir), "records_read": 9, "imported": 6, "dropped": 3, "malformed_lines": 1}
    assert "6 of 9 records imported" in proc.stdout
    assert len(_lines(out_dir / DATA_FILE)) == 6 and len(_lines(out_dir / DROPPED_FILE)) == 3
    assert "entry_point: rqrag data import" in (out_dir / "resolved_config.yaml").read_text()


def test_cli_missing_input_is_a_clear_error_that_writes_nothing(tmp_path, capsys):
    code = cli_main(["data", "import", "--input", str(tmp_path / "nope.jsonl"), "--out_dir", str(tmp_path / "o")])
    assert code == 2
    assert "input file not found" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
