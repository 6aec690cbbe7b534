"""The soak's bookkeeping (`scripts/soak.py`'s `Ledger`): what counts as a document lost. A document is lost when
the server was acknowledged to have stored it, no acknowledged delete removed it, and no delete without an answer
(a replica killed mid-request, a balancer's 502) may have removed it."""

from __future__ import annotations

import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


def test_an_acknowledged_document_missing_from_the_listing_is_lost():
    from soak_ledger import Ledger

    ledger = Ledger()
    ledger.document_done("a", "a.md")
    ledger.document_done("b", "b.md")
    assert ledger.documents_lost({"b"}) == ["a"]


def test_a_delete_without_an_answer_may_have_removed_it_and_an_answered_one_did():
    from soak_ledger import Ledger

    ledger = Ledger()
    for doc in "abc":
        ledger.document_done(doc, f"{doc}.md")
    ledger.delete_sent("a")  # the connection dropped: no answer
    ledger.delete_sent("b")
    ledger.delete_answered("b", 204)
    ledger.delete_sent("c")
    ledger.delete_answered("c", 503)  # the balancer's page while a replica restarted: not known either way
    assert ledger.documents_lost(set()) == []
    assert ledger.deleted == {"b"} and ledger.deletes_unanswered == {"a", "c"}
    # but a document acknowledged again after its unanswered delete must be listed
    ledger.document_done("a", "a.md")
    assert ledger.documents_lost({"c"}) == ["a"]


def test_bytes_added_again_after_their_delete_are_no_longer_counted_deleted():
    from soak_ledger import Ledger

    ledger = Ledger()
    ledger.document_done("a", "a.md")
    ledger.delete_sent("a")
    ledger.delete_answered("a", 204)
    ledger.document_done("a", "a-again.md")
    assert ledger.deleted == set() and ledger.documents_lost({"a"}) == []
