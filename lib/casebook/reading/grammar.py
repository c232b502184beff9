"""The plog line grammar: small named rules, tried in order, that turn one text line into fields.

A line is first tried against the slog header (`[LEVEL] MODULE(PID,PNAME):TIMESTAMP body`), whose body is then
split by the body rules, and the console form older releases print the same records in; lines without a header
are tried against the screen-capture rules (screen.py: error-manager blocks, torch_npu and c10 lines, Python
and native call stacks, framework reports), torchrun's banner and failure summary (launcher.py), the device
and hardware text rules (device_text.py) and the shell furniture rules (shell.py). A line that no rule accepts
is unparsed, never dropped. The record kinds and the Fields a rule returns are defined in fields.py and read
from here. A rule whose module names the patterns it starts with (STARTS) is tried only on a line that can begin
as they do (firsts.py): a console log is nearly all lines without a header, and most rules cannot read most of them.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from . import device_text, launcher, screen, shell, stacks
from .firsts import Start, starts
from .fields import (ECODE, KIND_ATTACHMENT, KIND_BBOX, KIND_BLANK, KIND_BLOCK_HEAD, KIND_BLOCK_LINE, KIND_BLOCK_MSG,
                     KIND_CONSOLE, KIND_CONTINUATION, KIND_EXCEPTION_PRINT, KIND_KERNEL, KIND_NPU_MESSAGE, KIND_PASTE,
                     KIND_PLOG, KIND_PTA, KIND_PYTHON, KIND_REPORT, KIND_STACK, KIND_TORCH_WARNING, KIND_UNPARSED,
                     MAX_DIGITS, TS, BlockState, Fields, number, plog_time)

__all__ = ["ECODE", "KIND_ATTACHMENT", "KIND_BBOX", "KIND_BLANK", "KIND_BLOCK_HEAD", "KIND_BLOCK_LINE",
           "KIND_BLOCK_MSG", "KIND_CONSOLE", "KIND_CONTINUATION", "KIND_EXCEPTION_PRINT", "KIND_KERNEL",
           "KIND_NPU_MESSAGE", "KIND_PASTE", "KIND_PLOG", "KIND_PTA", "KIND_PYTHON", "KIND_REPORT", "KIND_STACK",
           "KIND_TORCH_WARNING", "KIND_UNPARSED", "MAX_DIGITS", "TS", "BlockState", "Fields", "number", "plog_time",
           "HEADER", "RULES", "forget_bodies", "parse_header", "parse_other", "parse_line", "opens_line"]

HEADER = re.compile(
    r"^\[(?P<level>[A-Z]+|\d+)\]\s*(?P<module>[A-Za-z_][A-Za-z_0-9]*|\d+)"
    r"\((?P<pid>-?\d+),(?P<pname>[^)]*)\): ?(?P<ts>" + TS + r")\s?(?P<body>.*)$",
    re.S,
)
#: The same record printed to the console by releases of 2020-2021 (ASCEND_SLOG_PRINT_TO_STDOUT): no process
#: name, no time, the message right after the pid: `[ERROR] RUNTIME(160809)kernel task happen error, retCode=0x28`
CONSOLE_HEADER = re.compile(r"^\[(?P<level>ERROR|WARNING|INFO|DEBUG|EVENT)\] ?(?P<module>[A-Z][A-Z_0-9]*)"
                            r"\((?P<pid>\d+)\)(?P<msg>\S.*)$", re.S)


# --- body rules of a header line --------------------------------------------------------------
# Each rule consumes a prefix of the body and fills fields; they run in this order.

_STATUS = re.compile(r"\[status:(?P<status>[^\]]*)\]\s*")
_TSCH = re.compile(  # 9553 (cpuid:1) task_scheduler_engine.c:1094 alloc_stream_queue: msg
    r"(?P<seq>\d+) \((?P<cpu>[^)]*)\) (?:(?P<file>[\w./-]+\.\w+):(?P<line>\d+) (?:(?P<func>\w+): )?)?"
)
_SRC = re.compile(r"\[(?P<file>[^\[\]:]+):(?P<line>\d+)(?::[\w~]+)?\]")
_BRACKET_TIDS = re.compile(r"(?:\[(?:tid:)?(?P<tid>\d+)\])+")
_PAREN_TID = re.compile(r"\(tid:(?P<tid>\d+)\)\s*")
_TID_FUNC = re.compile(r"\s*(?P<tid>\d+)\s+(?:(?P<func>[A-Za-z_~][\w:~]*):(?!\d))?")
_FUNC_BRACKET = re.compile(r"\s*(?P<func>[A-Za-z_~][\w:~]*)\] ")   # MindSpore: [file.cc:761] DumpTaskExceptionInfo] msg
_STAGE = re.compile(r"\[(?P<a>[A-Z]{3,})\]\[(?P<b>[A-Z]{3,})\]")


#: Bodies up to this length are read once per distinct body (a log repeats its lines on every rank, every step, under
#: new times and pids): a few thousand of them held at most, so the memory they take stays small.
_KEPT_BODY = 512


def _split_body(f: Fields, body: str) -> None:
    """Fill src / tid / func / stage / msg from the body of a header line."""
    src, tid, func, stage, msg, extra = _kept_body(body) if len(body) <= _KEPT_BODY else _body_fields(body)
    f.src, f.func, f.stage, f.msg = src, func, stage, msg
    if tid is not None:   # else the thread the header named (MindSpore's), if any
        f.tid = tid
    if extra:
        f.extra.update(extra)


def _body_fields(body: str) -> tuple:
    """(src, tid, func, stage, msg, extra fields) of the body of a header line."""
    src = tid = func = stage = None
    extra = {}
    pos = 0
    m = _STATUS.match(body, pos)
    if m:
        extra["status"] = m["status"]
        pos = m.end()
    m = _TSCH.match(body, pos)
    if m and m["file"]:
        src = f"{m['file']}:{m['line']}"
        func = m["func"]
        extra["cpu"] = m["cpu"]
        pos = m.end()
    else:
        m = _SRC.match(body, pos)
        if m:
            src = f"{m['file']}:{m['line']}"
            pos = m.end()
            # a second [file:line:func] (TDT OPLOG lines) names the real origin
            m2 = _SRC.match(body, pos)
            if m2:
                pos = m2.end()
            m = _BRACKET_TIDS.match(body, pos) or _PAREN_TID.match(body, pos)
            if m:
                tid = m["tid"]
                pos = m.end()
            else:
                m = _TID_FUNC.match(body, pos)
                if m:
                    tid = m["tid"]
                    func = m["func"]
                    pos = m.end()
                elif m := _FUNC_BRACKET.match(body, pos):
                    func = m["func"]
                    pos = m.end()
    rest = body[pos:]
    m = _STAGE.search(rest)
    if m:
        stage = f"{m['a']}/{m['b']}"
        if m.start() == 0:
            rest = rest[m.end():]
    return src, tid, func, stage, rest.strip(), extra


_kept_body = lru_cache(maxsize=4096)(_body_fields)


def forget_bodies() -> None:
    """Let go of the bodies read so far (a reading starts from none)."""
    _kept_body.cache_clear()


#: Levels above ERROR that MindSpore writes in the slog header (an exception's record is CRITICAL): they state an
#: error as ERROR does, so the log table names them so, as it does for a paste's logging levels (paste.py).
_ERROR_LEVELS = {"CRITICAL": "ERROR", "FATAL": "ERROR"}


def parse_header(line: str) -> Fields | None:
    """An slog header line, or None."""
    m = HEADER.match(line)
    if not m:
        return None
    f = Fields(KIND_PLOG, level=_ERROR_LEVELS.get(m["level"], m["level"]), module=m["module"], pid=number(m["pid"]),
               pname=m["pname"], time=plog_time(m["ts"]))
    # MindSpore names the thread too: ME(3187425,ffff8a7fd1e0,python)
    thread, comma, pname = m["pname"].partition(",")
    if comma and re.fullmatch(r"[0-9a-fA-F]+", thread):
        f.tid, f.pname = thread, pname
    _split_body(f, m["body"])
    return f


def _console_header(line: str, state: BlockState) -> Fields | None:
    m = CONSOLE_HEADER.match(line)
    if not m:
        return None
    state.reset()
    return Fields(KIND_CONSOLE, level=m["level"], module=m["module"], pid=number(m["pid"]), msg=m["msg"].strip())


# --- rules for lines without a header ---------------------------------------------------------

_INDENTED = re.compile(r"^[ \t]+(?P<msg>\S.*)$", re.S)

#: Every rule for a line without a header, in the order tried: (name, rule).
OTHER_RULES: tuple[tuple[str, Callable[[str, BlockState], Fields | None]], ...] = (
    device_text.RULES[:1] + (("console_header", _console_header),) + screen.RULES + launcher.RULES
    + device_text.RULES[1:] + shell.RULES)


#: Rule name -> the patterns one of which a line must match at its start for the rule to read it (the modules'
#: STARTS); a rule not named here may read any line.
STARTS: dict[str, tuple[re.Pattern, ...]] = {**device_text.STARTS, "console_header": (CONSOLE_HEADER,),
                                             **screen.STARTS, **launcher.STARTS, **shell.STARTS}
#: Of each rule in OTHER_RULES, where a line it reads can start (None: anywhere).
_STARTS: tuple[Start | None, ...] = tuple(starts(STARTS[name]) if name in STARTS else None for name, _ in OTHER_RULES)
#: First character of a line -> the rules that may read it, in order; kept for this many distinct characters.
_BY_FIRST: dict[str, tuple[Callable[[str, BlockState], Fields | None], ...]] = {}
_KEPT_FIRSTS = 512


def _rules_for(first: str) -> tuple[Callable[[str, BlockState], Fields | None], ...]:
    """The rules that may read a line starting with the character `first`, in the order they are tried."""
    rules = _BY_FIRST.get(first)
    if rules is None:
        rules = tuple(rule for (_, rule), start in zip(OTHER_RULES, _STARTS) if start is None or start.admits(first))
        if len(_BY_FIRST) < _KEPT_FIRSTS:
            _BY_FIRST[first] = rules
    return rules


def _in_context(line: str, state: BlockState) -> Fields | None:
    """An indented line inside a block or a traceback: a block's message, or a traceback's source line; or a detail
    line of an exception's message."""
    if (f := stacks.py_exception_detail(line, state)) is not None:
        return f
    m = _INDENTED.match(line)
    if not m or not (state.in_block or state.in_python):
        return None
    if (f := stacks.py_exception_shifted(line, state)) is not None:
        return f
    if state.in_python:
        return Fields(KIND_PYTHON, msg=m["msg"].strip())
    return Fields(KIND_BLOCK_LINE, level="ERROR", pid=state.pid, time=state.time, code=state.code,
                  msg=m["msg"].strip())


def parse_other(line: str, state: BlockState) -> Fields:
    """A line without an slog header: screen-capture blocks, device and shell text, or unparsed."""
    if not line.strip():
        return Fields(KIND_BLANK)
    for rule in _rules_for(line[:1]):
        f = rule(line, state)
        if f is not None:
            return f
    f = _in_context(line, state)
    if f is not None:
        return f
    state.reset()
    return Fields(KIND_UNPARSED, msg=line.rstrip("\r\n"))


RULES: tuple[tuple[str, Callable], ...] = (("header", parse_header), ("other", parse_other))


def opens_line(line: str) -> bool:
    """Whether a line starts like a log line of its own: some rule accepts it without a block around it (a table's
    border is no log line: a table is never joined to what follows it)."""
    return parse_line(line, BlockState()).kind not in (KIND_UNPARSED, KIND_BLANK, KIND_ATTACHMENT)


def parse_line(line: str, state: BlockState) -> Fields:
    """Fields of one line (without its `\\n`), using and updating the file's block state."""
    f = parse_header(line)
    if f is not None:
        state.reset()
        return f
    return parse_other(line, state)
