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

No work is done twice: identical expansions are generated once whatever the schedule (`merge_expansions`,
`rqrag.inference.decoding.expansions`); a query whose search its path (or a sibling) already made is not searched, one
that finds nothing its path has not read is not extended (`refinement_guards`, `rqrag.inference.decoding.guards`); and
with `stop_confidence` each depth answers first (one call) and only the questions still unsure expand their
queries (a second call).
"""

from __future__ import annotations

import copy
import logging
import time
import warnings
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence

from rqrag.inference.backends.base import Generator
from rqrag.inference.decoding.accounting import charge
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.expansions import Expansion, merge_identical, share_completions, share_prefix
from rqrag.inference.decoding.failures import Failure, FailureKind
from rqrag.inference.decoding.finished import cap_paths, failed_path, finished_path, select_trajectories
from rqrag.inference.decoding.guards import evidence_guard, parents_to_answer, text_guards
from rqrag.inference.decoding.prompting import make_prompter
from rqrag.inference.decoding.tree import DecodeStats, Path, Question, QuestionResult
from rqrag.retrieval.base import Retriever, shorten_hits
from rqrag.trajectory import Action, ParsedStep, Step


logger = logging.getLogger(__name__)


class TreeDecoder:
    def __init__(self, config: DecodeConfig, generator: Generator, tokenizer, retriever: Retriever):
        self.config = config
        self.generator = generator
        self.tokenizer = tokenizer
        self.retriever = retriever
        self.prompter = make_prompter(config.prompting, tokenizer, generator, config.prompt_format)
        prompting = self.prompter.prompting
        self.stats = DecodeStats()
        self.on_step: Callable[[str, str, Step], None] | None = None  # see `using`
        if prompting == "prompted" and config.query_temperature > 0.5:
            logger.warning(
                "prompted mode with query_temperature=%.1f: a small plain model writes noisy queries when "
                "sampled; configs/decode/smollm2_prompted.yaml decodes them greedily",
                config.query_temperature,
            )

    @property
    def prompting(self) -> str:
        """How the model is asked for each refinement, "auto" resolved: "trained" or "prompted"."""
        return self.prompter.prompting

    @property
    def mode(self) -> str:
        """Deprecated: the former name of `prompting` (`mode` means the retrieval mode elsewhere)."""
        warnings.warn("TreeDecoder.mode is deprecated; use TreeDecoder.prompting", DeprecationWarning, stacklevel=2)
        return self.prompting

    @property
    def prompt_format(self) -> str | None:
        """How a trained model's context is laid out (rqrag.prompt_formats); None in prompted mode."""
        fmt = getattr(self.prompter, "format", None)
        return fmt.name if fmt is not None else None

    def using(
        self,
        config: DecodeConfig | None = None,
        retriever: Retriever | None = None,
        on_step: Callable[[str, str, Step], None] | None = None,
    ) -> TreeDecoder:
        """This decoder with other settings for one call: the same generator, tokenizer, prompter and stats, so
        callers that decode with per-request settings (the server, the answer pipeline) never change the shared
        decoder (model, backend and prompting stay the decoder's). `on_step(qid, path_id, step)` is told of every searched refinement as soon as its evidence is
        in, so a page can show it long before the answer."""
        view = copy.copy(self)
        view.config = config or self.config
        view.retriever = retriever or self.retriever
        view.on_step = on_step
        return view

    # -------------------------------------------------------------------------------------- driver

    def decode(
        self,
        questions: Sequence[Question],
        admit: Callable[[], Sequence[Question]] | None = None,
        on_done: Callable[[QuestionResult], None] | None = None,
    ) -> list[QuestionResult]:
        """The trees of `questions`, breadth-first, one generator call per depth for all of them.

        `admit()`, when given, is asked at every depth boundary for questions that arrived meanwhile: each joins
        the running decode at its own depth 0, its first expansions in the same generator call as the others'
        next depth (a late question waits for one depth of work, not for whole trees). `on_done(result)` is told
        of each question, admitted or not, as soon as its tree has no live path left, selection made: its answer
        need not wait for the others'. Every expansion draws from its own seed (question id, path id, action),
        so a question's tree is the same whenever it joins. Returns the results of `questions`, in order."""
        results: dict[str, QuestionResult] = {}
        by_id: dict[str, Question] = {}
        joined: dict[str, int] = {}  # question id -> the round it joined at (its depth is the round minus this)
        done: set[str] = set()  # of `questions`, the ones handed over (kept: they are returned)
        returned = {q.qid for q in questions}
        live: list[Path] = []

        def join(arrived: Sequence[Question], at: int) -> None:
            for q in arrived:
                if q.qid in results:
                    raise ValueError(f"question ids must be unique within a decode: {q.qid!r} came twice")
                results[q.qid] = QuestionResult(q.qid, q.text, strategy=self.config.strategy)
                by_id[q.qid], joined[q.qid] = q, at
                root, error = self._root_path(q)
                if error:
                    results[q.qid].error = error
                else:
                    live.append(root)

        def finish_idle() -> None:
            """Select and hand over every question with no live path left. An admitted question is forgotten once
            handed over: under steady traffic a decode may never end, and what it keeps must not grow with it."""
            running = {path.qid for path in live}
            for qid in list(results):
                if qid not in done and qid not in running:
                    select_trajectories(results[qid], by_id[qid].choices)
                    if on_done is not None:
                        on_done(results[qid])
                    if qid in returned:
                        done.add(qid)
                    else:
                        del results[qid], by_id[qid], joined[qid]

        join(questions, 0)
        round_ = 0
        while True:
            if admit is not None and round_ > 0:
                join(admit(), round_)
            depth_of = {qid: round_ - start for qid, start in joined.items()}
            live = self._within_budget(live, by_id, results, depth_of)
            finish_idle()
            if not live:
                arrived = admit() if admit is not None else ()
                if not arrived:
                    break
                join(arrived, round_)
                depth_of = {qid: round_ - start for qid, start in joined.items()}
            expansions = self._expand(live, by_id, depth_of, results)
            first, rest = expansions, []
            if self.config.stop_confidence is not None:  # answers first, then queries where still unsure
                first = [ex for ex in expansions if ex.action is Action.ANSWER]
                rest = [ex for ex in expansions if ex.action is not Action.ANSWER]
            pending = self._run(first, results)
            if self.config.stop_confidence is not None:
                rest = self._drop_confident(rest, results, depth_of)
                pending += self._run(rest, results)
            self.stats.depth_sizes.append(len(first) + len(rest))
            live = self._search_and_extend(pending, results)
            live = cap_paths(live, self.config.max_paths)
            round_ += 1
        finish_idle()
        return [results[q.qid] for q in questions]

    # ------------------------------------------------------------------------------------- phases

    def _root_path(self, q: Question) -> tuple[Path | None, Failure | None]:
        """The question's root path, or the reason it cannot be decoded (empty, or beyond the context)."""
        if not q.messages or q.messages[-1].get("role") != "user" or not q.text.strip():
            return None, Failure(FailureKind.EMPTY_QUESTION, "the last message must be a non-empty user turn")
        root = Path(q.qid, "0", steps=tuple(q.steps), prompt_ids=self.prompter.root_ids(q))
        probe = self.prompter.request(q, root, Action.ANSWER, self.config.sampling_for(Action.ANSWER), 0)
        if len(probe.prompt_ids) + self.config.answer_max_tokens > self.generator.max_context:
            return None, Failure(
                FailureKind.QUESTION_TOO_LONG,
                f"its prompt is {len(probe.prompt_ids)} tokens and the answer needs {self.config.answer_max_tokens} "
                f"more, beyond the model's context window of {self.generator.max_context}",
            )
        return root, None

    def _within_budget(self, live: list[Path], by_id: dict, results: dict, depth_of: dict[str, int]) -> list[Path]:
        """The live paths whose question is still within its time budget. One model call serves a whole depth of
        every question in the batch, so a question past its deadline stops at a depth boundary: no question
        holds the model thread (and the questions batched or queued behind it) much past its budget."""
        now = time.monotonic()
        running = {path.qid for path in live}
        late = {qid for qid in running if by_id[qid].deadline is not None and now > by_id[qid].deadline}
        if not late:
            return live
        for qid in late:
            if results[qid].out_of_time_at is None:
                results[qid].out_of_time_at = depth_of[qid]
                logger.warning("question %s past its time budget: its tree stops at depth %d", qid, depth_of[qid])
        return [path for path in live if path.qid not in late]

    def _actions_at(self, depth: int) -> list[tuple[Action, int]]:
        actions: list[tuple[Action, int]] = []
        if depth < self.config.max_depth:
            actions += [(a, k) for a in self.config.query_actions for k in range(self.config.width)]
        if depth == self.config.max_depth or self.config.answer_at_every_depth:
            actions.append((Action.ANSWER, 0))
        return actions

    def _seed(self, qid: str, child_id: str, action: Action) -> int:
        return zlib.crc32(f"{self.config.seed}:{qid}:{child_id}:{action.short}".encode()) & 0x7FFFFFFF

    def _expand(self, live, by_id, depth_of: dict[str, int], results) -> list[Expansion]:
        expansions: list[Expansion] = []
        for path in live:
            question = by_id[path.qid]
            if path.answer_as is not None:  # the parent of guarded branches: it only answers (see guards.py)
                children = [(Action.ANSWER, path.answer_as)]
            else:
                actions = self._actions_at(depth_of[path.qid])
                children = [(action, path.child_id(n)) for n, (action, _) in enumerate(actions)]
            siblings: list[Expansion] = []
            for action, child_id in children:
                ex = Expansion(question, path, action, child_id)
                params = self.config.sampling_for(action)
                ex.request = self.prompter.request(
                    question, path, action, params, self._seed(path.qid, ex.child_id, action)
                )
                if len(ex.request.prompt_ids) + params.max_tokens > self.generator.max_context:
                    results[path.qid].trajectories.append(failed_path(ex, Failure(FailureKind.CONTEXT_FULL)))
                    continue
                siblings.append(ex)
            share_prefix(siblings)
            expansions += siblings
        return expansions

    def _run(self, expansions: list[Expansion], results) -> list[tuple[Expansion, ParsedStep]]:
        """Generate the expansions; answers and failures become finished trajectories, usable queries are
        returned to be searched."""
        self._generate(expansions, results)
        pending: list[tuple[Expansion, ParsedStep]] = []
        for ex in expansions:
            if ex.completion is None:
                results[ex.question.qid].trajectories.append(
                    failed_path(ex, ex.error or Failure(FailureKind.NOT_GENERATED))
                )
                continue
            parsed = self.prompter.parse(ex.action, ex.completion)
            if ex.action is Action.ANSWER:
                results[ex.question.qid].trajectories.append(finished_path(ex, parsed))
            elif parsed.usable:
                pending.append((ex, parsed))
            else:
                results[ex.question.qid].trajectories.append(
                    failed_path(
                        ex,
                        Failure(FailureKind.UNUSABLE_OUTPUT, f"{ex.action.short} output: {parsed.status.value}"),
                        parsed,
                    )
                )
        return pending

    def _drop_confident(self, queries: list[Expansion], results, depth_of: dict[str, int]) -> list[Expansion]:
        """The query expansions of the questions still unsure; a question whose best answer so far reaches
        `stop_confidence` stops here: no queries at this depth, hence no deeper levels."""
        asking = dict.fromkeys(ex.question.qid for ex in queries)
        stopped = {qid for qid in asking if results[qid].best_confidence >= self.config.stop_confidence}
        for qid in stopped:
            results[qid].stopped_at = depth_of[qid]
        self.stats.stopped.append(len(stopped))
        return [ex for ex in queries if ex.question.qid not in stopped]

    def _generate(self, expansions: list[Expansion], results) -> None:
        """The generator calls for these expansions: identical ones once (`merge_expansions`), in one call
        (batched) or several (the benchmark schedules)."""
        work = merge_identical(expansions) if self.config.merge_expansions else list(expansions)
        self.stats.expansions += len(expansions)
        self.stats.unique_expansions += len(work)
        for ex in expansions:
            if ex.shares_with is not None:
                results[ex.question.qid].merged[ex.child_id] = ex.shared_id()
        if self.config.schedule == "batched":
            calls = [work]
        elif self.config.schedule == "per_action":
            by_action: dict[Action, list[Expansion]] = defaultdict(list)
            for ex in work:
                by_action[ex.action].append(ex)
            calls = list(by_action.values())
        else:
            calls = [[ex] for ex in work]
        started = time.perf_counter()
        for call in calls:
            if not call:
                continue
            try:
                completions = self.generator.generate([ex.request for ex in call])
            except Exception as error:  # an engine failure must not take the other questions down
                logger.exception("generation failed for %d requests", len(call))
                for ex in call:
                    ex.error = Failure(FailureKind.GENERATION_FAILED, f"{type(error).__name__}: {error}")
                continue
            for ex, completion in zip(call, completions):
                ex.completion = completion
                charge(results[ex.question.qid], ex.request, completion, self.tokenizer)
        share_completions(expansions)
        self.stats.generate_seconds += time.perf_counter() - started

    def _search_and_extend(self, pending, results) -> list[Path]:
        """Search the new queries (identical ones once, in one batch) and extend their paths; with
        `refinement_guards`, repeated searches are not made and searches with nothing new not extended."""
        self.stats.queries += len(pending)
        guarded: list[Expansion] = []
        if self.config.refinement_guards:
            reasons = text_guards([(parsed.text, ex.question, ex.path) for ex, parsed in pending])
            for (ex, parsed), reason in zip(pending, reasons):
                if reason is not None:
                    guarded.append(self._guard(ex, parsed, reason, results))
            pending = [item for item, reason in zip(pending, reasons) if reason is None]
        if not pending:
            return self._answers_for(guarded, extended=set())
        uses_qids = self.retriever.uses_qids
        keys = list(dict.fromkeys((p.text, ex.question.qid if uses_qids else None) for ex, p in pending))
        started = time.perf_counter()
        found = self.search(keys)
        self.stats.retrieval_seconds += time.perf_counter() - started
        self.stats.searches += len(keys)
        live: list[Path] = []
        extended: set[tuple[str, str]] = set()  # (qid, path id) of the paths with a live child
        for ex, parsed in pending:
            hits = found[(parsed.text, ex.question.qid if uses_qids else None)]
            if isinstance(hits, Exception):
                results[ex.question.qid].trajectories.append(
                    failed_path(ex, Failure(FailureKind.RETRIEVAL_FAILED, str(hits)), parsed)
                )
                continue
            reason = evidence_guard(hits, ex.path) if self.config.refinement_guards else None
            if reason is not None:
                guarded.append(self._guard(ex, parsed, reason, results))
                continue
            completion = ex.completion
            extended.add((ex.path.qid, ex.path.path_id))
            step = Step(ex.action, parsed.text, tuple(hits))
            if self.on_step is not None:
                self.on_step(ex.path.qid, ex.child_id, step)
            live.append(
                Path(
                    qid=ex.path.qid,
                    path_id=ex.child_id,
                    steps=(*ex.path.steps, step),
                    prompt_ids=self.prompter.extend_ids(ex.path, ex.action, completion, hits),
                    generated_logprobs=(*ex.path.generated_logprobs, *completion.logprobs),
                    parse_statuses=(*ex.path.parse_statuses, parsed.status),
                )
            )
        return live + self._answers_for(guarded, extended)

    def _guard(self, ex: Expansion, parsed: ParsedStep, reason: str, results) -> Expansion:
        """Record a guarded query where the result and the counters show it."""
        results[ex.question.qid].guarded[ex.child_id] = {"reason": reason, "query": parsed.text}
        self.stats.guarded[reason] += 1
        return ex

    def _answers_for(self, guarded: list[Expansion], extended: set[tuple[str, str]]) -> list[Path]:
        """The parents a guard left without a live child, kept alive to answer at the next depth (unless they
        answered at this one, `answer_at_every_depth`), under the id of the answer they did not give here."""
        if self.config.answer_at_every_depth:
            return []
        answer_slot = len(self.config.query_actions) * self.config.width  # the answer follows a node's queries
        parents = parents_to_answer([ex.path for ex in guarded], extended, answer_slot)
        self.stats.answers_for_guarded += len(parents)
        return parents

    def search(self, keys: list[tuple[str, str | None]], k: int | None = None) -> dict:
        """One batched search of (query, qid or None) keys for `k` passages each (default: docs_per_search), cut
        to evidence_max_words; if it fails, each query alone, so one bad query fails only its own paths (its key
        maps to the exception). The iterative baselines search through it too."""
        queries = [q for q, _ in keys]
        qids = [qid for _, qid in keys] if keys and keys[0][1] is not None else None
        k, cut = k or self.config.docs_per_search, self.config.evidence_max_words
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
