"""Records of the lines a selective reading left without one, built when a view asks for every line.

A triage reads each file selectively (plog.py): error lines, lines that are not slog headers and the lines
evidence reads get a record, the others are counted. The log explorer's filters want every line of a
ticket-sized bundle; this builds them then, once, from the files on disk.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .bundle import LogFile, classify
from .plog import parse_bytes
from .table import LogTable, frame

if TYPE_CHECKING:
    import pandas as pd


def every_record(log: LogTable) -> pd.DataFrame:
    """A record for every line, as a full reading gives them: the kept records, and the lines of each file read
    selectively read again from disk and parsed (once per log table)."""
    def build(t: LogTable) -> pd.DataFrame:
        import pandas as pd
        if not any(f.selective for f in t.files):
            return t.records
        kept = dict(tuple(t.records.groupby("file", sort=False)))
        parts = [frame(reread(f)) if f.selective else kept[f.path] for f in t.files if f.selective or f.path in kept]
        return pd.concat(parts, ignore_index=True)
    return log.derive("every_record", build)


def reread(f: LogFile) -> list[tuple]:
    """Every line's record of a file read selectively, as a full reading gives them: the file as its path found
    it (not the role its lines gave it since), its bytes read again."""
    fresh = LogFile(path=f.path, source=f.source, size=f.size, **classify(f.path))
    with open(f.source, "rb") as fh:
        return parse_bytes(fresh, fh.read())
