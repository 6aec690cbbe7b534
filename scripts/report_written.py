"""What the writer did over one run's records: sentences shown and dropped (by the check's reason), citation recall
and precision in ALCE's sense measured with our check, and how often what it read held the answer.

    python scripts/report_written.py runs/write/heldout_pt/answers.jsonl            # scripts/eval_document_answers.py
    python scripts/report_written.py runs/write/hotpotqa_eval100/rqrag/predictions.jsonl   # rqrag eval

* **citation recall** — of the sentences the writer wrote with words in them, the share whose cited passages support
  them by our check (`answer/claim_check.py`): every shown sentence, none dropped;
* **citation precision** — of the citations of shown sentences, the share whose passage holds the sentence the claim
  rests on (a second mark on a passage that adds nothing is imprecise, as ALCE counts it);
* **reads the answer** — the passages the writer was given hold every key fact (documents) or a gold answer
  (benchmarks): what it could write at best.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def written_of(record: dict) -> dict | None:
    return record.get("written") or (record.get("grounded") or {}).get("written")


def golds_of(record: dict) -> list[str]:
    if record.get("key_facts"):
        return record["key_facts"]
    gold = record.get("gold") or {}
    return list(gold.get("answers") or gold.get("aliases") or ([gold["answer"]] if "answer" in gold else []))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=Path, help="answers.jsonl (documents) or predictions.jsonl (rqrag eval)")
    args = parser.parse_args(argv)
    from rqrag.text.text_quality import fold

    def norm(text: str) -> str:
        return " ".join(fold(text).split())

    rows = records(args.records)
    reasons: Counter = Counter()
    shown = dropped = cites = precise = reads = written_answers = with_reply = 0
    for row in rows:
        written = written_of(row)
        if not written:
            continue
        with_reply += 1
        written_answers += bool(written["shown"])
        read = [norm(p["text"]) for p in written.get("read", [])]
        golds = [norm(g) for g in golds_of(row)]
        everything = " ".join(read)
        key_facts = bool(row.get("key_facts"))
        reads += all(g in everything for g in golds) if key_facts else any(g in everything for g in golds)
        for sentence in written["shown"]:
            shown += 1
            quote = norm((sentence.get("check") or {}).get("quote") or "")
            for number in sentence["cites"]:
                cites += 1
                precise += bool(quote) and number <= len(read) and quote[:80] in read[number - 1]
        for sentence in written["dropped"]:
            reason = (sentence.get("check") or {}).get("reason")
            if reason != "only_marks":
                dropped += 1
            reasons[reason] += 1
    print(f"{args.records}: {len(rows)} answers, {with_reply} written over, {written_answers} shown as written")
    print(f"sentences shown {shown}, dropped {dropped} (without the replies of marks only)")
    print("dropped by reason: " + ", ".join(f"{r} {n}" for r, n in reasons.most_common()))
    print(
        f"citation recall (our check) {shown / max(shown + dropped, 1):.3f}; citation precision {precise / max(cites, 1):.3f}"
    )
    print(f"the writer read the answer for {reads} of {with_reply}")


if __name__ == "__main__":
    main()
