"""How a path of the tree ends: answered (`finished_path`), failed with its reason (`failed_path`), or kept among the
`max_paths` best of its question (`cap_paths`); and, once a question's paths have all ended, which trajectory each
selection strategy picks (`select_trajectories`). Pure functions of the tree's state: the decoder calls them.
"""

from __future__ import annotations

from collections import defaultdict

from rqrag.inference.decoding.accounting import answer_span_logprobs
from rqrag.inference.decoding.expansions import Expansion
from rqrag.inference.decoding.failures import Failure, FailureKind
from rqrag.inference.decoding.select import select_all
from rqrag.inference.decoding.tree import FinishedTrajectory, Path, QuestionResult
from rqrag.trajectory import Action, ParsedStep, Step, Trajectory


def cap_paths(live: list[Path], max_paths: int) -> list[Path]:
    """Keep at most `max_paths` live paths per question, preferring low perplexity so far. Parents kept
    only to answer for guarded branches do not count: they never branch."""
    by_question: dict[str, list[Path]] = defaultdict(list)
    kept: list[Path] = []
    for path in live:
        if path.answer_as is not None:
            kept.append(path)
        else:
            by_question[path.qid].append(path)
    for paths in by_question.values():
        if len(paths) > max_paths:
            paths = sorted(paths, key=lambda p: (p.running_perplexity, p.path_id))[:max_paths]
        kept += paths
    return kept


def finished_path(ex: Expansion, parsed: ParsedStep) -> FinishedTrajectory:
    steps = (*ex.path.steps, Step(Action.ANSWER, parsed.text))
    completion = ex.completion
    return FinishedTrajectory(
        path_id=ex.child_id,
        trajectory=Trajectory(steps),
        generated_logprobs=(*ex.path.generated_logprobs, *completion.logprobs),
        answer_logprobs=answer_span_logprobs(completion),
        parse_statuses=(*ex.path.parse_statuses, parsed.status),
        error=None if parsed.usable else Failure(FailureKind.UNUSABLE_OUTPUT, f"answer: {parsed.status.value}"),
        sequence_ids=(*ex.request.prompt_ids, *completion.token_ids) if ex.request is not None else (),
    )


def failed_path(ex: Expansion, reason: Failure, parsed: ParsedStep | None = None) -> FinishedTrajectory:
    statuses = (*ex.path.parse_statuses, parsed.status) if parsed is not None else ex.path.parse_statuses
    return FinishedTrajectory(
        path_id=ex.child_id,
        trajectory=Trajectory(ex.path.steps),
        generated_logprobs=ex.path.generated_logprobs,
        answer_logprobs=(),
        parse_statuses=statuses,
        error=reason,
    )


def select_trajectories(result: QuestionResult, choices: tuple[tuple[str, str], ...] = ()) -> None:
    ok = [i for i, t in enumerate(result.trajectories) if t.ok]
    if not ok:
        if result.error is None and result.out_of_time_at is not None:
            result.error = Failure(
                FailureKind.OUT_OF_TIME,
                f"no path finished before the time budget ran out (depth {result.out_of_time_at})",
            )
        elif result.error is None:
            reasons = sorted({str(t.error) for t in result.trajectories if t.error})
            result.error = Failure(FailureKind.NO_TRAJECTORY_FINISHED, "; ".join(reasons))
        return
    candidates = [result.trajectories[i].scored(result.question) for i in ok]
    result.selected = {name: ok[i] for name, i in select_all(candidates, choices).items()}
