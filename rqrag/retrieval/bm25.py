"""BM25 over a local corpus with `bm25s` (Lucene scoring, per-language stopwords and Snowball stemming).

The same analysis as pyserini's default analyzers in spirit: lowercase, drop the language's stopwords (the
lists bm25s ships), stem with the language's Snowball stemmer (PyStemmer). English ("en") is the default;
`language="pt"` analyses Brazilian or European Portuguese, so "configurações" and "configuração" share a
stem and "de", "que", "para" are ignored. The language is saved with the index, and a loaded index analyses
queries the way its passages were analysed. Scores follow Lucene's BM25 (k1=1.5, b=0.75 by default):

    score(q, d) = sum over query terms t in d of  idf(t) * tf(t, d) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

A whole query batch is tokenized at once and retrieved with one `bm25s` call, so this wrapper costs little
more than calling `bm25s` directly (`scripts/bench_retrieval.py` measures that).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rqrag.retrieval.base import Hit, check_qids
from rqrag.retrieval.passages import Passage, corpus_fingerprint, indexed_text, read_passages, write_passages
from rqrag.retrieval.renamed import warn_renamed
from rqrag.text.languages import DEFAULT_LANGUAGE


if TYPE_CHECKING:
    import bm25s


logger = logging.getLogger(__name__)

DOCS_FILE = "docs.jsonl"
SETTINGS_FILE = "rqrag_bm25.json"
# Language code -> (bm25s stopword list name, PyStemmer algorithm): the languages that have both.
ANALYZERS = {
    "da": ("da", "danish"),
    "de": ("de", "german"),
    "en": ("en", "english"),
    "es": ("es", "spanish"),
    "fr": ("fr", "french"),
    "it": ("it", "italian"),
    "nl": ("nl", "dutch"),
    "no": ("no", "norwegian"),
    "pt": ("pt", "portuguese"),
    "ru": ("ru", "russian"),
    "sv": ("sv", "swedish"),
    "tr": ("tr", "turkish"),
}
SUPPORTED_LANGUAGES = tuple(ANALYZERS)
# Kept for callers that analyse English text directly (scripts/bench_retrieval.py).
STOPWORDS, STEMMER_LANGUAGE = ANALYZERS[DEFAULT_LANGUAGE]


def _import_bm25s():
    import bm25s

    # bm25s sets its own logger to DEBUG when imported, flooding every command's log with per-index lines.
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


def normalize_language(language: str | None) -> str:
    """Map "pt", "pt-BR", "pt_br", "Portuguese" (any case) to the code in `ANALYZERS`; unknown ones are an error."""
    if language is None:
        return DEFAULT_LANGUAGE
    key = str(language).strip().lower().replace("_", "-")
    code = key.split("-")[0]
    if code in ANALYZERS:
        return code
    for candidate, (_, stemmer_name) in ANALYZERS.items():
        if key == stemmer_name:
            return candidate
    supported = ", ".join(f"{c} ({ANALYZERS[c][1]})" for c in SUPPORTED_LANGUAGES)
    raise ValueError(f"BM25 has no analyzer for language {language!r}; supported: {supported}")


def stemmer_for(language: str = DEFAULT_LANGUAGE):
    """The Snowball stemmer (PyStemmer) of `language` that the index and the queries are analysed with."""
    import Stemmer  # PyStemmer; deferred like bm25s so `import rqrag.retrieval` stays fast

    return Stemmer.Stemmer(ANALYZERS[normalize_language(language)][1])


def english_stemmer():
    """The Snowball English stemmer (PyStemmer), the default analyzer's."""
    return stemmer_for(DEFAULT_LANGUAGE)


def tokenize(
    texts: Sequence[str], stemmer=None, show_progress: bool = False, language: str = DEFAULT_LANGUAGE
) -> list[list[str]]:
    """Analyze texts the way the index was built: lowercase, word tokens, no stopwords, stemmed."""
    bm25s = _import_bm25s()

    language = normalize_language(language)
    return bm25s.tokenize(
        list(texts),
        lower=True,
        stopwords=ANALYZERS[language][0],
        stemmer=stemmer if stemmer is not None else stemmer_for(language),
        return_ids=False,
        show_progress=show_progress,
    )


def document_language(passage: Passage, default: str) -> str:
    """The analyzer language of one passage: its own (`extra["language"]`, set per chunk at ingestion) when BM25
    has an analyzer for it, else the index's."""
    code = (passage.extra or {}).get("language")
    try:
        return normalize_language(code) if code else default
    except ValueError:
        return default


def saved_language(directory: str | os.PathLike) -> str:
    """The analyzer language of an index saved in `directory`; indexes from before languages existed are English."""
    path = Path(directory) / SETTINGS_FILE
    if not path.is_file():
        return DEFAULT_LANGUAGE
    settings = json.loads(path.read_text())
    if "language" in settings:
        return normalize_language(settings["language"])
    return normalize_language(settings.get("stemmer", DEFAULT_LANGUAGE))


class BM25Retriever:
    """Top-k BM25 search over a list of passages. Hits with score 0 (no query term matched) are dropped.

    `language` must be the one the passages were tokenized with (`from_passages` and `load` see to it).
    `languages`: the analyzers of an index whose passages were each analysed in their own language (a passage
    whose `extra["language"]` says so: the chunks of a mixed library); a query is then analysed in each of them and
    its terms pooled, so it meets every passage in that passage's own stems.
    """

    uses_qids = False  # one global corpus: results do not depend on the question

    def __init__(
        self,
        model: bm25s.BM25,
        passages: Sequence[Passage],
        name: str | None = None,
        language: str = DEFAULT_LANGUAGE,
        languages: Sequence[str] = (),
    ):
        n_indexed = int(model.scores["num_docs"])
        if n_indexed != len(passages):
            raise ValueError(f"the BM25 index holds {n_indexed} passages but {len(passages)} were given")
        self.model = model
        self.passages = list(passages)
        self.language = normalize_language(language)
        # English keeps the historical name, so existing retrieval caches stay valid; other languages get
        # their own namespace, since the same corpus ranks differently under another analyzer.
        prefix = "bm25" if self.language == DEFAULT_LANGUAGE else f"bm25-{self.language}"
        self.languages = sorted({normalize_language(code) for code in languages} | {self.language})
        if len(self.languages) > 1:
            prefix += "+" + "+".join(code for code in self.languages if code != self.language)
        self.name = name or f"{prefix}:{corpus_fingerprint(p.docid for p in self.passages)}"
        self._stemmer = stemmer_for(self.language)

    def analyse(self, queries: Sequence[str]) -> list[list[str]]:
        """The queries' terms: in the index's language, pooled with each other language its passages hold. Each
        analysis drops the stopwords of every one of them ("de", "que" are no English content words)."""
        if len(self.languages) == 1:
            return tokenize(queries, stemmer=self._stemmer, language=self.language)
        bm25s = _import_bm25s()
        from bm25s.tokenization import _infer_stopwords

        stop = sorted({w for code in self.languages for w in _infer_stopwords(ANALYZERS[code][0])})
        pooled: list[list[str]] = [[] for _ in queries]
        for code in [self.language] + [c for c in self.languages if c != self.language]:
            found = bm25s.tokenize(
                list(queries),
                lower=True,
                stopwords=stop,
                stemmer=stemmer_for(code),
                return_ids=False,
                show_progress=False,
            )
            pooled = [list(dict.fromkeys(mine + theirs)) for mine, theirs in zip(pooled, found)]
        return pooled

    @property
    def k1(self) -> float:
        return float(self.model.k1)

    @property
    def b(self) -> float:
        return float(self.model.b)

    @property
    def documents(self) -> list[Passage]:
        """Deprecated: the former name of `passages` (a library's documents are the user's files)."""
        warn_renamed("BM25Retriever.documents", "BM25Retriever.passages")
        return self.passages

    def __len__(self) -> int:
        return len(self.passages)

    @classmethod
    def from_passages(
        cls,
        passages: Sequence[Passage],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        show_progress: bool = True,
        name: str | None = None,
        language: str = DEFAULT_LANGUAGE,
    ) -> BM25Retriever:
        """Index `passages` (title and text together, see `indexed_text`) with the analyzer of `language`."""
        bm25s = _import_bm25s()

        if not passages:
            raise ValueError("cannot build a BM25 index over zero passages")
        language = normalize_language(language)
        own = [document_language(passage, language) for passage in passages]
        if set(own) == {language}:
            stopwords, _ = ANALYZERS[language]
            corpus_tokens = bm25s.tokenize(
                [indexed_text(passage) for passage in passages],
                lower=True,
                stopwords=stopwords,
                stemmer=stemmer_for(language),
                show_progress=show_progress,
            )
        else:  # each passage in its own analyzer, one call per language
            corpus_tokens = [[] for _ in passages]
            for code in sorted(set(own)):
                index = [i for i, c in enumerate(own) if c == code]
                for i, tokens in zip(index, tokenize([indexed_text(passages[i]) for i in index], language=code)):
                    corpus_tokens[i] = tokens
        model = bm25s.BM25(method="lucene", k1=k1, b=b)
        model.index(corpus_tokens, show_progress=show_progress)
        return cls(model, passages, name=name, language=language, languages=sorted(set(own)))

    @classmethod
    def from_documents(cls, documents: Sequence[Passage], **kwargs) -> BM25Retriever:
        """Deprecated: the former name of `from_passages`."""
        warn_renamed("BM25Retriever.from_documents", "BM25Retriever.from_passages")
        return cls.from_passages(documents, **kwargs)

    def save(self, directory: str | os.PathLike, write_docs: bool = True) -> None:
        """Write the index to `directory`; `write_docs=False` when a shared docstore already holds them."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.model.save(str(directory))
        stopwords, stemmer_name = ANALYZERS[self.language]
        settings = {
            "language": self.language,
            "languages": self.languages,
            "stopwords": stopwords,
            "stemmer": stemmer_name,
            "num_docs": len(self.passages),
        }
        (directory / SETTINGS_FILE).write_text(json.dumps(settings, indent=2) + "\n")
        if write_docs:
            write_passages(self.passages, directory / DOCS_FILE)

    @classmethod
    def load(
        cls, directory: str | os.PathLike, passages: Sequence[Passage] | None = None, mmap: bool = False
    ) -> BM25Retriever:
        """Load an index saved by `save`. Pass `passages` when they live in a shared docstore.

        Queries are analysed in the language the index was built with (read from its settings file).
        """
        bm25s = _import_bm25s()

        directory = Path(directory)
        if passages is None:
            passages, _ = read_passages(directory / DOCS_FILE)
        model = bm25s.BM25.load(str(directory), mmap=mmap, load_corpus=False)
        settings = json.loads((directory / SETTINGS_FILE).read_text()) if (directory / SETTINGS_FILE).is_file() else {}
        return cls(model, passages, language=saved_language(directory), languages=settings.get("languages", ()))

    def search(self, query: str, k: int = 3, qid: str | None = None) -> list[Hit]:
        return self.batch_search([query], k=k)[0]

    def batch_search(self, queries: Sequence[str], k: int = 3, qids: Sequence[str] | None = None) -> list[list[Hit]]:
        """Search every query with one tokenizer call and one `bm25s.retrieve` call. `qids` are ignored."""
        check_qids(queries, qids)
        results: list[list[Hit]] = [[] for _ in queries]
        ranked = self.batch_search_indices(queries, k)
        docs = self.passages
        for i, (indices, scores) in ranked.items():
            results[i] = [
                Hit(docid=docs[j].docid, title=docs[j].title, text=docs[j].text, score=s)
                for j, s in zip(indices, scores)
            ]
        return results

    def batch_search_indices(self, queries: Sequence[str], k: int) -> dict[int, tuple[list[int], list[float]]]:
        """The ranked (passage positions, scores) of each query that matched anything, keyed by query position.

        Queries that are empty, or whose terms are all stopwords or absent from the index, are left out:
        they match nothing, and BM25 would only rank arbitrary passages at score 0.
        """
        k = min(int(k), len(self.passages))
        if k <= 0 or not queries:
            return {}
        tokens = self.analyse(queries)
        vocab = self.model.vocab_dict
        active = [i for i, toks in enumerate(tokens) if any(t in vocab for t in toks)]
        if not active:
            return {}
        indices, scores = self.model.retrieve(
            [tokens[i] for i in active], k=k, sorted=True, show_progress=False, return_as="tuple"
        )
        # bm25s orders equal scores arbitrarily; sort by (score desc, passage position) so results are
        # reproducible run to run.
        order = np.lexsort((indices, -scores), axis=-1)
        indices = np.take_along_axis(indices, order, axis=-1)
        scores = np.take_along_axis(scores, order, axis=-1).astype(np.float64)
        n_positive = (scores > 0).sum(axis=1).tolist()
        indices_list, scores_list = indices.tolist(), scores.tolist()
        return {
            query_pos: (indices_list[row][: n_positive[row]], scores_list[row][: n_positive[row]])
            for row, query_pos in enumerate(active)
        }
