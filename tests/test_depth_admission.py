"""Questions join a running decode at the next depth (issue 47, first step): a late question's tree is the same
as if it had come with the others, it waits for one depth of work rather than whole trees, and each question is
handed over as soon as its own tree is done."""

from __future__ import annotations

import pytest
from test_decoder import DOCS, _decoder, _questions

from rqrag.inference.decoding.tree import Question
from rqrag.retrieval.bm25 import BM25Retriever


@pytest.fixture(scope="module")
def retriever():
    return BM25Retriever.from_passages(DOCS, show_progress=False)


def _trees(results):
    return {
        r.qid: [
            (t.path_id, t.trajectory.answer, [s.text for s in t.trajectory.steps], t.answer_logprobs)
            for t in r.trajectories
        ]
        for r in results
    }


@pytest.mark.parametrize(
    "overrides", [{"max_depth": 2}, {"max_depth": 2, "width": 2}, {"max_depth": 1, "stop_confidence": 0.9}]
)
def test_a_question_that_joins_late_gets_the_same_tree(smollm2_tokenizer, retriever, overrides):
    together, _ = _decoder(smollm2_tokenizer, retriever, **overrides)
    expected = _trees(together.decode(_questions()))

    staggered, _ = _decoder(smollm2_tokenizer, retriever, **overrides)
    first, late = _questions()
    arrivals = [[], [late]]  # nobody at the first boundary, the late question at the second
    done = []
    (result,) = staggered.decode([first], admit=lambda: arrivals.pop(0) if arrivals else [], on_done=done.append)
    got = _trees([result, *(r for r in done if r.qid == late.qid)])
    assert got == expected
    assert {r.qid for r in done} == {first.qid, late.qid}
    assert all(r.selected for r in done)  # selection made before the hand-over


def test_a_late_question_waits_for_one_depth_not_for_whole_trees(smollm2_tokenizer, retriever):
    decoder, generator = _decoder(smollm2_tokenizer, retriever, max_depth=2)
    first, late = _questions()
    arrivals = [[late]]
    calls_when_done = {}
    decoder.decode(
        [first],
        admit=lambda: arrivals.pop(0) if arrivals else [],
        on_done=lambda r: calls_when_done.setdefault(r.qid, generator.stats.model_calls),
    )
    # The first question's tree takes three calls (depths 0, 1, 2); the late one joins at the first boundary, so
    # its depths 0 and 1 share calls 2 and 3 with the first's, and it finishes one call after the first does.
    assert calls_when_done == {first.qid: 3, late.qid: 4}
    assert decoder.stats.depth_sizes[1] > 12  # depth 1 of the first and depth 0 of the late in one call


def test_each_question_is_handed_over_when_its_own_tree_ends(smollm2_tokenizer, retriever):
    decoder, _ = _decoder(smollm2_tokenizer, retriever, max_depth=2)
    shallow = Question("shallow", [{"role": "user", "content": "   "}])  # empty: done before any depth
    order = []
    decoder.decode([*_questions(), shallow], on_done=lambda r: order.append(r.qid))
    assert order[0] == "shallow" and sorted(order[1:]) == ["qa", "qb"]


def test_a_decode_that_keeps_admitting_forgets_the_questions_it_handed_over(smollm2_tokenizer, retriever):
    """Under steady traffic a decode may never end: an admitted question, once handed over, is no longer held (its
    id may come again), while the questions the call returns are kept."""
    decoder, _ = _decoder(smollm2_tokenizer, retriever, max_depth=0)
    first, late = _questions()
    arrivals = [[late], [], [late], []]  # the same id again, after its first tree was handed over
    done = []
    (result,) = decoder.decode([first], admit=lambda: arrivals.pop(0) if arrivals else [], on_done=done.append)
    assert [r.qid for r in done] == [first.qid, late.qid, late.qid] and result.qid == first.qid
    assert done[1].answer == done[2].answer == "Jaguar"


def test_a_question_id_may_not_join_twice(smollm2_tokenizer, retriever):
    decoder, _ = _decoder(smollm2_tokenizer, retriever, max_depth=1)
    first, _ = _questions()
    with pytest.raises(ValueError, match="came twice"):
        decoder.decode([first], admit=lambda: [first])


@pytest.mark.slow
@pytest.mark.parametrize("prefix_cache_tokens", [0, 16_384])
def test_the_shipped_model_gives_the_same_greedy_trees_whenever_questions_join(prefix_cache_tokens):
    """The real default model (greedy queries, the shipped decode settings at depth 1) over the embedded corpus:
    three questions decoded together, and the same three with two of them joining at the first depth boundary,
    give the same trajectories, word for word. With the prefix cache on, the second decode reads every full block
    of its prompts from the cache the first one filled, and still nothing changes."""
    from rqrag.answer import build_decoder
    from rqrag.answer.api import Pipeline

    config = Pipeline.from_config(
        "rqrag_trained",
        max_depth=1,
        query_temperature=0.0,
        answer_max_tokens=24,
        prefix_cache_tokens=prefix_cache_tokens,
    ).config
    asked = [
        "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
        "Who wrote the novel Moby-Dick?",
        "Which country is Mount Kilimanjaro in?",
    ]
    questions = [Question(f"q{i}", [{"role": "user", "content": q}]) for i, q in enumerate(asked)]
    decoder = build_decoder(config)

    def words(results):
        return {
            r.qid: sorted(
                (t.path_id, t.trajectory.answer, tuple(s.text for s in t.trajectory.steps)) for t in r.trajectories
            )
            for r in results
        }

    together = words(decoder.decode(questions))
    done = []
    arrivals = [questions[1:]]
    decoder.decode(questions[:1], admit=lambda: arrivals.pop(0) if arrivals else [], on_done=done.append)
    assert words(done) == together
    if prefix_cache_tokens:
        assert decoder.generator.prefix_cache.stats.tokens_reused > 0


@pytest.mark.slow
def test_a_question_held_up_by_the_longest_question_is_decoded_in_between_with_the_same_tree():
    """The real default model in the server's scheduler: the longest question the server takes holds the model for
    one long call (48 tokens over a 560-token prompt); a normal question sent during it is decoded in between, by a
    generate nested in that call, and both trees are word for word those each gets alone."""
    import time

    from rqrag.answer import build_decoder
    from rqrag.answer.api import Pipeline
    from rqrag.serve.tree_scheduler import TreeScheduler

    config = Pipeline.from_config("rqrag_trained", max_depth=1, query_temperature=0.0).config
    decoder = build_decoder(config)
    sentence = "What does this long note say about the history of the river and the old mill near the town? "
    long = Question("long", [{"role": "user", "content": (sentence * 24).strip()}])
    normal = Question("normal", [{"role": "user", "content": "Who wrote the novel Moby-Dick?"}])

    def words(result):
        return sorted(
            (t.path_id, t.trajectory.answer, tuple(s.text for s in t.trajectory.steps)) for t in result.trajectories
        )

    alone = {q.qid: words(decoder.decode([q])[0]) for q in (long, normal)}

    def decode_fn(items, key, admit, on_done):
        known = {q.qid: q for q in items}

        def admitted():
            new = admit()
            known.update((q.qid, q) for q in new)
            return new

        decoder.decode(list(items), admit=admitted, on_done=lambda r: on_done(known[r.qid], r))

    scheduler = TreeScheduler(decode_fn, window_s=0.0, preempt_after_s=0.1, size_of=lambda q: len(q.text))
    decoder.generator.between_steps = scheduler.between_steps
    finished: list[str] = []
    scheduler.start()
    try:
        futures = [scheduler.submit(long, "k", user="ana")]
        time.sleep(0.5)  # the long question's first call is running
        futures.append(scheduler.submit(normal, "k", user="bia"))
        for future in futures:
            future.add_done_callback(lambda f: finished.append(f.result().qid))
        results = {f.result(timeout=300).qid: f.result() for f in futures}
    finally:
        scheduler.stop()
        decoder.generator.between_steps = None
    assert finished == ["normal", "long"] and scheduler.stats.preemptions == 1
    assert {qid: words(r) for qid, r in results.items()} == alone
