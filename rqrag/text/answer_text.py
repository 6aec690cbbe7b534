"""The text of answers: normalisation and multiple-choice labels, shared by selection (inference) and metrics (eval).
(Not the `rqrag.answer` package, which makes the answer a person reads; these are the small string helpers it,
the tree's selection and the metrics all use.)

* `normalize_answer` — SQuAD-style: lower case, no punctuation, no articles, single spaces.
* `choice_label` — the option a free-text reply picks on a multiple-choice question, by its label ("B", "B.",
  "(B)", "answer is B", "Answer: B") or, failing that, by containing one option's text and no other's.
  Labels are upper case as the datasets write them; only the keywords ("answer", "option") may be in any case,
  so "The answer is a mammal." does not read as option A.
* `answer_key` — what makes two answers "the same" for agreement: the chosen option on a multiple-choice
  question, the normalised text otherwise.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD-style normalisation: lower case, no punctuation, no articles, single spaces."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


# The captured label is always case-sensitive; `(?i:...)` scopes case-insensitivity to the keyword alone.
_LABEL_PATTERNS = (
    re.compile(r"^\s*\(?([A-Z1-9])\s*[\).:]"),  # leads with "B." / "(B)" / "B:"
    re.compile(r"^\s*([A-Z1-9])\s*$"),  # the whole reply is a label
    re.compile(r"\b(?i:answer)(?: (?i:is)|:)?\s*\(?([A-Z1-9])\b[\).]?"),
    re.compile(r"\b(?i:option)\s*\(?([A-Z1-9])\b"),
)


def choice_label(prediction: str, choices: Sequence[tuple[str, str]]) -> str | None:
    """The label of the option `prediction` picks, or None if it names none (or several by text)."""
    labels = [label for label, _ in choices]
    text = prediction or ""
    for pattern in _LABEL_PATTERNS:
        found = pattern.search(text)
        if found and found.group(1) in labels:
            return found.group(1)
    norm = normalize_answer(text)
    if not norm:
        return None
    options = {label: normalize_answer(option) for label, option in choices}
    exact = [label for label, option in options.items() if option == norm]
    if len(exact) == 1:
        return exact[0]
    named = [label for label, option in options.items() if contains_phrase(norm, option)]
    # An option inside another ("cold" in "very cold") is not a second pick: keep the one that holds the rest.
    for label in named:
        if all(contains_phrase(options[label], options[other]) for other in named):
            return label
    return None


def contains_phrase(text: str, phrase: str) -> bool:
    """Whether `phrase` stands in `text` as whole words (both normalised, single spaces). An empty phrase names
    nothing, so no text contains it: an option that normalises to nothing ("The") is never picked."""
    return bool(phrase) and f" {phrase} " in f" {text} "


def word_jaccard(a: str, b: str) -> float:
    """Word-set Jaccard similarity after normalisation (two empty texts are identical): how the data filter and
    scripts/query_quality.py tell a query that restates the question from one that refines it."""
    x, y = set(normalize_answer(a).split()), set(normalize_answer(b).split())
    return len(x & y) / len(x | y) if x | y else 1.0


def answer_key(answer: str, choices: Sequence[tuple[str, str]] = ()) -> str:
    """The key under which agreeing answers group: the option label when `choices` are given and one is picked."""
    if choices:
        label = choice_label(answer, choices)
        if label is not None:
            return f"option:{label}"
    return normalize_answer(answer)


# HotpotQA's official script: a yes/no/noanswer answer scores only on an exact match, never on overlap.
_SPECIAL = frozenset({"yes", "no", "noanswer"})


def _f1_one(prediction_tokens: list[str], gold_tokens: list[str]) -> float:
    from collections import Counter

    overlap = sum((Counter(prediction_tokens) & Counter(gold_tokens)).values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(prediction_tokens), overlap / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def answer_f1(prediction: str, golds: Sequence[str]) -> float:
    """SQuAD/HotpotQA token F1 between the normalised prediction and the best-matching gold answer (yes/no/noanswer
    only by exact match). Defined here, in the core, once: the eval's `f1` and training's GRPO reward are this."""
    pred = normalize_answer(prediction or "")
    best = 0.0
    for gold in golds:
        gold_norm = normalize_answer(gold)
        if (pred in _SPECIAL or gold_norm in _SPECIAL) and pred != gold_norm:
            continue
        if not pred.split() or not gold_norm.split():
            best = max(best, float(pred == gold_norm))
            continue
        best = max(best, _f1_one(pred.split(), gold_norm.split()))
    return best
