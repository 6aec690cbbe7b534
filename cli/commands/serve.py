"""rqrag serve [--config configs/serve/default.yaml] [--port 8000] [--backend hf|vllm] [--model ...]

    rqrag serve --config configs/serve/default.yaml
    rqrag serve --config configs/serve/default.yaml --prompting prompted --port 8001      # the base model

Starts the OpenAI-compatible RQ-RAG server (serve/server/app.py) on 127.0.0.1 by default: the shipped model
over the embedded corpus, offline on a CPU. Clients use the `openai` package with base_url
http://127.0.0.1:8000/v1 and model "rqrag"; `POST /v1/ask` is the plain endpoint with conversations.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rqrag.config_loader import log_config, make_parser, parse
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.serve.serve_config import ServeConfig


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(DecodeConfig, ServeConfig, prog="rqrag serve", description=__doc__.split("\n\n")[2])
    decode, serve, _ = parse(parser, argv)
    log_config("rqrag serve", decode, serve)

    import uvicorn

    from rqrag.serve.server.app import create_app

    uvicorn.run(create_app(decode, serve), host=serve.host, port=serve.port, log_level="info", access_log=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
