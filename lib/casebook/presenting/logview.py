"""Views over the log table for exploring a bundle: level counts, filtered records, raw lines around a line."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..judging.triage import Triage
from ..reading.backfill import every_record
from ..reading.grammar import KIND_PLOG
from ..reading.table import LogTable
from . import walk

ANY = "(any)"
NO_LEVEL = "(none)"   #: records without a level: block lines, screen output, unparsed lines
#: Below this many bytes the explorer's filters see every line: the lines the triage counted without a record
#: are read again and parsed when the explorer first asks. A cluster's bundle keeps to its counts and windows.
EVERY_LINE_BELOW = 64 << 20


def records(log: LogTable) -> pd.DataFrame:
    """The records the explorer filters: every line's in a bundle below EVERY_LINE_BELOW, else those kept."""
    return every_record(log) if log.bytes < EVERY_LINE_BELOW else log.records


def level_counts(log: LogTable) -> pd.DataFrame:
    """Lines per level and file role, most frequent level first. A file read selectively has records only
    for some of its header lines: its header lines are counted from the scan, its empty lines from their count
    (a file read line by line), its other lines from records."""
    roles = {f.path: f.role for f in log.files}
    scanned = {f.path for f in log.files if f.selective and f.line_index}   # a scan counted its header lines
    r = log.records
    r = r[~(r["file"].isin(scanned) & (r["kind"] == KIND_PLOG))]
    counted = pd.DataFrame({"level": r["level"].fillna(NO_LEVEL), "role": r["file"].map(roles), "lines": 1})
    headers = pd.DataFrame([(level, f.role, n) for f in log.files if f.selective for level, n in f.levels.items()]
                           + [(NO_LEVEL, f.role, f.blank) for f in log.files if f.blank],
                           columns=["level", "role", "lines"])
    both = pd.concat([counted, headers], ignore_index=True)
    table = both.pivot_table(index="level", columns="role", values="lines", aggfunc="sum", fill_value=0).astype("int64")
    table["total"] = table.sum(axis=1)
    table.columns.name = None
    return table.sort_values("total", ascending=False)


def without_record(log: LogTable) -> int:
    """Lines of selectively read files that the explorer has no record of (counted per level, read back by
    window())."""
    scanned = {f.path: f.lines for f in log.files if f.selective}
    return sum(scanned.values()) - int(records(log)["file"].isin(scanned).sum())


@dataclass(frozen=True)
class Filter:
    """Which records to show; ANY (or an empty text) leaves a field free."""

    level: str = ANY
    module: str = ANY
    file: str = ANY
    pid: str = ANY
    text: str = ""


def choices(log: LogTable) -> dict[str, list[str]]:
    """The values each filter field can take in this bundle."""
    r = records(log)
    return {"level": [ANY, *sorted(r["level"].dropna().unique())],
            "module": [ANY, *sorted(r["module"].dropna().unique())],
            "file": [ANY, *[f.path for f in log.files if not f.skipped]],
            "pid": [ANY, *[str(p) for p in sorted(r["pid"].dropna().unique())]]}


def select(log: LogTable, f: Filter, limit: int = 200) -> pd.DataFrame:
    """Records passing the filter (file, line, level, module, pid, time, msg), at most `limit` of them."""
    r = records(log)
    mask = pd.Series(True, index=r.index)
    for col in ("level", "module", "file"):
        value = getattr(f, col)
        if value != ANY:
            mask &= r[col] == value
    if f.pid != ANY:
        mask &= r["pid"] == int(f.pid)
    if f.text:
        mask &= r["msg"].str.contains(f.text, case=False, regex=False, na=False)
    cols = ["file", "line", "level", "module", "pid", "time", "msg"]
    return r.loc[mask, cols].head(limit).reset_index(drop=True)


def window(log: LogTable, file: str, line: int, before: int = 5, after: int = 5) -> pd.DataFrame:
    """The raw lines `before` and `after` a line of a file, as read from disk, the line itself marked."""
    f = log.file(file)
    if f.skipped:
        raise ValueError(f"{file}: not read ({f.skipped})")
    if not 1 <= line <= f.lines:
        raise ValueError(f"{file}:{line}: the file has {f.lines} lines")
    lo, hi = max(1, line - before), min(f.lines, line + after)
    rows = [(n, ">>" if n == line else "", raw.decode("utf-8", errors="replace").rstrip("\r"))
            for n, raw in enumerate(log.read_lines(file, lo, hi), start=lo)]
    return pd.DataFrame(rows, columns=["line", "mark", "text"])


def evidence_lines(t: Triage) -> list[tuple[str, int, str]]:
    """(file, line, text) of every line the walk cites, in walk order, each once."""
    seen, out = set(), []
    for step in walk.build(t):
        for c in step.cited:
            if c.file and (c.file, c.line) not in seen:
                seen.add((c.file, c.line))
                out.append((c.file, c.line, c.text))
    return out
