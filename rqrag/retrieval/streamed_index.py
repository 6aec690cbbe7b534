"""Building a dense index over a corpus too large for memory (wiki-18: 21M passages), resumably, on 1..N GPUs.

    rqrag index build --corpus wiki18.jsonl --out indexes/wiki18 --streamed [--shard_size 50000]

The corpus is read as a stream and cut into shards of `shard_size` consecutive passages. For each shard the
build writes its passages to the SQLite docstore (`rqrag.retrieval.docstore`, one transaction), embeds them,
and saves the vectors as `shards/NNNNNN.npy` (`rqrag.retrieval.vector_shards`, atomically). Memory holds one
shard of text and vectors at a time. Once every shard exists, the FAISS index (`rqrag.retrieval.faiss_factory`)
is trained on a sample and filled shard by shard, and `meta.json` is written last: its presence marks a
complete index, which `CorpusIndex.load` opens as `rqrag.retrieval.streamed_search.StreamedIndex`.

Resuming: rerunning the same command after a crash or `kill -9` skips every shard whose file exists. A shard's
rows are committed before its vectors are saved, and stored with INSERT OR IGNORE, so a shard cut short is
re-encoded and its rows are not duplicated. `build.json` holds the settings the shards were made with; a rerun
with other settings (model, prefixes, shard size, corpus) is refused rather than mixing two kinds of vectors.

Several GPUs: under `accelerate launch`, process p of P encodes the shards with shard % P == p (each process
reads the whole stream to know where shards start, and encodes only its own); the main process waits for the
others, then builds the FAISS index. On CPU, or under plain `python`, one process does everything.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import math
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rqrag.retrieval.docstore import DOCSTORE_FILE, Docstore
from rqrag.retrieval.passages import CorpusReadStats, Passage, indexed_text, iter_passages
from rqrag.retrieval.vector_shards import SHARD_DTYPE, SHARDS_DIR, VectorShards


logger = logging.getLogger(__name__)

STREAMED_LAYOUT = "streamed"
FORMAT_VERSION = 1
META_FILE = "meta.json"
BUILD_FILE = "build.json"
INDEX_FILE = "index.faiss"
ENCODE_LOG = "encoded.log"
DEFAULT_SHARD_SIZE = 50_000


def owns_shard(shard: int, process_index: int, num_processes: int) -> bool:
    """Whether process `process_index` of `num_processes` encodes `shard`: round robin, so every shard has exactly
    one owner and the owners' loads differ by at most one shard."""
    return shard % num_processes == process_index


@dataclass(frozen=True)
class ProcessLayout:
    """This process's place among the processes of a build: its index, their count, its device, and a barrier."""

    index: int = 0
    count: int = 1
    device: str | None = None
    wait_for_everyone: Callable[[], None] = field(default=lambda: None, compare=False)

    @property
    def is_main(self) -> bool:
        return self.index == 0

    def owns(self, shard: int) -> bool:
        return owns_shard(shard, self.index, self.count)


def process_layout() -> ProcessLayout:
    """The layout `accelerate launch` set up on several GPUs (WORLD_SIZE > 1), else one process, on the GPU when
    there is one. Several processes that accelerate does not see as such (torchrun on CPU: accelerate then reports
    one process to each) are refused: each would believe it owns every shard."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return ProcessLayout(device=_single_process_device())
    from accelerate import PartialState

    state = PartialState()
    if state.num_processes <= 1:
        raise RuntimeError(
            f"WORLD_SIZE is {os.environ['WORLD_SIZE']} but accelerate set up a single process (no GPUs?): a "
            "multi-process streamed build needs one GPU per process (`accelerate launch`); on CPU run one process"
        )
    return ProcessLayout(state.process_index, state.num_processes, str(state.device), state.wait_for_everyone)


def _single_process_device() -> str | None:
    try:
        import torch
    except ImportError:
        return None
    return "cuda" if torch.cuda.is_available() else None


def shard_batches(documents: Iterable[Passage], shard_size: int) -> Iterator[tuple[int, list[Passage]]]:
    """(shard number, its documents) for consecutive runs of `shard_size` documents; the last may be shorter."""
    batch: list[Passage] = []
    shard = 0
    for doc in documents:
        batch.append(doc)
        if len(batch) == shard_size:
            yield shard, batch
            shard, batch = shard + 1, []
    if batch:
        yield shard, batch


def _prepare_folder(out_dir: Path, settings: dict[str, Any], overwrite: bool, layout: ProcessLayout) -> None:
    """Start or resume a build in `out_dir`: refuse a complete index (unless `overwrite`), a folder that is no
    streamed build, or an unfinished build made with other settings. The main process decides; the others wait
    for it and then check they were started with the same settings."""
    if layout.is_main:
        if overwrite and ((out_dir / META_FILE).is_file() or (out_dir / BUILD_FILE).is_file()):
            shutil.rmtree(out_dir)  # start over: a finished index or an unfinished build of it
        if (out_dir / META_FILE).is_file():
            raise FileExistsError(f"{out_dir} already holds an index; pass --overwrite to replace it")
        if not (out_dir / BUILD_FILE).is_file():
            if out_dir.exists() and any(out_dir.iterdir()):
                raise FileExistsError(f"{out_dir} exists and is not an rq-rag index build; refusing to write into it")
            out_dir.mkdir(parents=True, exist_ok=True)
            _write_atomically(out_dir / BUILD_FILE, json.dumps(settings, indent=2) + "\n")
    layout.wait_for_everyone()
    previous = json.loads((out_dir / BUILD_FILE).read_text())
    if previous != settings:
        changed = sorted(k for k in {*previous, *settings} if previous.get(k) != settings.get(k))
        raise ValueError(
            f"{out_dir} holds an unfinished build with other settings ({', '.join(changed)}); rerun it with "
            f"the same ones to resume, or delete the folder to start over"
        )


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(text)
    os.replace(partial, path)


def _encoder_for(model: str | None, encoder: Any, query_prefix: str | None, passage_prefix: str | None, device):
    from rqrag.retrieval.encoders import as_text_encoder, load_encoder, with_prefixes

    encoder = with_prefixes(as_text_encoder(encoder) if encoder is not None else load_encoder(model),
                            query_prefix, passage_prefix)  # fmt: skip
    if device and device != "cpu" and hasattr(getattr(encoder, "model", None), "to"):
        encoder.model.to(device)  # one GPU per process under accelerate launch
    return encoder


def build_streamed_index(
    corpus_path: str | os.PathLike,
    out_dir: str | os.PathLike,
    *,
    model: str | None = None,
    encoder: Any = None,
    shard_size: int = DEFAULT_SHARD_SIZE,
    index_factory: str = "auto",
    query_prefix: str | None = None,
    passage_prefix: str | None = None,
    nprobe: int | None = None,
    batch_size: int = 64,
    overwrite: bool = False,
    show_progress: bool = True,
    layout: ProcessLayout | None = None,
) -> dict[str, Any] | None:
    """Build (or resume building) a streamed dense index of `corpus_path` in `out_dir`; see the module docstring.

    `model` names the embedder (see `rqrag.retrieval.encoders`; `encoder` is an already loaded one), the
    prefixes override the ones it puts before queries and passages (e.g. "query: " / "passage: " for an e5
    model in a sentence-transformers folder). Returns the index's meta.json, or None in a process other than
    the main one of a multi-GPU build.
    """
    from rqrag.retrieval.encoders import canonical_encoder_name, encoder_prefixes
    from rqrag.retrieval.faiss_factory import AUTO, build_from_shards, choose_factory

    corpus_path, out_dir = Path(corpus_path).resolve(), Path(out_dir)
    layout = layout or process_layout()
    encoder = _encoder_for(model, encoder, query_prefix, passage_prefix, layout.device)
    name = getattr(encoder, "name", None)
    model_name = canonical_encoder_name(model) if model is not None or not name else name
    query_prefix, passage_prefix = encoder_prefixes(encoder)
    settings = _build_settings(corpus_path, model_name, query_prefix, passage_prefix, shard_size)
    _prepare_folder(out_dir, settings, overwrite, layout)
    shards = VectorShards(out_dir / SHARDS_DIR, shard_size)
    stats = CorpusReadStats(path=str(corpus_path))
    total, fingerprint, encode_seconds = _encode_shards(
        corpus_path, out_dir, shards, encoder, stats, layout, batch_size, show_progress
    )
    layout.wait_for_everyone()
    if not layout.is_main:
        return None
    if total == 0:
        raise ValueError(f"{corpus_path} holds no documents")
    num_shards = _check_complete(out_dir, shards, total, shard_size)
    dim = int(shards.header(0)[0][1])
    factory = choose_factory(total, dim) if index_factory.strip().lower() == AUTO else index_factory.strip()
    started = time.perf_counter()
    index, index_info = build_from_shards(shards, num_shards, total, dim, factory, nprobe=nprobe)
    import faiss

    partial = out_dir / f".{INDEX_FILE}.partial"
    faiss.write_index(index, str(partial))
    os.replace(partial, out_dir / INDEX_FILE)
    meta = {
        "format_version": FORMAT_VERSION,
        "layout": STREAMED_LAYOUT,
        "num_docs": total,
        "modes": ["dense"],
        **{k: settings[k] for k in ("embedding_model", "query_prefix", "passage_prefix", "shard_size")},
        "dimension": dim,
        "num_shards": num_shards,
        "shard_dtype": str(SHARD_DTYPE.__name__),
        "index_factory_requested": index_factory,
        **index_info,
        "index_bytes": (out_dir / INDEX_FILE).stat().st_size,
        "skipped_records": stats.skipped,
        "build_seconds": {"encode": encode_seconds, "index": round(time.perf_counter() - started, 3)},
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "source": str(corpus_path),
        "fingerprint": fingerprint.hexdigest()[:12],
    }
    _write_atomically(out_dir / META_FILE, json.dumps(meta, indent=2) + "\n")  # last: marks the index complete
    return meta


def _encode_shards(corpus_path, out_dir, shards, encoder, stats, layout, batch_size, show_progress):
    """Every shard this process owns and has not encoded yet: its rows to the docstore, then its vectors.
    Returns (passages read, fingerprint of their ids, seconds)."""
    from tqdm.auto import tqdm

    from rqrag.retrieval.encoders import embed

    shard_size = shards.shard_size
    fingerprint, total, encoded = hashlib.sha1(), 0, 0
    started = time.perf_counter()
    progress = tqdm(desc="encoding passages", unit="passage", disable=not show_progress or not layout.is_main)
    with Docstore(out_dir / DOCSTORE_FILE) as docstore:
        for shard, docs in shard_batches(iter_passages(corpus_path, stats), shard_size):
            for doc in docs:
                fingerprint.update(doc.docid.encode() + b"\0")
            first_row, total = total, total + len(docs)
            progress.update(len(docs))
            if not layout.owns(shard) or shards.exists(shard):
                continue
            docstore.write_rows(first_row, docs)  # committed before the vectors: see the module docstring
            vectors = embed(encoder, [indexed_text(d) for d in docs], "passages", batch_size)
            shards.save(shard, vectors)
            encoded += 1
            with (out_dir / ENCODE_LOG).open("a") as log:
                log.write(f"shard {shard} rows {first_row}-{total - 1} process {layout.index}\n")
    progress.close()
    encode_seconds = round(time.perf_counter() - started, 3)
    logger.info("encoded %d shard(s) in %.1f s (%d passages read, %d skipped)", encoded, encode_seconds, total,
                stats.skipped)  # fmt: skip
    return total, fingerprint, encode_seconds


def _check_complete(out_dir: Path, shards, total: int, shard_size: int) -> int:
    """The number of shards, once every shard and docstore row is there (a killed build is finished by a rerun)."""
    num_shards = math.ceil(total / shard_size)
    missing = [s for s in range(num_shards) if not shards.exists(s)]
    with Docstore(out_dir / DOCSTORE_FILE) as docstore:
        stored, span = docstore.count(), docstore.row_range()
    if missing or stored != total or span != (0, total - 1):
        raise RuntimeError(
            f"{out_dir}: incomplete after encoding ({len(missing)} shard(s) missing, {stored} of {total} rows "
            f"stored); rerun the same command to finish it"
        )
    return num_shards


def _build_settings(corpus_path: Path, model_name, query_prefix, passage_prefix, shard_size: int) -> dict:
    """What a resumed build must match (`_prepare_folder` refuses a folder built with other settings)."""
    return {
        "layout": STREAMED_LAYOUT,
        "corpus": str(corpus_path),
        "corpus_bytes": corpus_path.stat().st_size,
        "embedding_model": model_name,
        "query_prefix": query_prefix,
        "passage_prefix": passage_prefix,
        "shard_size": int(shard_size),
    }
