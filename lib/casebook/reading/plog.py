"""Read plog bundles into the log table: every line counted, none dropped.

Read for a triage (with the evidence families' `keep` literals), a file gets records for the lines that
matter (scan.py) and counts for the rest; backfill.py builds the others when a view asks for every line.
Text: decoded line by line as encoding.py says (UTF-8, GBK, else replacement, each with a named warning);
the original bytes of every line whose text is not an exact decoding of them are kept in
`LogFile.raw_lines` (`LogTable.raw_line()` returns any line's bytes).
"""
from __future__ import annotations

import os
from collections import Counter
from functools import partial
from itertools import islice
from typing import Callable

from . import flood, identity, rejoin, rotation, scan, sift, system_log
from .bundle import ROLE_ENVIRONMENT, ROLE_TEXT, LogFile, Pasted, find_files
from .encoding import LONG_LINE, LineTexts, as_read, binary_reason, leading_nuls, lines_of, split_lines, utf16
from .engine import run as engine_run, schedule
from .grammar import (KIND_BLANK, KIND_BLOCK_LINE, KIND_CONTINUATION, KIND_EXCEPTION_PRINT, KIND_PLOG, KIND_PTA,
                      KIND_PYTHON, BlockState, Fields, forget_bodies, number, parse_line)
from .identity import RANK_IN_LINE
from .paste import Peeled, read_line
from .prefixes import PasteState, capture_form
from .limits import Limits
from .quoted import quoted_files
from .table import PLOG_COLUMNS, LogTable

_BINARY_SNIFF = 8192
_FILE_TIME_KINDS = (KIND_EXCEPTION_PRINT, KIND_BLOCK_LINE, KIND_PYTHON)
#: Files below this size get a record for every line. In the others only error lines, lines that are not
#: slog headers and the lines an evidence family reads get one; every other line is still counted, per
#: level, and can be read back (logview.window). A plog is mostly INFO lines nobody reads, whatever its
#: size: the compiled scan costs less than a record per line from the smallest file on, so every file is
#: read that way (a test may raise the size to compare with a full reading).
FULL_RECORDS_BELOW = 1
#: A capture (a file whose path names no role: pasted console text, grep output) below this size is read whole:
#: a paste may have broken its lines, and joining them back (rejoin.py) needs every line.
CAPTURE_FULL_BELOW = 4 << 20
#: Bytes at each end of a system log whose first and last lines give its span.
_EDGE = 1 << 14
#: Lines of a capture that a reading peels and joins one by one at most (some 80 µs each: the lines that are no slog
#: header; a header is read at once): past them it is refused.
CAPTURE_LINES = 150_000
#: The lines at the start of a file that say what it is (its first kind of line, an environment dump's form).
SAMPLE_LINES = 400
#: A bundle smaller than this is read by one worker: its scan takes a few milliseconds, and handing files to
#: threads that wait for each other's GIL cost more than that (measured on a 10 MiB bundle of 88 files).
PARALLEL_FROM = 16 << 20


def read_file(f: LogFile, keep: tuple[str, ...] | None = None, selective_from: int | None = None) -> list[tuple]:
    """Parse one file into record tuples (PLOG_COLUMNS order) and fill its counts and times; with `keep`
    (the literals evidence reads), a file of `selective_from` bytes (default FULL_RECORDS_BELOW) or more is
    read selectively."""
    least = max(1, FULL_RECORDS_BELOW if selective_from is None else selective_from)
    try:
        with open(f.source, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if f.role == ROLE_TEXT and f.system is None:
                f.system = system_log.kind_of(f.path, os.pread(fh.fileno(), _BINARY_SNIFF, 0), size)
            if keep is not None and size >= (1 if f.system else least):
                # a big file is scanned through a memory map, and sifted when the scanner declines it or is not
                # built: no copy of it is made unless it must be read whole (UTF-16, NUL bytes at its start)
                rows = _parse_mapped(f, fh.fileno(), keep) if scan.available() else None
                if rows is None:
                    fh.seek(0)
                    rows = _parse_sifted(f, fh, keep)
                if rows is not None:
                    return rows
                fh.seek(0)
            data = fh.read()
    except OSError as e:
        f.skipped = f"cannot read: {e.strerror}"
        return []
    return parse_bytes(f, data, blank_records=keep is None, keep=keep)


def _too_many_lines() -> str:
    """Why a capture is not read: the one-line reason its file's warning gives."""
    return (f"refused: more than {CAPTURE_LINES} lines of console text, which a triage reads one by one (wrappers "
            f"peeled, broken lines joined); give the job's plogs, or the part of this capture around the failure")


def _parse_mapped(f: LogFile, fd: int, keep: tuple[str, ...]) -> list[tuple] | None:
    """Records of a big file read selectively from its memory map, or None when it needs the full reader."""
    head = os.pread(fd, _BINARY_SNIFF, 0)   # read, not mapped: a file truncated meanwhile gives less, not SIGBUS
    if _read_whole(head):
        return None
    try:
        sel = system_log.select(fd, keep) if f.system else \
            scan.select_file(fd, keep, most=CAPTURE_LINES if f.role == ROLE_TEXT else 0, flood=flood.RECORDED,
                             dumps=f.role != ROLE_TEXT)
    except scan.TooMany:
        f.skipped = _too_many_lines()
        return []
    except scan.Shrunk as e:   # the full reader reads what is there now
        f.warnings.append(f"{f.path}: truncated while it was read ({e}, {os.fstat(fd).st_size} bytes now); read as "
                          f"it is now: a writer may have rotated or emptied it, collect it again")
        return None
    if sel is None:
        return None
    if f.system:
        return _system_records(f, fd, sel, keep)
    return _parse_selected(f, sel, os.pread(fd, 1 << 16, 0).decode("utf-8", "replace"))


def _read_whole(head: bytes) -> bool:
    """Whether a file whose first bytes these are needs the full reader, neither scanned nor sifted: UTF-16 (converted
    whole), binary (skipped with its reason), or starting with NUL bytes (read from the text after them)."""
    return utf16(head) or head[:1] == b"\x00" or binary_reason(head) is not None


def _parse_sifted(f: LogFile, fh, keep: tuple[str, ...]) -> list[tuple] | None:
    """Records of a big file the scanner could not read, sifted line by line (sift.py), or None when it needs the
    full reader (_read_whole)."""
    head = fh.read(_BINARY_SNIFF)
    if _read_whole(head):
        return None
    fh.seek(0)
    decoding = LineTexts(f)
    try:
        if f.system:
            sel = sift.sift(fh, system_log.literals(keep), decoding, text=system_log.plain,
                            flood=flood.RECORDED)
        else:
            sel = sift.sift(fh, keep, decoding, most=CAPTURE_LINES if f.role == ROLE_TEXT else 0,
                            flood=flood.RECORDED, dumps=f.role != ROLE_TEXT)
    except scan.TooMany:
        f.skipped = _too_many_lines()
        return []
    if f.system:
        return _system_records(f, fh.fileno(), sel, keep, decoding)
    return _parse_selected(f, sel, head.decode("utf-8", "replace"), decoding)


def _system_records(f: LogFile, fd: int, sel: scan.Selection, keep: tuple[str, ...],
                    decoding: LineTexts | None = None) -> list[tuple]:
    """Records of the lines a system log's scan or sifting picked; its span read from its first and last bytes."""
    edges = (os.pread(fd, _EDGE, 0), os.pread(fd, _EDGE, max(0, os.fstat(fd).st_size - _EDGE)))
    read = system_log.read_scanned(f, sel, keep, tuple(x.decode("utf-8", "replace") for x in edges), decoding)
    return [_record(f.path, no, fl) for no, fl in read]


def read_one(f: LogFile, keep: tuple[str, ...] | None = None,
             selective_from: int | None = None) -> tuple[LogFile, list[tuple]]:
    """The file with its counts filled, and its records: the unit of work an engine runs anywhere."""
    if f.role == ROLE_TEXT:
        selective_from = max(FULL_RECORDS_BELOW if selective_from is None else selective_from, CAPTURE_FULL_BELOW)
    rows = read_file(f, keep, selective_from) if not f.skipped else []
    return f, rows


def parse_bytes(f: LogFile, data: bytes, blank_records: bool = True,
                keep: tuple[str, ...] | None = None) -> list[tuple]:
    """Parse the bytes of one file, line by line, into record tuples and fill its counts, times, role and
    identity (big files on disk are read selectively first: read_file). Without `blank_records` (a triage's
    reading) an empty line is counted and gets no record: no evidence reads one, and a file of millions of them
    would otherwise cost a record each; the file is then `selective`, its records built in full on demand
    (backfill.py)."""
    if utf16(data):
        f.warnings.append(f"{f.path}: UTF-16 text, read as UTF-8 after conversion (line bytes are the converted ones)")
    data = as_read(data)
    lead = leading_nuls(data)
    why = "binary file (only NUL bytes)" if data and lead == len(data) else \
        binary_reason(data[lead:lead + _BINARY_SNIFF])
    if why:
        f.skipped = why
        return []
    if lead:
        f.warnings.append(f"{f.path}: starts with {lead} NUL bytes (space a writer preallocated, then crashed "
                          f"before filling); read from the text after them")
    rows: list[tuple] = []
    state, paste = BlockState(), PasteState()
    last_time = None
    decoding = LineTexts(f)
    kinds: Counter = Counter()
    pids: Counter = Counter()
    ranks: set[int | None] = set()
    first_kind = None
    wrapped = 0   # lines that came inside a paste's wrappers
    texts = [decoding.text(no, raw) for no, raw in enumerate(split_lines(data), start=1)]
    # an empty line's kind is blank, without a time or a wrapper, whatever is around it: counted at once
    f.blank = 0 if blank_records else texts.count("")
    if f.role == ROLE_TEXT and f.system is None:
        f.system = system_log.kind_of(f.path, data[:_BINARY_SNIFF], len(data))
    if f.system:
        return [_record(f.path, no, fl) for no, fl in system_log.read_texts(f, texts, keep, blank_records, decoding)]
    # a triage's reading of a capture the scanner declined: its lines that cannot be slog headers, bounded as a scan's
    if not blank_records and f.role == ROLE_TEXT and sum(1 for t in texts if t[:1] not in ("", "[")) > CAPTURE_LINES:
        f.skipped = _too_many_lines()
        return []
    # only a capture has a paste's wrappers and broken lines: a CANN log's path says what it is
    lines = (rejoin.read_capture(texts, state, paste, blanks=blank_records) if f.role == ROLE_TEXT
             else ((k, parse_line(text, state), None, 0) for k, text in enumerate(texts) if text or blank_records))
    for k, fl, peeled, more in lines:
        wrapped += peeled is not None and not peeled.furniture
        if fl.time is None and fl.kind in _FILE_TIME_KINDS:
            fl.time = last_time   # dumps and traceback lines belong to the moment of the line before them
        elif fl.time is not None:
            last_time = fl.time
        kinds[fl.kind] += 1
        if first_kind is None and fl.kind != KIND_BLANK:
            first_kind = fl.kind
        if fl.kind == KIND_PLOG and fl.pid is not None and fl.pid >= 0:
            pids[fl.pid] += 1
            if "SetupAgent" in fl.msg and (m := RANK_IN_LINE.search(fl.msg)):
                ranks.add(number(m["rank"]))
        elif fl.kind == KIND_PTA and fl.extra.get("rank") is not None and fl.extra["rank"] >= 0:
            # RankID names the process; its Device may be one of several cards the process drives, so it is not used
            ranks.add(fl.extra["rank"])
        rows.append(_record(f.path, k + 1, fl, peeled, more))
        for piece in range(k + 1, k + 1 + more):
            kinds[KIND_CONTINUATION] += 1
            rows.append(_record(f.path, piece + 1, Fields(KIND_CONTINUATION, msg=texts[piece])))
    f.lines = len(texts)
    f.joined = kinds[KIND_CONTINUATION]
    f.selective = f.selective or f.blank > 0
    times = [r[7] for r in rows if r[7] is not None]
    f.first_time, f.last_time = (min(times), max(times)) if times else (None, None)
    f.encoding = decoding.encoding
    decoding.warn()
    rows = identity.settle(f, rows, kinds, wrapped, texts[:SAMPLE_LINES], first_kind,
                           pids.most_common(1)[0][0] if pids else None, ranks)
    f.quoted = quoted_files(f, rows, PLOG_COLUMNS)
    if not texts and not f.skipped:
        f.warnings.append(f"{f.path}: empty file")
    return rows


_UNWRAPPED = Peeled("")


def _record(path: str, no: int, fl: Fields, peeled: Peeled | None = None, joined: int = 0) -> tuple:
    """One record tuple, in PLOG_COLUMNS order."""
    p = peeled or _UNWRAPPED
    return (path, no, fl.kind, fl.level, fl.module, fl.pid, fl.pname, fl.time, fl.src, fl.tid, fl.func, fl.stage,
            fl.code, fl.msg, p.wrapper, p.rank, p.worker_pid, p.src_file, p.src_line, joined)


def _parse_selected(f: LogFile, sel: scan.Selection, head: str, decoding: LineTexts | None = None) -> list[tuple]:
    """Records for the lines a scan picked; counts, times and identity for the whole file (`head`: its start;
    `decoding`: what decoded the lines of a sifted file, else they were strict UTF-8)."""
    decoding = decoding or LineTexts(f)
    f.selective, f.levels, f.encoding, f.line_index = True, sel.levels, decoding.encoding or "utf-8", sel.index
    rows: list[tuple] = []
    state, paste = BlockState(), PasteState()
    last_time = None
    kinds: Counter = Counter()
    ranks: set[int | None] = set()
    wrapped = 0
    capture = f.role == ROLE_TEXT   # wrappers are looked for in captures only, as in parse_bytes
    if capture:
        paste.margin, paste.led = capture_form(lines_of(head))
    previous = 0
    for no, line in sel.picked:
        if no != previous + 1:
            state = BlockState()   # the lines skipped since are slog header lines, and a header ends any block
            if no - 1 in sel.context:
                last_time = plog_time_of(sel.context[no - 1][:LONG_LINE]) or last_time
        previous = no
        text = decoding.cut(no, line)
        fl, peeled = read_line(text, state, paste) if capture else (parse_line(text, state), None)
        wrapped += peeled is not None and not peeled.furniture
        if fl.time is None and fl.kind in _FILE_TIME_KINDS:
            fl.time = last_time
        elif fl.time is not None:
            last_time = fl.time
        kinds[fl.kind] += 1
        if fl.kind == KIND_PLOG and "SetupAgent" in fl.msg and (m := RANK_IN_LINE.search(fl.msg)):
            ranks.add(number(m["rank"]))
        rows.append(_record(f.path, no, fl, peeled))
    kinds[KIND_PLOG] = sel.header_lines
    # a dump's memory rows, left unpicked: the grammar's first rule for such a line reads it and changes no block
    # state, so like an INFO line it is counted without a record (a device log's dump holds thousands of them)
    kinds[KIND_EXCEPTION_PRINT] += sel.dumped
    f.lines = sel.lines
    decoding.warn()
    if sel.repeated:
        f.warnings.append(flood.warning(f.path, sel.levels.get("ERROR", 0), sel.repeated))
    edges = [parse_line(h[:LONG_LINE], BlockState()) for h in (sel.first_header, sel.last_header) if h is not None]
    times = [r[7] for r in rows if r[7] is not None] + [e.time for e in edges if e.time]
    f.first_time, f.last_time = (min(times), max(times)) if times else (None, None)
    first = next((parse_line(t, BlockState()).kind for t in islice(lines_of(head), SAMPLE_LINES) if t.strip()), None)
    # the sample tells an environment dump's form (identity.settle): split only for a file that may be one
    sample = head.split("\n", SAMPLE_LINES)[:SAMPLE_LINES] if f.role in (ROLE_TEXT, ROLE_ENVIRONMENT) else []
    pid = edges[0].pid if edges and edges[0].pid is not None and edges[0].pid >= 0 else None
    rows = identity.settle(f, rows, kinds, wrapped, sample, first, pid, ranks, unrecorded=sel.repeated)
    f.quoted = quoted_files(f, rows, PLOG_COLUMNS)
    return rows


def plog_time_of(line: str) -> str | None:
    """The time of an slog header line, or None."""
    return parse_line(line, BlockState()).time


def read_plog(*paths: str | os.PathLike | Pasted, keep: tuple[str, ...] | None = None, limits: Limits | None = None,
              selective: bool = True, engine: str = "local", scheduler: str | None = None,
              workers: int | None = None, progress: Callable[[int, int], None] | None = None) -> LogTable:
    """Read folders, files, archives and pasted text (bundle.Pasted) into one LogTable; raises BundleError on
    unusable input.

    `limits` bounds what archives may expand to (spool.Limits: total bytes, ratio, entries, depth).
    With `keep` (the triage passes the evidence families' KEEP), files of FULL_RECORDS_BELOW bytes or more are
    read selectively: only error lines, lines that are not slog headers and lines holding one of the `keep`
    literals get a record. Without it, or with `selective` False, every line gets a record.
    The files are read in parallel on `engine` (engine.run: "local" threads, or "dask" with an optional
    `scheduler` address); `progress(done, total)` is called after each file.
    """
    files = find_files(list(paths), limits=limits)
    forget_bodies()   # what a reading learns of repeated lines is its own: the next bundle starts from nothing
    keep = tuple(keep) if selective and keep is not None else None
    order = schedule([f.size for f in files])
    if workers is None and engine == "local" and sum(f.size for f in files) < PARALLEL_FROM:
        workers = 1
    done_in_order = engine_run(partial(read_one, keep=keep, selective_from=FULL_RECORDS_BELOW),
                               [files[i] for i in order], engine, scheduler, workers, progress)
    done = [None] * len(files)
    for i, result in zip(order, done_in_order):
        done[i] = result
    for original, (f, _) in zip(files, done):
        f.spool = original.spool   # the copy a worker sent back must not be the last owner of the spool
    files = [f for f, _ in done]
    rows = [row for _, file_rows in done for row in file_rows]
    identity.share(files)
    msg = PLOG_COLUMNS.index("msg")
    rotated = rotation.check(files, (row[msg] for row in rows))
    warnings = [w for f in files for w in f.warnings]
    warnings += [f"{f.path}: skipped ({f.skipped})" for f in files if f.skipped]
    if keep is not None and not scan.available() and any(f.size >= FULL_RECORDS_BELOW for f in files
                                                         if not f.skipped):
        warnings.append("the compiled line scanner (casebook.reading._linescan) is not built: the files were sifted "
                        "line by line in Python, several times slower (reinstall the package where a C compiler is)")
    return LogTable(paths=[str(p) if isinstance(p, Pasted) else os.fspath(p) for p in paths], files=files, rows=rows,
                    warnings=warnings, rotation=rotated)
