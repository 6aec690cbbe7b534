"""One model thread, many users' trees: questions join the running decode at its next depth, users take turns.

    scheduler = TreeScheduler(decode_fn, window_s=0.02, max_questions=16, max_waiting_per_user=16)
    scheduler.start()
    future = scheduler.submit(work, key=batch, user="ana")      # from any thread; Busy when ana has 16 waiting
    result = future.result()                                    # as soon as ana's tree is done

The model is not re-entrant, so one thread decodes. It takes the questions waiting with the settings of the one
at the head of the line (`key`: depth, retriever, strategy; questions with other settings wait for the next
decode), at most `max_questions`, and hands them to `decode_fn(items, key, admit, on_done)`. With
`admission="depth"` (the default), `admit()` is asked at every depth boundary of that decode and gives the
questions of the same key that arrived meanwhile: they join at their own depth 0, in the same generator call as
the others' next depth, so a question behind a long tree waits for one depth of work, not for the whole tree
(vLLM's continuous batching, at the tree's own step). `on_done(item, outcome)` resolves an item's future the
moment its tree is done. With `admission="batch"` a decode takes only the questions there when it starts, and the
others wait for its end: on a CPU, where a batch of two costs nearly what two calls cost, that is the better schedule
for questions of like size (a question joining a running decode slows the questions in it about as much as it
gains itself: processor sharing against first come first served; `scripts/bench_serving.py`).

A single model call can be long too (the longest question the server takes decodes 48 tokens over a 560-token
prompt: 2-3 s on a CPU), and a question arriving during it would wait for all of it. So the generator calls
`between_steps(call_started)` after each decode step; once its call has run `preempt_after_s`, the waiting questions
much smaller than the largest one still being decoded (`size_of`, the question's length, `preempt_size_ratio` times
smaller) are decoded there and then, in a decode of their own (nested in the call they interrupt, on the same
thread), and the interrupted call goes on after: shortest job first, where the sizes are plain to see. So are the
questions of a user with nothing running while one user has `flood_questions` or more in the decode: a flood waits
its turn, not the others. Otherwise questions of like size are never interrupted for each other: what waits joins
at the next depth, batched with the rest. (A nested decode delays the questions it interrupts by a whole tree; done
for any question that had waited 0.25 s, it made the p95 of `scripts/bench_serving.py` at 0.75x capacity 9.3 s
against 4.0 s without it.) Two rules
keep the interrupted questions from starving: a nested decode admits no one (it finishes what it took), and within
one call the decodes nested in it get at most as much time as the call itself has had, so the call is at most twice
as slow. vLLM's scheduler interleaves at each token; a transformers generate call is not re-entrant across threads
but is within one, hence the nesting (the vllm backend has no such hook: its questions join at the next depth).

Turns are fair: each take goes round the users who have questions waiting, one question each per turn, so one
user's fifty questions do not starve another's one; and each user may have `max_waiting_per_user` waiting at
most (a `Busy`, 429 with Retry-After, beyond it).
"""

from __future__ import annotations

import concurrent.futures
import logging
import math
import threading
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from rqrag.serve.errors import Busy


logger = logging.getLogger(__name__)

Item = TypeVar("Item")
Outcome = TypeVar("Outcome")
# (items, key, admit, on_done): decode `items` (all of settings `key`), asking `admit()` at each depth boundary for
# more and calling `on_done(item, outcome)` for each item, admitted ones included, as soon as it is done.
DecodeFn = Callable[[Sequence[Item], Hashable, Callable[[], list[Item]], Callable[[Item, Outcome], None]], None]
ADMISSIONS = ("depth", "batch")


@dataclass
class _Waiting(Generic[Item]):
    item: Item
    key: Hashable
    future: concurrent.futures.Future
    user: str = ""
    since: float = field(default_factory=time.monotonic)


@dataclass
class SchedulerStats:
    decodes: int = 0
    questions: int = 0
    admitted_late: int = 0  # questions that joined a decode already running
    sizes: list[int] = field(default_factory=list)  # questions each decode started with
    busy_seconds: float = 0.0  # time the model thread spent decoding
    preemptions: int = 0  # decodes nested in a model call that held waiting questions up


class TreeScheduler(Generic[Item, Outcome]):
    def __init__(
        self,
        decode_fn: DecodeFn,
        window_s: float = 0.02,
        max_questions: int = 16,
        max_waiting_per_user: int = 16,
        admission: str = "depth",
        preempt_after_s: float | None = 0.25,
        size_of: Callable[[Item], float] | None = None,
        preempt_size_ratio: float = 8.0,
        flood_questions: int = 4,
        elsewhere: Callable[[], Mapping[str, int]] | None = None,
    ):
        if window_s < 0 or max_questions < 1 or max_waiting_per_user < 1:
            raise ValueError("window_s >= 0, max_questions >= 1 and max_waiting_per_user >= 1 are required")
        if preempt_after_s is not None and preempt_after_s < 0:
            raise ValueError("preempt_after_s must be >= 0 (or None: never)")
        if admission not in ADMISSIONS:
            raise ValueError(f"admission must be one of {ADMISSIONS}, not {admission!r}")
        self.decode_fn = decode_fn
        self.window_s = window_s
        self.max_questions = max_questions
        self.max_waiting_per_user = max_waiting_per_user
        self.admission = admission
        self.preempt_after_s = preempt_after_s
        self.size_of = size_of or (lambda item: 1.0)  # all alike: nothing is ever small enough to go first
        self.preempt_size_ratio = preempt_size_ratio
        self.flood_questions = flood_questions  # one user's questions in a decode that make it a flood
        # each user's questions in flight on the other servers of a deployment (`serve/deployment_limits.py`):
        # the flood rule counts them too, so a flood spread over replicas is a flood on each
        self.elsewhere = elsewhere or dict
        self.stats = SchedulerStats()
        self.on_batch: Callable[[int], None] | None = None  # told each decode's (and each admission's) size
        self._lines: OrderedDict[str, deque[_Waiting]] = OrderedDict()  # user -> their waiting questions, in turn
        self._lock = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._running: dict[int, _Waiting] = {}  # the questions of the decode now running (not nested), not done yet
        self._nested = False
        self._call_started: float | None = None  # the model call between_steps last heard from (its start)
        self._nested_in_call = 0.0  # seconds of that call spent in decodes nested in it

    # ------------------------------------------------------------------------------------------ callers

    def start(self) -> None:
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="rqrag-decode", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 30.0) -> None:
        with self._lock:
            self._stopping = True
            self._lock.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
        with self._lock:  # whatever still waits will not be decoded
            for line in self._lines.values():
                for waiting in line:
                    waiting.future.cancel()
            self._lines.clear()

    def submit(self, item: Item, key: Hashable = None, user: str | None = None) -> concurrent.futures.Future:
        """A future of `item`'s outcome. `user` takes turns with the others; beyond `max_waiting_per_user` of theirs
        waiting, a `Busy`. Cancelling the future before the item is taken keeps it from being decoded."""
        user = user or ""
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            if self._thread is None or self._stopping:
                raise RuntimeError("TreeScheduler.start() was not called, or it is stopping")
            line = self._lines.setdefault(user, deque())
            if sum(not w.future.cancelled() for w in line) >= self.max_waiting_per_user:
                raise Busy(
                    f"{self.max_waiting_per_user} questions of yours are already waiting; ask again when one is "
                    "answered",
                    code="too_many_questions",
                    retry_after=math.ceil(self.seconds_per_question()),  # about one question's model time
                )
            line.append(_Waiting(item, key, future, user))
            self._lock.notify_all()
        return future

    def seconds_per_question(self) -> float:
        """The model thread's mean time per question decoded so far (1 s before any)."""
        return self.stats.busy_seconds / self.stats.questions if self.stats.questions else 1.0

    def waiting(self) -> int:
        with self._lock:
            return sum(len(line) for line in self._lines.values())

    # ------------------------------------------------------------------------------------ model thread

    def _take(self, key: Hashable, limit: int, small: Callable[[_Waiting], bool] | None = None) -> list[_Waiting]:
        """Up to `limit` waiting questions of settings `key`, one per user per turn round the users in line; a
        user served goes to the back of the line. Cancelled questions are dropped on the way. With `small` (a
        predicate), only the questions it accepts; a `key` of None then takes the settings of the first one found."""
        taken: list[_Waiting] = []
        with self._lock:
            while len(taken) < limit:
                served = None
                for user, line in self._lines.items():
                    while line and line[0].future.cancelled():
                        line.popleft()
                    if small is None:
                        found = next((w for w in line if w.key == key and not w.future.cancelled()), None)
                    else:  # key None: the settings of the first small one found, which the others must share
                        found = next(
                            (w for w in line if not w.future.cancelled() and small(w) and key in (None, w.key)), None
                        )
                        key = found.key if found is not None else key
                    if found is not None:
                        line.remove(found)
                        taken.append(found)
                        served = user
                        break
                if served is None:
                    break
                self._lines.move_to_end(served)  # the next turn starts with the users not served yet
            for user in [u for u, line in self._lines.items() if not line]:
                del self._lines[user]
        return [w for w in taken if w.future.set_running_or_notify_cancel()]

    @property
    def nested(self) -> bool:
        """Whether the decode running now is nested in another's model call (see `between_steps`)."""
        return self._nested

    def between_steps(self, call_started: float) -> None:
        """The generator's hook, after each decode step of the call that began at `call_started` (a
        `time.perf_counter()` reading): once the call has run `preempt_after_s`, decode in between the waiting
        questions much smaller than the largest one running (see the module's docstring). Does nothing off the model
        thread, inside a nested decode, or once the decodes nested in this call have had as much time as the call."""
        if self.preempt_after_s is None or self._nested or threading.current_thread() is not self._thread:
            return
        if call_started != self._call_started:  # another call: its own budget
            self._call_started, self._nested_in_call = call_started, 0.0
        call_seconds = time.perf_counter() - call_started
        if call_seconds < self.preempt_after_s or self._nested_in_call >= call_seconds - self._nested_in_call:
            return
        running = list(self._running.values())
        threshold = max((self.size_of(w.item) for w in running), default=0.0) / self.preempt_size_ratio
        per_user = Counter(w.user for w in running) + Counter(self.elsewhere())
        flooding = max(per_user.values(), default=0) >= self.flood_questions

        def goes_first(w: _Waiting) -> bool:
            # much shorter than the longest question running, or a user with nothing running while one user's
            # questions fill the decode (their flood must not make the others wait for its whole trees)
            return self.size_of(w.item) <= threshold or (flooding and per_user[w.user] == 0)

        taken = self._take(None, self.max_questions, goes_first)
        if not taken:
            return
        self.stats.preemptions += 1
        self._nested = True
        began = time.perf_counter()
        try:
            self._decode(taken, taken[0].key)
        finally:
            self._nested = False
            self._nested_in_call += time.perf_counter() - began

    def _head_key(self) -> tuple[bool, Hashable]:
        with self._lock:
            while not self._stopping and not any(self._lines.values()):
                self._lock.wait()
            if self._stopping:
                return False, None
            first = next(line[0] for line in self._lines.values() if line)
            return True, first.key

    def _run(self) -> None:
        while True:
            going, key = self._head_key()
            if not going:
                return
            if self.window_s:
                time.sleep(self.window_s)  # the questions that came together start together
            started = self._take(key, self.max_questions)
            if started:
                self._decode(started, key)

    def _decode(self, started: list[_Waiting], key: Hashable) -> None:
        in_flight: dict[int, _Waiting] = {id(w.item): w for w in started}
        nested = self._nested
        if not nested:
            self._running = in_flight  # what between_steps compares the waiting questions' sizes with
        self.stats.decodes += 1
        self.stats.questions += len(started)
        self.stats.sizes.append(len(started))
        if self.on_batch is not None:
            self.on_batch(len(started))

        def admit() -> list[Item]:
            if self.admission != "depth" or self._stopping or nested:  # a nested decode finishes what it took
                return []
            joined = self._take(key, self.max_questions)
            for w in joined:
                in_flight[id(w.item)] = w
            if joined:
                self.stats.admitted_late += len(joined)
                self.stats.questions += len(joined)
                if self.on_batch is not None:
                    self.on_batch(len(joined))
            return [w.item for w in joined]

        def on_done(item: Item, outcome: Outcome) -> None:
            waiting = in_flight.pop(id(item), None)
            if waiting is not None and not waiting.future.done():
                waiting.future.set_result(outcome)

        began = time.perf_counter()
        try:
            self.decode_fn([w.item for w in started], key, admit, on_done)
        except Exception as error:  # the decode failed: its questions get the error, the others go on
            logger.exception("decode of %d question(s) failed", len(in_flight))
            for waiting in in_flight.values():
                if not waiting.future.done():
                    waiting.future.set_exception(error)
            in_flight.clear()
        finally:
            if not nested:  # a nested decode's time is inside the decode it interrupted
                self.stats.busy_seconds += time.perf_counter() - began
        for waiting in in_flight.values():  # a decode function that forgot one: say so rather than hang
            if not waiting.future.done():
                waiting.future.set_exception(RuntimeError("the decode ended without this question's outcome"))
