"""Read plog bundles into the log table: one row per line, every line counted, none dropped."""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field

import pandas as pd

from .bundle import ROLE_HOST_PLOG, ROLE_SCREEN, ROLE_TEXT, LogFile, find_files
from .grammar import (KIND_BLANK, KIND_BLOCK_HEAD, KIND_BLOCK_LINE, KIND_BLOCK_MSG, KIND_EXCEPTION_PRINT,
                      KIND_PLOG, KIND_PTA, KIND_PYTHON, KIND_UNPARSED, BlockState, parse_line)

#: Columns of the log table, in order.
PLOG_COLUMNS = ["file", "line", "kind", "level", "module", "pid", "pname", "time", "src", "tid", "func",
                "stage", "code", "msg"]

ERROR_BLOCK_KINDS = (KIND_BLOCK_HEAD, KIND_BLOCK_MSG, KIND_BLOCK_LINE)
_CAPTURE_KINDS = {KIND_BLOCK_HEAD, KIND_BLOCK_MSG, KIND_PTA, KIND_PYTHON}
_BINARY_SNIFF = 8192


@dataclass
class LogTable:
    """Everything read from a bundle: the files found and the records of their lines."""

    paths: list[str]
    files: list[LogFile]
    records: pd.DataFrame
    warnings: list[str] = field(default_factory=list)

    @property
    def lines(self) -> int:
        """Lines read in all files."""
        return sum(f.lines for f in self.files)

    @property
    def lines_unparsed(self) -> int:
        """Lines kept raw because no grammar rule accepted them."""
        return sum(f.unparsed for f in self.files)

    @property
    def bytes(self) -> int:
        """Bytes of all files read."""
        return sum(f.size for f in self.files if not f.skipped)

    def errors(self) -> pd.DataFrame:
        """ERROR-level records and the lines of error blocks (the `error_lines` of the contract)."""
        r = self.records
        return r[(r["level"] == "ERROR") | r["kind"].isin(ERROR_BLOCK_KINDS)]

    def file(self, path: str) -> LogFile:
        """The file with this display path."""
        for f in self.files:
            if f.path == path:
                return f
        raise KeyError(path)

    def files_frame(self) -> pd.DataFrame:
        """The files as a table (path, role, node, rank, device, pid, lines, unparsed, times, skipped)."""
        cols = ["path", "role", "sort", "node", "rank", "device", "pid", "lines", "unparsed", "first_time",
                "last_time", "skipped"]
        return pd.DataFrame([{c: getattr(f, c) for c in cols} for f in self.files], columns=cols)


def split_lines(data: bytes) -> list[bytes]:
    """Lines as design.md §5 defines them: ended by `\\n`, plus a non-empty tail; `\\r` is not a break."""
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    return parts


def _looks_binary(head: bytes) -> bool:
    # a few NUL bytes happen in real logs (a crashed writer); many control bytes mean a binary file
    if b"\x00" not in head:
        return False
    control = sum(1 for b in head if (b < 32 and b not in (9, 10, 13)) or b == 127)
    return control > 0.05 * len(head)


def read_file(f: LogFile) -> list[tuple]:
    """Parse one file into record tuples (PLOG_COLUMNS order) and fill its counts and times."""
    try:
        with open(f.source, "rb") as fh:
            data = fh.read()
    except OSError as e:
        f.skipped = f"cannot read: {e.strerror}"
        return []
    if _looks_binary(data[:_BINARY_SNIFF]):
        f.skipped = "binary file"
        return []
    rows: list[tuple] = []
    state = BlockState()
    last_time = None
    bad_lines = 0
    kinds: Counter = Counter()
    pids: Counter = Counter()
    for no, raw in enumerate(split_lines(data), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", errors="replace")
            bad_lines += 1
        fl = parse_line(text.rstrip("\r"), state)
        if fl.time is None and fl.kind in (KIND_EXCEPTION_PRINT, KIND_BLOCK_LINE, KIND_PYTHON):
            fl.time = last_time   # dumps and traceback lines belong to the moment of the line before them
        elif fl.time is not None:
            last_time = fl.time
        kinds[fl.kind] += 1
        if fl.kind == KIND_PLOG and fl.pid is not None and fl.pid >= 0:
            pids[fl.pid] += 1
        rows.append((f.path, no, fl.kind, fl.level, fl.module, fl.pid, fl.pname, fl.time, fl.src, fl.tid,
                     fl.func, fl.stage, fl.code, fl.msg))
    f.lines = len(rows)
    f.unparsed = kinds[KIND_UNPARSED]
    times = [r[7] for r in rows if r[7] is not None]
    f.first_time, f.last_time = (min(times), max(times)) if times else (None, None)
    if bad_lines:
        f.warnings.append(f"{f.path}: {bad_lines} line(s) are not valid UTF-8; bad bytes shown as U+FFFD")
    if f.role == ROLE_TEXT:
        if any(kinds[k] for k in _CAPTURE_KINDS):
            f.role = ROLE_SCREEN
        elif kinds[KIND_PLOG] and kinds[KIND_PLOG] >= (f.lines - kinds[KIND_BLANK]) / 2:
            f.role = ROLE_HOST_PLOG
    if f.pid is None and f.role == ROLE_HOST_PLOG and pids:
        f.pid = pids.most_common(1)[0][0]
    return rows


def read_plog(*paths: str | os.PathLike) -> LogTable:
    """Read a folder, a file or several of either into one LogTable; raises BundleError on unusable input."""
    files = find_files(list(paths))
    rows: list[tuple] = []
    for f in files:
        if not f.skipped:
            rows.extend(read_file(f))
    # object columns keep absent fields as None (string dtype would turn them into NaN)
    records = pd.DataFrame(rows, columns=PLOG_COLUMNS, dtype=object)
    records["pid"] = records["pid"].astype("Int64")
    records["line"] = records["line"].astype("int64")
    warnings = [w for f in files for w in f.warnings]
    warnings += [f"{f.path}: skipped ({f.skipped})" for f in files if f.skipped]
    return LogTable(paths=[os.fspath(p) for p in paths], files=files, records=records, warnings=warnings)
