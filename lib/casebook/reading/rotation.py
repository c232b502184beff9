"""Rotated logs of one process: joined in time order, and a warning when the first error may be gone.

CANN keeps at most ASCEND_HOST_LOG_FILE_NUM files (default 10) per process in each log folder and
deletes the oldest when it opens a new one (domain.md §2), so the first error of a long run may be
lost. Two signs say so: the process's oldest file starts in the middle of a record (its first line
continues one begun in a deleted file), or the process has as many files as the limit allows.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable
from pathlib import PurePosixPath

from .bundle import ROLE_DEVICE_LOG, ROLE_HOST_PLOG, LogFile
from .grammar import number

if TYPE_CHECKING:
    import pandas as pd

#: Files CANN keeps per process and folder when ASCEND_HOST_LOG_FILE_NUM is not set.
DEFAULT_FILE_NUM = 10
_NAME_TIME = re.compile(r"_(?P<ts>\d{17})\.log$")
_LIMIT_SETTING = re.compile(r"ASCEND_HOST_LOG_FILE_NUM\s*(?:=|:|is)\s*['\"]?(?P<n>\d+)")


@dataclass
class Stream:
    """The files one process wrote into one log folder, oldest first."""

    folder: str
    role: str
    pid: int | None
    device: int | None
    files: list[LogFile] = field(default_factory=list)


def name_time(f: LogFile) -> str:
    """The creation time CANN writes into the file name (`_YYYYMMDDhhmmssSSS.log`), or '' if none."""
    m = _NAME_TIME.search(f.path)
    return m["ts"] if m else ""


def order_key(f: LogFile) -> tuple:
    """Sort key that puts the rotated files of one process in the order they were written."""
    folder = str(PurePosixPath(f.path).parent)
    return folder, f.role, f.pid if f.pid is not None else -1, f.device if f.device is not None else -1, \
        name_time(f), f.path


def streams(files: list[LogFile]) -> list[Stream]:
    """Host plogs and device logs that were read, grouped by folder and process, each oldest first."""
    groups: dict[tuple, Stream] = {}
    for f in sorted((f for f in files if not f.skipped and f.role in (ROLE_HOST_PLOG, ROLE_DEVICE_LOG)),
                    key=order_key):
        folder = str(PurePosixPath(f.path).parent)
        key = (folder, f.role, f.pid, f.device)
        groups.setdefault(key, Stream(folder, f.role, f.pid, f.device)).files.append(f)
    return list(groups.values())


#: Where the rotation limit in force comes from, in words.
LIMIT_SOURCES = {"found": "ASCEND_HOST_LOG_FILE_NUM as found in the bundle",
                 "default": "the default ASCEND_HOST_LOG_FILE_NUM", "given": "given"}


@dataclass(frozen=True)
class Gap:
    """A process whose first error may have been rotated away, and the signs that say so."""

    path: str           #: its oldest file left
    folder: str
    pid: int | None
    device: int | None
    files: int          #: how many files it has
    limit: int          #: the rotation limit in force
    source: str         #: where the limit comes from: a key of LIMIT_SOURCES
    continues: bool     #: the oldest file starts in the middle of a record
    full: bool          #: the process has as many files as the limit allows

    def __str__(self) -> str:
        who = f"pid {self.pid}" if self.pid is not None else (
            f"device {self.device}" if self.device is not None else "one process")
        signs = (["its oldest file starts in the middle of a record, so earlier files are missing"] if self.continues
                 else []) + ([f"it has {self.files} files, the rotation limit ({self.limit}, "
                              f"{LIMIT_SOURCES[self.source]}), so older files were probably deleted"] if self.full else [])
        return (f"{self.path}: {who} in {self.folder}: {'; '.join(signs)}. The first error may have been rotated "
                f"away: ask for every file of {self.folder}, and for a rerun with ASCEND_HOST_LOG_FILE_NUM raised")


def file_limit(messages: Iterable[str | None] = ()) -> tuple[int, str]:
    """The rotation limit in force and where it comes from (a key of LIMIT_SOURCES): as logged or dumped
    (ASCEND_HOST_LOG_FILE_NUM) in one of the records' messages, else the default."""
    for msg in messages:
        if msg and "ASCEND_HOST_LOG_FILE_NUM" in msg and (m := _LIMIT_SETTING.search(msg)) \
                and number(m["n"]) is not None:
            return number(m["n"]), "found"
    return DEFAULT_FILE_NUM, "default"


def check(files: list[LogFile], messages: Iterable[str | None] = (), limit: int | None = None) -> list[Gap]:
    """Processes whose first error may have been rotated away (`messages`: the records' messages, read for the
    limit in force); the warning also goes on the oldest file."""
    source = "given"
    if limit is None:
        limit, source = file_limit(messages)
    out = []
    for s in streams(files):
        oldest = s.files[0]
        gap = Gap(oldest.path, s.folder, s.pid, s.device, len(s.files), limit, source, oldest.continues,
                  len(s.files) >= limit)
        if gap.continues or gap.full:
            oldest.warnings.append(str(gap))
            out.append(gap)
    return out


def timeline(records: pd.DataFrame, files: list[LogFile]) -> pd.DataFrame:
    """All records in one time order (µs, local time as logged); lines without a time stay after the line
    before them in their file, and the rotated files of a process follow each other."""
    import pandas as pd
    if records.empty:
        return records
    rank = {f.path: n for n, f in enumerate(sorted(files, key=order_key))}
    filled = records.groupby("file", sort=False)["time"].transform(lambda t: t.ffill().bfill())
    key = pd.DataFrame({"t": filled.fillna("9999"), "f": records["file"].map(rank), "l": records["line"]})
    order = key.sort_values(["t", "f", "l"], kind="stable").index
    return records.loc[order].reset_index(drop=True)
