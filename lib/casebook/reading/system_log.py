"""Machine-written text logs of a collection (OS, install and kernel logs): read by their kind, not as pastes.

An asys or msnpureport collection holds, beside the plogs, the logs the host and the device OS write themselves:
the CANN install log, syslog and messages, the kernel driver log and dmesg, slogd's own log. Their paths name no
plog role, yet they are no pastes: nobody wrapped or broke their lines, and each line stands alone (no traceback
or error-manager block opens in them). So no wrapper is peeled, no line is joined to the next, no block state goes
from one line to the next, and only the lines that can carry evidence go through the grammar: slog header lines
(as in a plog), and lines holding a literal some evidence family reads (`keep`) or one of WORDS. A line that is
empty, blank, indented, starts with other than printable ASCII, or starts like an slog header is left to the
grammar too. Every other line is routine text: unparsed, counted without a record, read back on demand
(LogTable.read_lines). A full reading reads the same way, so the two agree line for line (tests/test_system_log.py).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from . import flood, scan
from .bundle import LogFile
from .encoding import LONG_LINE, LineTexts
from .grammar import KIND_UNPARSED, BlockState, Fields, parse_header, parse_line
from .haystack import Haystack

#: Kinds of system log by file name (rotated copies included), whatever folder they lie in.
NAMES: tuple[tuple[str, re.Pattern], ...] = (
    ("install", re.compile(r"\w*install\w*\.log(?:\.\d+)?")),             # ascend_install.log, the CANN installer's
    ("syslog", re.compile(r"syslog(?:\.\d+)?")),
    ("messages", re.compile(r"messages(?:[.-]\d+)?")),                     # the host's and the device OS's
    ("kernel", re.compile(r"(?:kern\.log|dmesg(?:\.log|\.txt)?|\w*_kernel\.log)(?:\.\d+)?")),   # host_kernel.log
    ("slogd", re.compile(r"slogd(?:log|\.log)(?:\.\d+)?")),               # the device's log daemon's own log
)
#: Line forms of system logs, for a file whose name says nothing: (kind, the form its lines start with).
FORMS: tuple[tuple[str, re.Pattern], ...] = (
    ("syslog", re.compile(r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ \S")),                     # RFC 3164
    # RFC 5424 time; not a container runtime's log of a job's console (CRI: the stream and a line tag after the time)
    ("syslog", re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) "
                          r"(?!(?:stdout|stderr) [FP] )\S+ \S")),
    ("kernel", re.compile(r"\[\s*\d+\.\d{6}\] \S")),                                           # dmesg
    ("kernel", re.compile(r"\[\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{6}\] \[\w+\] ")),            # the driver's log
    ("install", re.compile(r"\[[A-Za-z]+\] \[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] \[[A-Z]+\]")),  # the CANN installer
)
#: A file is told by its first lines only from this size: a paste is short, and may well be dmesg output copied
#: into a ticket, to be read as a paste; a machine log a collection gathered is long.
SNIFF_FROM = 1 << 20
#: Lines at the start of the file that must all (the non-empty ones) be of one form.
SNIFF_LINES = 20
#: Lines at each end of a system log where its first and last lines with text are looked for.
_EDGE_LINES = 400
#: What a line that reports a failure holds, beside the evidence families' literals: the error levels, the words
#: of failure the grammar's rules read with an ERROR level (driver and DCMI failures, the kernel's APEI records, its
#: OOM killer's kills and its watchdogs' lockups), and what the error-without-level reader (evidence/errors.py) looks
#: for. Case matters: each spelling is listed.
WORDS = ("ERROR", "Error", "error", "FATAL", "Fatal", "fatal", "CRITICAL", "Critical", "critical", "FAIL", "Fail",
         "fail", "EXCEPTION", "Exception", "exception", "PANIC", "Panic", "panic", "Traceback", "Call Trace",
         "Hardware Error", "of memory: Kill", "AIC_ERROR", "code", "ret is -", "RTS_HWTS", "Oops", "BUG:",
         "Load dynamic library", "[ASSERT]", "try build driver", "LOCKUP", "soft lockup", "detected stall")
#: How an slog header the grammar may accept starts (the compiled scanner's own header test accepts fewer):
#: `[LEVEL]`, spaces, `MODULE(`; a character past ASCII where grammar.HEADER's `\d` or `\s` may go on leaves
#: the line to the grammar too. The scanner's routine_text() is the same test.
_HEADER_START = re.compile(r"\[(?:(?:[A-Z]+|[0-9]*)[^\x00-\x7f]|(?:[A-Z]+|[0-9]+)\][\t\v\f\r \x1c-\x1f]*"
                           r"(?:[^\x00-\x7f]|(?:[A-Za-z_][A-Za-z_0-9]*|[0-9]+)[(\x80-\U0010ffff]))")


def kind_of(path: str, head: bytes = b"", size: int = 0) -> str | None:
    """The kind of system log a file is, by its name, else (SNIFF_FROM bytes or more) by its first lines; or None."""
    name = path.rsplit("/", 1)[-1].rsplit("!/", 1)[-1]
    for kind, pattern in NAMES:
        if pattern.fullmatch(name):
            return kind
    if size < SNIFF_FROM:
        return None
    lines = [x for x in head.decode("utf-8", "replace").split("\n")[:SNIFF_LINES * 2] if x.strip()][:SNIFF_LINES]
    for kind, form in FORMS:
        if len(lines) >= 2 and all(form.match(x) for x in lines[:-1]):   # the last may be cut by `head`
            return kind
    return None


def literals(keep: tuple[str, ...]) -> tuple[str, ...]:
    """The literals whose lines a system log reads: the evidence families' and WORDS."""
    return tuple(dict.fromkeys((*keep, *WORDS)))


@lru_cache(maxsize=8)
def finder(keep: tuple[str, ...]) -> Callable[[str], re.Match | None]:
    """Whether a line holds one of the literals (a regex search), kept per set of literals."""
    return _finder(keep)


def _finder(keep: tuple[str, ...]) -> Callable[[str], re.Match | None]:
    """The search `finder` keeps, built anew."""
    return re.compile(scan.any_of(literals(keep))).search


def plain(text: str) -> bool:
    """Whether a line starts with printable ASCII other than a space, and not like an slog header."""
    return " " < text[:1] < "\x7f" and not _HEADER_START.match(text)


def routine(text: str, find: Callable[[str], re.Match | None]) -> bool:
    """Whether a line that is no slog header is routine text (the scanner's own test, written in Python): it starts
    with printable ASCII other than a space, not like a header, and holds none of the literals."""
    return plain(text) and not find(text)


def read_line(text: str, holds: bool, fails: bool) -> Fields | None:
    """The fields of one line of a system log, read alone; None for routine text. `holds`: whether the line holds one
    of the literals; `fails`: one of WORDS (read_all finds both for all the lines of a file at once)."""
    header = parse_header(text)
    if header is not None:
        return header
    if not plain(text):
        return parse_line(text, BlockState())
    if not holds:
        return None
    if not fails:
        # picked for a family's literal alone (an install log's version lines, a driver's module name): the family
        # reads its text; no error level or word of failure is in it for the grammar's rules to read, and at some
        # 25 µs a line they were most of the reading of a collection's system logs
        return Fields(KIND_UNPARSED, msg=text)
    return parse_line(text, BlockState())


#: Lines whose literals are found at once: their joined text is a copy, so a long log is searched a part at a time.
_AT_ONCE = 1 << 16


def read_all(texts: list[str], keep: tuple[str, ...]) -> list[Fields | None]:
    """The fields of each line of a system log, read alone (None for routine text): the lines holding a literal and
    those holding a word of failure are found for many lines at once (one compiled pass each, not two regex
    searches a line)."""
    out: list[Fields | None] = []
    for k in range(0, len(texts), _AT_ONCE):
        part = texts[k:k + _AT_ONCE]
        hay = Haystack(part)
        holds, fails = set(hay.holding_any(literals(keep))), set(hay.holding_any(WORDS))
        out += [read_line(text, i in holds, i in fails) for i, text in enumerate(part)]
    return out


def select(fd: int, keep: tuple[str, ...]) -> scan.Selection | None:
    """The scan of a system log's open file: its header lines counted, and picked: ERROR and device header lines,
    lines holding a literal, and lines the grammar must see; None when it needs the line-by-line reader."""
    return scan.select_file(fd, literals(keep), text=True, flood=flood.RECORDED)


#: The literals a triage passes (the evidence families' KEEP), for a reading given none, so that a full reading reads
#: the same lines of a system log as a triage's: the evidence stage, above this one, sets them when it loads.
DEFAULT_KEEP: tuple[str, ...] = ()


def default_keep() -> tuple[str, ...]:
    """The literals a reading given none looks for (DEFAULT_KEEP)."""
    return DEFAULT_KEEP


def read_texts(f: LogFile, texts: list[str], keep: tuple[str, ...] | None, every_line: bool,
               decoding: LineTexts) -> list[tuple[int, Fields]]:
    """(1-based line, fields) of a system log read line by line, its counts and span filled: with `every_line` a
    routine line is read too (unparsed), else it is only counted, as an empty line is, and the file is `selective`
    (its other records are built on demand)."""
    read: list[tuple[int, Fields]] = []
    routine_lines = 0
    numbered = [(no, text) for no, text in enumerate(texts, start=1) if text or every_line]
    for (no, text), fields in zip(numbered, read_all([text for _, text in numbered], keep or default_keep())):
        if fields is None:
            routine_lines += 1
            if not every_line:
                continue
            fields = Fields(KIND_UNPARSED, msg=text)
        read.append((no, fields))
    f.lines, f.encoding = len(texts), decoding.encoding
    # selective when some line got no record (a routine or an empty one): a log whose every line reports is whole
    f.selective = f.selective or (not every_line and (routine_lines > 0 or len(numbered) < len(texts)))
    decoding.warn()
    ends = [x for x in texts[:_EDGE_LINES] if x.strip()][:1] + [x for x in texts[-_EDGE_LINES:] if x.strip()][-1:]
    _settle(f, read, 0 if every_line else routine_lines, ends)
    if not texts and not f.skipped:
        f.warnings.append(f"{f.path}: empty file")
    return read


def read_scanned(f: LogFile, sel: scan.Selection, keep: tuple[str, ...], edges: tuple[str, str],
                 decoding: LineTexts | None = None) -> list[tuple[int, Fields]]:
    """(1-based line, fields) of the lines a system log's scan picked, its counts and span filled (`edges`: the
    text of its first and last bytes; `decoding`: what decoded the lines of a sifted file, else strict UTF-8)."""
    decoding = decoding or LineTexts(f)
    f.selective, f.levels, f.line_index, f.lines = True, sel.levels, sel.index, sel.lines
    f.encoding = decoding.encoding or "utf-8"
    read: list[tuple[int, Fields]] = []
    routine_lines = 0
    numbered = []
    for no, line in sel.picked:
        text = decoding.cut(no, line)
        if text:
            numbered.append((no, text))
        else:
            f.blank += 1
    for (no, text), fields in zip(numbered, read_all([text for _, text in numbered], keep)):
        if fields is None:   # its literal lies past the cut of a long line
            routine_lines += 1
        else:
            read.append((no, fields))
    decoding.warn()
    if sel.repeated:
        f.warnings.append(flood.warning(f.path, sel.levels.get("ERROR", 0), sel.repeated))
    head, tail = edges[0].split("\n")[:_EDGE_LINES], edges[1].split("\n")[1:][-_EDGE_LINES:]
    ends = [x for x in head if x.strip()][:1] + [x for x in tail if x.strip()][-1:]
    ends += [h for h in (sel.first_header, sel.last_header) if h is not None]
    _settle(f, read, sel.routine + routine_lines, [x[:LONG_LINE] for x in ends])
    return read


def _settle(f: LogFile, read: list[tuple[int, Fields]], routine_lines: int, ends: list[str]) -> None:
    """A system log's unparsed count (`routine_lines` without a record among them) and span (the times its lines
    read and `ends` state: its first and last lines and headers, each read alone; a routine line has no time on
    record, yet the file's span is that of its lines, as a plog's is that of its first and last header). It keeps
    its role, none: a kind of system log is no screen capture, whatever its lines say."""
    f.unparsed = routine_lines + sum(1 for _, fields in read if fields.kind == KIND_UNPARSED)
    times = [fields.time for _, fields in read if fields.time is not None]
    times += [t for t in (parse_line(x, BlockState()).time for x in ends) if t]
    f.first_time, f.last_time = (min(times), max(times)) if times else (None, None)
