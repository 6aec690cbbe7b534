"""Retrieval quality on a collection without a golden set: one generated test query per section, and where the
section comes back in each search mode's ranking.

    rqrag experiment queries --pdf data/documents/pt/debian-edu-bookworm-manual.pdf --index manual-pt
    rqrag experiment queries --pdf manual.pdf --index manual-pt --llm_base_url http://127.0.0.1:8001/v1 --llm_model m

A section is a cleaned page of the document (`rqrag.ingest`: table-of-contents and empty pages left out). Its
query is 40-80 words from its text: written by a chat model asked with a JSON schema when an endpoint is given,
otherwise by a rule — a run of consecutive sentences from the middle of the page. A rule query is an excerpt, so
it measures whether each mode finds a passage by its own words (an upper bound); a model query paraphrases and is
the harder, more realistic test. A retrieved chunk belongs to the section when its page span covers the page.
Per mode: mean rank of the first such chunk (over found queries), MRR, P@1 and the share not found in the top k.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd


MIN_WORDS, MAX_WORDS = 40, 80
_SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+")
QUERY_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string", "maxLength": 700}},
    "required": ["query"],
    "additionalProperties": False,
}
_PROMPT = {
    "pt": "Escreva uma pergunta de pesquisa, com 40 a 80 palavras, que o trecho abaixo responde. Use suas próprias "
    "palavras, sem copiar frases do trecho. Responda só com o objeto JSON pedido.\n\nTrecho:\n{text}",
    "en": "Write a search question of 40 to 80 words that the passage below answers. Use your own words rather than "
    "copying its sentences. Reply with the requested JSON object only.\n\nPassage:\n{text}",
}


@dataclass(frozen=True)
class SectionQuery:
    page: int
    query: str
    source: str  # "model" or "rule"
    doc_id: str | None = None  # the document the page belongs to (a library holds several)


def rule_query(text: str, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS) -> str | None:
    """Consecutive sentences from the middle of `text` totalling 40-80 words (a longer sentence is cut at 80);
    None when the section is shorter than `min_words`."""
    words = text.split()
    if len(words) < min_words:
        return None
    sentences = [s for s in _SENTENCE_END.split(" ".join(words)) if s]
    middle = len(sentences) // 2
    for start in [middle, *range(middle - 1, -1, -1), *range(middle + 1, len(sentences))]:
        chosen: list[str] = []
        for sentence in sentences[start:]:
            chosen += sentence.split()
            if len(chosen) >= min_words:
                return " ".join(chosen[:max_words])
    return " ".join(words[:max_words])


async def _model_queries(client, texts: Sequence[str], language: str) -> list[str | None]:
    from rqrag.llm.client import load_json_object

    async def one(text: str) -> str | None:
        prompt = _PROMPT.get(language, _PROMPT["en"]).format(text=" ".join(text.split()[:600]))
        try:
            reply = await client.chat(
                ({"role": "user", "content": prompt},), schema=QUERY_SCHEMA, name="section_query"
            )
            query = " ".join(str(load_json_object(reply.content).get("query", "")).split())
        except Exception:  # a reply that is not the JSON object, or a failed call: the rule writes this query
            return None
        return query if MIN_WORDS <= len(query.split()) <= MAX_WORDS * 1.25 else None

    return list(await asyncio.gather(*(one(t) for t in texts)))


def section_queries(pages, client=None, language: str = "pt", doc_id: str | None = None) -> list[SectionQuery]:
    """One query per page long enough to ask about; by the model when `client` is given (the rule fills in where
    it fails), else by the rule."""
    usable = [(p.number, p.text) for p in pages if len(p.text.split()) >= MIN_WORDS]
    written = asyncio.run(_model_queries(client, [t for _, t in usable], language)) if client else [None] * len(usable)
    out = []
    for (number, text), query in zip(usable, written):
        if query:
            out.append(SectionQuery(number, query, "model", doc_id))
        elif (rule := rule_query(text)) is not None:
            out.append(SectionQuery(number, rule, "rule", doc_id))
    return out


def section_rank(hits, page: int, doc_id: str | None = None) -> int | None:
    """1-based rank of the first hit of document `doc_id` (any, when None) whose page span covers `page`."""
    for rank, hit in enumerate(hits, start=1):
        extra = hit.extra
        if doc_id is not None and extra.get("doc_id") != doc_id:
            continue
        if extra.get("page_start", -1) <= page <= extra.get("page_end", -2):
            return rank
    return None


def evaluate_modes(retrievers: Mapping[str, object], queries: Sequence[SectionQuery], k: int = 20) -> pd.DataFrame:
    """Per search mode: queries, mean rank when found, MRR, P@1, share not found in the top k."""
    rows = []
    for mode, retriever in retrievers.items():
        results = retriever.batch_search([q.query for q in queries], k=k)
        ranks = [section_rank(hits, q.page, q.doc_id) for q, hits in zip(queries, results)]
        found = [r for r in ranks if r is not None]
        rows.append(
            {
                "mode": mode,
                "queries": len(queries),
                "mean_rank": sum(found) / len(found) if found else float("nan"),
                "mrr": sum(1.0 / r for r in found) / len(queries) if queries else float("nan"),
                "p_at_1": sum(r == 1 for r in found) / len(queries) if queries else float("nan"),
                "not_found": (len(queries) - len(found)) / len(queries) if queries else float("nan"),
            }
        )
    return pd.DataFrame(rows)
