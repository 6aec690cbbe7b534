"""One release's warning for a name of the retrieval API that was renamed (an index's `documents` are now its
`passages`: a library's documents are the user's files)."""

from __future__ import annotations

import warnings


def warn_renamed(old: str, new: str) -> None:
    """Warn the caller of a renamed method or property; call it first thing in the old name's body."""
    # stacklevel 3: this function, the old name's body, then the line that used the old name
    warnings.warn(f"{old} is deprecated; use {new}", DeprecationWarning, stacklevel=3)
