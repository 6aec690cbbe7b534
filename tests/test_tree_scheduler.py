"""The model thread's scheduler with a recording decode function: questions join at the next depth, users take
turns, a user's line is bounded (the real server is tested in test_server.py and test_serving_fairness)."""

from __future__ import annotations

import threading
import time

import pytest

from rqrag.inference.decoding.tree import Question, QuestionResult
from rqrag.serve.errors import Busy
from rqrag.serve.tree_scheduler import TreeScheduler


def _question(i) -> Question:
    return Question(f"q{i}", [{"role": "user", "content": f"question {i}"}])


class FakeTrees:
    """A decode function whose trees are `depths` depths deep and take `seconds` a depth: at each boundary it
    admits, and each question is done `depths` depths after it joined. It records who was in each depth."""

    def __init__(
        self, depths: int = 3, seconds: float = 0.0, fail_on: str | None = None, long_seconds: float | None = None
    ):
        self.depths, self.seconds, self.fail_on = depths, seconds, fail_on
        self.long_seconds = long_seconds  # a depth holding a question whose id starts with "qlong" takes this long
        self.decodes: list[tuple[object, list[list[str]]]] = []  # (key, the question ids in each depth)
        self.threads: set[str] = set()
        self.between_steps = (
            None  # like a generator's hook: called every 10 ms of a depth's model call, with its start
        )

    def _model_call(self, running) -> None:
        seconds = self.seconds
        if self.long_seconds is not None and any(qid.startswith("qlong") for qid in running):
            seconds = self.long_seconds
        if self.between_steps is None:
            time.sleep(seconds)
            return
        began = time.perf_counter()
        while time.perf_counter() < began + seconds:
            time.sleep(min(0.01, max(0.0, began + seconds - time.perf_counter())))
            self.between_steps(began)

    def __call__(self, items, key, admit, on_done):
        self.threads.add(threading.current_thread().name)
        running = {q.qid: (q, 0) for q in items}
        depths: list[list[str]] = []
        self.decodes.append((key, depths))
        while running:
            depths.append(sorted(running))
            if self.fail_on in running:
                raise RuntimeError("retriever down")
            self._model_call(running)
            for qid, (q, depth) in list(running.items()):
                if depth + 1 == self.depths:
                    del running[qid]
                    on_done(q, QuestionResult(q.qid, q.text))
                else:
                    running[qid] = (q, depth + 1)
            for q in admit():
                running[q.qid] = (q, 0)


def _started(scheduler):
    scheduler.start()
    return scheduler


def test_questions_that_come_together_share_one_decode():
    trees = FakeTrees()
    scheduler = _started(TreeScheduler(trees, window_s=0.2, max_questions=16))
    futures = [scheduler.submit(_question(i), ("corpus", 1), user=f"u{i}") for i in range(8)]
    results = [f.result(timeout=10) for f in futures]
    scheduler.stop()
    assert [r.qid for r in results] == [f"q{i}" for i in range(8)]  # each caller gets its own result
    assert len(trees.decodes) == 1 and len(trees.decodes[0][1][0]) == 8
    assert trees.threads == {"rqrag-decode"} and scheduler.stats.sizes == [8]


def test_a_question_arriving_during_a_decode_joins_at_the_next_depth():
    trees = FakeTrees(depths=3, seconds=0.2)
    scheduler = _started(TreeScheduler(trees, window_s=0.0))
    first = scheduler.submit(_question(0), "k")
    time.sleep(0.1)  # the first decode is in its depth 0 now
    late = scheduler.submit(_question(1), "k")
    late.result(timeout=10)
    first.result(timeout=10)
    scheduler.stop()
    ((_, depths),) = trees.decodes  # one decode: the late question joined it
    assert depths == [["q0"], ["q0", "q1"], ["q0", "q1"], ["q1"]]
    assert scheduler.stats.admitted_late == 1


def test_the_batch_schedule_makes_a_late_question_wait_for_the_whole_tree():
    trees = FakeTrees(depths=3, seconds=0.2)
    scheduler = _started(TreeScheduler(trees, window_s=0.0, admission="batch"))
    first = scheduler.submit(_question(0), "k")
    time.sleep(0.1)
    late = scheduler.submit(_question(1), "k")
    late.result(timeout=10)
    first.result(timeout=10)
    scheduler.stop()
    assert [depths for _, depths in trees.decodes] == [[["q0"]] * 3, [["q1"]] * 3]


def test_a_finished_tree_is_handed_over_before_the_others_end():
    trees = FakeTrees(depths=2, seconds=0.15)
    scheduler = _started(TreeScheduler(trees, window_s=0.0))
    first = scheduler.submit(_question(0), "k")
    time.sleep(0.1)
    late = scheduler.submit(_question(1), "k")
    first.result(timeout=10)
    assert not late.done()  # the first's answer did not wait for the late question's tree
    late.result(timeout=10)
    scheduler.stop()


def test_settings_are_decoded_apart_and_a_failure_stays_in_its_decode():
    trees = FakeTrees(depths=1, fail_on="q0")
    scheduler = _started(TreeScheduler(trees, window_s=0.2))
    web = scheduler.submit(_question(0), ("web", 1))
    corpus = [scheduler.submit(_question(i), ("corpus", 1)) for i in (1, 2)]
    with pytest.raises(RuntimeError, match="retriever down"):
        web.result(timeout=10)
    assert [f.result(timeout=10).qid for f in corpus] == ["q1", "q2"]
    scheduler.stop()
    assert sorted((key, tuple(depths[0])) for key, depths in trees.decodes) == [
        (("corpus", 1), ("q1", "q2")),
        (("web", 1), ("q0",)),
    ]


def test_one_users_flood_does_not_starve_another_users_question():
    trees = FakeTrees(depths=2, seconds=0.05)
    scheduler = _started(TreeScheduler(trees, window_s=0.05, max_questions=4, max_waiting_per_user=64))
    flood = [scheduler.submit(_question(f"a{i}"), "k", user="ana") for i in range(50)]
    time.sleep(0.01)
    single = scheduler.submit(_question("b"), "k", user="bia")
    single.result(timeout=30)
    [f.result(timeout=30) for f in flood]
    scheduler.stop()
    depths = trees.decodes[0][1]
    joined_at = next(i for i, ids in enumerate(depths) if "qb" in ids)
    assert joined_at <= 1  # in the first depth or admitted at the first boundary: one depth's work at most


def _size(question) -> float:
    return 100.0 if question.qid.startswith("qlong") else 1.0


def _preempting(trees: FakeTrees, **options) -> TreeScheduler:
    scheduler = TreeScheduler(trees, window_s=0.0, size_of=_size, **options)
    trees.between_steps = scheduler.between_steps
    return _started(scheduler)


@pytest.mark.parametrize("admission", ["depth", "batch"])
def test_a_question_held_up_by_a_long_model_call_is_decoded_in_between(admission):
    # One depth of the long question takes 1 s; the short question's whole tree (3 depths) 0.15 s. Joining at the
    # next depth it would wait for the long call; decoded in between, it is answered 0.1 s after it has waited.
    trees = FakeTrees(depths=3, seconds=0.05, long_seconds=1.0)
    scheduler = _preempting(trees, preempt_after_s=0.1, admission=admission)
    long = scheduler.submit(_question("long"), "k", user="ana")
    time.sleep(0.2)  # the long question's first model call is running
    asked = time.monotonic()
    short = scheduler.submit(_question(1), "k", user="bia")
    short.result(timeout=10)
    waited = time.monotonic() - asked
    assert not long.done()  # the short question did not wait for the long call to end
    long.result(timeout=30)
    scheduler.stop()
    assert waited < 0.8
    outer, nested = trees.decodes
    assert nested[1] == [["q1"]] * 3  # decoded on its own, all three depths
    assert all("q1" not in ids for ids in outer[1])  # and not admitted again by the decode it interrupted
    assert scheduler.stats.preemptions == 1


def test_without_preemption_a_short_question_waits_for_the_long_call():
    trees = FakeTrees(depths=3, seconds=0.05, long_seconds=0.8)
    scheduler = _preempting(trees, preempt_after_s=None)
    long = scheduler.submit(_question("long"), "k")
    time.sleep(0.2)
    short = scheduler.submit(_question(1), "k")
    short.result(timeout=10)
    long.result(timeout=30)
    scheduler.stop()
    ((_, depths),) = trees.decodes  # joined the running decode at its next depth
    assert depths[1] == ["q1", "qlong"] and scheduler.stats.preemptions == 0


@pytest.mark.parametrize("admission", ["depth", "batch"])
def test_a_flood_does_not_make_another_users_question_wait_for_its_trees(admission):
    # Ana's 50 questions fill the decodes 16 at a time (0.8 s each); Bia's one question, asked while the first runs,
    # is decoded in between: done before any of Ana's, in about its own time. Joining at the next depth instead, it
    # would share Ana's calls and end after her first 16; with whole-tree batches, after them too.
    trees = FakeTrees(depths=2, seconds=0.4)
    scheduler = _preempting(trees, preempt_after_s=0.1, admission=admission, max_waiting_per_user=64)
    flood = [scheduler.submit(_question(f"a{i}"), "k", user="ana") for i in range(50)]
    time.sleep(0.15)
    asked = time.monotonic()
    single = scheduler.submit(_question("b"), "k", user="bia")
    single.result(timeout=30)
    waited = time.monotonic() - asked
    ana_done_before = sum(f.done() for f in flood)
    [f.result(timeout=60) for f in flood]
    scheduler.stop()
    assert ana_done_before == 0 and waited < 1.2
    assert [depths for _, depths in trees.decodes if ["qb"] in depths] == [[["qb"], ["qb"]]]


def test_questions_of_like_size_are_not_interrupted_for_each_other():
    # A nested decode delays what it interrupts by a whole tree: only a question much smaller than the ones running
    # goes first; one of like size joins at the next depth, batched, however long the call it waits on.
    trees = FakeTrees(depths=3, seconds=0.6)
    scheduler = _preempting(trees, preempt_after_s=0.1)
    first = scheduler.submit(_question(0), "k", user="ana")
    time.sleep(0.2)
    late = scheduler.submit(_question(1), "k", user="bia")
    late.result(timeout=10)
    first.result(timeout=10)
    scheduler.stop()
    ((_, depths),) = trees.decodes
    assert depths[1] == ["q0", "q1"] and scheduler.stats.preemptions == 0


def test_a_short_call_is_not_interrupted_even_for_a_small_question():
    trees = FakeTrees(depths=3, seconds=0.05, long_seconds=0.3)
    scheduler = _preempting(trees, preempt_after_s=0.5)
    long = scheduler.submit(_question("long"), "k", user="ana")
    time.sleep(0.1)
    short = scheduler.submit(_question(1), "k", user="bia")
    short.result(timeout=10)
    long.result(timeout=10)
    scheduler.stop()
    assert len(trees.decodes) == 1 and scheduler.stats.preemptions == 0


def test_questions_decoded_in_between_take_at_most_half_the_model_thread():
    # Short questions (0.2 s each) arrive every 20 ms while a 1 s call runs: were they decoded in between whenever
    # one had waited, the long call would never move; newcomers get at most the time the call has had.
    trees = FakeTrees(depths=1, seconds=0.2, long_seconds=1.0)
    scheduler = _preempting(trees, preempt_after_s=0.05, max_waiting_per_user=64)
    long = scheduler.submit(_question("long"), "k", user="ana")
    stop = threading.Event()

    def flood():
        i = 0
        while not stop.is_set():
            scheduler.submit(_question(f"f{i}"), "k", user=f"user{i % 8}")
            i += 1
            time.sleep(0.02)

    began = time.monotonic()
    flooding = threading.Thread(target=flood)
    flooding.start()
    long.result(timeout=60)
    took = time.monotonic() - began
    stop.set()
    flooding.join()
    scheduler.stop()
    assert scheduler.stats.preemptions >= 2  # it did give way to them
    assert took < 2.6  # 1 s of its own and at most as much again for the others, plus one short decode


def test_a_users_line_is_bounded_and_others_still_get_in():
    trees = FakeTrees(depths=1, seconds=0.3)
    scheduler = _started(TreeScheduler(trees, window_s=0.0, max_questions=1, max_waiting_per_user=2))
    running = scheduler.submit(_question(0), "k", user="ana")
    time.sleep(0.1)  # taken: no longer waiting
    waiting = [scheduler.submit(_question(i), "k", user="ana") for i in (1, 2)]
    with pytest.raises(Busy) as refused:
        scheduler.submit(_question(3), "k", user="ana")
    assert refused.value.code == "too_many_questions"
    other = scheduler.submit(_question(4), "k", user="bia")
    for f in (running, *waiting, other):
        f.result(timeout=10)
    scheduler.stop()


def test_a_question_cancelled_while_waiting_is_not_decoded():
    trees = FakeTrees(depths=1, seconds=0.3)
    scheduler = _started(TreeScheduler(trees, window_s=0.0, admission="batch"))
    first = scheduler.submit(_question(0), "k")
    time.sleep(0.1)
    gone = scheduler.submit(_question(1), "k")
    assert gone.cancel()
    first.result(timeout=10)
    time.sleep(0.4)
    scheduler.stop()
    assert all("q1" not in ids for _, depths in trees.decodes for ids in depths)


def test_invalid_settings_are_refused():
    with pytest.raises(ValueError):
        TreeScheduler(FakeTrees(), window_s=-1)
    with pytest.raises(ValueError):
        TreeScheduler(FakeTrees(), max_questions=0)
    with pytest.raises(ValueError):
        TreeScheduler(FakeTrees(), admission="whenever")


def test_the_answer_service_schedules_what_its_types_say(smollm2_tokenizer):
    """The server's scheduler is declared `TreeScheduler[_TreeWork, QuestionResult]`: its decode function is typed
    so, and a real question through the service hands it one question's tree to run and gets its result back,
    the tree the answer stands on."""
    import asyncio
    from collections.abc import Callable, Sequence
    from typing import get_args, get_type_hints

    from fakes import FakeGenerator

    from rqrag.inference.decoding.decode_config import DecodeConfig
    from rqrag.inference.decoding.decoder import TreeDecoder
    from rqrag.retrieval.bm25 import BM25Retriever
    from rqrag.retrieval.passages import Passage
    from rqrag.serve.answer_service import AnswerService, _TreeWork
    from rqrag.serve.serve_config import ServeConfig

    retriever = BM25Retriever.from_passages([Passage("d", "Hamlet", "Hamlet was written by Shakespeare.")])
    generator = FakeGenerator(smollm2_tokenizer, lambda prompt, action, request: ("Shakespeare", 0.9))
    config = DecodeConfig(prompting="trained", max_depth=0)
    service = AnswerService(
        config, ServeConfig(retrievers=["corpus"]), TreeDecoder(config, generator, smollm2_tokenizer, retriever)
    )
    item_type, outcome_type = get_args(service.scheduler.__orig_class__)
    assert (item_type, outcome_type) == (_TreeWork, QuestionResult)  # one question's tree in, its result out
    hints = get_type_hints(service._decode_trees)
    assert hints["work"] == Sequence[_TreeWork]
    assert hints["on_done"] == Callable[[_TreeWork, QuestionResult], None]

    handed: list[tuple[object, object]] = []
    decode = service.scheduler.decode_fn

    def recorded(items, key, admit, on_done):
        def done(item, outcome):
            handed.append((item, outcome))
            on_done(item, outcome)

        decode(items, key, admit, done)

    service.scheduler.decode_fn = recorded

    async def ask():
        service.scheduler.start()
        try:
            batch = service.check("Who wrote Hamlet?", retriever=None, strategy=None, max_depth=None)
            return await service.answer([{"role": "user", "content": "Who wrote Hamlet?"}], batch, user="ana")
        finally:
            service.scheduler.stop()

    answer = asyncio.run(ask())
    ((item, outcome),) = handed
    assert isinstance(item, item_type) and isinstance(outcome, outcome_type)
    assert outcome is answer.result and answer.text and outcome.batch_info["batch_questions"] == 1


def test_a_refused_question_says_when_to_ask_again():
    from rqrag.serve.server.schema import http_error

    trees = FakeTrees(depths=1, seconds=0.3)
    scheduler = _started(TreeScheduler(trees, window_s=0.0, max_questions=1, max_waiting_per_user=1))
    running = scheduler.submit(_question(0), "k", user="ana")
    time.sleep(0.1)
    waiting = scheduler.submit(_question(1), "k", user="ana")
    with pytest.raises(Busy) as refused:
        scheduler.submit(_question(2), "k", user="ana")
    error = http_error(refused.value)
    assert error.status == 429 and int(error.headers["Retry-After"]) >= 1
    running.result(timeout=10), waiting.result(timeout=10)
    scheduler.stop()


def test_auto_admission_batches_whole_trees_on_a_cpu_and_joins_at_each_depth_elsewhere(smollm2_dir):
    import torch

    from rqrag.inference.backends.hf import HFGenerator
    from rqrag.models import load_model_and_tokenizer
    from rqrag.serve.answer_service import resolve_admission

    model, tokenizer = load_model_and_tokenizer(smollm2_dir)
    on_cpu = HFGenerator(model, tokenizer)
    assert model.device == torch.device("cpu")
    assert resolve_admission("auto", on_cpu) == "batch"
    assert resolve_admission("depth", on_cpu) == "depth"  # what is asked for is kept
    assert resolve_admission("auto", object()) == "depth"  # no torch model here: an engine or a remote server
