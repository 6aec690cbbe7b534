"""Refinements a benchmark carries or implies, turned into search queries (the gold and silver annotators).

* `musique_gold_queries` — MuSiQue's `question_decomposition`, hop answers filled in (gold);
* `wiki2_gold_queries` — 2WikiMultihopQA's `evidences` triples, one sub-question per hop (gold);
* `hotpot_silver_queries` — one keyword query per HotpotQA supporting paragraph, derived by rule (silver).

Each returns (queries, the answers of their hops where the dataset knows them), in reasoning order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any


def squash_spaces(value: Any) -> str:
    """A field as one line of text: whitespace runs collapsed, None as ""."""
    return " ".join(str(value).split()) if value is not None else ""


_text = squash_spaces


_HOP_REF = re.compile(r"#(\d+)")


def musique_gold_queries(decomposition: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """MuSiQue's decomposition as search queries: `#k` becomes hop k's answer; `X >> relation` becomes `X relation`.

    MuSiQue writes single-relation hops as Wikidata-style triples ("Van Hook Township >> located in the
    administrative territorial entity") and others as questions ("Who founded #1?"); both read as queries once
    the references are filled in.
    """
    queries: list[str] = []
    answers: list[str] = []
    for hop in decomposition:
        text = _HOP_REF.sub(
            lambda m: answers[int(m.group(1)) - 1] if 0 < int(m.group(1)) <= len(answers) else m.group(0),
            hop.get("question", ""),
        )
        if ">>" in text:
            subject, _, relation = text.partition(">>")
            text = f"{subject.strip()} {relation.strip()}"
        queries.append(_text(text))
        answers.append(_text(hop.get("answer", "")))
    return tuple(queries), tuple(answers)


def wiki2_gold_queries(evidences: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """2WikiMultihopQA's `evidences` triples as one sub-question per hop, bridge entities already in place.

    A triple `[subject, relation, object]` reads as "What is the <relation> of <subject>?" with the object as
    that hop's answer; a later hop's subject is an earlier hop's object (the bridge entity), so the sub-questions
    follow the reasoning chain in order. Repeated triples (comparison questions list some twice) are kept once.
    """
    queries: list[str] = []
    answers: list[str] = []
    for triple in evidences:
        if len(triple) != 3:
            continue
        subject, relation, obj = (_text(part) for part in triple)
        query = f"What is the {relation} of {subject.rstrip('?')}?"
        if subject and relation and query not in queries:
            queries.append(query)
            answers.append(obj)
    return tuple(queries), tuple(answers)


# Function words dropped when a question is cut down to the keywords of one hop.
_STOPWORDS = frozenset(
    """a an the of in on at to for from by with about as into and or but not no is are was were be been being
    do does did has have had which what who whom whose when where why how that this these those it its his her
    their there than then same also both either neither one two did so such if""".split()
)
_WORD = re.compile(r"[\w'’-]+", re.UNICODE)


def _content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if w.lower() not in _STOPWORDS]


def _keys(words: Sequence[str]) -> set[str]:
    return {w.lower() for w in words}


def hotpot_silver_queries(question: str, pool: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """HotpotQA's supporting paragraphs as one keyword sub-query each (silver: derived by rule, not annotated).

    Each query names its paragraph's title and adds the question's content words that paragraph is about:
    * comparison (every supporting title is named in the question): per title, the words no title holds —
      "Were Scott Derrickson and Ed Wood of the same nationality?" -> "Scott Derrickson nationality", ...;
    * bridge: the paragraph the question names comes first, with the question's words found in its text; the
      second query names the bridge entity (the other paragraph's title) with the question's remaining words —
      "...held by the woman who portrayed Corliss Archer in the film Kiss and Tell?" ->
      "Kiss and Tell (1945 film) Corliss Archer", "Shirley Temple government position held woman portrayed".
    The answers of the hops are not known (HotpotQA marks sentences, not hop answers): "" each.
    """
    supporting = [p for p in pool if p.get("is_supporting")]
    if len(supporting) < 2:
        return (), ()
    words = _content_words(question)
    question_keys = f" {' '.join(w.lower() for w in _WORD.findall(question))} "

    def base_title(p) -> str:
        return re.sub(r"\s*\(.*\)$", "", p["title"]).strip()

    def named(p) -> bool:
        title_words = [w.lower() for w in _WORD.findall(base_title(p))]
        return bool(title_words) and f" {' '.join(title_words)} " in question_keys

    def query(title: str, extra: Sequence[str]) -> str:
        title_keys = _keys(_WORD.findall(title))
        kept = list(dict.fromkeys(w for w in extra if w.lower() not in title_keys))
        return " ".join([title, *kept]).strip()

    all_title_keys = set().union(*(_keys(_WORD.findall(p["title"])) for p in supporting))
    if all(named(p) for p in supporting):
        rest = [w for w in words if w.lower() not in all_title_keys]
        queries = [query(base_title(p), rest) for p in supporting]
    else:
        # The paragraph the question names (or, if none is named, the one sharing most words with it) first.
        def overlap(p) -> int:
            return len(_keys(words) & _keys(_WORD.findall(p["title"] + " " + p["paragraph_text"])))

        ordered = sorted(supporting, key=lambda p: (not named(p), -overlap(p)))
        first, bridges = ordered[0], ordered[1:]
        first_text = _keys(_WORD.findall(first["title"] + " " + first["paragraph_text"]))
        queries = [query(first["title"], [w for w in words if w.lower() in first_text])]
        remaining = [w for w in words if w.lower() not in first_text]
        queries += [query(base_title(p), remaining) for p in bridges]
    queries = [q for q in dict.fromkeys(queries) if q]
    return tuple(queries), tuple("" for _ in queries)
