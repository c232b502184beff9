"""Recall: the memory opened (created, migrated and seeded on first use) and asked for the cases most like a
triaged one. What the walk, the CLI, the report and the app call."""
from __future__ import annotations

import os
from pathlib import Path

from ..judging.triage import Triage
from .fingerprint import of_triage
from .seed import seed
from .similarity import Match, similar
from .store import TIMEOUT, Store

#: Past cases shown beside the root cause.
SHOWN = 5


def open_memory(location: str | os.PathLike | None = None, folder: Path | None = None,
                timeout: float = TIMEOUT) -> Store:
    """The memory at `location` (default `$CASEBOOK_DB` or the user's data folder), seeded from `folder`
    (default kb/threads); raises MemoryUnavailable with one line when it cannot be used."""
    store = Store(location, timeout=timeout)
    try:
        seed(store, folder)
    except BaseException:
        store.close()
        raise
    return store


def recall(t: Triage, location: str | os.PathLike | None = None, folder: Path | None = None,
           limit: int = SHOWN, timeout: float = 3.0) -> list[Match]:
    """The remembered cases most like a triaged one, best first; raises MemoryUnavailable."""
    with open_memory(location, folder, timeout=timeout) as store:
        return similar(store, of_triage(t), limit=limit)
