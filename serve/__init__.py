"""`rqrag.serve` — the served application, installed from the checkout's `serve/` folder (setuptools package-dir).

What `rqrag serve` runs around the answer step: `server/` (the HTTP edge: the OpenAI-compatible API, the chat page
and its routes, SSE, auth), `answer_service.py` and `conversation_service.py` (what the routes call),
`tree_scheduler.py` (one model thread: questions join the running decode at each depth, users in turn), `users.py` and `user_data.py`, `serve_config.py` (the server's
settings), `errors.py` (the services' domain errors), and its areas:

    memory/     episodic memory: conversations, remembered statements, their dates and retriever
    documents/  the documents service (uploads, ingestion jobs, review jobs)
    review/     a library's literature review

It asks the answer step through `rqrag.answer`'s public API only (an import-linter contract in pyproject.toml).
docs/ARCHITECTURE.md follows a question through it file by file.
"""
