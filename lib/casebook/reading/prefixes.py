"""The prefixes launchers, loggers and tools put before the log lines of a paste: one rule per prefix, WRAPPERS the
table of them in the order they are tried, and what a whole capture shows of them (the margin all its lines share,
the prefixes that lead them). paste.py peels them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from itertools import islice
from os.path import commonprefix
from typing import Callable, Iterable

from .grammar import number, opens_line
from .shell import quoted_path


@dataclass(frozen=True)
class Cut:
    """What one rule found at the start of a line: where the wrapper ends, and what it names."""

    end: int
    rank: int | None = None
    worker_pid: int | None = None
    src_file: str | None = None
    src_line: int | None = None
    level: str | None = None   #: the level a logging prefix states


@dataclass
class PasteState:
    """What one capture has shown so far: the files grep quoted, and which rules peeled the line before."""

    grep_files: set[str] = field(default_factory=set)
    #: the rules the next line is expected to go on in: those that peeled the line before, or grep's after a
    #: grep command shown with its prompt
    previous: tuple[str, ...] = ()
    grep_target: str | None = None   #: the one file the last grep command shown searched (`grep -n ERROR plog.log`)
    margin: str = ""                 #: the indentation every line of the capture shares (capture_form)
    led: frozenset[str] = frozenset()   #: the sticky rules whose prefixes lead the capture's lines (capture_form)
    prefix: str | None = None        #: the wrappers the line before carried, when they stated a level


# --- prefix rules -------------------------------------------------------------------------------------------

_QUOTE = re.compile(r"(?!>>>)(?:>[ \t]?)+")                                # Markdown / e-mail quote marks
_INDENT = re.compile(r"[ \t]+")                                             # a Markdown code block, a mail quote
_POD = re.compile(r"\[pod/[^\]\s]+\] ")                                     # kubectl logs --prefix
# kubectl / docker -t; a container runtime's own log file (CRI: the stream and a full or partial line's tag after it)
_RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d) "
                      r"(?:(?:stdout|stderr) [FP] )?")
_LEVELS = r"DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL"
#: Logging levels as the log table names them (plog's ERROR / WARNING / INFO / DEBUG).
_LEVEL_NAMES = {"WARN": "WARNING", "CRITICAL": "ERROR", "FATAL": "ERROR"}
_PY_LOGGING = re.compile(                                                   # Python logging, loguru, hydra
    r"\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?"   # asctime, maybe bracketed
    r"(?:\s*[-|]?\s*\[?(?!(?:" + _LEVELS + r")\b)[\w.]+\]?:?)?"             # a logger name before the level
    r"\s*[-|]?\s*\[?(?P<level>" + _LEVELS + r")\]?"
    r"(?:\s*[-|:]\s*(?:[\w./<>-]+(?::[\w<>]+)*:\d+\s*-\s*)?|\s+)")          # separator; some formats add file:line
_PY_LOGGING_BASIC = re.compile(r"(?P<level>" + _LEVELS + r"):[\w.]+:")            # logging.basicConfig's default format
_VLLM_LOGGING = re.compile(r"(?P<level>" + _LEVELS + r") \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[\w./<>-]+:\d+\] ?")  # vLLM
# Google's glog, the C++ services' logging (Paddle, Mooncake, brpc): `E0419 16:59:47.826516 19842 file.cpp:487] `,
# its level the first letter, the date with its year in newer releases (`E20260311 09:41:52.163968  7716 ...`)
_GLOG = re.compile(r"(?P<letter>[IWEF])(?:\d{4})?\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [\w./<>-]+:\d+\] ?")
_GLOG_LEVELS = {"I": "INFO", "W": "WARNING", "E": "ERROR", "F": "ERROR"}
_TORCHRUN = re.compile(r"\[(?:rank|default)(?P<rank>\d+)\]: ?")
# a terminal's colour code whose escape byte the paste lost: before a parenthesised prefix, or a reset (Ray colours
# each worker's prefix: `[36m(WorkerDict pid=1)[0m `)
_COLOUR = re.compile(r"\[(?:\d{1,3}(?:;\d{1,3})*)?m(?=\()|\[0m ?")
# Ray actors and vLLM workers: `(pid=1)`, `(RayWorkerWrapper pid=1, ip=10.0.0.1)`, `(VllmWorker TP1 pid=1)`
_RAY = re.compile(r"\((?:[A-Za-z_][\w.]*(?: [\w.=-]+)* )?pid=(?P<pid>\d+)(?:, ip=[^)\s]+)?\) ?")
# pdsh and DeepSpeed's multi-node runner: `worker-1: `, `10.0.0.2: `; a host name has a digit (`node3`), which sets it
# apart from an exception's name, and a small letter first, which sets it apart from an error code (`EZ9999: `)
# (a name is at most 253 characters: the bound keeps a long line from costing more than a short one)
_HOST = re.compile(r"(?:\d{1,3}(?:\.\d{1,3}){3}|localhost|[a-z](?=[\w.-]{0,252}\d)[\w.-]{0,252}): ")
# Slurm's `srun --label`: the task's number (its rank) before each line
_SRUN = re.compile(r"(?P<rank>\d{1,5}): ")
# `cat -n` / `nl`: the line's number, right-aligned, and a tab
_LINE_NUMBER = re.compile(r"[ \t]*(?P<line>\d{1,9})\t")
# journald's console of a service (`journalctl -u`): time, host, the program and its pid; the kernel's own lines
# carry no pid and are read as the kernel's
_JOURNAL = re.compile(r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]+ [\w.@/-]+\[\d+\]: ")
# Open MPI's --tag-output: `[1,0]<stderr>:` (job, rank, stream)
_MPI_TAG = re.compile(r"\[\d+,(?P<rank>\d+)\]<(?:stdout|stderr|stddiag)>: ?")
_COMPOSE = re.compile(r"[A-Za-z0-9][\w.-]*\s+\| ?")                          # docker compose `svc-1  | `
_PROGRESS = re.compile(r"\.{2,}")                                           # a progress bar's dots, no newline after
_PYTEST = re.compile(r"E {3,}")                                              # pytest's report of a failure
_GREP_MATCH = re.compile(r"(?P<file>[^\s:]+):(?P<line>\d+):")               # grep -rn, a matching line
_GREP_CONTEXT = re.compile(r"-(?P<line>\d+)-")                              # grep -rn -C, a context line
_GREP_LINE = re.compile(r"(?P<line>\d+)[:-]")                               # grep -n of one file


def _prefix(pattern: re.Pattern) -> Callable[[str, PasteState], Cut | None]:
    def rule(line: str, state: PasteState) -> Cut | None:
        m = pattern.match(line)
        if not m or not m.end():
            return None
        level = m.groupdict().get("level")
        return Cut(m.end(), level=_LEVEL_NAMES.get(level, level))
    return rule


def _glog(line: str, state: PasteState) -> Cut | None:
    m = _GLOG.match(line)
    return Cut(m.end(), level=_GLOG_LEVELS[m["letter"]]) if m else None


def _numbered(pattern: re.Pattern, group: str, name: str) -> Callable[[str, PasteState], Cut | None]:
    """A rule whose prefix names a number (a rank, a pid, a line), kept on the record as `name`; a number too long to
    be one is no prefix."""
    def rule(line: str, state: PasteState) -> Cut | None:
        m = pattern.match(line)
        value = number(m[group]) if m else None
        return Cut(m.end(), **{name: value}) if value is not None else None
    return rule


_torchrun = _numbered(_TORCHRUN, "rank", "rank")
_srun = _numbered(_SRUN, "rank", "rank")
_mpi_tag = _numbered(_MPI_TAG, "rank", "rank")
_ray = _numbered(_RAY, "pid", "worker_pid")
_line_number = _numbered(_LINE_NUMBER, "line", "src_line")


def _indent(line: str, state: PasteState) -> Cut | None:
    """Indentation a paste added (a Markdown code block, a mail quote); not where the grammar reads the line with
    its indentation (a traceback's frame, an error block's messages)."""
    m = _INDENT.match(line)
    return Cut(m.end()) if m and not opens_line(line) else None


def _grep_file(line: str, state: PasteState) -> Cut | None:
    """`path:12:` of a matching line, or `path-12-` of a context line: a path grep quoted before, else the first
    split that leaves a log line (`-12-` may be part of a file name)."""
    m = _GREP_MATCH.match(line)
    # a line number longer than any file has is not a grep prefix: the line stays as it is
    if m and number(m["line"]) is not None:
        return Cut(m.end(), src_file=quoted_path(m["file"]), src_line=number(m["line"]))
    for m in _GREP_CONTEXT.finditer(line, 0, 512):
        path = line[:m.start()]
        if " " in path:
            break
        if number(m["line"]) is not None and (quoted_path(path) in state.grep_files or opens_line(line[m.end():])):
            return Cut(m.end(), src_file=quoted_path(path), src_line=number(m["line"]))
    return None


def _grep_line(line: str, state: PasteState) -> Cut | None:
    m = _GREP_LINE.match(line)
    ok = m is not None and number(m["line"]) is not None
    return Cut(m.end(), src_file=state.grep_target, src_line=number(m["line"])) if ok else None


#: How a rule may peel: always; only when what remains is a log line (GUARDED); or also when the same rule peeled
#: the line before (STICKY: the lines of grep output, of one compose service, go on in the same form).
ALWAYS, GUARDED, STICKY = "always", "guarded", "sticky"

#: How many non-empty lines of a capture tell its margin and the prefixes that lead its lines (capture_form).
MARGIN_SAMPLE = 200
#: The sticky rules whose prefix, leading most of a capture's lines, is peeled from every line (capture_form).
LEADING = {"host": _HOST, "srun": _SRUN, "line_number": _LINE_NUMBER}
#: An interpreter's name, which leads its own messages (`python3: can't open file ...`), not a host's
_INTERPRETER = r"(?!(?:python|pip|pypy|perl|ruby|lua|java)\d*: )"
#: The same prefixes as they may lead a capture of one line, which no other line confirms: a host name without a dot
#: (a file's name has one: `libpython3.9.so.1.0: cannot open ...` is the loader's line, no host's) and no interpreter's
LEADING_ALONE = {"host": re.compile(rf"(?:\d{{1,3}}(?:\.\d{{1,3}}){{3}}|localhost|{_INTERPRETER}[a-z](?=[\w-]{{0,62}}\d)"
                                    r"[\w-]{0,62}): "),
                 "srun": _SRUN, "line_number": _LINE_NUMBER}

#: The rules of grep's own prefixes.
GREP = frozenset({"grep_file", "grep_line"})
#: The rules that peel once at most from a line: grep's, and the prefixes that lead lines (a host name, a task's
#: number, a line's number), whose form the rest of a line may well take (`libpython3.9.so.1.0: cannot open ...`).
ONCE = GREP | {"host", "srun", "line_number"}
_DIGITS = "0123456789"
_LEVEL_INITIALS = "DIWECF"
_ALNUM = _DIGITS + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

#: The prefix rules, in the order they are tried: (name, rule, how it may peel, the characters its prefix can start
#: with, "" for any: a line is tried only against the rules its first character allows).
WRAPPERS: tuple[tuple[str, Callable[[str, PasteState], Cut | None], str, str], ...] = (
    ("quote", _prefix(_QUOTE), ALWAYS, ">"),
    ("progress", _prefix(_PROGRESS), GUARDED, "."),
    ("kubectl_prefix", _prefix(_POD), ALWAYS, "["),
    ("timestamp", _prefix(_RFC3339), ALWAYS, _DIGITS),
    ("journal", _prefix(_JOURNAL), ALWAYS, "ADFJMNOS"),
    ("python_logging", _prefix(_PY_LOGGING), ALWAYS, "[" + _DIGITS),
    ("python_logging_basic", _prefix(_PY_LOGGING_BASIC), ALWAYS, _LEVEL_INITIALS),
    ("vllm_logging", _prefix(_VLLM_LOGGING), ALWAYS, _LEVEL_INITIALS),
    ("glog", _glog, ALWAYS, "IWEF"),
    ("torchrun", _torchrun, ALWAYS, "["),
    ("colour", _prefix(_COLOUR), ALWAYS, "["),
    ("ray_worker", _ray, ALWAYS, "("),
    ("mpi_tag", _mpi_tag, ALWAYS, "["),
    ("host", _prefix(_HOST), STICKY, _DIGITS + "abcdefghijklmnopqrstuvwxyz"),
    ("compose", _prefix(_COMPOSE), STICKY, _ALNUM),
    ("pytest", _prefix(_PYTEST), STICKY, "E"),
    ("grep_file", _grep_file, STICKY, ""),
    ("grep_line", _grep_line, STICKY, _DIGITS),
    ("srun", _srun, STICKY, _DIGITS),
    ("line_number", _line_number, STICKY, _DIGITS + " \t"),
    # indentation stays where it is part of the text (an error block's TraceBack lines): never sticky
    ("indent", _indent, GUARDED, " \t"),
)


@cache
def in_order(led: frozenset[str]) -> tuple:
    """WRAPPERS in the order a capture's lines are tried: the rules whose prefixes lead its lines first (a Slurm task's
    `3: ` is not grep's line number, in a capture whose every line carries one)."""
    return tuple(w for w in WRAPPERS if w[0] in led) + tuple(w for w in WRAPPERS if w[0] not in led)


def capture_form(lines: Iterable[str]) -> tuple[str, frozenset[str]]:
    """What a capture's first MARGIN_SAMPLE non-empty lines show of the marks on all its lines: the indentation every
    one shares (a paste indented as a whole, whose lines are read under it), and the rules of LEADING whose prefix
    leads half of them or more (two at least), peeled then from every line, the first included, whatever follows it
    (pdsh names the host, Slurm the task, `cat -n` the line on every line of its output); of a capture of one line,
    the prefix of LEADING_ALONE that leads it."""
    sample = list(islice((line for line in lines if line.strip()), MARGIN_SAMPLE))
    if not sample:
        return "", frozenset()
    if len(sample) == 1:   # one line: its prefix leads it when the rest of the line is more than the prefix
        line = sample[0]
        return "", frozenset(name for name, pattern in LEADING_ALONE.items()
                             if (m := pattern.match(line)) is not None and line[m.end():].strip())
    margin = commonprefix([line[:len(line) - len(line.lstrip(" \t"))] for line in sample])
    counts = {name: sum(bool(pattern.match(line, len(margin))) for line in sample) for name, pattern in LEADING.items()}
    return margin, frozenset(name for name, n in counts.items() if n >= 2 and 2 * n >= len(sample))
