"""Leave-one-out on the seed: how often "Seen before" puts a thread with the same cause in its top five.

For each thread that has a capture (tests/captures/<folder>), the capture is triaged and the memory, seeded with
every thread, is asked for its most similar cases with that thread left out. It counts as found when one of the
top five names the same KB case (`case`), or, for a thread no KB case covers, the same KB family (`family`).
Threads with neither have no cause the others could share by id, and are not counted. A thread whose cause
no other thread shares cannot be found by any lookup: the figure is given over all counted threads, and over
the reachable ones.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..judging.triage import triage
from ..knowledge import threads
from ..knowledge.kb import KnowledgeBase, load_kb
from .fingerprint import of_triage
from .seed import case as case_of
from .seed import seed
from .similarity import similar
from .store import Store


@dataclass
class Holdout:
    """The figure and each counted thread's outcome."""

    top: int = 5
    counted: int = 0
    found: int = 0
    reachable: int = 0       #: counted threads whose cause another thread shares: the ones that can be found
    found_reachable: int = 0
    rows: list[dict] = field(default_factory=list)   #: {thread, cause, reachable, found, top}

    @property
    def rate(self) -> float:
        """Share of the counted threads found."""
        return self.found / self.counted if self.counted else 0.0

    @property
    def reachable_rate(self) -> float:
        """Share of the reachable threads found."""
        return self.found_reachable / self.reachable if self.reachable else 0.0

    def as_dict(self) -> dict:
        return {"top": self.top, "counted": self.counted, "found": self.found, "rate": round(self.rate, 3),
                "reachable": self.reachable, "found_reachable": self.found_reachable,
                "reachable_rate": round(self.reachable_rate, 3), "threads": self.rows}


def same_cause(thread: threads.Thread, other) -> bool:
    """Whether a remembered case states the thread's cause: the same KB case, else (no case) the same family."""
    fp = other.fingerprint
    if thread.case:
        return fp.cause == thread.case
    return bool(thread.family) and fp.family == thread.family


def leave_one_out(folder: Path, project: Path, kb: KnowledgeBase | None = None, top: int = 5,
                  progress: Callable[[int, int], None] | None = None) -> Holdout:
    """The leave-one-out figure over the threads of `folder` whose capture is under `project`."""
    kb = kb or load_kb()
    chosen = [t for t in threads.load(folder)
              if t.capture and (t.case or t.family) and (Path(project) / t.capture / "capture.txt").is_file()]
    result = Holdout(top=top)
    everyone = [case_of(t) for t in threads.load(folder)]
    with tempfile.TemporaryDirectory(prefix="casebook-holdout-") as tmp, Store(Path(tmp) / "memory.db") as store:
        seed(store, folder)
        for n, t in enumerate(chosen, start=1):
            reachable = any(c.id != t.id and same_cause(t, c) for c in everyone)
            case = triage(Path(project) / t.capture / "capture.txt", kb=kb)
            kept = store.get(t.id)
            store.forget(t.id)   # removed, not just hidden: its words must not count in the others' rarity
            found = similar(store, of_triage(case), limit=top)
            store.put([kept])
            hit = any(same_cause(t, m.case) for m in found)
            result.counted += 1
            result.found += hit
            result.reachable += reachable
            result.found_reachable += hit and reachable
            result.rows.append({"thread": t.id, "cause": t.case or t.family, "reachable": reachable, "found": hit,
                                "top": [m.case.id for m in found]})
            if progress:
                progress(n, len(chosen))
    return result
