"""Where a passage is, as a citation says it: the document a chunk belongs to and its pages.

doc_id_of(hit)               # "ba4ed21ee4e2cb45" for the chunk "ba4ed21ee4e2cb45:00012"
cite_pages([3, 4, 5, 9])     # "pp. 3-5, 9"
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def doc_id_of(item) -> str:
    """The document a chunk or a hit of a document library belongs to: `extra["doc_id"]`, else its docid before the
    last ':' (chunks of an ingested file are "DOC_ID:00012")."""
    return (item.extra or {}).get("doc_id") or item.docid.rsplit(":", 1)[0]


def page_ranges(pages: Iterable[int]) -> str:
    """[3, 4, 5, 9] -> "3-5, 9": pages in the order given, each run of consecutive ones as a range."""
    runs: list[list[int]] = []  # [first, last] of each run of consecutive pages
    for page in pages:
        if runs and page == runs[-1][1] + 1:
            runs[-1][1] = page
        else:
            runs.append([page, page])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def cite_pages(pages: Sequence[int], one: str = "p.", many: str = "pp.") -> str:
    """ "p. 3", "pp. 3-5" or "pp. 3-5, 9": where a chunk or a quote is, as a citation says it. `one` and `many` are
    the words for one page and for several (a review in Portuguese says "página" / "páginas")."""
    return f"{one if len(set(pages)) == 1 else many} {page_ranges(pages)}"
