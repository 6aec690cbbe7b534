"""What a soak's clients (`scripts/soak.py`) were acknowledged, and every request's outcome: the ledger the
server's state is compared with at the end.

    ledger.document_done(doc_id, name)      # an upload's job said done
    ledger.delete_sent(doc_id); ledger.delete_answered(doc_id, status)
    ledger.documents_lost(listed_doc_ids)   # acknowledged, not deleted, yet not listed

A delete sent without a definite answer (the connection dropped as a replica was killed, a balancer's 502/503) may
or may not have been done, so its document is neither required nor forbidden in the listing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Ledger:
    """What the clients were acknowledged, and every request's outcome."""

    requests: list[dict] = field(default_factory=list)
    turns: dict[str, list[str]] = field(default_factory=dict)  # conversation -> questions acknowledged
    sent: set[str] = field(default_factory=set)  # every question sent (acknowledged or not)
    memories: list[str] = field(default_factory=list)  # facts whose memory was acknowledged stored
    documents: dict[str, str] = field(default_factory=dict)  # doc_id -> name, acknowledged done and not deleted
    jobs: set[str] = field(default_factory=set)  # every upload job the server accepted (202)
    deleted: set[str] = field(default_factory=set)  # acknowledged deleted (204 or 404) and not added again since
    # A delete sent without a definite answer (the connection dropped, a balancer's 502/503 while a replica died):
    # the server may or may not have done it, so the document may be listed or not.
    deletes_unanswered: set[str] = field(default_factory=set)
    outages: list[tuple[float, float, str]] = field(default_factory=list)  # (start, end, what)

    def document_done(self, doc_id: str, name: str) -> None:
        """An upload acknowledged stored: listed from now on, whatever was said of these bytes before."""
        self.documents[doc_id] = name
        self.deleted.discard(doc_id)
        self.deletes_unanswered.discard(doc_id)

    def delete_sent(self, doc_id: str) -> None:
        self.deletes_unanswered.add(doc_id)  # until an answer says what happened

    def delete_answered(self, doc_id: str, status: int) -> None:
        """204 (deleted) or 404 (gone already) acknowledge the document gone; any other status leaves it in doubt."""
        if status in (204, 404):
            self.documents.pop(doc_id, None)
            self.deleted.add(doc_id)
            self.deletes_unanswered.discard(doc_id)

    def documents_lost(self, listed: set[str]) -> list[str]:
        """Acknowledged documents the server no longer lists, leaving out those a delete without answer may have
        removed."""
        return sorted(set(self.documents) - listed - self.deletes_unanswered)

    def log(self, route: str, status: int | str, started: float, t0: float) -> None:
        self.requests.append({"t": round(started - t0, 3), "route": route, "status": status,
                              "seconds": round(time.monotonic() - started, 3)})  # fmt: skip
