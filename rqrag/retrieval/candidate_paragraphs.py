"""Per-question candidate paragraphs: the closed retrieval setting of HotpotQA, 2WikiMultihopQA and MuSiQue.

Each question comes with its own small pool (10 to 20 paragraphs, some gold, the rest distractors), and a
query issued while answering question q may only see q's pool. This is how RQ-RAG evaluates multi-hop QA:
retrieval quality then measures the query refinement, not the size of a web index.

Pools are read from IRCoT-format records (`question_id`, `contexts`), MuSiQue's original format (`id`,
`paragraphs`) or HotpotQA/2Wiki's original format (`_id`, `context` as [title, sentences] pairs), or given
directly as `{qid: [Passage, ...]}`. Docids are `"{qid}::{idx}"`, so they are unique across questions.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rqrag.records import read_records
from rqrag.retrieval.base import Hit, RetrieverError, check_qids
from rqrag.retrieval.passages import Passage, corpus_fingerprint, indexed_text


if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from rqrag.retrieval.bm25 import BM25Retriever

CANDIDATE_MODES = ("bm25", "dense")


def candidate_docid(qid: str, idx: Any) -> str:
    return f"{qid}::{idx}"


def _pool_from_record(record: Mapping[str, Any]) -> tuple[str, list[Passage], set[str]]:
    """(qid, pool, supporting docids) of one benchmark record in any of the supported formats."""
    qid = next((record[key] for key in ("question_id", "id", "_id") if record.get(key) not in (None, "")), None)
    if qid is None:
        raise ValueError("record has no question id (question_id, id or _id)")
    qid = str(qid)
    pool: list[Passage] = []
    supporting: set[str] = set()
    if "contexts" in record or "paragraphs" in record:
        paragraphs = record.get("contexts") if "contexts" in record else record.get("paragraphs")
        for position, para in enumerate(paragraphs or []):
            idx = next((para[key] for key in ("idx", "id") if para.get(key) not in (None, "")), position)
            text = para.get("paragraph_text", para.get("text", ""))
            doc = Passage(docid=candidate_docid(qid, idx), title=para.get("title", ""), text=text)
            pool.append(doc)
            if para.get("is_supporting"):
                supporting.add(doc.docid)
    elif "context" in record:
        # HotpotQA / 2Wiki original: context = [[title, [sentence, ...]], ...], gold titles in supporting_facts.
        gold_titles = {fact[0] for fact in record.get("supporting_facts", [])}
        for position, (title, sentences) in enumerate(record["context"]):
            text = " ".join(s.strip() for s in sentences) if isinstance(sentences, list) else str(sentences)
            doc = Passage(docid=candidate_docid(qid, position), title=title, text=text)
            pool.append(doc)
            if title in gold_titles:
                supporting.add(doc.docid)
    else:
        raise ValueError(f"record {qid} has no candidate paragraphs (contexts, paragraphs or context)")
    return qid, pool, supporting


class CandidateRetriever:
    """Search only the candidate pool of each query's question, by BM25 or by dense cosine similarity."""

    uses_qids = True

    def __init__(
        self,
        pools: Mapping[str, Sequence[Passage]],
        *,
        supporting: Mapping[str, Iterable[str]] | None = None,
        mode: str = "bm25",
        model: str | None = None,
        encoder: SentenceTransformer | None = None,
        batch_size: int = 64,
    ):
        if mode not in CANDIDATE_MODES:
            raise ValueError(f"unknown candidates mode {mode!r}; choose one of {CANDIDATE_MODES}")
        self.pools = {str(qid): list(docs) for qid, docs in pools.items()}
        self._supporting = {str(qid): set(ids) for qid, ids in (supporting or {}).items()}
        self.mode = mode
        self.model = model
        self.batch_size = batch_size
        self._encoder = encoder
        self._bm25_by_qid: dict[str, BM25Retriever] = {}
        self._embeddings_by_qid: dict[str, np.ndarray] = {}
        # Content goes into the name (it is the cache namespace): ids like "q1::0" repeat across benchmark files.
        fingerprint = corpus_fingerprint(
            f"{doc.docid}\t{doc.title}\t{doc.text}" for qid in sorted(self.pools) for doc in self.pools[qid]
        )
        self.name = f"candidates-{mode}:{fingerprint}" + (f":{Path(model).name}" if mode == "dense" and model else "")

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]], **kwargs: Any) -> CandidateRetriever:
        """Pools from benchmark records (IRCoT, MuSiQue or HotpotQA/2Wiki original format)."""
        pools: dict[str, list[Passage]] = {}
        supporting: dict[str, set[str]] = {}
        for record in records:
            qid, pool, gold = _pool_from_record(record)
            if qid in pools:
                raise ValueError(f"question id {qid!r} appears twice in the records")
            pools[qid], supporting[qid] = pool, gold
        return cls(pools, supporting=supporting, **kwargs)

    @classmethod
    def from_file(cls, path: str | os.PathLike, **kwargs: Any) -> CandidateRetriever:
        """Pools from a benchmark file: JSONL, or a JSON array of records; a malformed record is an error."""
        return cls.from_records(list(read_records(path, strict=True)), **kwargs)

    def supporting_docids(self, qid: str) -> set[str]:
        """The gold (is_supporting) paragraphs of question `qid`, for retrieval recall."""
        self._check_known(qid)
        return set(self._supporting.get(qid, set()))

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]:
        return self.batch_search([query], k=k, qids=None if qid is None else [qid])[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        """Search each query within its question's pool; queries of one question are searched together."""
        if qids is None:
            raise RetrieverError(
                "the candidates retriever searches one question's paragraphs, so batch_search needs `qids` "
                "aligned with the queries"
            )
        check_qids(queries, qids)
        positions_by_qid: dict[str, list[int]] = defaultdict(list)
        for position, qid in enumerate(qids):
            self._check_known(qid)
            positions_by_qid[str(qid)].append(position)
        results: list[list[Hit]] = [[] for _ in queries]
        if self.mode == "bm25":
            for qid, positions in positions_by_qid.items():
                hits = self._bm25(qid).batch_search([queries[p] for p in positions], k=k)
                for position, query_hits in zip(positions, hits):
                    results[position] = query_hits
        else:
            self._search_dense(queries, k, positions_by_qid, results)
        return results

    # ----------------------------------------------------------------- backends

    def _bm25(self, qid: str) -> BM25Retriever:
        """A tiny BM25 index over one pool, built on first use: IDF is that of the pool, as in IRCoT."""
        if qid not in self._bm25_by_qid:
            from rqrag.retrieval.bm25 import BM25Retriever

            self._bm25_by_qid[qid] = BM25Retriever.from_passages(self.pools[qid], show_progress=False)
        return self._bm25_by_qid[qid]

    @property
    def encoder(self) -> SentenceTransformer:
        if self._encoder is None:
            from rqrag.retrieval.dense import load_encoder

            self._encoder = load_encoder(self.model)
        return self._encoder

    def _search_dense(
        self, queries: Sequence[str], k: int, positions_by_qid: Mapping[str, list[int]], results: list[list[Hit]]
    ) -> None:
        from rqrag.retrieval.dense import encode

        # Embed every pool not seen before in one encoder call, and all the batch's queries in another.
        new_qids = [qid for qid in positions_by_qid if qid not in self._embeddings_by_qid and self.pools[qid]]
        if new_qids:
            texts = [indexed_text(doc) for qid in new_qids for doc in self.pools[qid]]
            vectors = encode(self.encoder, texts, self.batch_size)
            start = 0
            for qid in new_qids:
                end = start + len(self.pools[qid])
                self._embeddings_by_qid[qid] = vectors[start:end]
                start = end
        active = [p for positions in positions_by_qid.values() for p in positions if queries[p].strip()]
        if not active:
            return
        query_vectors = dict(zip(active, encode(self.encoder, [queries[p] for p in active], self.batch_size)))
        for qid, positions in positions_by_qid.items():
            pool = self.pools[qid]
            positions = [p for p in positions if p in query_vectors]
            if not pool or not positions:
                continue
            scores = np.stack([query_vectors[p] for p in positions]) @ self._embeddings_by_qid[qid].T
            top = min(k, len(pool))
            # Stable sort on the negated scores: equal cosines keep pool order.
            order = np.argsort(-scores, axis=1, kind="stable")[:, :top]
            for row, position in enumerate(positions):
                results[position] = [
                    Hit(docid=pool[j].docid, title=pool[j].title, text=pool[j].text, score=float(scores[row, j]))
                    for j in order[row].tolist()
                ]

    def _check_known(self, qid: str | None) -> None:
        if qid is None or str(qid) not in self.pools:
            raise RetrieverError(
                f"unknown question id {qid!r}: the candidates retriever only knows the {len(self.pools)} questions "
                "it was built from"
            )
