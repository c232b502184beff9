"""The temporary area archive members are expanded into, and the bounds on how much they may expand.

Members land in numbered files of one private folder (`casebook-spool-*` in the system temporary
directory), created with O_EXCL and mode 0600; names from archives never become file-system paths.
The folder goes away on `Spool.close()` or when the Spool is garbage-collected.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO


@dataclass(frozen=True)
class Limits:
    """Bounds on what archives may expand to; every one is a function argument and a CLI option."""

    max_bytes: int = 4 << 30          #: total bytes all archives of one read may expand to (4 GiB)
    max_ratio: float = 200.0          #: expanded / compressed bytes of one archive layer
    ratio_floor: int = 16 << 20       #: the ratio is enforced once a layer has expanded this much (16 MiB)
    max_members: int = 100_000        #: entries per archive
    max_depth: int = 4                #: archives inside archives


class LimitExceeded(Exception):
    """An archive expands beyond a limit: a decompression bomb, or a bundle larger than allowed."""


@dataclass
class Member:
    """One entry found in an archive: spooled to a plain file, or refused with a reason."""

    display: str                       #: `outer.zip!/inner.tar.gz!/debug/plog/plog-1_….log`
    source: Path | None = None         #: the spooled copy (None when refused)
    size: int = 0                      #: bytes expanded
    refused: str | None = None         #: why the entry was not read
    warnings: list[str] = field(default_factory=list)


class Spool:
    """A private temporary folder holding the expanded members; removed on close() or when dropped."""

    def __init__(self) -> None:
        self.dir: Path | None = None
        self.count = 0
        self._finalizer = None

    def create(self) -> tuple[Path, BinaryIO]:
        """A new numbered file, opened for writing; it cannot exist already."""
        if self.dir is None:
            self.dir = Path(tempfile.mkdtemp(prefix="casebook-spool-"))
            self._finalizer = weakref.finalize(self, shutil.rmtree, self.dir, True)
        self.count += 1
        path = self.dir / f"{self.count:06d}.member"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        return path, os.fdopen(fd, "wb")

    def close(self) -> None:
        """Remove the folder and everything in it (only the Spool that created it can)."""
        if self._finalizer is not None:
            self._finalizer()

    def __getstate__(self) -> dict:
        # a copy sent to another process may read the members but never removes the folder
        return {"dir": self.dir, "count": self.count}

    def __setstate__(self, state: dict) -> None:
        self.dir, self.count, self._finalizer = state["dir"], state["count"], None


class Budget:
    """Bytes expanded so far by one read, against its limits."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.total = 0

    def spend(self, n: int, where: str) -> None:
        """Count n more expanded bytes; raise LimitExceeded past the total limit."""
        self.total += n
        if self.total > self.limits.max_bytes:
            raise LimitExceeded(f"{where}: refused: archives expand beyond {self.limits.max_bytes} bytes "
                                f"(--max-bytes)")

    def check_ratio(self, expanded: int, compressed: int, where: str) -> None:
        """Raise LimitExceeded when a layer that has grown large expands too much per compressed byte."""
        lim = self.limits
        if expanded > lim.ratio_floor and expanded > lim.max_ratio * max(compressed, 1):
            raise LimitExceeded(f"{where}: refused: expands more than {lim.max_ratio:g} times its compressed "
                                f"size (--max-ratio), a decompression bomb")
