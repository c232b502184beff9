"""Fast selection of the lines of one file that deserve a record; every other line is only counted.

A plog is mostly INFO/DEBUG header lines nobody reads. Building a Python object per line costs ~40 MiB/s,
so one file's bytes are split and tested by vectorised string kernels (polars) instead: which lines match
the slog header grammar, which are ERROR lines, which carry something an evidence family reads. Only those
lines, and every line that is not a header line (blocks, dumps, tracebacks, unparsed text), go through
the full Python grammar. Counting stays exact: a line is a header line only if the header regex accepts it,
and the split is checked against the file's own count of line breaks.
"""
from __future__ import annotations

import io
import mmap
from dataclasses import dataclass, field

# The slog header (grammar.HEADER) as a Rust regex: same alternatives, anchored at the line start.
HEADER_RX = (r"^\[(?:[A-Z]+|\d+)\]\s*(?:[A-Za-z_][A-Za-z_0-9]*|\d+)\(-?\d+,[^)]*\):"
             r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}")
#: Lines naming a device from a thread are evidence of topology, but INFO-level runs have millions of
#: them; the first ones of each file are enough to see which threads drive which devices.
DEVICE_SAMPLE = 200
# A byte no text log holds: the "column separator" that makes the CSV reader hand back whole lines.
_NO_SPLIT = b"\x01"


@dataclass
class Selection:
    """What a scan found in one file."""

    lines: int                                   #: all lines, as design.md §5 counts them
    header_lines: int                            #: lines the header grammar accepts
    levels: dict[str, int] = field(default_factory=dict)   #: header lines per level
    picked: list[tuple[int, str]] = field(default_factory=list)  #: (1-based line, text) to parse fully
    context: dict[int, str] = field(default_factory=dict)  #: header line just before a picked non-header line
    first_header: str | None = None
    last_header: str | None = None


def _lines(data: bytes | mmap.mmap):
    """The file's lines as a polars Series, one string per line (the CSV reader splits in parallel), or None
    when the bytes are not plain UTF-8 text it can split exactly. `data` may be a memory map of the file."""
    import polars as pl   # loaded on the first big file only: small bundles start faster without it
    if data.find(_NO_SPLIT) >= 0 or data.find(b"\x00") >= 0 or data[:3] == b"\xef\xbb\xbf":
        return None
    if data.find(b"\r") >= 0:
        return None   # CRLF text takes the line-by-line reader: its split could not be checked cheaply here
    try:
        frame = pl.read_csv(data if isinstance(data, mmap.mmap) else io.BytesIO(data), has_header=False, separator=_NO_SPLIT.decode(), quote_char=None,
                            schema={"line": pl.String}, encoding="utf8")
    except (pl.exceptions.ComputeError, pl.exceptions.SchemaError, pl.exceptions.NoDataError):
        return None
    parts = frame.to_series().fill_null("")
    # The split must be exact, or the accounting is not: with no \r in the file, the lines' bytes plus one
    # break each (the last may lack it) add up to the file's size exactly when the reader split at every \n.
    breaks = frame.height - (0 if data[-1:] == b"\n" else 1)
    return parts if int(parts.str.len_bytes().sum()) + breaks == len(data) else None


def select(data: bytes | mmap.mmap, keep: str) -> Selection | None:
    """Scan one file and pick the lines that need a record: ERROR lines, lines that are not slog headers,
    lines matching the `keep` regex, and a sample of `device_id=` lines; None when the file needs the
    line-by-line reader (not clean UTF-8 text)."""
    parts = _lines(data)
    if parts is None:
        return None
    n = parts.len()
    sel = Selection(lines=n, header_lines=0)
    if n == 0:
        return sel
    is_header = parts.str.contains(HEADER_RX)
    sel.header_lines = int(is_header.sum())
    heads = parts if sel.header_lines == n else parts.filter(is_header)
    counts = heads.str.slice(1, 8).value_counts()    # "INFO] RU", "WARNING]", "5] 17(1,"
    for token, c in counts.iter_rows():
        level = token.split("]", 1)[0]
        sel.levels[level] = sel.levels.get(level, 0) + int(c)
    wanted = parts.str.contains(r"^\[ERROR\]|" + keep) | ~is_header
    device = parts.str.contains("device_id=", literal=True) & is_header
    picked = set(wanted.arg_true().to_list()) | set(device.arg_true().head(DEVICE_SAMPLE).to_list())
    order = sorted(picked)
    texts = parts.gather(order).to_list() if order else []
    sel.picked = [(i + 1, t) for i, t in zip(order, texts)]
    headers = is_header.arg_true()
    if headers.len():
        sel.first_header, sel.last_header = parts.gather([headers[0], headers[-1]]).to_list()
    # a dump or traceback line takes its time from the header line before it, when that one is not picked
    after_header = ~is_header & is_header.shift(1, fill_value=False)
    need = [i - 1 for i in after_header.arg_true().to_list() if (i - 1) not in picked]
    if need:
        sel.context = {i + 1: t for i, t in zip(need, parts.gather(need).to_list())}
    return sel
