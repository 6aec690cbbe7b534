"""How a stored memory is shown: among the evidence (its title and `Hit`), and in a reply (when it happened).

    memory_hit(row, score).title     # "Memória de 17/11/2026 (terça-feira, noite) · contada em 18/11/2026 21:30"
    happened_words(row)              # "17/11/2026 (terça-feira, noite)"

`row` is a `memories` row of `store.py` (version-1 rows have no `told_at` / `happened_*`: they happened when told).
"""

from __future__ import annotations

from datetime import datetime

from rqrag.retrieval.base import Hit
from rqrag.serve.memory.writer import strip_rule_prefix


DOCID_PREFIX = "memory:"


def told_moment(row: dict) -> datetime:
    """When a memory was told, in the server's local time."""
    return datetime.fromtimestamp(row["told_at"] if row.get("told_at") is not None else row["created"])


def _day_month_year(iso: str) -> str:
    year, month, day = iso.split("-")
    return f"{day}/{month}/{year}"


def happened_words(row: dict) -> str:
    """When a memory happened, in its language: "17/11/2026 (terça-feira, noite)", "09/11/2026 a 15/11/2026",
    "2026-11-17 (Tuesday, evening)" (a span: no one weekday)."""
    first = row.get("happened_first") or row["date"]
    last = row.get("happened_last") or first
    details = ([row["weekday"]] if first == last else []) + ([row["period_of_day"]] if row["period_of_day"] else [])
    details_text = f" ({', '.join(details)})" if details else ""
    if row.get("language") == "pt":
        days = _day_month_year(first) if first == last else f"{_day_month_year(first)} a {_day_month_year(last)}"
    else:
        days = first if first == last else f"{first} to {last}"
    return days + details_text


def memory_title(row: dict) -> str:
    """How a memory is named among the evidence: when it happened, then when it was told —
    "Memória de 17/11/2026 (terça-feira, noite) · contada em 18/11/2026 09:12",
    "Memory of 2026-11-09 to 2026-11-15 · told 2026-11-18 09:12"."""
    told = told_moment(row)
    if row.get("language") == "pt":
        return f"Memória de {happened_words(row)} · contada em {told:%d/%m/%Y %H:%M}"
    return f"Memory of {happened_words(row)} · told {told:%Y-%m-%d %H:%M}"


def memory_hit(row: dict, score: float) -> Hit:
    extra = {key: row[key] for key in ("date", "time", "period_of_day", "weekday", "season", "conversation_id")}
    extra["happened_first"] = row.get("happened_first") or row["date"]
    extra["happened_last"] = row.get("happened_last") or extra["happened_first"]
    extra["told_at"] = told_moment(row).isoformat(timespec="seconds")
    extra["quote"] = strip_rule_prefix(row["description"])  # the user's own words, when the rule kept them
    extra["language"] = row.get("language")
    return Hit(
        docid=f"{DOCID_PREFIX}{row['id']}",
        title=memory_title(row),
        text=row["description"],
        score=float(score),
        extra={"memory_id": row["id"], **extra, "origin": "memory"},
    )
