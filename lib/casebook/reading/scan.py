"""Fast selection of the lines of one big file that deserve a record; every other line is only counted.

A plog is mostly INFO/DEBUG header lines nobody reads, and building a Python object per line costs
~40 MiB/s. So a compiled scanner (_linescan.c) walks the file's bytes once, without the GIL: it counts the
lines, tests each against the slog header grammar, counts header lines per level, and picks ERROR lines,
lines that are not headers (blocks, dumps, tracebacks, unparsed text), lines whose message holds a literal
some evidence family reads (its `KEEP`), and a sample of `device_id=` lines. Only the picked lines go through
the full Python grammar. Counting stays exact: the scanner's header test accepts a subset of what the
grammar accepts, and it declines bytes the line-by-line reader would treat differently (CR, NUL, ESC, a
no-break space, a byte-order mark, anything but strict UTF-8); such files, and every file when the scanner was not built
(no C compiler at install), are read line by line.

A file truncated while its memory map is scanned (a writer rotating or emptying it) would raise SIGBUS at the
first page past its new end; the scanner catches that in the thread that read it and `select_file` raises
Shrunk, so the reader reads the file as it is now.
"""
from __future__ import annotations

import mmap
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

try:
    from . import _linescan
except ImportError:
    _linescan = None

#: Lines naming a device from a thread are evidence of topology, but INFO-level runs have millions of
#: them. Of each file the scanner picks the first line for each distinct start (level, module, process,
#: call site and thread, up to the device number), at most this many: that shows which threads drive which
#: devices.
DEVICE_SAMPLE = 200
DEVICE = "device_id="
#: The scan notes the byte offset of every INDEX_STEP-th line: a window of lines is read from there.
INDEX_STEP = 1024


class Shrunk(OSError):
    """The file was truncated while it was scanned: what its map held past the new end is gone."""


class TooMany(Exception):
    """The file has more lines that are no header to pick than the scan was allowed (`most`): none of their texts
    were made."""


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
    index: list[int] = field(default_factory=list)   #: byte offset of lines 1, 1 + INDEX_STEP, ...
    routine: int = 0   #: of a system log's scan (`text`): lines that are no header, picked or not, but routine text
    repeated: int = 0  #: ERROR lines past the `flood` budget left unpicked as repeats (flood.py)
    dumped: int = 0    #: with `dumps`: a device dump's memory rows and registers no family reads, left unpicked


def available() -> bool:
    """Whether the compiled scanner is built (else big files are read line by line)."""
    return _linescan is not None


def any_of(literals: Iterable[str]) -> str:
    """A regex that finds whether a text holds any of the literals (for the records' own filters; what it
    matches is the shortest such literal at the first position that starts one)."""
    return _any_of(tuple(dict.fromkeys(literals)))


@lru_cache(maxsize=64)
def _any_of(literals: tuple[str, ...]) -> str:
    return _trie_regex(literals)


def _trie_regex(literals: tuple[str, ...]) -> str:
    """The regex of `any_of`, built anew (the cached `_any_of` keeps it)."""
    # the literals as a trie: at each position Python's `re` follows one branch per character instead of trying
    # every literal in turn, three times faster for the ~70 literals of the evidence families
    trie: dict = {}
    for literal in literals:
        node = trie
        for ch in literal:
            node = node.setdefault(ch, {})
        node[""] = {}   # a literal ends here
    return _branches(trie)


def _branches(node: dict) -> str:
    """The regex of a trie node; a node where a literal ends matches there (whether a text holds one is all
    that is asked, so the longer literals under it need no branch; with no literal at all, it matches anywhere, as
    an empty alternation would)."""
    if "" in node or not node:
        return ""
    branches = [re.escape(ch) + _branches(child) for ch, child in sorted(node.items())]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


@lru_cache(maxsize=8)
def _encoded(literals: tuple[str, ...]) -> tuple[bytes, ...]:
    return _utf8(literals)


def _utf8(literals: tuple[str, ...]) -> tuple[bytes, ...]:
    """The literals as the scanner searches them: UTF-8 bytes."""
    return tuple(k.encode() for k in literals)


def select(data: bytes | mmap.mmap, keep: tuple[str, ...], device_sample: int = DEVICE_SAMPLE,
           index_step: int | None = None, text: bool = False, most: int = 0, flood: int = 0,
           release: bool = False, dumps: bool = False) -> Selection | None:
    """Scan one file and pick the lines that need a record: ERROR lines, lines that are not slog headers,
    lines whose message holds one of the `keep` literals, and a sample of `device_id=` lines; None when the
    file needs the line-by-line reader. `data` may be a memory map of the file: Shrunk when that file was
    truncated while it was read. With `text` (a system log: system_log.py), a line that is no header is picked
    only when it holds a literal (anywhere in it) or the grammar must see it; the others are `routine`. With
    `most`, TooMany when more lines that are no header than that are to be picked. With `flood`, an ERROR line past
    the first `flood` of them is not picked when one picked before had its shape (flood.py): `repeated`. With
    `release` (`data` a memory map of a file), the pages scanned past are let go as the scan goes on. With `dumps`,
    a line that is one row of a device dump's memory words (device_text.memory_row), or one of its registers that
    holds none of `keep` (device_text.register_row), is not picked: `dumped`."""
    if _linescan is None:
        return None
    step = index_step or INDEX_STEP
    options = (text, most, flood, release, dumps)
    mode = options if any(options) else ()   # the scanner of an older build takes none
    try:
        found = _linescan.scan(data, _encoded(tuple(keep)), DEVICE.encode(), device_sample, step, *mode)
    except OverflowError as e:
        raise TooMany(str(e)) from None
    if found is False:
        raise Shrunk(f"{len(data)} bytes when it was mapped")
    if found is None:
        return None
    lines, header_lines, levels, picked, context, first, last, index, *routine = found
    return Selection(lines, header_lines, levels, picked, dict(context), first, last, index, *routine)


def select_file(fd: int, keep: tuple[str, ...], text: bool = False, most: int = 0,
                flood: int = 0, dumps: bool = False) -> Selection | None:
    """select() over a memory map of the open file `fd` (no copy of it is made); Shrunk when the file was
    emptied before it could be mapped or truncated while it was scanned."""
    try:
        mapped = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except ValueError:   # mmap refuses an empty file: it was emptied since its size was looked at
        raise Shrunk("emptied before it was mapped") from None
    with mapped:
        return select(mapped, keep, text=text, most=most, flood=flood, release=True, dumps=dumps)
