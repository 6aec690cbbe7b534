"""IRCoT and Iter-RetGen: the iterative retrieval baselines RQ-RAG is compared with, run by the same generator and
retriever as the tree, so a benchmark compares methods and nothing else.

    decoder = IterativeDecoder(tree_decoder, "ircot")        # or "iter_retgen"; same model, backend, retriever
    results = decoder.decode(questions)                      # list[QuestionResult], as TreeDecoder.decode

* **IRCoT** (Trivedi et al., ACL 2023) — interleave one sentence of chain-of-thought with one search: read the
  passages found so far, write the next thought, search with that thought, add what is new; stop when a thought
  says "So the answer is: ...", or at an empty or repeated thought or after `ircot_max_steps` thoughts, when a
  last call reads everything and answers.
* **Iter-RetGen** (Shao et al., Findings of EMNLP 2023) — retrieval and generation in turns: answer from the
  passages, then search with the question plus that answer, answer again; the last of `iter_retgen_rounds`
  answers is the answer.

Both start from the question's own search (the answer pipeline's first step, as standard RAG), and speak to the
model by instruction (`PromptedPrompter`: a chat template and a prefilled lead-in, or chat messages for a chat
endpoint), whatever its training: they are prompting methods. The FlashRAG comparison in docs/paper.md runs
them the same way (Llama3-8B-Instruct, e5, 5 passages). Every round is one batched generator call for all the
questions still going and one batched search; each question's cost (model calls, prompt and generated tokens) is
kept in its `QuestionResult.cost`, as the tree's is.

The result is one trajectory per question: each search a step (the thought or the question-plus-answer that was
searched, with its passages), then the answer; grounding and citations work on it as on the tree's.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from rqrag.inference.backends.base import Completion, SamplingParams
from rqrag.inference.decoding.accounting import answer_span_logprobs, charge
from rqrag.inference.decoding.failures import Failure, FailureKind
from rqrag.inference.decoding.prompt_text import PROMPT_TEXT, prompt_text
from rqrag.inference.decoding.prompting import make_prompter
from rqrag.inference.decoding.select import STRATEGIES
from rqrag.inference.decoding.tree import FinishedTrajectory, Question, QuestionResult
from rqrag.retrieval.base import Hit
from rqrag.trajectory import Action, ParseStatus, Step, Trajectory, clean_text, parse_generation


logger = logging.getLogger(__name__)

METHODS = ("ircot", "iter_retgen")
MAX_PASSAGES = 15  # IRCoT keeps at most this many paragraphs in its context (the paper's cap)


@dataclass
class _InFlightQuestion:
    """One question on its way: what it has read and written so far."""

    question: Question
    steps: list[Step]
    logprobs: list[float] = field(default_factory=list)
    statuses: list[ParseStatus] = field(default_factory=list)
    thoughts: list[str] = field(default_factory=list)
    answer: str | None = None
    answer_logprobs: tuple[float, ...] = ()
    error: Failure | None = None
    stalled: bool = False  # IRCoT: an empty or repeated thought; it stops thinking and the reader answers

    @property
    def hits(self) -> list[Hit]:
        return [h for step in self.steps for h in step.evidence]

    @property
    def going(self) -> bool:
        return self.answer is None and self.error is None and not self.stalled


class IterativeDecoder:
    """IRCoT or Iter-RetGen over a `TreeDecoder`'s generator, tokenizer, retriever and settings."""

    def __init__(self, tree_decoder, method: str):
        if method not in METHODS:
            raise ValueError(f"unknown iterative method {method!r}; expected one of {METHODS}")
        self.method = method
        self.tree = tree_decoder
        self.config = tree_decoder.config
        self.generator = tree_decoder.generator
        self.tokenizer = tree_decoder.tokenizer
        self.retriever = tree_decoder.retriever
        self.on_step = tree_decoder.on_step
        # Instructions, not trajectory tokens: the prompter a plain instruct model (or a chat endpoint) gets.
        self.prompter = make_prompter("prompted", self.tokenizer, self.generator)

    def decode(self, questions: Sequence[Question]) -> list[QuestionResult]:
        results = {q.qid: QuestionResult(q.qid, q.text, strategy=self.config.strategy) for q in questions}
        runs = [_InFlightQuestion(q, list(q.steps)) for q in questions]
        if self.method == "ircot":
            self._ircot(runs, results)
        else:
            self._iter_retgen(runs, results)
        for run in runs:
            self._finish(run, results[run.question.qid])
        return [results[q.qid] for q in questions]

    # ------------------------------------------------------------------------------------------ methods

    def _ircot(self, runs: list[_InFlightQuestion], results) -> None:
        for _ in range(self.config.ircot_max_steps):
            going = [r for r in runs if r.going]
            if not going:
                break
            thoughts = self._generate(going, results, "thought")
            searching = []
            for run, (text, completion) in zip(going, thoughts):
                if run.error:
                    continue
                answer = _after_marker(text)
                run.statuses.append(ParseStatus.OK if text else ParseStatus.EMPTY)
                if answer is not None:  # the reasoning reached its answer: no more searching
                    run.thoughts.append(text)
                    run.answer, run.answer_logprobs = answer, answer_span_logprobs(completion)
                elif not text or text in run.thoughts:
                    # Nothing, or the same thought again: nothing new to search, and the next step's prompt would
                    # be this one's, so (greedy) its reply too. The reader answers instead.
                    run.stalled = True
                else:
                    run.thoughts.append(text)
                    searching.append((run, text))
            self._search(searching, results, keep_read=True)
        # The reader: all passages and all thoughts, for the questions whose reasoning did not reach an answer.
        self._generate([r for r in runs if r.answer is None and r.error is None], results, "answer")

    def _iter_retgen(self, runs: list[_InFlightQuestion], results) -> None:
        for round_no in range(self.config.iter_retgen_rounds):
            going = [r for r in runs if r.error is None]
            if round_no:  # search with the question and the last answer; read only what that search found
                self._search([(r, f"{r.question.text} {r.answer or ''}".strip()) for r in going], results)
                going = [r for r in going if r.error is None]
            for run in going:
                run.answer = None  # each round answers anew
            self._generate(going, results, "answer")

    # ------------------------------------------------------------------------------------------- steps

    def _generate(self, runs: list[_InFlightQuestion], results, produces: str) -> list[tuple[str, Completion | None]]:
        """One batched call: what `produces` names, a "thought" (IRCoT) or an "answer", per run. Answers are stored
        on the runs."""
        if not runs:
            return []
        # Greedy, as the answers: a thought is read by the next step and searched, and sampling it (as the tree
        # samples its queries) only adds noise to a one-path method.
        answers = self.config.sampling_for(Action.ANSWER)
        queries = self.config.sampling_for(Action.DECOMPOSE)
        params = (
            answers if produces == "answer" else SamplingParams(answers.temperature, answers.top_p, queries.max_tokens)
        )
        requests = []
        for run in runs:
            words = prompt_text(run.question.language)
            instruction, lead = words.reason if produces == "thought" else words.instructions[Action.ANSWER]
            notes = f"{words.reasoning} {' '.join(run.thoughts)}" if run.thoughts else ""
            messages = self.prompter.compose(run.question, run.steps, instruction, notes)
            requests.append(self.prompter.encode(messages, lead, run.question.language, params, seed=0))
        try:
            completions = self.generator.generate(requests)
        except Exception as error:  # an engine failure fails this batch's questions, not the run
            logger.exception("generation failed for %d requests", len(requests))
            for run in runs:
                run.error = Failure(FailureKind.GENERATION_FAILED, f"{type(error).__name__}: {error}")
            return [("", None)] * len(runs)
        # The lead-ins a chat endpoint may repeat, in any language we prompt in.
        leads = {w.reason[1] if produces == "thought" else w.lead(Action.ANSWER) for w in PROMPT_TEXT.values()}
        out = []
        for run, request, completion in zip(runs, requests, completions):
            charge(results[run.question.qid], request, completion, self.tokenizer)
            run.logprobs.extend(completion.logprobs)
            text, reason = self.prompter.reply(completion, leads)
            if produces == "answer":
                parsed = parse_generation(Action.ANSWER, _after_marker(text) or text, reason)
                run.statuses.append(parsed.status)
                if parsed.usable:
                    run.answer, run.answer_logprobs = parsed.text, answer_span_logprobs(completion)
                else:
                    run.error = Failure(FailureKind.UNUSABLE_OUTPUT, f"answer: {parsed.status.value}")
            out.append((clean_text(text), completion))
        return out

    def _search(self, queries: list[tuple[_InFlightQuestion, str]], results, keep_read: bool = False) -> None:
        """One batched search (the tree's, `TreeDecoder.search`); each run gets a step with the passages found
        (IRCoT: the first `docs_per_search` it has not read, up to `MAX_PASSAGES` in all)."""
        if not queries:
            return
        k = self.config.docs_per_search
        if keep_read:  # enough to find k passages not read yet, as a thought's search should add something
            k += max(len(run.hits) for run, _ in queries)
        keys = [(text, run.question.qid if self.retriever.uses_qids else None) for run, text in queries]
        found = self.tree.search(keys, k)
        for (run, text), key in zip(queries, keys):
            hits = found[key]
            if isinstance(hits, Exception):
                run.error = Failure(FailureKind.RETRIEVAL_FAILED, str(hits))
                continue
            if keep_read:
                read = {h.docid for h in run.hits}
                room = min(self.config.docs_per_search, max(0, MAX_PASSAGES - len(read)))
                hits = [h for h in hits if h.docid not in read][:room]
            step = Step(Action.REWRITE, text, tuple(hits))
            run.steps.append(step)
            run.statuses.append(ParseStatus.OK)
            if self.on_step is not None:
                self.on_step(run.question.qid, f"0.{len(run.steps) - 1}", step)

    def _finish(self, run: _InFlightQuestion, result: QuestionResult) -> None:
        steps = tuple(run.steps)
        if run.answer:
            steps = (*steps, Step(Action.ANSWER, run.answer))
        error = run.error if run.error else (None if run.answer else Failure(FailureKind.NO_ANSWER))
        result.trajectories.append(
            FinishedTrajectory(
                path_id="0",
                trajectory=Trajectory(steps),
                generated_logprobs=tuple(run.logprobs),
                answer_logprobs=run.answer_logprobs,
                parse_statuses=tuple(run.statuses),
                error=error,
            )
        )
        if result.trajectories[0].ok:
            result.selected = dict.fromkeys(STRATEGIES, 0)  # one trajectory: every strategy picks it
        else:
            result.error = error


# What ends IRCoT's reasoning: its instruction asks for "So the answer is:", and as IRCoT's own parser we accept
# any "... answer is: X" (small models drop the "So"), in every language we prompt in.
_MARKERS = re.compile(
    "|".join(re.escape(w.answer_marker.split(" ", 1)[1].rstrip(":")) for w in PROMPT_TEXT.values()) + r"\s*:?",
    re.IGNORECASE,
)


def _after_marker(text: str) -> str | None:
    """The answer a thought states after "the answer is:" (in any language we prompt in), or None."""
    match = _MARKERS.search(text)
    if match is None:
        return None
    return clean_text(text[match.end() :]).strip(" :").rstrip(".").strip() or None
