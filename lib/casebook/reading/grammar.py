"""The plog line grammar: small named rules, tried in order, that turn one text line into fields.

A line is first tried against the slog header (`[LEVEL] MODULE(PID,PNAME):TIMESTAMP body`), whose body
is then split by the body rules; lines without that header are tried against the screen-capture rules
(error-manager blocks, torch_npu `ERRxxxxx` lines, Python tracebacks), the device `<exception_print>`
dump and the bbox history. A line that no rule accepts is unparsed, never dropped.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

#: Record kinds, one per rule family.
KIND_PLOG = "plog"                    # slog header line
KIND_BLOCK_HEAD = "block_head"        # "EZ9999: Inner Error!"
KIND_BLOCK_MSG = "block_msg"          # "EZ9999[PID: n] time (EZ9999): msg" and its variants
KIND_BLOCK_LINE = "block_line"        # indented TraceBack / extend-info lines of a block
KIND_PTA = "pta"                      # torch_npu "[ERROR] date (PID:n, Device:d, RankID:r) ERR00100 PTA ..."
KIND_TORCH_WARNING = "torch_warning"  # "[W compiler_depend.ts:487] Warning: ..."
KIND_PYTHON = "python"                # Python traceback lines and "XxxError: msg"
KIND_EXCEPTION_PRINT = "exception_print"  # device "<exception_print>KEY=VALUE" register dump
KIND_BBOX = "bbox"                    # hisi_logs history "[time] system exception code ..."
KIND_BLANK = "blank"
KIND_ATTACHMENT = "attachment"        # a line of an environment dump (env, pip list, version.info, npu-smi)
KIND_PASTE = "paste"                  # a line of the paste itself: shell prompt and command, grep's `--`, a fence
KIND_CONTINUATION = "continuation"    # a piece of a line the paste broke, read as part of the record above it
KIND_CONSOLE = "console"              # a script's or launcher's own log line: its level from its logging prefix
KIND_UNPARSED = "unparsed"

_TS = r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}"
_ECODE = r"E[0-9A-Z]\d{4}"

HEADER = re.compile(
    r"^\[(?P<level>[A-Z]+|\d+)\]\s*(?P<module>[A-Za-z_][A-Za-z_0-9]*|\d+)"
    r"\((?P<pid>-?\d+),(?P<pname>[^)]*)\):(?P<ts>" + _TS + r")\s?(?P<body>.*)$",
    re.S,
)


#: Digits a number field may have: more do not fit a 64-bit column (and Python refuses to parse a decimal
#: string past 4,300 digits), so such a field is left empty.
MAX_DIGITS = 18


def number(digits: str) -> int | None:
    """The value of a decimal field (an optional `-`, then digits), or None past MAX_DIGITS digits."""
    return int(digits) if len(digits.lstrip("-")) <= MAX_DIGITS else None


@dataclass
class Fields:
    """What the grammar read from one line; absent parts stay None."""

    kind: str
    level: str | None = None
    module: str | None = None
    pid: int | None = None
    pname: str | None = None
    time: str | None = None
    src: str | None = None
    tid: str | None = None
    func: str | None = None
    stage: str | None = None
    code: str | None = None
    msg: str = ""
    extra: dict = field(default_factory=dict)


def plog_time(ts: str) -> str:
    """`2023-07-13-07:42:40.515.526` -> ISO `2023-07-13T07:42:40.515526` (local time, as logged)."""
    return f"{ts[:10]}T{ts[11:19]}.{ts[20:23]}{ts[24:27]}"


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
_STAGE = re.compile(r"\[(?P<a>[A-Z]{3,})\]\[(?P<b>[A-Z]{3,})\]")


def _split_body(f: Fields, body: str) -> None:
    """Fill src / tid / func / stage / msg from the body of a header line."""
    pos = 0
    m = _STATUS.match(body, pos)
    if m:
        f.extra["status"] = m["status"]
        pos = m.end()
    m = _TSCH.match(body, pos)
    if m and m["file"]:
        f.src = f"{m['file']}:{m['line']}"
        f.func = m["func"]
        f.extra["cpu"] = m["cpu"]
        pos = m.end()
    else:
        m = _SRC.match(body, pos)
        if m:
            f.src = f"{m['file']}:{m['line']}"
            pos = m.end()
            # a second [file:line:func] (TDT OPLOG lines) names the real origin
            m2 = _SRC.match(body, pos)
            if m2:
                pos = m2.end()
            m = _BRACKET_TIDS.match(body, pos) or _PAREN_TID.match(body, pos)
            if m:
                f.tid = m["tid"]
                pos = m.end()
            else:
                m = _TID_FUNC.match(body, pos)
                if m:
                    f.tid = m["tid"]
                    f.func = m["func"]
                    pos = m.end()
    rest = body[pos:]
    m = _STAGE.search(rest)
    if m:
        f.stage = f"{m['a']}/{m['b']}"
        if m.start() == 0:
            rest = rest[m.end():]
    f.msg = rest.strip()


def parse_header(line: str) -> Fields | None:
    """An slog header line, or None."""
    m = HEADER.match(line)
    if not m:
        return None
    f = Fields(KIND_PLOG, level=m["level"], module=m["module"], pid=number(m["pid"]),
               pname=m["pname"], time=plog_time(m["ts"]))
    _split_body(f, m["body"])
    return f


# --- rules for lines without a header ---------------------------------------------------------

_BLOCK_HEAD = re.compile(r"^(?P<prefix>.*?)\b(?P<code>" + _ECODE + r"): (?:Inner|Internal) [Ee]rror!?\s*$")
_BLOCK_MSG_A = re.compile(  # EZ9999[PID: 3058434] 2026-08-03-20:55:35.272.841 (EZ9999):  msg
    r"^\s*(?P<code>" + _ECODE + r")\[PID: ?(?P<pid>\d+)\] (?P<ts>" + _TS + r") \((?P=code)\):\s*(?P<msg>.*)$", re.S)
_BLOCK_MSG_B = re.compile(  # EZ9999: [PID: 775] 2025-02-16-12:18:25.258.321 msg
    r"^\s*(?P<code>" + _ECODE + r"): \[PID: ?(?P<pid>\d+)\] (?P<ts>" + _TS + r") (?P<msg>.*)$", re.S)
_BLOCK_MSG_C = re.compile(  # [PID: 389] 2026-05-01-10:59:14.702.326 Device_Absent/Abnormal(EL0001): msg
    r"^\s*\[PID: ?(?P<pid>\d+)\] (?P<ts>" + _TS + r") (?P<title>[^()]*)\((?P<code>" + _ECODE + r")\):\s*(?P<msg>.*)$",
    re.S)
_INDENTED = re.compile(r"^[ \t]+(?P<msg>\S.*)$", re.S)
_PTA = re.compile(
    r"^\[(?P<level>[A-Z]+)\] (?P<date>\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d) \(PID:(?P<pid>\d+), Device:(?P<device>-?\d+), "
    r"RankID:(?P<rank>-?\d+)\) (?P<code>ERR\d{5}) (?P<module>[A-Z]+) (?P<msg>.*)$", re.S)
_TORCH_WARNING = re.compile(r"^\[(?P<sev>[WEI])\s*(?P<src>[^\]\s]+:\d+)\] (?P<msg>.*)$", re.S)
_PY_TRACEBACK = re.compile(r"^Traceback \(most recent call last\):\s*$")
_PY_FRAME = re.compile(r'^\s+File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+))?$')
_PY_EXC = re.compile(r"^(?P<exc>[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit)): ?(?P<msg>.*)$", re.S)
_EXCEPTION_PRINT = re.compile(r"^<exception_print>(?P<msg>.*)$", re.S)
_BBOX = re.compile(r"^\[(?P<date>\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{6})\] (?P<msg>.*)$", re.S)


class BlockState:
    """Per-file context: are we inside an error-manager block or a Python traceback?"""

    def __init__(self) -> None:
        self.code: str | None = None
        self.pid: int | None = None
        self.time: str | None = None
        self.in_python = False


def _block_msg(m: re.Match, state: BlockState, title: str | None = None) -> Fields:
    state.code, state.pid, state.time = m["code"], number(m["pid"]), plog_time(m["ts"])
    f = Fields(KIND_BLOCK_MSG, level="ERROR", pid=state.pid, time=state.time, code=state.code, msg=m["msg"].strip())
    if title:
        f.extra["title"] = title.strip()
    return f


def parse_other(line: str, state: BlockState) -> Fields:
    """A line without an slog header: screen-capture blocks, device dumps, or unparsed."""
    if not line.strip():
        return Fields(KIND_BLANK)
    m = _EXCEPTION_PRINT.match(line)
    if m:
        return Fields(KIND_EXCEPTION_PRINT, msg=m["msg"].strip())
    m = _BLOCK_MSG_A.match(line) or _BLOCK_MSG_B.match(line)
    if m:
        return _block_msg(m, state)
    m = _BLOCK_MSG_C.match(line)
    if m:
        return _block_msg(m, state, m["title"])
    m = _BLOCK_HEAD.match(line)
    if m:
        state.code, state.pid, state.time, state.in_python = m["code"], None, None, False
        f = Fields(KIND_BLOCK_HEAD, level="ERROR", code=m["code"], msg=line.strip())
        if m["prefix"].strip():
            f.extra["prefix"] = m["prefix"].strip()
        return f
    m = _PTA.match(line)
    if m:
        state.code = None
        f = Fields(KIND_PTA, level=m["level"], module=m["module"], pid=number(m["pid"]),
                   time=f"{m['date'][:10]}T{m['date'][11:19]}.000000", code=m["code"], msg=m["msg"].strip())
        f.extra.update(device=number(m["device"]), rank=number(m["rank"]))
        return f
    if _PY_TRACEBACK.match(line):
        state.code, state.in_python = None, True
        return Fields(KIND_PYTHON, msg=line.strip())
    m = _PY_FRAME.match(line)
    if m and state.in_python:
        return Fields(KIND_PYTHON, src=f"{m['file']}:{m['line']}", func=m["func"], msg=line.strip())
    m = _PY_EXC.match(line)
    if m:
        state.in_python = False
        f = Fields(KIND_PYTHON, level="ERROR", msg=line.strip())
        f.extra["exception"] = m["exc"]
        # "RuntimeError: call aclnnArange failed, detail:EZ9999: Inner Error!" opens a block too
        head = _BLOCK_HEAD.match(line)
        if head:
            state.code, state.pid, state.time = head["code"], None, None
            f.code = head["code"]
        return f
    m = _INDENTED.match(line)
    if m and (state.code or state.in_python):
        if state.in_python:
            return Fields(KIND_PYTHON, msg=m["msg"].strip())
        return Fields(KIND_BLOCK_LINE, level="ERROR", pid=state.pid, time=state.time, code=state.code,
                      msg=m["msg"].strip())
    m = _TORCH_WARNING.match(line)
    if m:
        level = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[m["sev"]]
        return Fields(KIND_TORCH_WARNING, level=level, src=m["src"], msg=m["msg"].strip())
    m = _BBOX.match(line)
    if m:
        d = m["date"]
        return Fields(KIND_BBOX, time=f"{d[:10]}T{d[11:19]}.{d[20:]}", msg=m["msg"].strip())
    state.code, state.in_python = None, False
    return Fields(KIND_UNPARSED, msg=line.rstrip("\r\n"))


RULES: tuple[tuple[str, Callable], ...] = (("header", parse_header), ("other", parse_other))


def opens_line(line: str) -> bool:
    """Whether a line starts like a line of its own: some rule accepts it without a block around it."""
    return parse_line(line, BlockState()).kind not in (KIND_UNPARSED, KIND_BLANK)


def parse_line(line: str, state: BlockState) -> Fields:
    """Fields of one line (without its `\\n`), using and updating the file's block state."""
    f = parse_header(line)
    if f is not None:
        state.code, state.in_python = None, False
        return f
    return parse_other(line, state)
