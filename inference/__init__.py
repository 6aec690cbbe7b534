"""`rqrag.inference` — installed from the checkout's `inference/` folder (setuptools package-dir), so
`inference/decoding/decoder.py` is imported as `rqrag.inference.decoding.decoder`.

A question to a cited answer (`rqrag ask`, `rqrag serve`). Top level: `answer_pipeline.py` (every surface's one
pipeline), `grounding.py` and `extractive.py` (answers checked against their evidence, or quoted from it),
`build.py` (a decoder from its config), `service.py` and `conversation_service.py` (what the server calls),
`errors.py` (domain errors). Areas, top to bottom (import-linter layers in pyproject.toml):

    server/     the HTTP edge: FastAPI app, routes, SSE, the chat page (web/)
    memory/     episodic memory: conversations, remembered statements, their dates and retriever
    documents/  the documents service (uploads, ingestion jobs) and a library's review
    decoding/   the RQ-RAG tree: expansion, prompts, guards, selection
    backends/   generation (transformers, vLLM, remote endpoints); nothing of the tree

docs/ARCHITECTURE.md draws the arrows and follows a question file by file.
"""
