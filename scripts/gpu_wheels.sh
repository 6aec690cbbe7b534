#!/usr/bin/env bash
# Download, HERE (PyPI reachable), the wheels scripts/gpu_check.sh installs on the GPU machine, which has no
# internet: CPython 3.12, manylinux x86_64, no dependencies resolved (each one is named below).
#
#   bash scripts/gpu_wheels.sh            # -> .gpu_wheels/ (add "/.gpu_wheels/" to .git/info/exclude, carry it)
#
# What the GPU image (python3 = /opt/torch/.venv, Python 3.12) lacks of what the check needs, checked against
# its package list (.library/device/KINDS.md "Python packages already there"):
#   trl, datasets               pinned to this venv's versions (training/sft.py runs on the same TRL)
#   dill, multiprocess          datasets' requirements that the image lacks (every other one is there:
#                               filelock, fsspec, huggingface-hub, numpy, packaging, pandas, pyarrow, pyyaml,
#                               tqdm, xxhash; trl's: accelerate, jinja2, psutil, transformers too)
#   bm25s, PyStemmer            the BM25 retriever of the decoder check (bm25s needs numpy only)
#   deepspeed                   only if PyPI has a wheel of a current release: it is sdist-only (its one wheel,
#                               0.3.1.dev5, is from 2020), so the check skips ZeRO-3.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
DEST=${DEST:-.gpu_wheels}
mkdir -p "$DEST"

version() {  # the version this venv has installed
    "$PY" -m pip show "$1" 2>/dev/null | sed -n 's/^Version: //p'
}

pins=()
for name in trl datasets dill multiprocess bm25s PyStemmer; do
    v=$(version "$name")
    if [ -z "$v" ]; then
        echo "error: $name is not installed in $PY; cannot pin it" >&2
        exit 1
    fi
    pins+=("$name==$v")
done
echo "pins: ${pins[*]}"

download() {
    "$PY" -m pip download --quiet --dest "$DEST" --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
        --no-deps "$@"
}

download "${pins[@]}"

# deepspeed: a wheel of a release this decade, or nothing (the 2020 dev wheel would "install" and be useless).
if download "deepspeed>=0.14" 2>/dev/null; then
    echo "deepspeed: wheel found; the check will also run ZeRO-3"
else
    echo "deepspeed: no wheel on PyPI for a current release (sdist only); the check skips ZeRO-3"
fi

echo
ls -l "$DEST"
du -sh "$DEST"
