"""Fast selection of the lines of one file that deserve a record; every other line is only counted.

A plog is mostly INFO/DEBUG header lines nobody reads. Building a Python object per line costs ~40 MiB/s,
so one file's text is split and tested by vectorised string kernels (polars) instead: which lines match
the slog header grammar, which are ERROR lines, which carry a keyword an extractor needs. Only those
lines, and every line that is not a header line (blocks, dumps, tracebacks, unparsed text), go through
the full Python grammar. Counting stays exact: a line is a header line only if the header regex accepts it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import polars as pl

# The slog header (grammar.HEADER) as a Rust regex: same alternatives, anchored at the line start.
HEADER_RX = (r"^\[(?:[A-Z]+|\d+)\]\s*(?:[A-Za-z_][A-Za-z_0-9]*|\d+)\(-?\d+,[^)]*\):"
             r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}")
#: Lines naming a device from a thread are evidence of topology, but INFO-level runs have millions of
#: them; the first ones of each file are enough to see which threads drive which devices.
DEVICE_SAMPLE = 200


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


def keyword_pattern(keywords: tuple[str, ...]) -> str:
    """One regex alternation of literal keywords, plus ERROR lines."""
    return "|".join([r"^\[ERROR\]"] + [re.escape(k) for k in keywords])


def select(text: str, keywords: tuple[str, ...]) -> Selection:
    """Scan one file's text (decoded, `\\n`-separated) and pick the lines that need a record."""
    parts = pl.Series("line", [text]).str.split("\n").explode()
    if text.endswith("\n") or not text:
        parts = parts.head(parts.len() - 1)   # the empty string after the last `\n` is not a line
    n = parts.len()
    sel = Selection(lines=n, header_lines=0)
    if n == 0:
        return sel
    is_header = parts.str.contains(HEADER_RX)
    sel.header_lines = int(is_header.sum())
    counts = parts.filter(is_header).str.extract(r"^\[(\w+)\]", 1).value_counts()
    sel.levels = {str(lvl): int(c) for lvl, c in counts.iter_rows()}
    wanted = parts.str.contains(keyword_pattern(keywords)) | ~is_header
    device = parts.str.contains("device_id=", literal=True) & is_header
    picked = set(wanted.arg_true().to_list()) | set(device.arg_true().head(DEVICE_SAMPLE).to_list())
    order = sorted(picked)
    texts = parts.gather(order).to_list() if order else []
    sel.picked = [(i + 1, t) for i, t in zip(order, texts)]
    headers = is_header.arg_true()
    if headers.len():
        sel.first_header = parts[int(headers[0])]
        sel.last_header = parts[int(headers[-1])]
    # a dump or traceback line takes its time from the header line before it, when that one is not picked
    after_header = ~is_header & is_header.shift(1, fill_value=False)
    need = [i - 1 for i in after_header.arg_true().to_list() if (i - 1) not in picked]
    if need:
        sel.context = {i + 1: t for i, t in zip(need, parts.gather(need).to_list())}
    return sel
