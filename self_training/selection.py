"""Which of a question's own tree trajectories is worth training on (rejection sampling).

    candidates = [score_trajectory(t, example, rules) for t in result.trajectories]
    choice = choose(candidates, rules)        # Choice(kept=Candidate | None, reason, detail)

A trajectory the model wrote itself is kept only when all of these hold, checked in this order so a dropped
question names the first test nothing passed:

1. `no_finished_trajectory` — it finished (an answer step, no decoding error);
2. `no_right_answer` — its answer's F1 against the gold answers (eval/metrics.py) reaches `min_f1`;
3. `gold_not_found` — its searches found the gold paragraphs it needed (`require_supporting`: all of them,
   any of them, or none required). A direct answer (no search) counts as found only under `none`: with `all`
   or `any` a right guess without reading would teach guessing;
4. `filtered_query` — every query passes the data-construction query filter
   (`rqrag.data_construction.query_filter`): no restatement of the question, no repeat of an earlier query,
   no non-query (too short, too long, stating the answer), no search that found nothing new — and no query that
   invents an entity (`invented_reason`: a name neither the question, the evidence read before, nor its own
   search's results hold; the kept queries of a first run named "Kuala Presto" and a "112th parallel counsel").

Of the trajectories that pass, the one with the fewest searches is kept (the cheapest right path is the one to
teach), then the higher answer confidence (mean token probability of the answer), then the path id (stable).
Its answer is replaced by the short gold answer the model's answer matched best, so what is learnt is the span,
not the sentence around it — at every depth, the direct answer included.

A question's direct answer (no search) is judged apart, by `knew_directly`: when the model's own depth-0 answer
states a gold answer (`states_gold`: a yes/no or an option named in the question must open it, followed by a
statement rather than the other option), the model knew it without reading, and the direct step is
written as the short gold span in a separate record. That teaches short direct answers for factoid questions
(instruction data alone teaches a direct answer that is a whole sentence, 14 words where the gold is a span)
without teaching a guess:
a question the model could not answer from memory gets no direct record.

Each candidate carries its refinement (`decompose`, `rewrite+decompose`, ..., `direct` for no search), so
the report can say, per refinement, how many trajectories were right, found the gold and passed the filter: whether
rewrite and disambiguate earn their place beside decompose.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from rqrag.data_construction.query_filter import filter_new_evidence, text_reason
from rqrag.eval import metrics
from rqrag.text.text_quality import invented_entities
from rqrag.trajectory import Action, Step, Trajectory


DIRECT = "direct"  # the kind of a trajectory that answers without searching
DROP_REASONS = ("no_finished_trajectory", "no_right_answer", "gold_not_found", "filtered_query", "too_long")


@dataclass(frozen=True)
class SelectionRules:
    min_f1: float = 0.8
    require_supporting: Literal["all", "any", "none"] = "all"
    query_filter: bool = True


@dataclass(frozen=True)
class Candidate:
    """One finished (or failed) trajectory of a question, scored against the gold."""

    path_id: str
    trajectory: Trajectory
    finished: bool
    refinement: str  # the refinement actions it used (`refinement_kind`), `direct` for none
    n_searches: int
    f1: float = 0.0
    recall: float | None = None  # share of the gold paragraphs its searches found (None: no gold known)
    confidence: float = 0.0
    filter_reason: str | None = None  # the query filter's first objection, None if every query passes
    short_answer: str = ""

    def right(self, rules: SelectionRules) -> bool:
        return self.finished and self.f1 >= rules.min_f1

    def found(self, rules: SelectionRules) -> bool:
        return found_gold(self.recall, self.n_searches, rules.require_supporting)

    def filtered(self, rules: SelectionRules) -> bool:
        return rules.query_filter and self.filter_reason is not None

    def passes(self, rules: SelectionRules) -> bool:
        return self.right(rules) and self.found(rules) and not self.filtered(rules)


@dataclass(frozen=True)
class Choice:
    kept: Candidate | None
    reason: str | None  # a DROP_REASONS entry when nothing is kept
    detail: str = ""
    by_kind: dict[str, dict[str, int]] = field(default_factory=dict)  # refinement -> finished/right/found/passed


def refinement_kind(trajectory: Trajectory) -> str:
    """The refinement actions a trajectory used, in order of first use, joined by `+` (`direct`: none)."""
    kinds = list(dict.fromkeys(action.short for action, _ in trajectory.queries))
    return "+".join(kinds) or DIRECT


def searched_docids(trajectory: Trajectory) -> list[str]:
    return [h.docid for step in trajectory.steps if step.action.is_query for h in step.evidence]


def short_answer(prediction: str, golds: Sequence[str]) -> str:
    """The gold answer the prediction matched best (F1; the first on ties): the span to train on."""
    if not golds:
        return prediction
    return max(golds, key=lambda gold: (metrics.f1(prediction, [gold]), -golds.index(gold)))


def query_filter_reason(trajectory: Trajectory, question: str, golds: Sequence[str]) -> str | None:
    """The query filter's first objection to a trajectory's queries, or None when all of them pass.

    The text tests see the earlier queries of the same path (a repeat is judged against them); the evidence
    test sees what the earlier searches found. A failing query rejects the whole trajectory rather than being
    cut out: the later steps were written after reading its evidence."""
    queries = [step for step in trajectory.steps if step.action.is_query]
    for i, step in enumerate(queries):
        reason = text_reason(step.text, question, [s.text for s in queries[:i]], golds)
        if reason is not None:
            return reason
    _, dropped = filter_new_evidence([(step.text, step.evidence) for step in queries])
    return next(iter(dropped), None) or invented_reason(queries, question)


def invented_reason(queries: Sequence[Step], question: str) -> str | None:
    """`invents_entity` when a query names someone or something (a capitalised word, `text_quality.
    invented_entities`) that neither the question, nor anything read before it, nor its own search's evidence
    holds: a name from nowhere that the search did not confirm ("Dean Martens" for Kiss and Tell). A bridge
    entity the model knew and its search then found ("Shirley Temple") passes."""
    seen: list[str] = []
    for step in queries:
        found = [f"{hit.title} {hit.text}" for hit in step.evidence]
        if invented_entities(step.text, question, [*seen, *found]):
            return "invents_entity"
        seen += [step.text, *found]
    return None


YES_NO = ("yes", "no")


def knew_directly(candidates: Sequence[Candidate], question: str, golds: Sequence[str]) -> Candidate | None:
    """The finished direct (no-search) candidate whose answer states a gold answer, else None (`states_gold`)."""
    for c in candidates:
        if not c.finished or c.refinement != DIRECT:  # DIRECT: no search
            continue
        gold = next((g for g in golds if states_gold(c.trajectory.answer or "", question, g)), None)
        if gold is not None:
            return replace(c, short_answer=gold)
    return None


def states_gold(answer: str, question: str, gold: str) -> bool:
    """Does a direct answer state `gold`, rather than merely contain its words?

    Containment, not F1 >= min_f1: the direct answer is the sentence whose length the record corrects, so its F1
    against a two-word gold is low even when it is right. But a gold the answer could have copied from the
    question — yes/no, or an option it names ("Which film came first, A or B?") — must open the answer and be
    followed by a statement, not by the other option: "A or B" restated decides nothing, and "B is the director
    of A" names A second and is not an answer of A."""
    norm_gold = metrics.normalize_answer(gold)
    if not norm_gold:
        return False
    if norm_gold not in YES_NO and f" {norm_gold} " not in f" {metrics.normalize_answer(question)} ":
        return metrics.match(answer, [gold]) > 0
    words, gold_words = metrics.normalize_answer(answer).split(), norm_gold.split()
    if words[: len(gold_words)] != gold_words:
        return False
    return words[len(gold_words) : len(gold_words) + 1] not in (["or"], ["and"], ["nor"], ["vs"], ["versus"])


def found_gold(recall: float | None, n_searches: int, require: str) -> bool:
    if require == "none":
        return True
    if n_searches == 0:
        return False  # a right guess without reading is not what the data should teach
    if recall is None:
        return True  # no gold paragraphs known for this question: nothing to require
    return recall >= 1.0 if require == "all" else recall > 0.0


def score_trajectory(
    path_id: str,
    trajectory: Trajectory,
    *,
    finished: bool,
    confidence: float,
    question: str,
    golds: Sequence[str],
    supporting: set[str],
) -> Candidate:
    n_searches = len(trajectory.queries)
    refinement = refinement_kind(trajectory)
    if not finished:
        return Candidate(path_id, trajectory, False, refinement, n_searches)
    answer = trajectory.answer or ""
    recall = metrics.supporting_recall(searched_docids(trajectory), supporting)
    return Candidate(
        path_id,
        trajectory,
        True,
        refinement,
        n_searches,
        f1=metrics.f1(answer, golds),
        recall=recall,
        confidence=confidence,
        filter_reason=query_filter_reason(trajectory, question, golds),
        short_answer=short_answer(answer, golds),
    )


def counts_by_kind(candidates: Sequence[Candidate], rules: SelectionRules) -> dict[str, dict[str, int]]:
    """Per refinement kind: trajectories finished, right, right and found the gold, and passing everything."""
    table: dict[str, Counter[str]] = {}
    for c in candidates:
        row = table.setdefault(c.refinement, Counter())
        row["finished"] += c.finished
        row["right"] += c.right(rules)
        row["found"] += c.right(rules) and c.found(rules)
        row["passed"] += c.passes(rules)
    counted = ("finished", "right", "found", "passed")
    return {refinement: {k: row[k] for k in counted} for refinement, row in sorted(table.items())}


def choose(candidates: Sequence[Candidate], rules: SelectionRules) -> Choice:
    """The trajectory to train on (fewest searches, then confidence, then path id), or why there is none."""
    by_kind = counts_by_kind(candidates, rules)
    finished = [c for c in candidates if c.finished]
    right = [c for c in finished if c.right(rules)]
    found = [c for c in right if c.found(rules)]
    passed = [c for c in found if not c.filtered(rules)]
    if passed:
        kept = min(passed, key=lambda c: (c.n_searches, -c.confidence, c.path_id))
        return Choice(kept, None, "", by_kind)
    detail = f"{len(candidates)} trajectories, {len(finished)} finished, {len(right)} right (f1 >= {rules.min_f1})"
    if not finished:
        return Choice(None, "no_finished_trajectory", detail, by_kind)
    if not right:
        best = max(finished, key=lambda c: c.f1)
        return Choice(None, "no_right_answer", f"{detail}; best f1 {best.f1:.2f}: {best.trajectory.answer!r}", by_kind)
    if not found:
        best = max((c.recall or 0.0 for c in right), default=0.0)
        searched = sum(c.n_searches > 0 for c in right)
        detail += f", {searched} of them searched; best gold recall {best:.2f} (require {rules.require_supporting})"
        return Choice(None, "gold_not_found", detail, by_kind)
    reasons = Counter(c.filter_reason for c in found)
    listed = ", ".join(f"{r} {n}" for r, n in reasons.most_common())
    return Choice(None, "filtered_query", f"{detail}, {len(found)} found the gold; query filter: {listed}", by_kind)


def training_trajectory(kept: Candidate) -> Trajectory:
    """The kept trajectory with its answer replaced by the short gold span."""
    steps = [s for s in kept.trajectory.steps if s.action is not Action.ANSWER]
    return Trajectory((*steps, Step(Action.ANSWER, kept.short_answer)))
