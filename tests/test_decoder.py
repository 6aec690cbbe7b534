"""Tree decoder logic with a scripted generator and a real BM25 index over a tiny corpus."""

from __future__ import annotations

import dataclasses
import math

import pytest
from fakes import FakeGenerator

from rqrag.inference.backends.base import Completion
from rqrag.inference.decoding.accounting import answer_span_logprobs
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.inference.decoding.failures import Failure, FailureKind
from rqrag.inference.decoding.select import STRATEGIES, supported
from rqrag.inference.decoding.tree import Question
from rqrag.retrieval.bm25 import BM25Retriever
from rqrag.retrieval.passages import Passage
from rqrag.trajectory import Action


DOCS = [
    Passage("d-kili", "Mount Kilimanjaro", "Kilimanjaro is a dormant volcano in Tanzania."),
    Passage("d-jaguar", "Jaguar", "The jaguar is a large cat native to the Americas."),
    Passage("d-paris", "Paris", "Paris is the capital of France."),
]


@pytest.fixture(scope="module")
def retriever():
    return BM25Retriever.from_passages(DOCS, show_progress=False)


QUERY_PROB = {Action.REWRITE: 0.9, Action.DECOMPOSE: 0.5, Action.DISAMBIGUATE: 0.2}


def script(prompt, action, request):
    topic = "volcano Tanzania" if "alpha" in prompt else "large cat Americas"
    if action is Action.ANSWER:
        depth = prompt.count("[R_Evidences]")
        answer = "Kilimanjaro" if "alpha" in prompt else "Jaguar"
        # Depth-0 answers are very probable overall; answers after a rewrite are the most confident.
        prob = 0.99 if depth == 0 else (0.995 if "rewrite" in prompt.split("[R_Evidences]")[0] else 0.7)
        return answer, prob
    return f"{action.short} {topic}", QUERY_PROB[action]


def _questions():
    return [
        Question("qa", [{"role": "user", "content": "alpha: which volcano is in Tanzania?"}]),
        Question("qb", [{"role": "user", "content": "beta: which large cat lives in the Americas?"}]),
    ]


def _decoder(tok, retriever, script_fn=script, **overrides):
    # The script's queries repeat their parents' and find the one passage about their topic again and again: with
    # the refinement guards on (tests/test_guards.py) they would end every branch after one search. The tests
    # here are about the shape of the full tree.
    overrides.setdefault("refinement_guards", False)
    config = DecodeConfig(prompting="trained", **overrides)
    gen = FakeGenerator(tok, script_fn)
    return TreeDecoder(config, gen, tok, retriever), gen


@pytest.mark.parametrize(
    ("overrides", "depth_sizes", "n_finished"),
    [
        ({"max_depth": 2}, [4, 12, 9], 13),  # 1 answer + 3 after one search + 9 after two
        ({"max_depth": 2, "width": 2, "max_paths": 64}, [7, 42, 36], 43),
        ({"max_depth": 2, "width": 2}, [7, 42, 32], 39),  # default cap: 32 live paths
        ({"max_depth": 2, "answer_at_every_depth": False}, [3, 9, 9], 9),
        ({"max_depth": 1, "actions": ["decompose"]}, [2, 1], 2),
        ({"max_depth": 0}, [1], 1),
    ],
)
def test_tree_shape(smollm2_tokenizer, retriever, overrides, depth_sizes, n_finished):
    decoder, gen = _decoder(smollm2_tokenizer, retriever, **overrides)
    (result,) = decoder.decode(_questions()[:1])
    assert decoder.stats.depth_sizes == depth_sizes
    assert len(result.trajectories) == n_finished and all(t.ok for t in result.trajectories)
    assert gen.stats.model_calls == len(depth_sizes)  # one generate call per depth, nothing else
    ids = [t.path_id for t in result.trajectories]
    assert len(set(ids)) == len(ids) and all(i.startswith("0.") for i in ids)


def test_paths_stay_with_their_question_across_a_batch(smollm2_tokenizer, retriever):
    def lopsided(prompt, action, request):
        # Question b's decompositions come out empty, so its tree is smaller than a's.
        if "beta" in prompt and action is Action.DECOMPOSE:
            return "", 0.5
        return script(prompt, action, request)

    decoder, _ = _decoder(smollm2_tokenizer, retriever, lopsided, max_depth=2)
    qa, qb = decoder.decode(_questions())
    assert len([t for t in qa.trajectories if t.ok]) == 13
    ok_b = [t for t in qb.trajectories if t.ok]
    assert len(ok_b) == 1 + 2 + 4  # rewrite/disambiguate only: 2 after one search, 2x2 after two
    assert {str(t.error) for t in qb.trajectories if not t.ok} == {"unusable decompose output: empty"}
    assert {t.error.kind for t in qb.trajectories if not t.ok} == {FailureKind.UNUSABLE_OUTPUT}
    for t in qa.trajectories:
        assert all("volcano" in s.text for s in t.trajectory.steps if s.action.is_query)
        assert all(h.docid == "d-kili" for s in t.trajectory.steps for h in s.evidence[:1])
    for t in ok_b:
        assert all("cat" in s.text for s in t.trajectory.steps if s.action.is_query)
        assert t.trajectory.answer == "Jaguar"
    # Path ids spell the ancestry: every step of a trajectory extends its parent's id.
    deep = next(
        t for t in qa.trajectories if t.trajectory.steps[0].action is Action.DECOMPOSE and len(t.trajectory.steps) == 3
    )
    assert deep.path_id.startswith("0.1.") and deep.path_id.count(".") == 3


def test_selection_strategies_on_scripted_logprobs(smollm2_tokenizer, retriever):
    decoder, _ = _decoder(smollm2_tokenizer, retriever, max_depth=1, actions=["rewrite", "decompose"])
    (result,) = decoder.decode(_questions()[:1])
    by_id = {t.path_id: t for t in result.trajectories}
    chosen = {s: result.trajectories[i].path_id for s, i in result.selected.items()}
    assert set(chosen) == set(STRATEGIES)
    # 0.2 = depth-0 answer: every generated token has p = 0.99 -> the lowest whole-path perplexity (the
    # searching paths carry queries at 0.9 and 0.5).
    assert chosen["ppl_path"] == "0.2"
    # Answer perplexity and confidence look at the answer only: 0.995 after the rewrite beats 0.99.
    assert chosen["ppl"] == chosen["confidence"] == "0.0.0"
    assert by_id["0.0.0"].scored().confidence == pytest.approx(0.995)
    # All three answer "Kilimanjaro"; the ensemble's representative is the most confident member.
    assert chosen["ensemble"] == "0.0.0"
    # The searched paths found "Mount Kilimanjaro"; the direct answer read nothing to back it.
    assert [supported(by_id[i].scored()) for i in ("0.0.0", "0.1.0", "0.2")] == [True, True, False]
    assert chosen["support"] == chosen["vote"] == "0.0.0"
    assert result.answer == "Kilimanjaro"


class _EosGenerator(FakeGenerator):
    """The scripted generator, except that each completion's terminating [EOS] gets its own probability."""

    def __init__(self, tokenizer, script_fn, eos_prob):
        super().__init__(tokenizer, script_fn)
        self.eos_prob = eos_prob  # (prompt text, action) -> p([EOS])

    def generate(self, requests):
        out = []
        for request, completion in zip(requests, super().generate(requests)):
            prompt = self.tokenizer.decode(request.prompt_ids, skip_special_tokens=False)
            eos = math.log(self.eos_prob(prompt, self.action_by_id[request.prompt_ids[-1]]))
            out.append(dataclasses.replace(completion, logprobs=(*completion.logprobs[:-1], eos)))
        return out


def test_answer_scores_leave_out_the_terminating_eos(smollm2_tokenizer, retriever):
    def answers(prompt, action, request):
        if action is Action.ANSWER:  # " Kilimanjaro" is 4 tokens; p = 0.9 direct, 0.95 after a search
            return "Kilimanjaro", 0.95 if "[R_Evidences]" in prompt else 0.9
        return "rewrite volcano Tanzania", 0.8

    def eos_prob(prompt, action):
        # The direct answer is sure it is done (0.99); after the search the model hesitates to stop (0.1).
        return 0.1 if "[R_Evidences]" in prompt else 0.99

    config = DecodeConfig(prompting="trained", max_depth=1, actions=["rewrite"])
    gen = _EosGenerator(smollm2_tokenizer, answers, eos_prob)
    (result,) = TreeDecoder(config, gen, smollm2_tokenizer, retriever).decode(_questions()[:1])
    by_id = {t.path_id: t for t in result.trajectories}
    direct, searched = by_id["0.1"], by_id["0.0.0"]
    assert direct.answer_logprobs == pytest.approx((math.log(0.9),) * 4)  # [EOS] left out
    assert direct.generated_logprobs == pytest.approx((*(math.log(0.9),) * 4, math.log(0.99)))  # but kept here
    assert searched.answer_logprobs == pytest.approx((math.log(0.95),) * 4)
    # With [EOS] counted, confidence was (4 * .9 + .99)/5 = .918 for the direct answer against
    # (4 * .95 + .1)/5 = .78 after the search, and the direct answer won; without it, .9 < .95.
    assert direct.scored().confidence == pytest.approx(0.9)
    assert searched.scored().confidence == pytest.approx(0.95)
    assert searched.scored().answer_perplexity == pytest.approx(1 / 0.95)
    assert result.trajectories[result.selected["confidence"]] is searched
    assert result.trajectories[result.selected["ppl"]] is searched


def test_a_truncated_answer_keeps_all_its_logprobs():
    cut = Completion("Kilimanj", (1, 2), (math.log(0.5), math.log(0.25)), "length")
    assert answer_span_logprobs(cut) == (math.log(0.5), math.log(0.25))  # no terminator to drop
    for reason in ("stop", "eos"):
        done = Completion("Kilimanjaro", (1, 2), (math.log(0.5), math.log(0.25)), reason)
        assert answer_span_logprobs(done) == (math.log(0.5),)
    assert answer_span_logprobs(Completion("", (), (), "stop")) == ()


def test_schedules_give_identical_trajectories(smollm2_tokenizer, retriever):
    outcomes, calls = {}, {}
    for schedule in ("batched", "per_action", "sequential"):
        decoder, gen = _decoder(smollm2_tokenizer, retriever, max_depth=2, schedule=schedule)
        results = decoder.decode(_questions())
        outcomes[schedule] = [[t.to_dict() for t in r.trajectories] for r in results]
        calls[schedule] = gen.stats.model_calls
    assert outcomes["batched"] == outcomes["per_action"] == outcomes["sequential"]
    assert calls == {"batched": 3, "per_action": 4 + 4 + 1, "sequential": 2 * (4 + 12 + 9)}


def test_trained_prompts_extend_token_by_token(smollm2_tokenizer, retriever):
    decoder, gen = _decoder(smollm2_tokenizer, retriever, max_depth=1, actions=["rewrite"])
    decoder.decode(_questions()[:1])
    depth0, depth1 = gen.calls
    root = depth0[0].prompt_ids[:-1]
    assert all(r.shared_prefix_len == len(root) and r.prompt_ids[:-1] == root for r in depth0)
    child = depth1[0].prompt_ids
    assert child[: len(root)] == root  # the child's prompt starts with the parent's exact ids
    text = smollm2_tokenizer.decode(child, skip_special_tokens=False)
    assert text.endswith(
        "[S_Rewritten_Query] rewrite volcano Tanzania[EOS]\n[R_Evidences]Title: Mount Kilimanjaro\n"
        "Text: Kilimanjaro is a dormant volcano in Tanzania.[/R_Evidences]\n[A_Response]"
    )


def test_bad_inputs_fail_alone(smollm2_tokenizer, retriever):
    decoder, gen = _decoder(smollm2_tokenizer, retriever, max_depth=1)
    gen._max_context = 300
    questions = [
        Question("empty", [{"role": "user", "content": "   "}]),
        Question("long", [{"role": "user", "content": "alpha " + "word " * 400}]),
        *_questions(),
    ]
    empty, long, qa, qb = decoder.decode(questions)
    assert empty.error.kind is FailureKind.EMPTY_QUESTION and not empty.trajectories
    assert long.error.kind is FailureKind.QUESTION_TOO_LONG and "context window of 300" in str(long.error)
    assert qa.answer == "Kilimanjaro" and qb.answer == "Jaguar"


def test_retriever_failure_marks_only_its_paths(smollm2_tokenizer, retriever):
    class Flaky:
        uses_qids = False
        name = "flaky"

        def batch_search(self, queries, k=3, qids=None):
            raise RuntimeError("index offline")

        def search(self, query, k=3, qid=None):
            if "decompose" in query:
                raise RuntimeError("index offline")
            return retriever.search(query, k=k)

    decoder, _ = _decoder(smollm2_tokenizer, Flaky(), max_depth=1)
    (qa,) = decoder.decode(_questions()[:1])
    failed = [t for t in qa.trajectories if not t.ok]
    assert [t.error for t in failed] == [Failure(FailureKind.RETRIEVAL_FAILED, "index offline")]
    assert len([t for t in qa.trajectories if t.ok]) == 1 + 2
    assert qa.answer == "Kilimanjaro"


def test_generator_failure_is_reported_not_raised(smollm2_tokenizer, retriever):
    def broken(prompt, action, request):
        raise MemoryError("out of memory")

    decoder, _ = _decoder(smollm2_tokenizer, retriever, broken, max_depth=1)
    qa, qb = decoder.decode(_questions())
    assert qa.answer is None and "generation failed: MemoryError" in str(qa.error)
    assert qb.answer is None and qb.error.kind is FailureKind.NO_TRAJECTORY_FINISHED


def test_live_path_cap_keeps_the_most_probable(smollm2_tokenizer, retriever):
    decoder, _ = _decoder(smollm2_tokenizer, retriever, max_depth=2, max_paths=1)
    (qa,) = decoder.decode(_questions()[:1])
    deepest = [t for t in qa.trajectories if len(t.trajectory.steps) == 3]
    # Only the rewrite path (p = 0.9 per token) survives the cap after depth 0.
    assert deepest and all(t.trajectory.steps[0].action is Action.REWRITE for t in deepest)
    assert decoder.stats.depth_sizes == [4, 4, 1]  # 3 queries capped to 1 after each depth


def test_a_query_that_runs_on_into_another_action_adds_only_the_query_to_the_context(smollm2_tokenizer, retriever):
    """The model writes "query [A_Response] answer [EOS]": the step records the query, and the next depth's
    prompt must hold the query and its evidence only, not the stray answer the trajectory does not show."""

    def runs_on(prompt, action, request):
        if action is Action.ANSWER:
            return "Kilimanjaro", 0.9
        return "volcano Tanzania [A_Response] Mount Stray", 0.5

    decoder, gen = _decoder(smollm2_tokenizer, retriever, runs_on, max_depth=1, actions=["rewrite"])
    (result,) = decoder.decode(_questions()[:1])
    searched = [t for t in result.trajectories if t.ok and len(t.trajectory.steps) == 2]
    assert searched and searched[0].trajectory.steps[0].text == "volcano Tanzania"
    answer_id = smollm2_tokenizer.convert_tokens_to_ids(Action.ANSWER.value)
    (depth1_answer,) = [r for r in gen.calls[1] if r.prompt_ids[-1] == answer_id]
    context = smollm2_tokenizer.decode(depth1_answer.prompt_ids[:-1], skip_special_tokens=False)
    assert "Mount Stray" not in context
    assert list(depth1_answer.prompt_ids).count(answer_id) == 1  # only the forced one at the end
    assert "volcano Tanzania[EOS]" in context.replace(" [EOS]", "[EOS]")


def test_evidence_max_words_cuts_what_the_model_reads_and_what_the_trajectory_keeps(smollm2_tokenizer, retriever):
    """The decoder's cut must match training's (`training/sft.py --evidence_max_words`): the evidence in the
    next prompt and in the stored trajectory are the passage's first N words, nothing more."""
    full, _ = _decoder(smollm2_tokenizer, retriever, max_depth=1, actions=["rewrite"], evidence_max_words=0)
    cut, gen = _decoder(smollm2_tokenizer, retriever, max_depth=1, actions=["rewrite"], evidence_max_words=3)
    (long_result,) = full.decode(_questions()[:1])
    (short_result,) = cut.decode(_questions()[:1])
    (searched,) = [t for t in short_result.trajectories if len(t.trajectory.steps) == 2]
    hits = searched.trajectory.steps[0].evidence
    assert hits and all(len(h.text.split()) <= 3 for h in hits)
    assert hits[0].text == "Kilimanjaro is a"  # the first three words of the top passage
    (long_searched,) = [t for t in long_result.trajectories if len(t.trajectory.steps) == 2]
    assert long_searched.trajectory.steps[0].evidence[0].text == "Kilimanjaro is a dormant volcano in Tanzania."
    answer_id = smollm2_tokenizer.convert_tokens_to_ids(Action.ANSWER.value)
    (depth1_answer,) = [r for r in gen.calls[1] if r.prompt_ids[-1] == answer_id]
    context = smollm2_tokenizer.decode(depth1_answer.prompt_ids, skip_special_tokens=False)
    assert "Kilimanjaro is a" in context and "dormant volcano" not in context


def test_evidence_max_words_must_be_positive():
    with pytest.raises(ValueError, match="evidence_max_words"):
        DecodeConfig(evidence_max_words=-1)
