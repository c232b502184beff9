"""The first real error: per process, per device, and for the whole case.

A log file the job wrote is read in time order and its first error is the earliest cause (a wrapper or
fallout line reports a failure already logged). A paste is read as it was printed, top to bottom: its times
are sparse, coarse or reprinted, so its own line order is its order, and its first error is the first line
that reports one (a hint or banner is none; a wrapper below it only repeats it, and a wrapper above what it wraps
gives way to it). Files are merged by time.
"""
from __future__ import annotations

import heapq
import re
from itertools import groupby

from ..reading.bundle import ROLE_BBOX, ROLE_DEVICE_LOG, ROLE_DEVICE_OS_LOG
from ..reading.grammar import KIND_PTA
from ..reading.table import LogTable
from . import errors
from .cascade import BENIGN, CAUSE, DECORATION, FALLOUT, WRAPPER, classify
from .codes import codes_in
from .device_id import device_in
from .items import ErrorLine

DEVICE_SIDE_ROLES = (ROLE_DEVICE_LOG, ROLE_DEVICE_OS_LOG, ROLE_BBOX)
# banner and table-border lines (HCCL's "____LINK_ERROR_INFO____") are layout, not the error
_DECORATION = re.compile(r"^\s*(?:_{3,}|\|?\s*-{3,}|\|\s*$)")


def error_lines(log: LogTable) -> list[ErrorLine]:
    """Every error line that says something (banners and table borders left out), with its device."""
    # several families walk these lines; they are built once per log table
    return list(log.derive("error_lines", lambda t: tuple(_build_error_lines(t))))


def _build_error_lines(log: LogTable) -> list[ErrorLine]:
    out = []
    for r in errors.records(log):
        msg = r.msg
        if _DECORATION.match(msg) or not msg.strip() or classify(msg)[0] == DECORATION:
            continue
        f = log.origin(r.file, r.src_file)
        codes = codes_in(msg)
        device = device_in(msg)
        # device-side files are written by device daemons (sklogd, TSCH): their pids are not the job's processes
        out.append(ErrorLine(file=r.file, line=r.line, time=r.time, node=f.node,
                             pid=None if r.pid is None or r.pid < 0 or f.role in DEVICE_SIDE_ROLES else r.pid,
                             device=device if device is not None else f.device,
                             code=r.code if isinstance(r.code, str) else (codes[0][0] if codes else None),
                             text=msg, coarse=r.kind == KIND_PTA, src_file=r.src_file, src_line=r.src_line))
    return out


def time_order(e: ErrorLine) -> tuple:
    """Sort key: by time, lines without one after; then file and line."""
    # A time known to the second only covers that whole second: within it, µs-precise lines go first.
    # Lines without a time (a block's first line) sort after timed ones.
    t = e.time or ""
    return (e.time is None, t[:19], e.coarse, t, e.file, e.line)


def ordered(log: LogTable) -> list[ErrorLine]:
    """Every error line in case order: a log file's by time, a paste's as printed, the files merged by time."""
    return list(log.derive("ordered_error_lines", lambda t: tuple(_merge(t, error_lines(t)))))


def _merge(log: LogTable, lines: list[ErrorLine]) -> list[ErrorLine]:
    streams = []
    for (file, _), group in groupby(sorted(lines, key=_stream), key=_stream):
        group = list(group)
        if errors.is_paste(log, file):
            streams.append(_as_printed(sorted(group, key=lambda e: e.line)))
        else:
            streams.append(sorted(((time_order(e), e) for e in group), key=lambda p: p[0]))
    # a paste's lines keep their printed order even where a reprinted block's time runs backwards
    return [e for _, e in heapq.merge(*streams, key=lambda p: p[0])]


def _stream(e: ErrorLine) -> tuple:
    """The lines of one file, and of one quoted file within a grep paste."""
    return e.file, e.src_file or ""


def _as_printed(lines: list[ErrorLine]) -> list[tuple[tuple, ErrorLine]]:
    """(key, line) in printed order; a line without a time is placed at the time of the line above it (below
    it, for the lines above the first time), to that line's precision."""
    times, last = [], None
    for e in lines:
        last = (e.time, e.coarse) if e.time else last
        times.append(last)
    following = next((t for t in times if t), (None, False))
    return [((t is None, (t or "")[:19], coarse, t or "", e.file, e.line), e)
            for e, (t, coarse) in zip(lines, (t or following for t in times))]


def extract_all(log: LogTable) -> list[ErrorLine]:
    """The first error of each (node, pid) and of each (node, device), in time order."""
    firsts: dict[tuple, ErrorLine] = {}
    for e in ordered(log):
        for key in (("pid", e.node, e.pid), ("device", e.node, e.device)):
            if key[2] is not None and key not in firsts:
                firsts[key] = e
    unique = {(e.file, e.line) for e in firsts.values()}
    return [e for e in ordered(log) if (e.file, e.line) in unique]


def extract(log: LogTable) -> ErrorLine | None:
    """The first real error of the case: of the log files, their earliest cause (their earliest line of any
    role when none is); of the pastes, their first line that reports an error; the earlier of the two."""
    lines = ordered(log)
    logged = [e for e in lines if not errors.is_paste(log, e.file)]
    causes = [e for e in logged if classify(e.text)[0] == CAUSE]
    pasted = [e for e in lines if errors.is_paste(log, e.file) and classify(e.text)[0] != BENIGN]
    firsts = ([(causes or logged)[0]] if logged else []) + _first_pasted(pasted)
    return min(firsts, key=lines.index) if firsts else None


#: How many printed lines below a paste's leading wrapper the error it wraps may stand.
WRAPPED_WITHIN = 3
#: The wrappers that print themselves above what they wrap, saying nothing of their own: torch_npu's summary of a
#: failed ACL call, and the C++ runtime's notice of an uncaught exception, whose text it prints next.
_WRAPS_BELOW = re.compile(r"^\s*(?:RuntimeError: )?call acl api failed\.?\s*$|^\s*terminate called after throwing an "
                          r"instance of '[\w:]+'\s*$")


def _first_pasted(pasted: list[ErrorLine]) -> list[ErrorLine]:
    """A paste's first error: its first error line, unless that line only wraps an error printed right under it
    (torch_npu's `call acl api failed.` over the op's complaint, `terminate called after throwing` over the
    exception's text): then the line it wraps."""
    if not pasted:
        return []
    first = pasted[0]
    if not _WRAPS_BELOW.search(first.text):
        return [first]
    below = next((e for e in pasted[1:] if e.file == first.file and 0 < e.line - first.line <= WRAPPED_WITHIN
                  and classify(e.text)[0] not in (WRAPPER, FALLOUT, BENIGN)), None)
    return [below or first]
