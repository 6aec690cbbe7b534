"""Annotators: where an example's refined queries and its final answer come from.

- **gold**: the dataset's own refinements (MuSiQue's `question_decomposition` with hop answers filled in,
  2WikiMultihopQA's `evidences` triples as sub-questions, ASQA's disambiguated `qa_pairs` questions) and
  **silver** ones derived by rule (one keyword query per HotpotQA supporting paragraph, the bridge entity named);
- **llm**: the category's prompt sent to an OpenAI-compatible endpoint, the JSON reply parsed strictly.
  `annotator: auto` uses gold where the example carries it and the LLM otherwise.
- **answers**: the LLM writes a new answer grounded in the retrieved evidence (paper: regenerated answers,
  0 % of the original ones kept, trained best); a seeded draw keeps `retention_ratio` of original answers.

Everything that makes an example unusable raises `DropExample(reason)`; the reasons are the report's rows.
"""

from __future__ import annotations

import hashlib
import re

from rqrag.benchmarks.sources import SourceExample
from rqrag.data_construction.prompts import FormatError, PromptBook, Refusal, parse_answer, parse_queries
from rqrag.llm.client import ChatClient, LLMRejected, Reply


class DropExample(Exception):
    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


def _checked(reply: Reply) -> str:
    if reply.refusal:
        raise DropExample("refusal", reply.refusal[:200])
    if reply.finish_reason == "length":
        raise DropExample("format_error", "reply cut at max_tokens")
    return reply.content


class Annotator:
    def __init__(
        self,
        client: ChatClient | None,
        prompts: PromptBook,
        *,
        mode: str = "auto",
        max_queries: int = 4,
        retention_ratio: float = 0.0,
        seed: int = 0,
    ):
        if mode not in ("auto", "llm", "gold"):
            raise ValueError(f"annotator must be auto, llm or gold, got {mode!r}")
        if not 0.0 <= retention_ratio <= 1.0:
            raise ValueError(f"retention_ratio must be within [0, 1], got {retention_ratio}")
        self.client = client
        self.prompts = prompts
        self.mode = mode
        self.max_queries = max_queries
        self.retention_ratio = retention_ratio
        self.seed = seed

    def uses_llm_for_queries(self, example: SourceExample) -> bool:
        return self.mode == "llm" or (self.mode == "auto" and not example.gold_queries)

    async def queries(self, example: SourceExample) -> tuple[list[str], str]:
        """(search queries, annotator name); [] means the example is answered without searching."""
        if not self.uses_llm_for_queries(example):
            if not example.gold_queries:
                raise DropExample("no_gold_refinement", f"{example.source} carries no refinements")
            return list(example.gold_queries[: self.max_queries]), example.extra.get("refinement_origin", "gold")
        if self.client is None:
            raise DropExample("no_llm", "this example needs the LLM annotator but no endpoint is configured")
        prompt = self.prompts.refine(example.category, example.messages, self.max_queries)
        reply = await self._ask(prompt.messages, prompt.schema, f"{example.category}_queries")
        try:
            return parse_queries(example.category, _checked(reply), self.max_queries), "llm"
        except Refusal as err:
            raise DropExample("refusal", str(err)) from err
        except FormatError as err:
            raise DropExample("format_error", str(err)) from err

    def keeps_original_answer(self, example: SourceExample) -> bool:
        """A seeded, order-independent draw: the same example keeps or loses its answer in every run."""
        if not example.answer:
            return False
        digest = hashlib.sha256(f"{self.seed}\0{example.uid}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < self.retention_ratio

    async def answer(self, example: SourceExample, evidence: str) -> tuple[str, str]:
        """(answer, where it came from: "original" or "llm")."""
        if self.keeps_original_answer(example):
            return example.answer, "original"
        if self.client is None:
            raise DropExample("no_llm", "answer regeneration needs an endpoint (or retention_ratio: 1.0)")
        prompt = self.prompts.answer(example.category, example.messages, evidence)
        reply = await self._ask(prompt.messages, prompt.schema, "answer")
        try:
            return parse_answer(_checked(reply)), "llm"
        except Refusal as err:
            raise DropExample("refusal", str(err)) from err
        except FormatError as err:
            raise DropExample("format_error", str(err)) from err

    async def _ask(self, messages, schema, name) -> Reply:
        try:
            return await self.client.chat(messages, schema=schema, name=name)
        except LLMRejected as err:
            raise DropExample("llm_rejected", str(err)[:200]) from err


def _normalise(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z ]", " ", text.lower()).split())


def answer_agrees(example: SourceExample, answer: str) -> bool:
    """Does a regenerated answer keep the gold? Multiple choice: the right option first; QA: a gold alias inside."""
    if example.choices:
        label = example.extra.get("answer_label", "")
        head = answer.strip()
        chosen = re.match(r"^\(?([A-Za-z0-9])[\).:]", head)  # "B." / "(B)" / "B:"; not the article in "A dog"
        if chosen and chosen.group(1) in dict(example.choices):
            return chosen.group(1) == label
        return _normalise(dict(example.choices)[label]) in _normalise(head[:200])
    aliases = [_normalise(a) for a in example.aliases if _normalise(a)]
    if not aliases:
        return True  # nothing to check against (instructions, chat)
    text = f" {_normalise(answer)} "
    return any(f" {alias} " in text for alias in aliases)
