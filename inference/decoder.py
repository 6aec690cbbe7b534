"""The batched tree decoder (paper §2.3, App. B.2): breadth-first over depth for a whole batch of questions.

At each depth every live path of every question is expanded into its actions (each query action `width`
times, plus the answer), and **all** those expansions go to the generator in one call; then every new
query of that depth is searched in **one** batched retrieval (identical queries searched once). Answers
end paths; queries, once their evidence is attached, become the next depth's live paths. Scores are the
logprobs the generator returned with the tokens, so selection needs no further model call.

    decoder = TreeDecoder(config, generator, tokenizer, retriever)
    results = decoder.decode([Question("q1", [{"role": "user", "content": "..."}])])

`schedule="per_action"` (one call per action per depth, as FlashRAG) and `"sequential"` (one call per
expansion, as the original code) produce the same trajectories — every expansion draws from its own seed,
derived from (question id, path id, action, sample) — and exist so `scripts/bench_tree.py` can compare.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from rqrag.inference.backend import Completion, GenerationRequest, Generator
from rqrag.inference.config import DecodeConfig
from rqrag.inference.prompting import PromptedPrompter, TrainedPrompter
from rqrag.inference.select import STRATEGIES
from rqrag.inference.tree import FinishedTrajectory, Path, Question, QuestionResult
from rqrag.retrieval.base import Retriever, shorten_hits
from rqrag.trajectory import Action, ParsedStep, Step, Trajectory


logger = logging.getLogger(__name__)


@dataclass
class DecodeStats:
    generate_seconds: float = 0.0
    retrieval_seconds: float = 0.0
    searches: int = 0  # unique queries sent to the retriever
    queries: int = 0  # queries generated (before de-duplication)
    depth_sizes: list[int] = field(default_factory=list)  # expansions per depth

    def as_dict(self) -> dict:
        return {
            "generate_seconds": round(self.generate_seconds, 3),
            "retrieval_seconds": round(self.retrieval_seconds, 3),
            "searches": self.searches,
            "queries": self.queries,
            "depth_sizes": self.depth_sizes,
        }


@dataclass
class _Expansion:
    question: Question
    path: Path
    action: Action
    child_id: str
    request: GenerationRequest | None = None
    completion: Completion | None = None
    error: str | None = None


def has_rqrag_tokens(tokenizer) -> bool:
    from rqrag.special_tokens import missing_special_tokens

    return not missing_special_tokens(tokenizer)


class TreeDecoder:
    def __init__(self, config: DecodeConfig, generator: Generator, tokenizer, retriever: Retriever):
        self.config = config
        self.generator = generator
        self.tokenizer = tokenizer
        self.retriever = retriever
        mode = config.mode
        if mode == "auto":
            mode = "trained" if has_rqrag_tokens(tokenizer) else "prompted"
        if mode == "trained" and not has_rqrag_tokens(tokenizer):
            raise ValueError("trained mode needs a tokenizer with the RQ-RAG special tokens (a fine-tuned model)")
        self.prompter = TrainedPrompter(tokenizer) if mode == "trained" else PromptedPrompter(tokenizer)
        self.stats = DecodeStats()
        if mode == "prompted" and config.query_temperature > 0.5:
            logger.warning(
                "prompted mode with query_temperature=%.1f: a small plain model writes noisy queries when "
                "sampled; configs/decode/smollm2_prompted.yaml decodes them greedily",
                config.query_temperature,
            )

    @property
    def mode(self) -> str:
        return self.prompter.mode

    # -------------------------------------------------------------------------------------- driver

    def decode(self, questions: Sequence[Question]) -> list[QuestionResult]:
        results = {q.qid: QuestionResult(q.qid, q.text, strategy=self.config.strategy) for q in questions}
        if len(results) != len(questions):
            raise ValueError("question ids must be unique within a batch")
        by_id = {q.qid: q for q in questions}
        live: list[Path] = []
        for q in questions:
            root, error = self._root_path(q)
            if error:
                results[q.qid].error = error
                continue
            live.append(root)

        for depth in range(self.config.max_depth + 1):
            if not live:
                break
            expansions = self._expand(live, by_id, depth, results)
            self.stats.depth_sizes.append(len(expansions))
            self._generate(expansions)
            pending: list[tuple[_Expansion, ParsedStep]] = []
            for ex in expansions:
                if ex.completion is None:
                    results[ex.question.qid].trajectories.append(self._failed(ex, ex.error or "not generated"))
                    continue
                parsed = self.prompter.parse(ex.action, ex.completion)
                if ex.action is Action.ANSWER:
                    results[ex.question.qid].trajectories.append(self._finish(ex, parsed))
                elif parsed.usable:
                    pending.append((ex, parsed))
                else:
                    results[ex.question.qid].trajectories.append(
                        self._failed(ex, f"unusable {ex.action.short} output: {parsed.status.value}", parsed)
                    )
            live = self._search_and_extend(pending, results)
            live = self._cap(live)

        for question in questions:
            self._select(results[question.qid], question.choices)
        return [results[q.qid] for q in questions]

    # ------------------------------------------------------------------------------------- phases

    def _root_path(self, q: Question) -> tuple[Path | None, str | None]:
        """The question's root path, or the reason it cannot be decoded (empty, or beyond the context)."""
        if not q.messages or q.messages[-1].get("role") != "user" or not q.text.strip():
            return None, "empty question: the last message must be a non-empty user turn"
        root = Path(q.qid, "0", steps=tuple(q.steps), prompt_ids=self.prompter.root_ids(q))
        probe = self.prompter.request(q, root, Action.ANSWER, self.config.sampling_for(Action.ANSWER), 0)
        if len(probe.prompt_ids) + self.config.answer_max_tokens > self.generator.max_context:
            return None, (
                f"question too long: its prompt is {len(probe.prompt_ids)} tokens and the answer needs "
                f"{self.config.answer_max_tokens} more, beyond the model's context window of {self.generator.max_context}"
            )
        return root, None

    def _actions_at(self, depth: int) -> list[tuple[Action, int]]:
        actions: list[tuple[Action, int]] = []
        if depth < self.config.max_depth:
            actions += [(a, k) for a in self.config.query_actions for k in range(self.config.width)]
        if depth == self.config.max_depth or self.config.answer_at_every_depth:
            actions.append((Action.ANSWER, 0))
        return actions

    def _seed(self, qid: str, child_id: str, action: Action) -> int:
        return zlib.crc32(f"{self.config.seed}:{qid}:{child_id}:{action.short}".encode()) & 0x7FFFFFFF

    def _expand(self, live, by_id, depth, results) -> list[_Expansion]:
        expansions: list[_Expansion] = []
        for path in live:
            question = by_id[path.qid]
            siblings: list[_Expansion] = []
            for n, (action, _) in enumerate(self._actions_at(depth)):
                ex = _Expansion(question, path, action, path.child_id(n))
                params = self.config.sampling_for(action)
                ex.request = self.prompter.request(
                    question, path, action, params, self._seed(path.qid, ex.child_id, action)
                )
                if len(ex.request.prompt_ids) + params.max_tokens > self.generator.max_context:
                    results[path.qid].trajectories.append(self._failed(ex, "context window full"))
                    continue
                siblings.append(ex)
            _share_prefix(siblings)
            expansions += siblings
        return expansions

    def _generate(self, expansions: list[_Expansion]) -> None:
        """One generator call for the depth (or several, for the benchmark schedules)."""
        if self.config.schedule == "batched":
            calls = [expansions]
        elif self.config.schedule == "per_action":
            by_action: dict[Action, list[_Expansion]] = defaultdict(list)
            for ex in expansions:
                by_action[ex.action].append(ex)
            calls = list(by_action.values())
        else:
            calls = [[ex] for ex in expansions]
        started = time.perf_counter()
        for call in calls:
            if not call:
                continue
            try:
                completions = self.generator.generate([ex.request for ex in call])
            except Exception as error:  # an engine failure must not take the other questions down
                logger.exception("generation failed for %d requests", len(call))
                for ex in call:
                    ex.error = f"generation failed: {type(error).__name__}: {error}"
                continue
            for ex, completion in zip(call, completions):
                ex.completion = completion
        self.stats.generate_seconds += time.perf_counter() - started

    def _search_and_extend(self, pending, results) -> list[Path]:
        self.stats.queries += len(pending)
        if not pending:
            return []
        uses_qids = self.retriever.uses_qids
        keys = list(dict.fromkeys((p.text, ex.question.qid if uses_qids else None) for ex, p in pending))
        started = time.perf_counter()
        found = self._search(keys)
        self.stats.retrieval_seconds += time.perf_counter() - started
        self.stats.searches += len(keys)
        live: list[Path] = []
        for ex, parsed in pending:
            hits = found[(parsed.text, ex.question.qid if uses_qids else None)]
            if isinstance(hits, Exception):
                results[ex.question.qid].trajectories.append(self._failed(ex, f"retrieval failed: {hits}", parsed))
                continue
            completion = ex.completion
            live.append(
                Path(
                    qid=ex.path.qid,
                    path_id=ex.child_id,
                    steps=(*ex.path.steps, Step(ex.action, parsed.text, tuple(hits))),
                    prompt_ids=self.prompter.extend_ids(ex.path, ex.action, completion, hits),
                    generated_logprobs=(*ex.path.generated_logprobs, *completion.logprobs),
                    parse_statuses=(*ex.path.parse_statuses, parsed.status),
                )
            )
        return live

    def _search(self, keys: list[tuple[str, str | None]]) -> dict:
        """One batched search; if it fails, each query alone so one bad query fails only its paths."""
        queries = [q for q, _ in keys]
        qids = [qid for _, qid in keys] if keys and keys[0][1] is not None else None
        k, cut = self.config.docs_per_search, self.config.evidence_max_words
        try:
            found = self.retriever.batch_search(queries, k=k, qids=qids)
            return {key: shorten_hits(hits, cut) for key, hits in zip(keys, found)}
        except Exception as error:
            logger.warning("batched retrieval failed (%s); retrying query by query", error)
        found: dict = {}
        for query, qid in keys:
            try:
                found[(query, qid)] = shorten_hits(self.retriever.search(query, k=k, qid=qid), cut)
            except Exception as error:
                found[(query, qid)] = error
        return found

    def _cap(self, live: list[Path]) -> list[Path]:
        """Keep at most `max_paths` live paths per question, preferring low perplexity so far."""
        by_question: dict[str, list[Path]] = defaultdict(list)
        for path in live:
            by_question[path.qid].append(path)
        kept: list[Path] = []
        for paths in by_question.values():
            if len(paths) > self.config.max_paths:
                paths = sorted(paths, key=lambda p: (p.running_perplexity, p.path_id))[: self.config.max_paths]
            kept += paths
        return kept

    # ------------------------------------------------------------------------------------ results

    def _finish(self, ex: _Expansion, parsed: ParsedStep) -> FinishedTrajectory:
        steps = (*ex.path.steps, Step(Action.ANSWER, parsed.text))
        completion = ex.completion
        return FinishedTrajectory(
            path_id=ex.child_id,
            trajectory=Trajectory(steps),
            generated_logprobs=(*ex.path.generated_logprobs, *completion.logprobs),
            answer_logprobs=answer_span_logprobs(completion),
            parse_statuses=(*ex.path.parse_statuses, parsed.status),
            error=None if parsed.usable else f"unusable answer: {parsed.status.value}",
            sequence_ids=(*ex.request.prompt_ids, *completion.token_ids) if ex.request is not None else (),
        )

    def _failed(self, ex: _Expansion, reason: str, parsed: ParsedStep | None = None) -> FinishedTrajectory:
        statuses = (*ex.path.parse_statuses, parsed.status) if parsed is not None else ex.path.parse_statuses
        return FinishedTrajectory(
            path_id=ex.child_id,
            trajectory=Trajectory(ex.path.steps),
            generated_logprobs=ex.path.generated_logprobs,
            answer_logprobs=(),
            parse_statuses=statuses,
            error=reason,
        )

    def _select(self, result: QuestionResult, choices: tuple[tuple[str, str], ...] = ()) -> None:
        ok = [i for i, t in enumerate(result.trajectories) if t.ok]
        if not ok:
            if result.error is None:
                reasons = sorted({t.error for t in result.trajectories if t.error})
                result.error = "no trajectory finished" + (f" ({'; '.join(reasons)})" if reasons else "")
            return
        candidates = [result.trajectories[i].scored(result.question) for i in ok]
        result.selected = {name: ok[choose(candidates, choices)] for name, choose in STRATEGIES.items()}


def answer_span_logprobs(completion: Completion) -> tuple[float, ...]:
    """The logprobs of the answer's own tokens: every backend keeps the terminating stop/eos token (our
    `[EOS]`, a newline, or the model's end of turn) as the last token, and its probability says how sure the
    model is that the answer is *over*, not what it is; a one-token answer would be half terminator. A
    completion cut at max_tokens has no terminator to drop."""
    if completion.terminated and completion.logprobs:
        return tuple(completion.logprobs[:-1])
    return tuple(completion.logprobs)


def _share_prefix(siblings: list[_Expansion]) -> None:
    """Tell the backend how many leading tokens the expansions of one node have in common."""
    if len(siblings) < 2:
        return
    prompts = [ex.request.prompt_ids for ex in siblings]
    common = 0
    for column in zip(*prompts):
        if any(tok != column[0] for tok in column):
            break
        common += 1
    for ex in siblings:
        if ex.request.shared_prefix_len is None or ex.request.shared_prefix_len > common:
            ex.request = GenerationRequest(
                ex.request.prompt_ids, ex.request.params, ex.request.stop_token_ids, ex.request.seed, common
            )
