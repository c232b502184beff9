"""The first real error: per process, per device, and for the whole case."""
from __future__ import annotations

import re

import pandas as pd

from ..reading.bundle import ROLE_BBOX, ROLE_DEVICE_LOG, ROLE_DEVICE_OS_LOG
from ..reading.grammar import KIND_PTA
from ..reading.plog import LogTable
from .cascade import CAUSE, DECORATION, classify
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
    err = log.errors()
    out = []
    for file, line, kind, time, pid, code, msg, src, src_line in zip(
            err["file"], err["line"], err["kind"], err["time"], err["pid"], err["code"], err["msg"], err["src_file"],
            err["src_line"]):
        if _DECORATION.match(msg) or not msg.strip() or classify(msg)[0] == DECORATION:
            continue
        f = log.origin(file, src)
        codes = codes_in(msg)
        # device-side files are written by device daemons (sklogd, TSCH): their pids are not the job's processes
        out.append(ErrorLine(file=file, line=int(line), time=time, node=f.node,
                             pid=None if pd.isna(pid) or pid < 0 or f.role in DEVICE_SIDE_ROLES else int(pid),
                             device=device_in(msg) if device_in(msg) is not None else f.device,
                             code=code if isinstance(code, str) else (codes[0][0] if codes else None),
                             text=msg, coarse=kind == KIND_PTA, src_file=src, src_line=src_line))
    return out


def time_order(e: ErrorLine) -> tuple:
    """Sort key: by time, lines without one after; then file and line."""
    # A time known to the second only covers that whole second: within it, µs-precise lines go first.
    # Lines without a time (a block's first line) sort after timed ones.
    t = e.time or ""
    return (e.time is None, t[:19], e.coarse, t, e.file, e.line)


def extract_all(log: LogTable) -> list[ErrorLine]:
    """The first error of each (node, pid) and of each (node, device), in time order."""
    firsts: dict[tuple, ErrorLine] = {}
    for e in sorted(error_lines(log), key=time_order):
        for key in (("pid", e.node, e.pid), ("device", e.node, e.device)):
            if key[2] is not None and key not in firsts:
                firsts[key] = e
    unique = {(e.file, e.line): e for e in firsts.values()}
    return sorted(unique.values(), key=time_order)


def extract(log: LogTable) -> ErrorLine | None:
    """The earliest error line of the whole bundle that is a cause, not fallout or a wrapper of one
    (the earliest line of any role when none is)."""
    lines = error_lines(log)
    causes = [e for e in lines if classify(e.text)[0] == CAUSE]
    return min(causes or lines, key=time_order) if lines else None
