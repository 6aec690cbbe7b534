"""Several document libraries searched as one: a user's own library and the server's shared ones.

    view = LibraryView([own, shared])
    view.retriever("hybrid").search("Como instalo o Debian Edu?", k=3)   # hits of both, fused by RRF
    view.libraries                                                      # the not-found rule asks each

It answers what the answer pipeline asks of a library (`rqrag.answer.pipeline.EvidenceSource`): its
`settings` (the language the answer is written in: the first library's that has one) and a `retriever(mode)`.
The not-found rule (`decoding/search_first.not_found_message`) looks at each library on its own, since dense
scores of two libraries' chunks are comparable only within one embedding model's floor: a question is outside
the documents only when it is outside every library.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from rqrag.retrieval.fusion import FusedRetriever


class LibraryView:
    def __init__(self, libraries: Sequence):
        if not libraries:
            raise ValueError("a library view needs at least one library")
        self.libraries = list(libraries)

    @property
    def settings(self):
        first = self.libraries[0].settings
        language = next((lib.settings.language for lib in self.libraries if lib.settings.language), None)
        return dataclasses.replace(first, language=language) if language != first.language else first

    @property
    def location(self) -> str:
        return " + ".join(lib.location for lib in self.libraries)

    def retriever(self, mode: str = "hybrid"):
        if len(self.libraries) == 1:
            return self.libraries[0].retriever(mode)
        return FusedRetriever([lib.retriever(mode) for lib in self.libraries])

    def list(self) -> list[dict]:
        return [record for lib in self.libraries for record in lib.list()]
