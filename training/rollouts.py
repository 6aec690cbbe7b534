"""GRPO rollouts for RQ-RAG: one sampled path of the tree per completion, searched with real retrieval.

A rollout starts from the question framed exactly as the trained decoder frames it (`chat_frame`, segment by
segment as `TrainedPrompter.root_ids` does) and lets the CURRENT policy write, step by step:

    [S_Decomposed_Query] Who directed Titanic?[EOS]        <- sampled by the policy       env_mask 1
    [R_Evidences]Title: ... Text: ...[/R_Evidences]        <- BM25 over the question's    env_mask 0
                                                              candidates, k docs
    [A_Response] James Cameron[EOS]                        <- sampled by the policy       env_mask 1
    <|im_end|>                                             <- the turn closed by us       env_mask 0

The policy chooses the action token itself (the tree decoder forces each one; here the choice is what is
learned). After `max_searches` searches, or when the token budget leaves room for an answer only, the rollout
writes `[A_Response]` itself (env_mask 0) and the policy writes the answer. A step that is not an action token,
some text and `[EOS]` (a stray special token, an empty query, no `[EOS]` within `max_step_tokens`) ends the
rollout where it went wrong: the format reward then scores it 0 and nothing is searched for it.

Evidence enters the context as the same segments training masks (`step_segments(...)` whose part is "evidence"),
tokenized on their own: every boundary touches a special token, so the ids equal those of the whole text.
Logprobs are the policy's own, `log_softmax(logits / temperature)` of each sampled token (TRL's convention);
tokens the environment wrote get 0 and env_mask 0, so the loss never sees them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

from rqrag.benchmarks.files import default_file
from rqrag.benchmarks.sources import SourceExample, parse_records
from rqrag.benchmarks.splits import load_split
from rqrag.prompt_formats import NATIVE
from rqrag.records import read_records
from rqrag.retrieval.base import Hit, shorten_hits
from rqrag.retrieval.candidate_paragraphs import CandidateRetriever
from rqrag.trajectory import EOS, SPECIAL_TOKENS, Action, clean_text
from rqrag.trajectory_render import Segment, as_messages, chat_frame, tokenize_segments


logger = logging.getLogger("rqrag.training.rollouts")

MULTIHOP_SOURCES = ("hotpotqa", "2wikimultihopqa", "musique")


# ------------------------------------------------------------------------------------------------ questions


@dataclass(frozen=True)
class TrainingQuestion:
    """A training question with what the rewards and the retriever need."""

    uid: str
    source: str
    text: str
    answers: tuple[str, ...]
    supporting_titles: tuple[str, ...]
    example: SourceExample = field(repr=False, compare=False)


def load_questions(source_specs: Sequence[str]) -> list[TrainingQuestion]:
    """TRAIN-id multi-hop questions with their candidates; specs are `name` or `name:limit`.

    Only ids listed under `train` in `rqrag/benchmarks/splits/` are read: no eval id can reach a rollout. A question
    whose text repeats an earlier one is skipped, because TRL hands the rollout the prompt only and the text is the
    key back to the question's candidates.
    """
    questions: list[TrainingQuestion] = []
    seen_text: set[str] = set()
    for spec in source_specs:
        source, _, limit = spec.partition(":")
        if source not in MULTIHOP_SOURCES:
            raise ValueError(f"GRPO needs candidate paragraphs: sources are {MULTIHOP_SOURCES}, got {source!r}")
        split = load_split(source)
        taken = 0
        for example in parse_records(source, read_records(default_file(source)), lambda position, reason: None):
            if example.source_id not in split.train or example.question in seen_text:
                continue
            seen_text.add(example.question)
            gold = tuple(dict.fromkeys(p["title"] for p in example.pool if p["is_supporting"]))
            questions.append(TrainingQuestion(example.uid, source, example.question, example.aliases, gold, example))
            taken += 1
            if limit and taken >= int(limit):
                break
        logger.info("%s: %d training questions", source, taken)
    return questions


def candidate_retriever(questions: Sequence[TrainingQuestion]) -> CandidateRetriever:
    """BM25 over each question's own candidate paragraphs (keyed by uid: ids repeat across benchmark files)."""
    return CandidateRetriever.from_records([q.example.pool_record() for q in questions], mode="bm25")


# ------------------------------------------------------------------------------------------------- rollouts


@dataclass
class Rollout:
    """One completion being written: its ids with their mask and logprobs, and what it searched."""

    question: TrainingQuestion
    prompt_ids: list[int]
    completion_ids: list[int] = field(default_factory=list)
    env_mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    evidence: list[tuple[Hit, ...]] = field(default_factory=list)  # what each query retrieved, as shown
    answer: str | None = None
    forced_answer: bool = False  # the rollout wrote [A_Response]: searches spent or no room for another
    status: str = "open"  # open | answered | malformed | out_of_budget

    def add(self, ids: Sequence[int], model_wrote: bool, logprobs: Sequence[float] | None = None) -> None:
        self.completion_ids.extend(ids)
        self.env_mask.extend([int(model_wrote)] * len(ids))
        self.logprobs.extend(logprobs if logprobs is not None else [0.0] * len(ids))

    @property
    def done(self) -> bool:
        return self.status != "open"


@dataclass(frozen=True)
class RolloutSettings:
    docs_per_search: int = 3
    max_searches: int = 2
    evidence_max_words: int = 60
    max_step_tokens: int = 48  # a query or an answer, with its [EOS]
    max_completion_length: int = 768  # everything after the prompt, evidence included
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0


class PathSampler:
    """Samples rollouts for prompts (conversational, one per completion wanted) with a causal LM."""

    def __init__(self, tokenizer, questions: Sequence[TrainingQuestion], retriever, settings: RolloutSettings):
        self.tokenizer = tokenizer
        self.by_text = {q.text: q for q in questions}
        self.retriever = retriever
        self.settings = settings
        self.action_by_id = {tokenizer.convert_tokens_to_ids(a.value): a for a in Action}
        self.answer_id = tokenizer.convert_tokens_to_ids(Action.ANSWER.value)
        self.eos_id = tokenizer.convert_tokens_to_ids(EOS)
        self.special_ids = {tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS} | set(
            tokenizer.all_special_ids
        )
        _, end_of_turn = chat_frame(tokenizer, as_messages("?"))
        # Up to the model's end-of-turn id, not the newline after it: TRL calls a completion whose last id is not
        # an eos id "truncated".
        self.end_of_turn_ids = tokenizer(end_of_turn.rstrip(), add_special_tokens=False)["input_ids"]
        words = max(settings.evidence_max_words, 1) if settings.evidence_max_words else 200
        # Room a search needs beyond its query: the evidence block (~2 tokens a word, titles, markers) and then an
        # answer step and the end of turn.
        self.search_reserve = settings.docs_per_search * (2 * words + 16) + 8
        self.answer_reserve = settings.max_step_tokens + 1 + len(self.end_of_turn_ids)

    def question_of(self, prompt) -> TrainingQuestion:
        text = prompt[-1]["content"] if isinstance(prompt, list) else prompt
        return self.by_text[text]

    def prompt_ids(self, question: TrainingQuestion) -> list[int]:
        prompt, _ = chat_frame(self.tokenizer, question.example.messages)
        ids, _ = tokenize_segments(self.tokenizer, [Segment(prompt, False, "prompt")])
        return ids

    @torch.no_grad()
    def sample(self, model, prompts: Sequence) -> list[Rollout]:
        paths = [Rollout(q, self.prompt_ids(q)) for q in map(self.question_of, prompts)]
        for depth in range(self.settings.max_searches + 1):
            active = [p for p in paths if not p.done]
            if not active:
                break
            for path in active:
                room = self.settings.max_completion_length - len(path.completion_ids)
                if depth == self.settings.max_searches or room < self.answer_reserve + self.search_reserve:
                    path.add([self.answer_id], model_wrote=False)
                    path.forced_answer = True
            steps = self._generate(model, active)
            for path, (ids, logprobs) in zip(active, steps):
                self._take_step(path, ids, logprobs)
        for path in paths:
            if path.status == "answered":
                path.add(self.end_of_turn_ids, model_wrote=False)
        return paths

    def _generate(self, model, paths: Sequence[Rollout]) -> list[tuple[list[int], list[float]]]:
        """One step for every path in one batched `generate`: ids up to and including the first [EOS]."""
        s = self.settings
        contexts = [torch.tensor(p.prompt_ids + p.completion_ids) for p in paths]
        width = max(len(c) for c in contexts)
        pad_id = self.tokenizer.pad_token_id
        input_ids = torch.full((len(paths), width), pad_id, dtype=torch.long)
        attention_mask = torch.zeros((len(paths), width), dtype=torch.long)
        for row, ids in enumerate(contexts):  # left padding: every row ends where generation starts
            input_ids[row, width - len(ids) :] = ids
            attention_mask[row, width - len(ids) :] = 1
        device = next(model.parameters()).device
        out = model.generate(
            input_ids=input_ids.to(device),
            attention_mask=attention_mask.to(device),
            do_sample=True,
            temperature=s.temperature,
            top_p=s.top_p,
            top_k=s.top_k,
            max_new_tokens=s.max_step_tokens,
            # [EOS] closes every step; the end of turn too, so a model that skips [EOS] stops early.
            eos_token_id=[self.eos_id, self.tokenizer.eos_token_id],
            pad_token_id=pad_id,
            return_dict_in_generate=True,
            output_logits=True,
        )
        new = out.sequences[:, width:].cpu()
        logits = torch.stack(out.logits, dim=1).float().cpu() / s.temperature  # (batch, steps, vocab)
        logprobs = torch.log_softmax(logits, dim=-1).gather(-1, new.unsqueeze(-1)).squeeze(-1)
        steps = []
        for row in range(len(paths)):
            ids = new[row].tolist()
            stop = next((i for i, t in enumerate(ids) if t in (self.eos_id, self.tokenizer.eos_token_id)), None)
            end = len(ids) if stop is None else stop + 1
            steps.append((ids[:end], logprobs[row, :end].tolist()))
        return steps

    def _take_step(self, path: Rollout, ids: list[int], logprobs: list[float]) -> None:
        forced = path.forced_answer
        path.add(ids, model_wrote=True, logprobs=logprobs)
        body = ids if forced else ids[1:]
        action = Action.ANSWER if forced else self.action_by_id.get(ids[0]) if ids else None
        well_formed = (
            action is not None
            and body
            and body[-1] == self.eos_id
            and not any(t in self.special_ids for t in body[:-1])
        )
        text = clean_text(self.tokenizer.decode(body[:-1])) if well_formed else ""
        if not text:
            path.status = "malformed"
            return
        if action is Action.ANSWER:
            path.answer, path.status = text, "answered"
            return
        hits = self.retriever.search(text, k=self.settings.docs_per_search, qid=path.question.uid)
        hits = shorten_hits(hits, self.settings.evidence_max_words)
        path.queries.append(text)
        path.evidence.append(tuple(hits))
        path.add(NATIVE.evidence_ids(self.tokenizer, action, hits), model_wrote=False)
        if len(path.completion_ids) + self.answer_reserve > self.settings.max_completion_length:
            path.status = "out_of_budget"  # the evidence left no room for an answer (search_reserve too small)


def completion_text(tokenizer, ids: Sequence[int]) -> str:
    """The assistant turn as text, RQ-RAG tokens kept and the model's own (`<|im_end|>`) dropped, for parsing.

    The same rule as `rqrag.inference.decoding.prompting.visible_text`, which training may not import.
    """
    text = tokenizer.decode(list(ids), skip_special_tokens=False)
    for token in tokenizer.all_special_tokens:
        if token not in SPECIAL_TOKENS:
            text = text.replace(token, "")
    return text


def rollout_output(paths: Sequence[Rollout]) -> dict[str, list]:
    """TRL's rollout_func result: ids, logprobs and env_mask, plus the fields the reward functions read."""
    return {
        "prompt_ids": [p.prompt_ids for p in paths],
        "completion_ids": [p.completion_ids for p in paths],
        "logprobs": [p.logprobs for p in paths],
        "env_mask": [p.env_mask for p in paths],
        "final_answer": [p.answer or "" for p in paths],
        "titles_found": [sorted({h.title for hits in p.evidence for h in hits}) for p in paths],
        "searches": [len(p.queries) for p in paths],
        "rollout_status": [p.status for p in paths],
    }
