"""The scanner's selection written in Python, for the files the compiled scanner cannot read exactly.

The compiled scanner (scan.py) declines a file with CR line ends, a byte-order mark, NUL bytes or bytes that are not
strict UTF-8, and it is absent where no C compiler was at install. Read whole, such a file costs a record per line:
a 1 GiB plog copied through Windows (CRLF) or one Chinese-locale message in GBK held gigabytes. Sifting streams the
file instead, decodes each line as the line-by-line reader does (encoding.LineTexts: CR of a CRLF, NUL runs, GBK,
replacement, long lines), and picks the lines the scanner would pick; the others are only counted. It is several
times slower than the scanner, and its memory is that of the lines it picks, whatever the file's size.
"""
from __future__ import annotations

import re
from typing import BinaryIO, Callable

from . import flood as floods
from .device_text import memory_row, register_row
from .encoding import LineTexts
from .scan import DEVICE, DEVICE_SAMPLE, INDEX_STEP, Selection, TooMany, any_of

#: The scanner's header test: grammar.HEADER's header part, with ASCII classes (what _linescan.c accepts).
HEADER = re.compile(r"\[(?P<level>[A-Z]+|\d+)\][ \t\f\v]*(?:[A-Za-z_][A-Za-z_0-9]*|\d+)\(-?\d+,[^)]*\):"
                    r"(?P<ts>\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3})", re.ASCII)
_DIGITS = re.compile(r"[0-9]*")


def sift(fh: BinaryIO, keep: tuple[str, ...], decoding: LineTexts, text: Callable[[str], bool] | None = None,
         most: int = 0, flood: int = 0, dumps: bool = False, device_sample: int = DEVICE_SAMPLE,
         index_step: int = INDEX_STEP) -> Selection:
    """The selection scan.select makes, over the lines of an open file read from its current position: ERROR header
    lines (past `flood` of them, a repeat of a recorded shape is only counted), lines that are no header, header lines
    whose message holds a `keep` literal, and a sample of `device_id=` lines. With `text` (a system log's test of
    plain text: system_log.plain), a line that is no header and plain is picked only when it holds a literal.
    With `most`, TooMany past that many picked lines that are no header. With `dumps`, a device dump's memory rows
    and registers that hold no literal are counted, not picked. The texts are decoded by `decoding`, which notes
    what was odd for the file's warnings; of the lines left unpicked no decoded text or original bytes are kept."""
    find = re.compile(any_of(keep)).search
    sel = Selection(lines=0, header_lines=0)
    errors = floods.Flood(flood) if flood else None
    seen: set[tuple[str, str]] = set()
    raw_lines = decoding.f.raw_lines
    offset = 0
    previous = (False, False, "")   # header?, picked?, text of the line before
    plain = no = 0
    for no, raw in enumerate(fh, start=1):
        if (no - 1) % index_step == 0:
            sel.index.append(offset)
        offset += len(raw)
        line = decoding.text(no, raw[:-1] if raw.endswith(b"\n") else raw)
        m = HEADER.match(line)
        if m is None:
            picked = not (text and text(line))
            if picked and dumps and (memory_row(line) or (register_row(line) and not find(line))):
                sel.dumped += 1
                picked = False
            else:
                picked = picked or find(line) is not None
                sel.routine += not picked
        else:
            level = m["level"]
            sel.header_lines += 1
            sel.levels[level] = sel.levels.get(level, 0) + 1
            sel.first_header = sel.first_header or line
            sel.last_header = line
            picked = level == "ERROR"
            if picked and errors is not None and errors.repeats(line):
                sel.repeated += 1
                picked = False
            else:
                body = m.end()
                picked = picked or find(line, body) is not None
                if len(seen) < device_sample and (at := line.find(DEVICE, body)) >= 0:
                    key = (line[:m.start("ts")], line[body:_DIGITS.match(line, at + len(DEVICE)).end()])
                    if key not in seen:
                        seen.add(key)
                        picked = True
        if picked:
            if m is None and most and (plain := plain + 1) > most:
                raise TooMany(f"more than {most} lines that are no header to pick")
            sel.picked.append((no, line))
        else:
            raw_lines.pop(no, None)   # read back from disk when asked for (LogTable.raw_line)
        if m is None and previous[0] and not previous[1]:
            sel.context[no - 1] = previous[2]
        previous = (m is not None, picked, line)
    sel.lines = no
    return sel
