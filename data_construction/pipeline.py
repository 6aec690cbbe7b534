"""The data-construction run: sources -> refined queries -> evidence -> answer -> trajectory records.

Paper §2.1 / App. A: from an (input, output) pair build `(X, [SPECIAL_type, Q_i, D_i1..D_ik] x i, Y_new)`.
Examples go through in chunks; within a chunk every LLM call runs concurrently (bounded by the client's
semaphore), every search of the chunk is one batched retrieval call, and the finished records are appended
in input order. Kept records go to `data.jsonl`, final drops to `dropped.jsonl` (see `output.py` for why a
killed run resumes without loss or duplicates); examples whose endpoint was unreachable are left for the
next run. `run_report.py` summarises both files at the end.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tqdm.auto import tqdm

from rqrag.benchmarks.files import default_file
from rqrag.benchmarks.source_spec import parse_source_spec
from rqrag.benchmarks.sources import SourceExample, parse_records
from rqrag.benchmarks.splits import load_split
from rqrag.data_construction.annotate import Annotator, DropExample, answer_agrees
from rqrag.data_construction.data_config import DataBuildConfig
from rqrag.data_construction.prompts import PromptBook
from rqrag.data_construction.query_filter import filter_new_evidence, filter_text
from rqrag.llm.client import ChatClient, LLMUnavailable
from rqrag.records import ReadStats, read_records
from rqrag.resumable import ResumableJsonl
from rqrag.retrieval.base import Hit, Retriever, RetrieverUnavailable
from rqrag.retrieval.candidate_paragraphs import candidate_docid
from rqrag.trajectory import Action, Step, Trajectory
from rqrag.trajectory_render import chat_frame, format_evidence, render_assistant


logger = logging.getLogger(__name__)

DATA_FILE, DROPPED_FILE = "data.jsonl", "dropped.jsonl"
MULTIHOP_SOURCES = ("hotpotqa", "2wikimultihopqa", "musique")


@dataclass
class SourceStats:
    read: ReadStats = field(default_factory=ReadStats)
    unusable: int = 0  # parsed JSON the loader could not use (no question, no answer, ...)
    outside_split: int = 0
    selected: int = 0


@dataclass
class RunResult:
    out_dir: Path
    written: int  # records kept in this run
    dropped: int  # examples dropped in this run
    pending: int  # examples left for the next run (endpoint unreachable)
    skipped_done: int  # examples already finished by an earlier run
    stopped_early: bool
    sources: dict[str, SourceStats]
    llm_stats: dict[str, int] = field(default_factory=dict)


def load_examples(config: DataBuildConfig) -> tuple[list[SourceExample], dict[str, SourceStats]]:
    """Every selected example of every source, split-filtered and limited; bad lines counted, not fatal."""
    overrides = dict(item.split("=", 1) for item in config.source_files)
    examples: list[SourceExample] = []
    stats: dict[str, SourceStats] = {}
    for spec in map(parse_source_spec, config.sources):
        source = spec.name
        path = overrides.get(source) or str(default_file(source, config.benchmarks_dir))
        # Split files list the ids of the shipped benchmark files; another file (a hub train split) is all usable.
        split = load_split(source) if config.split != "all" and source not in overrides else None
        st = stats.setdefault(source, SourceStats())

        def unusable(position: int, reason: str, st: SourceStats = st, source: str = source) -> None:
            st.unusable += 1
            logger.debug("%s record %d unusable: %s", source, position, reason)

        seen: set[str] = set()
        for example in parse_records(source, read_records(path, st.read), unusable):
            if split is not None and example.source_id not in split.ids(config.split):
                st.outside_split += 1
                continue
            if example.source_id in seen:  # a duplicated record would otherwise become two trajectories
                st.unusable += 1
                continue
            seen.add(example.source_id)
            if spec.before(len(seen)):
                continue
            examples.append(example)
            st.selected += 1
            if spec.last(len(seen)):
                break
    return examples, stats


def build_retrievers(
    config: DataBuildConfig, examples: Sequence[SourceExample], cache_path: Path
) -> dict[str, Retriever]:
    """One retriever per retriever kind in use; multi-hop candidates are the loaded examples' own pools, keyed by
    uid."""
    from rqrag.retrieval import build_retriever

    retriever_kinds = {_retriever_kind(config, ex) for ex in examples}
    retrievers: dict[str, Retriever] = {}
    for retriever_kind in sorted(retriever_kinds):
        if retriever_kind == "candidates":
            records = [ex.pool_record() for ex in examples if ex.pool and _retriever_kind(config, ex) == "candidates"]
            retrievers[retriever_kind] = build_retriever(
                "candidates", mode=config.candidates_mode, records=records, cache_path=cache_path
            )
        elif retriever_kind == "corpus":
            retrievers[retriever_kind] = build_retriever(
                "corpus", mode=config.retriever_mode, index_dir=config.index_dir, cache_path=cache_path
            )
        else:
            retrievers[retriever_kind] = build_retriever("web", cache_path=cache_path)
    return retrievers


def _retriever_kind(config: DataBuildConfig, example: SourceExample) -> str:
    if example.source in MULTIHOP_SOURCES or (example.pool and example.category == "decompose"):
        return config.multihop_retriever
    return config.retriever


class Pipeline:
    def __init__(self, config: DataBuildConfig, annotator: Annotator, retrievers: dict[str, Retriever], tokenizer):
        self.config = config
        self.annotator = annotator
        self.retrievers = retrievers
        self.tokenizer = tokenizer
        self.filtered: dict[str, Counter[str]] = {}  # uid -> refinements dropped by the query filter, per reason

    async def process_chunk(self, chunk: Sequence[SourceExample]) -> list[dict | DropExample | LLMUnavailable]:
        """One outcome per example, in order: a record, a drop (final) or an unavailable endpoint (retry later)."""
        refined = await asyncio.gather(*(self._guard(self.annotator.queries(ex)) for ex in chunk))
        proposed: dict[int, int] = {}  # example index -> refinements the annotator wrote
        if self.config.query_filter:
            for i, (ex, outcome) in enumerate(zip(chunk, refined)):
                if isinstance(outcome, tuple):
                    proposed[i] = len(outcome[0])
                    kept, dropped = filter_text(outcome[0], ex.question, ex.aliases)
                    self.filtered[ex.uid] = dropped
                    refined[i] = (kept, outcome[1])
        searches: dict[str, list[tuple[int, str, str]]] = {}  # retriever kind -> [(example index, query, qid)]
        for i, (ex, outcome) in enumerate(zip(chunk, refined)):
            if isinstance(outcome, tuple):
                for query in outcome[0]:
                    searches.setdefault(_retriever_kind(self.config, ex), []).append((i, query, ex.uid))
        hits_by_query: dict[tuple[int, str], list[Hit]] = {}
        failed_search: dict[int, RetrieverUnavailable] = {}
        for retriever_kind, wanted in searches.items():
            retriever = self.retrievers[retriever_kind]
            qids = [qid for _, _, qid in wanted] if retriever.uses_qids else None
            try:
                results = retriever.batch_search([q for _, q, _ in wanted], k=self.config.docs_per_query, qids=qids)
            except RetrieverUnavailable as err:
                failed_search.update({i: err for i, _, _ in wanted})
                continue
            hits_by_query.update({(i, q): hits for (i, q, _), hits in zip(wanted, results)})

        steps: list[list[Step] | DropExample | Exception] = []
        for i, (ex, outcome) in enumerate(zip(chunk, refined)):
            if not isinstance(outcome, tuple):
                steps.append(outcome)
            elif i in failed_search:
                steps.append(LLMUnavailable(f"retriever unavailable: {failed_search[i]}"))
            else:
                searched = [(q, hits_by_query[(i, q)]) for q in outcome[0]]
                if self.config.query_filter:
                    searched, dropped = filter_new_evidence(searched)
                    self.filtered[ex.uid].update(dropped)
                found = [Step(ex.action, q, tuple(hits)) for q, hits in searched]
                if proposed.get(i) and not found and ex.pool:
                    # Every refinement of a multi-hop question was filtered: a direct answer would teach guessing.
                    reasons = ", ".join(f"{k} {v}" for k, v in sorted(self.filtered[ex.uid].items()))
                    steps.append(DropExample("no_useful_query", reasons))
                    continue
                steps.append(self._check_supporting(ex, found))
        answers = await asyncio.gather(
            *(
                self._guard(self.annotator.answer(ex, _evidence_text(st))) if isinstance(st, list) else _done(st)
                for ex, st in zip(chunk, steps)
            )
        )
        outcomes = []
        for ex, outcome, st, answered in zip(chunk, refined, steps, answers):
            if not isinstance(answered, tuple):
                outcomes.append(answered)
                continue
            answer, answer_source = answered
            if answer_source == "llm" and self.config.check_answer and not answer_agrees(ex, answer):
                outcomes.append(DropExample("answer_mismatch", answer[:200]))
                continue
            outcomes.append(self._record(ex, st, answer, annotator=outcome[1], answer_source=answer_source))
        return self._check_lengths(chunk, outcomes)

    async def _guard(self, coroutine):
        try:
            return await coroutine
        except (DropExample, LLMUnavailable) as err:
            return err

    def _check_supporting(self, ex: SourceExample, found: list[Step]) -> list[Step] | DropExample:
        gold = {candidate_docid(ex.uid, p["idx"]) for p in ex.pool if p["is_supporting"]}
        if not gold or self.config.require_supporting == "none" or _retriever_kind(self.config, ex) != "candidates":
            return found
        retrieved = {h.docid for step in found for h in step.evidence}
        ok = gold <= retrieved if self.config.require_supporting == "all" else bool(gold & retrieved)
        if ok:
            return found
        return DropExample(
            "missed_supporting", f"retrieved {len(gold & retrieved)} of {len(gold)} supporting paragraphs"
        )

    def _record(
        self, ex: SourceExample, steps: list[Step], answer: str, *, annotator: str, answer_source: str
    ) -> dict:
        trajectory = Trajectory((*steps, Step(Action.ANSWER, answer)))
        kinds = {_retriever_kind(self.config, ex)} if steps else set()
        return {
            "id": ex.uid,
            "messages": [*ex.messages, {"role": "assistant", "content": render_assistant(trajectory)}],
            "trajectory": trajectory.to_dict(),
            "metadata": {
                "source": ex.source,
                "source_id": ex.source_id,
                "category": ex.category,
                "refinement": ex.action.short if steps else "none",
                "annotator": annotator,
                "answer_source": answer_source,
                "retrieval": ",".join(sorted(kinds)) or "none",
                "n_queries": len(steps),
                "queries_filtered": dict(self.filtered.get(ex.uid, {})),
                "refinement_origin": ex.extra.get("refinement_origin", annotator),
                "original_answer": ex.answer,
                "gold_answers": list(ex.aliases),
            },
        }

    def _check_lengths(self, chunk: Sequence[SourceExample], outcomes: list) -> list:
        """Token lengths before (question + original answer) and after augmentation, in two batched calls."""
        kept = [(i, o) for i, o in enumerate(outcomes) if isinstance(o, dict)]
        if not kept:
            return outcomes
        # One chat frame per example serves both texts; the assistant turn is already rendered in the record.
        frames = [chat_frame(self.tokenizer, chunk[i].messages) for i, _ in kept]
        after_texts = [prompt + o["messages"][-1]["content"] + end for (prompt, end), (_, o) in zip(frames, kept)]
        before_texts = [prompt + chunk[i].answer for (prompt, _), (i, _) in zip(frames, kept)]
        encoded = self.tokenizer([*after_texts, *before_texts], add_special_tokens=False)["input_ids"]
        for n, (i, record) in enumerate(kept):
            after, before = len(encoded[n]), len(encoded[len(kept) + n])
            if after > self.config.max_length:
                outcomes[i] = DropExample("too_long", f"{after} tokens > max_length {self.config.max_length}")
                continue
            record["metadata"]["n_tokens"] = after
            record["metadata"]["n_tokens_original"] = before
        return outcomes


async def _done(value):
    return value


def _evidence_text(steps: Sequence[Step]) -> str:
    seen: dict[str, Hit] = {}
    for step in steps:
        for hit in step.evidence:
            seen.setdefault(hit.docid, hit)
    return format_evidence(seen.values())


async def run_build(config: DataBuildConfig, out_dir: Path, tokenizer) -> RunResult:
    examples, source_stats = load_examples(config)
    data, dropped = ResumableJsonl(out_dir / DATA_FILE), ResumableJsonl(out_dir / DROPPED_FILE)
    todo = [ex for ex in examples if ex.uid not in data and ex.uid not in dropped]
    skipped_done = len(examples) - len(todo)
    logger.info(
        "%d examples selected, %d finished by an earlier run, %d to do", len(examples), skipped_done, len(todo)
    )

    needs_llm = config.annotator != "gold" and (
        any(config.annotator == "llm" or not ex.gold_queries for ex in todo) or config.retention_ratio < 1.0
    )
    client = None
    if needs_llm and todo:
        client = ChatClient.from_settings(config, cache_path=out_dir / "llm_cache.sqlite")
    annotator = Annotator(
        client,
        PromptBook(config.prompts_dir),
        mode=config.annotator,
        max_queries=config.max_queries,
        retention_ratio=config.retention_ratio,
        seed=config.seed,
    )
    retrievers = build_retrievers(config, todo, out_dir / "search_cache.sqlite") if todo else {}
    pipeline = Pipeline(config, annotator, retrievers, tokenizer)
    written = n_dropped = pending = consecutive_failures = 0
    stopped_early = False
    reasons: Counter[str] = Counter()
    progress = tqdm(total=len(todo), desc="annotating", unit="ex", disable=None)
    try:
        for start in range(0, len(todo), config.chunk_size):
            chunk = todo[start : start + config.chunk_size]
            for ex, outcome in zip(chunk, await pipeline.process_chunk(chunk)):
                if isinstance(outcome, dict):
                    written += data.append(outcome)
                    consecutive_failures = 0
                elif isinstance(outcome, DropExample):
                    n_dropped += dropped.append(
                        {
                            "id": ex.uid,
                            "source": ex.source,
                            "category": ex.category,
                            "reason": outcome.reason,
                            "detail": outcome.detail,
                            "queries_filtered": dict(pipeline.filtered.get(ex.uid, {})),
                        }
                    )
                    reasons[outcome.reason] += 1
                    consecutive_failures = 0
                else:
                    pending += 1
                    consecutive_failures += 1
                    logger.debug("%s left for the next run: %s", ex.uid, outcome)
            data.sync()
            dropped.sync()
            progress.update(len(chunk))
            progress.set_postfix(kept=written, dropped=n_dropped, pending=pending)
            if consecutive_failures >= config.max_consecutive_failures:
                stopped_early = True
                logger.error(
                    "stopping: %d examples in a row failed to reach the endpoint (%s); finished records are saved, "
                    "rerun the same command to continue",
                    consecutive_failures,
                    config.llm_base_url or "api.openai.com",
                )
                break
    finally:
        progress.close()
        data.close()
        dropped.close()
        for retriever in retrievers.values():
            if hasattr(retriever, "close"):
                retriever.close()
        if client is not None:
            logger.info("LLM calls: %s", client.stats.as_dict())
            await client.close()
    if reasons:
        logger.info("dropped in this run: %s", dict(reasons.most_common()))
    llm_stats = client.stats.as_dict() if client is not None else {}
    return RunResult(out_dir, written, n_dropped, pending, skipped_done, stopped_early, source_stats, llm_stats)
