"""The tree as a set of candidate answers: paths that say the same thing grouped, their evidence pooled, and what
a verifier needs to know of each group, read without a model.

A tree of a dozen paths holds a handful of distinct answers. Deciding path by path lets the first answer whose
words sit in *some* passage win ("West Bengal" because one path read a page about a clock tower), while eight
paths saying "Paris" — one of which read the Paris article — are each judged on their own reading. Here the
decision is made per answer:

1. **group** — answers with the same normalised form, the same option of a comparison, the same yes/no, or one
   contained in another as whole words ("Paris" and "Paris, France") are one candidate;
2. **pool** — the candidate's evidence is every passage any of its paths read;
3. **describe** — `features` turns a candidate into numbers (`FEATURES`, each defined where it is computed):
   votes and likelihoods, support in passages about the question, the answer's type against the asked type,
   whether it is the bridge entity a later query asks about, whether it echoes the question, its language.

    candidates = gather(result, question)          # best first by votes; .features, .hits, .paths
    verifier.score(candidates)                     # rqrag.answer.verifier: calibrated p(correct) per candidate
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from rqrag.answer.answer_types import (
    OPTION,
    OTHER,
    asked_type,
    entities,
    fits,
    is_yes_no,
    options,
    picked_option,
)
from rqrag.inference.decoding.select import Scored
from rqrag.retrieval.base import Hit
from rqrag.text.answer_text import normalize_answer
from rqrag.text.text_quality import content_words, echoes, fold, guess_language, loops, new_content, stem
from rqrag.trajectory import ParseStatus


# Every feature the verifier may weigh, in a fixed order (a saved verifier names the ones it was fitted on).
FEATURES = (
    "vote_share",  # share of the tree's finished paths giving this answer
    "votes",  # log(1 + paths giving it)
    "confidence",  # the highest mean token probability of its answer among its paths
    "answer_nll",  # the lowest mean negative log-probability of its answer tokens (capped at 5)
    "supported",  # its normalised words occur, whole, in a passage its paths read (not when the question holds them)
    "support_share",  # the largest share of its new content words (by stem) that one pooled passage holds
    "support_relevance",  # of the passages holding it, the largest share of the question's content words
    "support_passages",  # log(1 + pooled passages holding it)
    "entities_read",  # share of the question's named entities the pooled evidence mentions
    "type_match",  # its shape is what the question asks for (a year for "when", a position for "which position")
    "type_mismatch",  # its shape is not (a person for "which position", "yes" for "who")
    "bridge",  # a query of the tree asks about it: the entity the question asks an attribute *of*
    "echo",  # it says the question back, or names nothing the question does not
    "yes_no",  # it is a yes/no answer
    "option_read",  # a comparison's option, and the pooled evidence mentions both options
    "wrong_language",  # written in another language than the question's
    "words",  # log(1 + its words): a sentence where a name is asked is rarely right
    "searched",  # share of its paths that searched beyond the question's own first search
    "truncated",  # its best path was cut by the token cap, or loops
    "sentence_overlap",  # of the evidence sentences holding it, the largest share of the question's content words
    "sentence_rank",  # 1 / rank of the best evidence sentence holding it, among all the tree's sentences (0: none)
    "top_sentence",  # it is in one of the 3 evidence sentences that best answer the question
    # the reader's view (rqrag.answer.reading.span_reader): 0 for every reader feature when no reader ran
    "reader_p",  # the reader's p that this span of the evidence is the answer (0: the reader did not find it)
    "reader_top",  # it is the reader's most probable span
    "reader_sentence",  # the reader's p of the sentence that states it
    "reader_only",  # no path of the tree says it: only the reader read it out of the evidence
)
READER_FEATURES = ("reader_p", "reader_top", "reader_sentence", "reader_only")
MAX_READINGS = 5  # the reader's most probable spans that join the tree's answers as candidates
_NLL_CAP = 5.0


@dataclass
class AnswerCandidate:
    """One distinct answer of a tree: its text as shown, its paths, their pooled evidence and its features."""

    text: str  # the shown form: the most common among its paths, the most confident on a tie
    key: str  # what grouped it (normalised text, option:..., yes/no)
    paths: list = field(default_factory=list)  # FinishedTrajectory members, best first
    hits: list[Hit] = field(default_factory=list)  # every passage its paths read, each once, in reading order
    features: dict[str, float] = field(default_factory=dict)
    p: float | None = None  # set by the verifier: calibrated probability that the answer is right
    holding: list[int] = field(default_factory=list)  # indices into hits of the passages that hold the answer
    reading: object | None = None  # the reader's `Reading` of this answer (its p and the quote that states it)

    @property
    def path_id(self) -> str | None:
        """Its best path (None for an answer only the reader found)."""
        return self.paths[0].path_id if self.paths else None

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "paths": [t.path_id for t in self.paths],
            "p": None if self.p is None else round(self.p, 4),
            "features": {k: round(v, 4) for k, v in self.features.items()},
            "quote": self.reading.quote.text if self.reading is not None else None,
        }


def trajectory_hits(trajectory) -> list[Hit]:
    """Every passage a trajectory read, in reading order, each once."""
    seen: dict[str, Hit] = {}
    for step in trajectory.steps:
        for hit in step.evidence:
            seen.setdefault(hit.docid, hit)
    return list(seen.values())


def group_key(answer: str, question: str, choices: Sequence[tuple[str, str]] = ()) -> str:
    """What makes two answers the same candidate before containment merging: the option picked, yes/no, or the
    normalised text."""
    if choices:
        from rqrag.text.answer_text import choice_label

        label = choice_label(answer, choices)
        if label is not None:
            return f"option:{label}"
    if is_yes_no(answer):
        return "yes" if fold(answer).lstrip().startswith(("yes", "sim")) else "no"
    picked = picked_option(answer, question)
    if picked is not None:
        return f"option:{normalize_answer(picked)}"
    return normalize_answer(answer)


def gather(
    result,
    question: str,
    language: str | None = None,
    choices: Sequence = (),
    sentences: Sequence[tuple[float, str]] | None = None,
    readings: Sequence = (),
    read: Sequence[Hit] = (),
) -> list[AnswerCandidate]:
    """The tree's finished answers as candidates with their features, most voted first (ties: the earlier path),
    then the reader's spans no path gave. `sentences`: (score, text) of every sentence the tree read, scored for how
    well it answers the question (`extractive.ExtractiveAnswerer.scored`; None: every sentence, unscored);
    `readings`: the reader's `Reading`s of everything read (`read`: those passages), most probable first."""
    finished = [t for t in result.trajectories if t.ok]
    groups: dict[str, list] = {}
    for t in finished:
        groups.setdefault(group_key(t.trajectory.answer or "", question, choices), []).append(t)
    groups = _merge_contained(groups)
    queries = [q for t in result.trajectories for _, q in t.trajectory.queries]
    if sentences is None:
        from rqrag.text.sentences import split_sentences

        sentences = [
            (0.0, s)
            for t in result.trajectories
            for h in trajectory_hits(t.trajectory)
            for s in split_sentences(h.text)
        ]
    ranked = sorted(((score, f" {normalize_answer(text)} ") for score, text in sentences), key=lambda st: -st[0])
    candidates = []
    for key, members in groups.items():
        members = sorted(members, key=lambda t: -_confidence(t))
        pooled: dict[str, Hit] = {}
        for t in members:
            for hit in trajectory_hits(t.trajectory):
                pooled.setdefault(hit.docid, hit)
        candidates.append(AnswerCandidate(_shown_form(members), key, members, list(pooled.values())))
    order = {t.path_id: i for i, t in enumerate(result.trajectories)}
    candidates.sort(key=lambda c: (-len(c.paths), min(order[t.path_id] for t in c.paths)))
    if readings:
        candidates = with_readings(candidates, readings, question, choices, read)
    for candidate in candidates:  # once, after the reader's spans joined (a reading changes no tree feature)
        candidate.features = features(candidate, question, len(finished), queries, language, choices, ranked)
        candidate.features.update(reader_features(candidate, readings))
    return candidates


def _same_answer(key: str, other: str) -> bool:
    """Whether two group keys are one answer: equal, or one held whole in the other (plain texts only)."""
    if key == other:
        return True
    plain = (
        not key.startswith("option:") and not other.startswith("option:") and {key, other}.isdisjoint({"yes", "no"})
    )
    return plain and bool(key) and bool(other) and (f" {key} " in f" {other} " or f" {other} " in f" {key} ")


def with_readings(
    candidates: list[AnswerCandidate],
    readings: Sequence,
    question: str,
    choices: Sequence,
    read: Sequence[Hit],
) -> list[AnswerCandidate]:
    """The tree's candidates, each with the reader's most probable reading of it, then the reader's spans that no
    path gave as candidates of their own (their evidence: the passage that states them first, then all read)."""
    out = list(candidates)
    for reading in list(readings)[:MAX_READINGS]:
        key = group_key(reading.answer, question, choices)
        match = next((c for c in out if _same_answer(c.key, key) and _adds_little(c.key, key, question)), None)
        if match is None:
            stating = [h for h in read if h.docid == reading.quote.docid]
            hits = stating + [h for h in read if h.docid != reading.quote.docid]
            match = AnswerCandidate(reading.answer, key, [], hits)
            out.append(match)
        if match.reading is None or reading.p > match.reading.p:
            match.reading = reading
    return out


def _adds_little(answer_key: str, reading_key: str, question: str) -> bool:
    """Whether a tree answer that holds a reading says little besides it and the question: "Paris, France" takes the
    reading "Paris"; the question given back around a number ("que valor de tempo limite de 1 e usado para
    ocultar") does not, and the reading stays a candidate of its own instead of sharing the echo's low p."""
    said = {stem(w) for w in content_words(f"{question} {reading_key}")}
    return sum(stem(w) not in said for w in content_words(answer_key)) <= 1


def reader_features(candidate: AnswerCandidate, readings: Sequence) -> dict[str, float]:
    reading = candidate.reading
    if reading is None:
        return dict.fromkeys(READER_FEATURES, 0.0)
    return {
        "reader_p": reading.p,
        "reader_top": float(bool(readings) and reading is readings[0]),
        "reader_sentence": reading.sentence_p,
        "reader_only": float(not candidate.paths),
    }


def _merge_contained(groups: dict[str, list]) -> dict[str, list]:
    """A longer answer that holds exactly one shorter answer's words, whole, joins it ("Paris, France" -> "Paris");
    one that holds two ("Annie Morton or Terry Richardson") stays apart."""
    keys = sorted(groups, key=lambda k: (len(k.split()), k))
    merged: dict[str, list] = {}
    for key in keys:
        plain = not key.startswith("option:") and key not in ("yes", "no") and content_words(key)
        inside = [k for k in merged if plain and k not in ("yes", "no") and not k.startswith("option:")]
        inside = [k for k in inside if f" {k} " in f" {key} " and len(key.split()) <= 12]
        if len(inside) == 1:
            merged[inside[0]].extend(groups[key])
        else:
            merged[key] = list(groups[key])
    return merged


def _shown_form(members: Sequence) -> str:
    """The most common written form among the members (the most confident first on a tie), stripped."""
    forms: dict[str, int] = {}
    for t in members:
        forms[t.trajectory.answer.strip()] = forms.get(t.trajectory.answer.strip(), 0) + 1
    return max(forms, key=lambda f: (forms[f], -len(f)))


def _confidence(t) -> float:
    # selection's own definition, without `t.scored()`'s copy of every passage the path read
    return Scored("", (), t.answer_logprobs).confidence if t.answer_logprobs else 0.0


def _nll(t) -> float:
    if not t.answer_logprobs:
        return _NLL_CAP
    return min(_NLL_CAP, -sum(t.answer_logprobs) / len(t.answer_logprobs))


def _phrase_in(phrase: str, text: str) -> bool:
    return bool(phrase) and f" {phrase} " in f" {text} "


def features(
    candidate: AnswerCandidate,
    question: str,
    finished: int,
    queries: Sequence[str],
    language: str | None = None,
    choices: Sequence = (),
    ranked: Sequence[tuple[float, str]] = (),
) -> dict[str, float]:
    """The numbers a verifier weighs for one candidate (`FEATURES`); sets `candidate.holding` as it goes.
    `ranked`: (score, " normalised sentence ") of the tree's evidence, best first."""
    text = candidate.text
    asked = asked_type(question, choices)
    norm = normalize_answer(text)
    passages = [normalize_answer(f"{h.title} {h.text}") for h in candidate.hits]
    question_stems = {stem(w) for w in content_words(question, language)}

    yes_no = is_yes_no(text)
    picked = picked_option(text, question) if asked == OPTION and options(question) else None
    phrase = normalize_answer(picked) if picked else ("" if yes_no else norm)
    # An answer inside the question is found in any passage retrieved for it: no support (an option excepted,
    # which is judged by whether both options were read).
    said = not picked and _phrase_in(phrase, normalize_answer(question))
    holding = [i for i, p in enumerate(passages) if _phrase_in(phrase, p)] if phrase and not said else []
    candidate.holding = holding

    fresh = new_content(text, question, language)
    passage_stems = [{stem(w) for w in content_words(f"{h.title} {h.text}", language)} for h in candidate.hits]
    support_share = (
        max((sum(stem(w) in s for w in fresh) / len(fresh) for s in passage_stems), default=0.0) if fresh else 0.0
    )
    relevance = [len(question_stems & passage_stems[i]) / max(1, len(question_stems)) for i in holding]

    names = entities(question)
    pooled = " ".join(passages)
    read = sum(_phrase_in(normalize_answer(n), pooled) for n in names) / len(names) if names else 0.0
    named = options(question)
    option_read = float(bool(picked) and all(_phrase_in(normalize_answer(o), pooled) for o in named))

    shape = fits(text, asked, question) if asked != OTHER else None
    bridge = bool(phrase) and not said and any(_phrase_in(phrase, normalize_answer(q)) for q in queries)
    expected = language or guess_language(question)
    written = guess_language(text)
    best = candidate.paths[0] if candidate.paths else None
    cut = best is not None and bool(best.parse_statuses) and best.parse_statuses[-1] is ParseStatus.TRUNCATED
    searched = [sum(1 for s in t.trajectory.steps if s.action.is_query) > 1 for t in candidate.paths]
    # Sentence level: a right answer sits in a sentence that says what the question asks about.
    ranks = [r for r, (_, sentence) in enumerate(ranked) if phrase and not said and f" {phrase} " in sentence]
    overlap = [
        len(question_stems & {stem(w) for w in content_words(ranked[r][1], language)}) / max(1, len(question_stems))
        for r in ranks
    ]
    return {
        "vote_share": len(candidate.paths) / max(1, finished),
        "votes": math.log1p(len(candidate.paths)),
        "confidence": max((_confidence(t) for t in candidate.paths), default=0.0),
        "answer_nll": min((_nll(t) for t in candidate.paths), default=_NLL_CAP),
        "supported": float(bool(holding)),
        "support_share": support_share,
        "support_relevance": max(relevance, default=0.0),
        "support_passages": math.log1p(len(holding)),
        "entities_read": read,
        "type_match": float(shape is True),
        "type_mismatch": float(shape is False),
        "bridge": float(bridge),
        "echo": float(not yes_no and not picked and echoes(text, question)),
        "yes_no": float(yes_no),
        "option_read": option_read,
        "wrong_language": float(bool(expected and written and written != expected)),
        "words": math.log1p(len(text.split())),
        "searched": sum(searched) / len(searched) if searched else 0.0,
        "truncated": float(cut or loops(text)),
        "sentence_overlap": max(overlap, default=0.0),
        "sentence_rank": 1.0 / (1 + ranks[0]) if ranks else 0.0,
        "top_sentence": float(bool(ranks) and ranks[0] < 3),
        **dict.fromkeys(READER_FEATURES, 0.0),
    }


def is_correct(text: str, golds: Sequence[str], question: str = "") -> bool:
    """The label the verifier learns and its precision is measured by: token F1 >= 0.5 against a gold answer, or
    a gold answer inside the text (whole normalised words). On a comparison the option picked must be the gold's:
    "Battle of Manila" shares two of three words with "Battle of Guam" and is still the wrong one."""
    from rqrag.text.answer_text import answer_f1

    if question and options(question):
        picked, gold = picked_option(text, question), [picked_option(g, question) for g in golds]
        if picked is not None and any(gold):
            return picked in gold
    if answer_f1(text, golds) >= 0.5:
        return True
    norm = normalize_answer(text or "")
    return any(_phrase_in(normalize_answer(g), norm) for g in golds if normalize_answer(g))
