"""Gather concurrent requests into tree-decoder batches: N users share model calls instead of queueing.

A request waits at most `window_s` for others to join (or until `max_questions` have), then the whole group
goes to the decoder in one `decode` call on the single model thread; the next group gathers meanwhile.
Requests whose decoding settings differ (depth, retriever) are decoded in separate calls of the same round,
since one tree search has one shape. A failure is delivered to the requests of the call that failed only.

    batcher: DecodeBatcher[Work, QuestionResult] = DecodeBatcher(decode_fn, window_s=0.02, max_questions=16)
    result = await batcher.submit(work, settings=batch)                   # on the event loop
    result = batcher.submit_from_thread(work, settings=batch).result()    # from a worker thread

It knows nothing of what it batches: `decode_fn` takes a group of items (the answer service's: one question's
tree each) and returns one outcome per item, in order (its `QuestionResult`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar


logger = logging.getLogger(__name__)

Item = TypeVar("Item")  # what a request submits
Outcome = TypeVar("Outcome")  # what it gets back
DecodeFn = Callable[[Sequence[Item], Hashable], list[Outcome]]  # a group sharing settings -> one outcome each


@dataclass
class _Pending(Generic[Item]):
    item: Item
    settings: Hashable
    future: asyncio.Future


@dataclass
class BatchStats:
    batches: int = 0  # decode calls
    questions: int = 0
    sizes: list[int] = field(default_factory=list)  # questions per decode call (for /metrics)


class DecodeBatcher(Generic[Item, Outcome]):
    def __init__(self, decode_fn: DecodeFn[Item, Outcome], window_s: float = 0.02, max_questions: int = 16):
        if window_s < 0 or max_questions < 1:
            raise ValueError("window_s >= 0 and max_questions >= 1 are required")
        self.decode_fn = decode_fn
        self.window_s = window_s
        self.max_questions = max_questions
        self.stats = BatchStats()
        self.on_batch: Callable[[int], None] | None = None  # called with each decode call's size
        self._queue: asyncio.Queue[_Pending[Item]] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        # One thread: the model is not re-entrant, and one batch at a time is what batching is for.
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="rqrag-decode")

    def start(self) -> None:
        self._queue = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._task = self._loop.create_task(self._run(), name="rqrag-batcher")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        self._executor.shutdown(wait=True, cancel_futures=True)

    async def submit(self, item: Item, settings: Hashable = None) -> Outcome:
        """`decode_fn`'s outcome for `item`, decoded with the items of the same `settings` that arrive meanwhile."""
        if self._queue is None:
            raise RuntimeError("DecodeBatcher.start() was not called")
        future = asyncio.get_running_loop().create_future()
        await self._queue.put(_Pending(item, settings, future))
        return await future

    def submit_from_thread(self, item: Item, settings: Hashable = None) -> concurrent.futures.Future:
        """`submit`, from a thread other than the event loop's: a future its caller may block on, or cancel (an
        item cancelled before its group is decoded is not decoded)."""
        if self._queue is None:
            raise RuntimeError("DecodeBatcher.start() was not called")
        return asyncio.run_coroutine_threadsafe(self.submit(item, settings), self._loop)

    async def _gather(self) -> list[_Pending[Item]]:
        batch = [await self._queue.get()]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.window_s
        while len(batch) < self.max_questions:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            try:
                batch.append(await asyncio.wait_for(self._queue.get(), remaining))
            except asyncio.TimeoutError:
                break
        return batch

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            batch = await self._gather()
            batch = [p for p in batch if not p.future.done()]  # a client that gave up is not decoded
            groups: dict[Hashable, list[_Pending[Item]]] = defaultdict(list)
            for pending in batch:
                groups[pending.settings].append(pending)
            for settings, group in groups.items():
                items = [p.item for p in group]
                self.stats.batches += 1
                self.stats.questions += len(group)
                self.stats.sizes.append(len(group))
                if self.on_batch is not None:
                    self.on_batch(len(group))
                try:
                    results = await loop.run_in_executor(self._executor, self.decode_fn, items, settings)
                except Exception as error:  # the whole call failed: its requests get the error, others go on
                    logger.exception("decode call of %d question(s) failed", len(group))
                    for p in group:
                        if not p.future.done():
                            p.future.set_exception(error)
                    continue
                for p, result in zip(group, results):
                    if not p.future.done():
                        p.future.set_result(result)
