"""The embeddings of a streamed index on disk: one `.npy` file per shard of consecutive rows.

    shards/000000.npy   rows 0 .. S-1          (S = the shard size the build was run with)
    shards/000001.npy   rows S .. 2S-1
    ...

Vectors are unit-length, stored as float16: half the disk of float32, and the cosine of two such rows moves by
less than 1e-3, far below the gap between neighbours that matters for ranking. A shard file appears only once
complete (written to a temporary name, flushed, renamed), so its presence is what "this shard is done" means
to a resumed build. The index build reads whole shards, one at a time (training sample, shard-by-shard add); a
search re-ranking IVF-PQ candidates reads only their rows, one pread each (`random_access`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np


SHARDS_DIR = "shards"
SHARD_DTYPE = np.float16


class VectorShards:
    """The shard files of one index folder, and row-level reads across them."""

    def __init__(self, directory: str | os.PathLike, shard_size: int, *, random_access: bool = False):
        """`random_access`: the reader picks scattered rows (a search re-ranking its candidates), which `rows`
        then reads with one pread each instead of through a memory map: a fault on a mapped page maps its
        neighbours too, and 20k scattered rows of a 1M-row index brought 761 of its 768 MB of shards into the
        search's resident memory (scripts/bench_index_scale.py)."""
        if shard_size < 1:
            raise ValueError(f"shard_size must be >= 1, got {shard_size}")
        self.directory = Path(directory)
        self.shard_size = int(shard_size)
        self.random_access = random_access
        self._maps: dict[int, np.ndarray] = {}
        self._files: dict[int, tuple[int, int, int, np.dtype]] = {}  # shard -> (fd, data offset, row bytes, dtype)

    def path(self, shard: int) -> Path:
        return self.directory / f"{shard:06d}.npy"

    def exists(self, shard: int) -> bool:
        return self.path(shard).is_file()

    def save(self, shard: int, vectors: np.ndarray) -> Path:
        """Write one shard's vectors atomically: a reader (or a resumed build) sees the whole file or none."""
        self.directory.mkdir(parents=True, exist_ok=True)
        target = self.path(shard)
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        with partial.open("wb") as f:
            np.save(f, np.ascontiguousarray(vectors, dtype=SHARD_DTYPE))
            f.flush()
            os.fsync(f.fileno())
        os.replace(partial, target)
        return target

    def load(self, shard: int) -> np.ndarray:
        """One shard's vectors, memory-mapped (float16; convert the rows you use)."""
        if shard not in self._maps:
            self._maps[shard] = np.load(self.path(shard), mmap_mode="r")
        return self._maps[shard]

    def float32(self, shard: int) -> np.ndarray:
        """One whole shard read into memory as float32, not kept: the index build's sequential pass, which a
        memory map would leave resident shard after shard (file pages count in the build's RSS)."""
        return np.ascontiguousarray(np.load(self.path(shard)), dtype=np.float32)

    def header(self, shard: int) -> tuple[tuple[int, ...], np.dtype, int]:
        """A shard's shape, dtype and the byte offset of its first row, from its .npy header alone."""
        with self.path(shard).open("rb") as f:
            major, _ = np.lib.format.read_magic(f)
            read_header = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
            shape, _, dtype = read_header(f)
            return shape, dtype, f.tell()

    def length(self, shard: int) -> int:
        """How many rows a shard holds."""
        return int(self.header(shard)[0][0])

    def _opened(self, shard: int) -> tuple[int, int, int, np.dtype]:
        if shard not in self._files:
            shape, dtype, offset = self.header(shard)
            self._files[shard] = (os.open(self.path(shard), os.O_RDONLY), offset, shape[1] * dtype.itemsize, dtype)
        return self._files[shard]

    def _pread_rows(self, shard: int, local_rows: np.ndarray) -> np.ndarray:
        fd, offset, row_bytes, dtype = self._opened(shard)
        data = b"".join(os.pread(fd, row_bytes, offset + int(r) * row_bytes) for r in local_rows)
        return np.frombuffer(data, dtype=dtype).reshape(len(local_rows), -1)

    def close(self) -> None:
        for fd, *_ in self._files.values():
            os.close(fd)
        self._files.clear()
        self._maps.clear()

    def rows(self, rows: Sequence[int]) -> np.ndarray:
        """The vectors of the given rows, in that order, as float32."""
        rows = np.asarray(rows, dtype=np.int64)
        out = None
        for shard in np.unique(rows // self.shard_size):
            mine = np.nonzero(rows // self.shard_size == shard)[0]
            local = rows[mine] - shard * self.shard_size
            block = self._pread_rows(int(shard), local) if self.random_access else self.load(int(shard))[local]
            if out is None:
                out = np.empty((len(rows), block.shape[1]), dtype=np.float32)
            out[mine] = block
        return out if out is not None else np.zeros((0, 0), dtype=np.float32)

    def sample(self, num_shards: int, size: int, seed: int = 0) -> np.ndarray:
        """About `size` vectors drawn uniformly from all shards (a fixed share of each), for training IVF and PQ
        quantizers without loading the corpus: the whole of it when it is smaller than `size`."""
        rng = np.random.default_rng(seed)
        lengths = [self.length(s) for s in range(num_shards)]
        total = sum(lengths)
        share = min(1.0, size / max(total, 1))
        parts = []
        for shard, length in enumerate(lengths):
            take = length if share >= 1.0 else int(round(length * share))
            picked = np.sort(rng.choice(length, size=min(take, length), replace=False))
            parts.append(np.asarray(np.load(self.path(shard))[picked], dtype=np.float32))  # one shard at a time
        return np.ascontiguousarray(np.concatenate(parts, axis=0))
