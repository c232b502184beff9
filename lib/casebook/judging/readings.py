"""Bundles read in this process, kept so that opening the same bundle again costs nothing.

A bundle is the same when the same paths hold the same files (the same inode, size, modification time and status
change time, and the same bytes at their start and end), and it is read with the same limits and engine. A file
rewritten with its old size and modification time put back (`touch -r`, `os.utime`) still has a new status
change time, which no one can set back; where that clock is coarse, the bytes at its ends tell. Only the reading
and its evidence are kept: answers, facts and the ranking are new on every open. Bundles with archive members
are not kept: their spooled copies belong to the log table that read them.
"""
from __future__ import annotations

import hashlib
import os
import stat
from collections import OrderedDict
from pathlib import Path
from typing import Callable

from ..evidence.items import Evidence
from ..evidence.registry import KEEP, extract_evidence
from ..reading import plog, scan
from ..reading.limits import Limits
from ..reading.plog import read_plog
from ..reading.table import LogTable

#: How many bundles are kept (the one open and the one before it).
KEPT = 2
#: Bytes read at each end of every file to tell a rewritten file from the one read.
ENDS = 4096
_KEPT: OrderedDict[tuple, tuple[LogTable, Evidence]] = OrderedDict()


def signature(paths: tuple[str | os.PathLike, ...]) -> tuple | None:
    """What every file under the paths is (`_identity`), or None when one cannot be looked at."""
    entries = []
    try:
        for given in paths:
            if not isinstance(given, (str, os.PathLike)):   # a pasted capture: nothing on disk to compare
                return None
            top = Path(given)
            if top.is_dir():
                for root, dirs, files in os.walk(top):
                    dirs.sort()
                    for name in sorted(files):
                        full = os.path.join(root, name)
                        entries.append((full,) + _identity(full, os.lstat(full)))
            else:
                entries.append((str(top.resolve()),) + _identity(top, top.stat()))
    except OSError:
        return None
    return tuple(entries)


def _identity(path: str | os.PathLike, st: os.stat_result) -> tuple:
    """A file's device, inode, size, modification and status change times, and a digest of its first and last
    ENDS bytes (links and special files: their stat alone, they are not read)."""
    ends = b""
    if stat.S_ISREG(st.st_mode):
        # O_NONBLOCK: what was a regular file may be a FIFO by now, and must not block the open
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            ends = os.pread(fd, ENDS, 0) + os.pread(fd, ENDS, max(st.st_size - ENDS, ENDS))
        finally:
            os.close(fd)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns,
            hashlib.blake2b(ends, digest_size=16).digest())


def read_case(*paths: str | os.PathLike, limits: Limits | None = None, engine: str = "local",
              scheduler: str | None = None, workers: int | None = None,
              progress: Callable[[int, int], None] | None = None,
              read: Callable[[LogTable], None] | None = None) -> tuple[LogTable, Evidence]:
    """The bundle's log table and evidence: read now, or kept from an earlier open of the same bundle; `read` is
    told of a fresh log table before its evidence is extracted (a progress display's next stage)."""
    files = signature(paths)
    # how the reader reads (the selective thresholds, the compiled scanner) is part of what was read
    how = (plog.FULL_RECORDS_BELOW, plog.CAPTURE_FULL_BELOW, scan.available(), limits, engine, scheduler)
    key = (tuple(os.path.abspath(p) for p in paths), files, how) if files is not None else None
    if key is not None and key in _KEPT:
        _KEPT.move_to_end(key)
        log, evidence = _KEPT[key]
        if progress is not None:
            progress(len(log.files), len(log.files))
        return log, evidence
    log = read_plog(*paths, keep=KEEP, limits=limits, engine=engine, scheduler=scheduler, workers=workers,
                    progress=progress)
    if read is not None:
        read(log)
    evidence = extract_evidence(log)
    if key is not None and not any(f.spool is not None for f in log.files):
        _KEPT[key] = (log, evidence)
        while len(_KEPT) > KEPT:
            _KEPT.popitem(last=False)
    return log, evidence


def forget() -> None:
    """Drop every kept reading (the benchmark starts each round from nothing)."""
    _KEPT.clear()
