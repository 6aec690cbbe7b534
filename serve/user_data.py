"""Everything the server keeps about one user, and its deletion.

    rqrag users remove bob --file users.json --delete_data --config configs/serve/default.yaml

    for owner in UserFile("users.json").owners("bob"):      # "bob-3F9C0A1E22BB4C1D", ..., "bob"
        forget_user(serve_config, owner)                    # {"conversations": 3, "memories": 5, "documents": 2}

A user's data is kept under their identity (`Caller.name`: `NAME-UID`, or the bare name for a user added before
identities; `serve/users.py`), in three places, all named by the server's config (`ServeConfig`): their
conversations and memories in `database_url` (rows with that user id), and their private document library
(`user__OWNER`, a folder under `documents_dir` or tables in `documents_database_url`). Shared libraries are not
theirs and are left alone.
Run it with the server stopped or running: rows are deleted in transactions, the library's documents one by one
through the library's own writer lock.
"""

from __future__ import annotations

import logging

from rqrag.serve.serve_config import ServeConfig


logger = logging.getLogger(__name__)


def forget_user(serve: ServeConfig, owner: str, memories: bool = True) -> dict[str, int]:
    """Delete the conversations, memories and private documents kept under `owner` (a user's identity, one of
    `UserFile.owners(name)`); returns how many of each went."""
    from rqrag.serve.documents.service import DocumentsService, DocumentsSettings
    from rqrag.serve.memory.conversations import ConversationStore
    from rqrag.serve.users import check_owner

    check_owner(owner)
    counts = {}
    store = ConversationStore(serve.database_url)
    try:
        counts["conversations"] = store.forget_user(owner)
    finally:
        store.close()
    if memories:
        from rqrag.serve.memory.store import MemoryStore

        # Deleting rows needs no embedding: the store is opened without an encoder.
        memory_store = MemoryStore(serve.database_url, encoder=None)
        try:
            counts["memories"] = memory_store.forget_user(owner)
        finally:
            memory_store.close()
    documents = DocumentsService(DocumentsSettings.from_serve(serve))
    try:
        library = documents.library(documents.private_index(owner))
        removed = 0
        for record in library.list():
            removed += bool(library.remove(record["doc_id"]))
        counts["documents"] = removed
    finally:
        documents.close()
    logger.info("deleted the data kept under %s: %s", owner, counts)
    return counts
