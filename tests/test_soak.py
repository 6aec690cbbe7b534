"""The short soak (`scripts/soak.py` for a minute and a half): a real `rqrag serve` on PostgreSQL with the shipped
model under six clients of mixed traffic, killed with SIGKILL and restarted, and its database stopped and started.
No 5xx outside those outages, nothing acknowledged lost, nothing written twice. The 30-minute run: docs/soak.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
pytestmark = pytest.mark.slow


@pytest.mark.heavy
def test_a_short_soak_loses_nothing_and_answers_no_5xx_outside_the_outages(tmp_path):
    import soak

    out = tmp_path / "soak"
    code = soak.main(["--minutes", "1.5", "--clients", "6", "--out", str(out)])
    summary = json.loads((out / "summary.json").read_text())
    state = summary["state"]
    assert summary["5xx_outside_outages"] == 0, summary["5xx_outside_examples"]
    assert state["turns_lost"] == 0 and state["turns_duplicated"] == 0, state
    assert state["memories_lost"] == 0 and state["memories_duplicated"] == 0, state
    assert state["documents_lost"] == 0 and state["documents_deleted_but_listed"] == 0, state
    assert len(summary["outages"]) == 2 and summary["requests"] >= 30
    assert {"ask", "chat", "tell", "memories", "upload"} <= set(summary["routes"]), summary["routes"]
    assert state["turns_acknowledged"] > 0 and state["documents_acknowledged"] > 0
    assert (out / "soak.png").stat().st_size > 10_000 and code == 0


@pytest.mark.heavy
def test_a_short_soak_over_two_replicas_loses_no_turn_and_no_job(tmp_path):
    """`scripts/soak.py --replicas 2` for two and a half minutes: HAProxy in front of two servers on one PostgreSQL,
    a replica SIGKILLed and restarted after a minute, PostgreSQL restarted at 70 %. The 30-minute run: docs/scale.md."""
    import soak

    out = tmp_path / "soak"
    code = soak.main(["--replicas", "2", "--kill_every_min", "1", "--minutes", "2.5", "--clients", "6",
                      "--out", str(out)])  # fmt: skip
    summary = json.loads((out / "summary.json").read_text())
    state = summary["state"]
    assert summary["5xx_outside_outages"] == 0 and summary["500"] == 0, summary["5xx_outside_examples"]
    assert state["turns_lost"] == state["turns_duplicated"] == 0, state
    assert state["jobs_lost"] == state["chunks_stored_twice"] == 0 and state["jobs_accepted"] > 0, state
    assert state["documents_lost"] == state["documents_deleted_but_listed"] == 0, state
    assert [what for _, _, what in summary["outages"]] == ["replica 0 SIGKILL + restart", "PostgreSQL stop + start"]
    assert code == 0
