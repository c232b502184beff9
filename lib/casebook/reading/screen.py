"""Screen-capture rules: what CANN's error manager, torch_npu and the frameworks print to a console.

Each rule reads one named form and returns its Fields, or None; grammar.py tries them in RULES order. Lines that
only make sense inside a block (a source line under a traceback frame, the advice under torch_npu's `[Error]:`
line, the messages under a MindSpore report title) are read with the BlockState the lines before left. Stacks (Python, native, MindSpore's) are stacks.py's rules,
tried in this module's RULES order.
"""
from __future__ import annotations

import re
from typing import Callable

from . import stacks
from .fields import (BLOCK_HEAD, ECODE, KIND_BLOCK_HEAD, KIND_BLOCK_LINE, KIND_BLOCK_MSG, KIND_CONSOLE,
                     KIND_NPU_MESSAGE, KIND_PTA, KIND_REPORT, KIND_TORCH_WARNING, TS, BlockState, Fields, number,
                     plog_time)

# --- CANN's error manager -------------------------------------------------------------------------------------

_BLOCK_MSGS = (
    # EZ9999[PID: 3058434] 2026-08-03-20:55:35.272.841 (EZ9999):  msg
    re.compile(r"^\s*(?P<code>" + ECODE + r")\[PID: ?(?P<pid>\d+)\] (?P<ts>" + TS + r") \((?P=code)\):\s*(?P<msg>.*)$",
               re.S),
    # EZ9999: [PID: 775] 2025-02-16-12:18:25.258.321 msg
    re.compile(r"^\s*(?P<code>" + ECODE + r"): \[PID: ?(?P<pid>\d+)\] (?P<ts>" + TS + r") (?P<msg>.*)$", re.S),
    # [PID: 389] 2026-05-01-10:59:14.702.326 Device_Absent/Abnormal(EL0001): msg; torch_npu's reprint of the message
    # may drop the time: [PID: 52716] Communication_Error_Ranktable_Detect(EI0015):
    re.compile(r"^\s*\[PID: ?(?P<pid>\d+)\] (?:(?P<ts>" + TS + r") )?(?P<title>[^()]*)\((?P<code>" + ECODE
               + r")\):\s*(?P<msg>.*)$", re.S),
    # Resource_Error(EE1023): msg: the message's title and code without pid or time, as the runtime's own messages
    # and documents print it (CANN 8); torch_npu's reprint may put the message on the lines after the title, and a
    # paste may keep the title alone, without its colon
    re.compile(r"^\s*(?P<title>[A-Z][A-Za-z]*(?:[_/][A-Za-z]+)+)\((?P<code>" + ECODE + r")\)(?::\s*(?P<msg>(?:\S.*)?)|"
               r"\s*)$", re.S),
    # EZ9999: 2024-07-27-05:01:55.672.958  msg (no pid: CANN 7 releases of early 2024)
    re.compile(r"^\s*(?P<code>" + ECODE + r"): (?P<ts>" + TS + r")\s+(?P<msg>.*)$", re.S),
    # EH9999  msg: a later message of the block, its code repeated before it (CANN 8)
    re.compile(r"^(?P<code>" + ECODE + r") {2,}(?P<msg>\S.*)$", re.S),
)
#: `msg[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]`, `[THREAD:88417]` after it in some releases; a screen
#: capture read by OCR may lose the `][` between the function and the file (`[FUNC:InitTaskInfo  FILE:davinci
#: model.cc][LINE:3593]`)
_FUNC_FILE_LINE = re.compile(r"^\s*(?P<msg>.*?)\[FUNC:(?P<func>[^\]\s]*)(?:\]\[|\s+)FILE:(?P<file>[^\]]*)\]"
                             r"\[LINE:(?P<line>\d+)\](?:\[THREAD:\d+\])?\s*$", re.S)
_TRACEBACK = re.compile(r"^\s*TraceBack \(most recent call last\):\s*$")
_ADVICE = re.compile(r"^\s*(?P<key>Possible Cause|Solution|Reason):\s*(?P<msg>.*)$", re.S)
#: the AI Core fault report's second line, after "The error from device(...)... dump info: pc start: ..."
_EXTEND_INFO = re.compile(r"^\s*The extend info: errcode:\(")
#: HCCL's heartbeat report inside an EI0002 / EI0006 message: "there are(is) 1 abnormal device(s):", one line per
#: device ("Cluster Exception Location[IP/ID]:[...]", CANN 6: "serverId[...], deviceId[0], Heartbeat Lost ..."),
#: and a lone "]" that closes the message's bracket
_HCCL_CLUSTER = re.compile(r"^\s*there are\(is\) \d+ abnormal device\(s\):")
_HCCL_DEVICE = re.compile(r"^\s*(?:Cluster Exception Location\[IP/ID\]:|serverId\[[^\]]*\], deviceId\[)")
_HCCL_CLOSE = re.compile(r"^\s*\]\s*$")


def _block_msg(line: str, state: BlockState) -> Fields | None:
    for pattern in _BLOCK_MSGS:
        m = pattern.match(line)
        if m:
            d = m.groupdict()
            time = plog_time(d["ts"]) if d.get("ts") else (state.time if m["code"] == state.code else None)
            pid = number(d["pid"]) if d.get("pid") else (state.pid if m["code"] == state.code else None)
            state.open_block(m["code"], pid, time)
            f = Fields(KIND_BLOCK_MSG, level="ERROR", pid=pid, time=time, code=m["code"], msg=(m["msg"] or "").strip())
            if d.get("title"):
                f.extra["title"] = d["title"].strip()
            return f
    return None


def _block_head(line: str, state: BlockState) -> Fields | None:
    # the pattern's lazy prefix tries every position of a line: most lines lack its words, and say so at once
    if "Inner " not in line and "Internal " not in line:
        return None
    m = BLOCK_HEAD.match(line)
    if not m:
        return None
    state.open_block(m["code"])
    f = Fields(KIND_BLOCK_HEAD, level="ERROR", code=m["code"], msg=line.strip())
    if m["prefix"].strip():
        f.extra["prefix"] = m["prefix"].strip()
    return f


def _block_line(state: BlockState, msg: str, level: str | None = "ERROR", **fields) -> Fields:
    state.in_block, state.in_python, state.npu_error, state.report = True, False, False, None
    return Fields(KIND_BLOCK_LINE, level=level, pid=state.pid, time=state.time, code=state.code, msg=msg, **fields)


def _func_file_line(line: str, state: BlockState) -> Fields | None:
    """A message the error manager filed: it ends with the call site that filed it."""
    m = _FUNC_FILE_LINE.match(line) if "[FUNC:" in line else None
    if not m or not m["msg"]:
        return None
    return _block_line(state, line.strip(), src=f"{m['file']}:{m['line']}", func=m["func"])


def _traceback_marker(line: str, state: BlockState) -> Fields | None:
    """The error manager's `TraceBack (most recent call last):`: the messages after it led to the one before."""
    return _block_line(state, line.strip(), level=None) if _TRACEBACK.match(line) else None


def _advice(line: str, state: BlockState) -> Fields | None:
    """`Possible Cause:` / `Solution:` under an error-manager message (or its Reason, when printed apart)."""
    m = _ADVICE.match(line)
    if not m or not (state.in_block or line[:1].isspace()):
        return None
    # the catalog's cause and solution are advice; a Reason printed apart is the rest of the message itself (EI0015:
    # "Reason: No rank in the communicator can connect to the root node"), an error as the line before it
    f = _block_line(state, line.strip(), level="ERROR" if m["key"] == "Reason" else None)
    f.extra["advice"] = m["key"]
    return f


def _hccl_cluster(line: str, state: BlockState) -> Fields | None:
    if _HCCL_CLUSTER.match(line) or _HCCL_DEVICE.match(line):
        f = _block_line(state, line.strip())
        state.report = "hccl_cluster"
        return f
    if state.report == "hccl_cluster" and _HCCL_CLOSE.match(line):
        return _block_line(state, line.strip(), level=None)
    return None


def _extend_info(line: str, state: BlockState) -> Fields | None:
    """The AI Core fault report's `The extend info: errcode:(...) errorStr: ...`, its call site cut by the paste."""
    return _block_line(state, line.strip()) if _EXTEND_INFO.match(line) else None


# --- torch_npu and c10 -----------------------------------------------------------------------------------------

_PTA = re.compile(
    r"^\[(?P<level>[A-Z]+)\] (?P<date>\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d) \(PID:(?P<pid>\d+), Device:(?P<device>-?\d+), "
    r"RankID:(?P<rank>-?\d+)\) (?P<code>ERR\d{5}) (?P<module>[A-Z]+) (?P<msg>.*)$", re.S)
#: c10's log prefix: `[W compiler_depend.ts:487]` (torch 2.1), `[W220 02:16:08.680800943 NPUStream.cpp:487]`
#: (torch 2.4 on: month and day, time of day, sometimes the thread)
_C10 = re.compile(r"^\[(?P<sev>[WEIF])(?:(?P<md>\d{3,4}) (?P<tod>\d\d:\d\d:\d\d(?:\.\d+)?)(?: \d+)?)?\s*"
                  r"(?P<src>[^\]\s]+:\d+)\] (?P<msg>.*)$", re.S)
#: torch_npu's own logger (ProcessGroupHCCL): `[591] [2026-04-30 03:58:27:937] torch.distributed: [ERROR] [692] msg`
_NPU_LOGGER = re.compile(r"^\[(?P<pid>\d+)\] \[(?P<date>\d{4}-\d\d-\d\d) (?P<hms>\d\d:\d\d:\d\d):(?P<ms>\d{3})\] "
                         r"(?P<logger>[\w.]+): ?\[(?P<level>[A-Z]+)\] \[(?P<tid>\d+)\] (?P<msg>.*)$", re.S)
_C10_LEVELS = {"W": "WARNING", "E": "ERROR", "I": "INFO", "F": "FATAL"}
#: MindIE's log (the server, its daemon, the LLM backend and its scheduler): the time (milliseconds or microseconds,
#: a zone in later releases), pid, thread, component, then the level and the source position, and after `: ` its
#: code when it states one, `[MIE04E120407]`; the banner a process writes at start has neither
_MINDIE = re.compile(r"^\[(?P<date>\d{4}-\d\d-\d\d) (?P<hms>\d\d:\d\d:\d\d)(?:[.,](?P<frac>\d{1,6}))?"
                     r"(?:[+-]\d\d:?\d\d)?\] "
                     r"\[(?P<pid>\d+)\] \[(?P<tid>\d+)\] \[(?P<component>[\w.-]+)\] "
                     r"(?:\[(?P<level>[A-Z]+)\] (?:\[(?P<src>[^\]\s]+?[:-]\d+)\] ?)?(?:: )?)?(?P<msg>.*)$", re.S)
#: The slog-like headers of code that writes its own log: MindSpore's Python side, `[CRITICAL]
#: ME(171532:281473529845792,MainProcess):2023-12-14-09:06:51.402.117 [mindspore/train/serialization.py:121] msg`
#: (pid and thread joined by a colon), MindSpore Lite's `[ERROR] ME(15411,7f07f56be100, python) :2023-10-16-00:51:42
#: .509.877 [...] msg`, and AMCT's `[ERROR] AMCT(412698,atc.bin):2023-05-09-17:36:21[model_process.cpp:299]msg`
#: (seconds only, no space); the slog header itself (grammar.HEADER), which the compiled scanner reads too, is tried
#: before
_OWN_HEADER = re.compile(
    r"^\[(?P<level>[A-Z]+)\] ?(?P<module>[A-Z][A-Z_0-9]*)\((?P<pid>\d+)(?:[:,] ?(?P<tid>\d+|[0-9a-f]{6,16}))?"
    r"(?:, ?(?P<pname>[^()]*?))?\) ?: ?(?P<date>\d{4}-\d\d-\d\d)-(?P<hms>\d\d:\d\d:\d\d)"
    r"(?:\.(?P<ms>\d{1,3})(?:\.(?P<us>\d{1,3}))?)? ?(?:\[(?P<src>[^\]\s]+:\d+)\] ?(?:(?P<func>[A-Za-z_]\w*)\] ?)?)?"
    r"(?P<msg>.*)$", re.S)
#: The 2020-2021 releases' colon form, the module and the time after a colon: OMG/ATC's function and position before
#: its quoted message (`[ERROR] FMK:2020-04-11-09:37:12.318.604 Build:framework/domi/omg/model_builder.cpp:594:"msg"`),
#: the runtime's pid, position and function (`[ERROR] RUNTIME:2020-05-19-16:08:41.695.353 41826 runtime/feature/src/
#: logger.cc:240 DevMalloc:msg`), AKG's bracketed position (`[ERROR] AKG:2021-05-06-09:14:52.118.407 [cce_module.cc:232]
#: msg`), or the message alone
_COLON_HEAD = (r"^\[(?P<level>[A-Z]+)\] (?P<module>[A-Z][A-Z_0-9]*):(?P<date>\d{4}-\d\d-\d\d)-(?P<hms>\d\d:\d\d:\d\d)"
               r"\.(?P<ms>\d{1,3})\.(?P<us>\d{1,3}) ")
_OWN_HEADER_2020 = tuple(re.compile(_COLON_HEAD + tail, re.S) for tail in (
    r"(?P<func>[A-Za-z_]\w*):(?P<src>[^\s:\"]+:\d+):(?P<msg>.*)$",
    r"(?P<pid>\d+) (?P<src>[^\s:]+:\d+) (?P<func>[A-Za-z_]\w*):(?P<msg>.*)$",
    r"\[(?P<src>[^\]\s]+:\d+)\] (?P<msg>.*)$",
    r"(?P<msg>.*)$"))
#: The levels of MindIE's log and of those headers as the log table names them: a critical record (MindSpore's
#: EXCEPTION too) states an error as an error does
_OWN_LEVELS = {"WARN": "WARNING", "CRITICAL": "ERROR", "EXCEPTION": "ERROR", "FATAL": "ERROR"}
#: torch_npu explains a code in two lines: `[Error]: <what failed>.` then, indented, what to do
_NPU_ERROR = re.compile(r"^\s*\[Error\]: ?(?P<msg>.*)$", re.S)
_NPU_FUNCTION = re.compile(r"^\s*\(function (?P<func>\w+)\)\s*$")
#: the hints torch_npu appends to an error raised from an asynchronous task
_NPU_HINT = re.compile(r"^(?:Since the operator is called asynchronously, the stacktrace may be inaccurate\."
                       r"|Note: ASCEND_LAUNCH_BLOCKING=1 will force ops to run in synchronous mode)")


def _pta(line: str, state: BlockState) -> Fields | None:
    m = _PTA.match(line)
    if not m:
        return None
    state.reset()
    f = Fields(KIND_PTA, level=m["level"], module=m["module"], pid=number(m["pid"]),
               time=f"{m['date'][:10]}T{m['date'][11:19]}.000000", code=m["code"], msg=m["msg"].strip())
    f.extra.update(device=number(m["device"]), rank=number(m["rank"]))
    return f


def _c10(line: str, state: BlockState) -> Fields | None:
    m = _C10.match(line)
    if not m:
        return None
    state.reset()
    f = Fields(KIND_TORCH_WARNING, level=_C10_LEVELS[m["sev"]], src=m["src"], msg=m["msg"].strip())
    if m["tod"]:   # the year is not printed: the time of day is kept aside, not as the line's time
        f.extra["time_of_day"] = m["tod"]
    return f


def _npu_logger(line: str, state: BlockState) -> Fields | None:
    m = _NPU_LOGGER.match(line)
    if not m:
        return None
    state.reset()
    return Fields(KIND_CONSOLE, level=m["level"], module=m["logger"], pid=number(m["pid"]), tid=m["tid"],
                  time=f"{m['date']}T{m['hms']}.{m['ms']}000", msg=m["msg"].strip())


def _mindie(line: str, state: BlockState) -> Fields | None:
    """A line of MindIE's log, read with its component, level, source position and time."""
    m = _MINDIE.match(line)
    if not m:
        return None
    state.reset()
    level = m["level"]
    return Fields(KIND_CONSOLE, level=_OWN_LEVELS.get(level, level) if level else None, module=m["component"],
                  pid=number(m["pid"]), tid=m["tid"], src=_position(m["src"]),
                  time=f"{m['date']}T{m['hms']}.{(m['frac'] or '').ljust(6, '0')}", msg=m["msg"].strip())


def _position(src: str | None) -> str | None:
    """A source position as `file:line` (MindIE's Python logs write `model.py-61`)."""
    if src is None or ":" in src:
        return src
    return re.sub(r"-(\d+)$", r":\1", src)


def _own_header(line: str, state: BlockState) -> Fields | None:
    """A line under a framework's or a tool's own slog-like header (MindSpore's Python side and Lite, AMCT, the colon
    form of 2020-2021)."""
    m = _OWN_HEADER.match(line) or next((m for p in _OWN_HEADER_2020 if (m := p.match(line))), None)
    if not m:
        return None
    state.reset()
    fields = m.groupdict()
    fraction = m["ms"].zfill(3) + (m["us"] or "").zfill(3) if m["ms"] else "000000"
    msg = m["msg"].strip()
    if m.re is _OWN_HEADER_2020[0] and len(msg) > 1 and msg[0] == msg[-1] == '"':
        msg = msg[1:-1]   # the 2020 form quotes its message
    pid, pname = fields.get("pid"), (fields.get("pname") or "").strip()
    return Fields(KIND_CONSOLE, level=_OWN_LEVELS.get(m["level"], m["level"]), module=m["module"],
                  pid=number(pid) if pid else None, tid=fields.get("tid"), pname=pname or None,
                  src=fields.get("src"), func=fields.get("func"), time=f"{m['date']}T{m['hms']}.{fraction}", msg=msg)


def _npu_error(line: str, state: BlockState) -> Fields | None:
    m = _NPU_ERROR.match(line)
    if not m:
        return None
    state.reset()
    state.npu_error = True
    return Fields(KIND_NPU_MESSAGE, level="ERROR", msg=m["msg"].strip())


def _npu_advice(line: str, state: BlockState) -> Fields | None:
    """The indented advice line under `[Error]:` ("Rectify the fault based on the error information in ...")."""
    if not state.npu_error or not line[:1].isspace() or not line.strip():
        return None
    state.npu_error = False
    f = Fields(KIND_NPU_MESSAGE, msg=line.strip())
    f.extra["advice"] = True
    return f


def _npu_function(line: str, state: BlockState) -> Fields | None:
    m = _NPU_FUNCTION.match(line)
    if m:
        return Fields(KIND_NPU_MESSAGE, func=m["func"], msg=line.strip())
    return Fields(KIND_NPU_MESSAGE, msg=line.strip()) if _NPU_HINT.match(line) else None


# A plog header (`[ERROR] RUNTIME(pid,...)`: a module in capitals, then its fields, or a piece of one a paste cut) and
# torch_npu's dated line are not this form; a capitalised word followed by a word in title case (a tool's own
# sentence: `[ERROR] TBE Subprocess[...] raise error`) is. Tags in brackets after the level (`[ERROR][ProcessScale][64]
# msg`: a quantisation kernel's function and line) are left out of the message.
_BRACKET_LEVEL = re.compile(r"^\[(?P<level>ERROR|WARNING|WARN|INFO|DEBUG|FATAL|CRITICAL)\]:?"
                            r"(?:(?:\[[^\[\]\s]{1,60}\])+\s*|\s+)"
                            r"(?![A-Z][A-Z0-9_]*\b(?! [A-Z][a-z])|\d{4}-)(?P<msg>\S.*)$")
_LEVEL_NAMES = {"WARN": "WARNING", "CRITICAL": "FATAL"}


def _bracket_level(line: str, state: BlockState) -> Fields | None:
    """`[ERROR] the socversion ... does not match ...`: an install script's or tool's line, its level in brackets
    and no header after it (the plog, torch_npu and C10 forms, which have one, are read before)."""
    m = _BRACKET_LEVEL.match(line)
    if not m:
        return None
    state.reset()
    return Fields(KIND_REPORT, level=_LEVEL_NAMES.get(m["level"], m["level"]), msg=m["msg"].strip())


def _loader_error(line: str, state: BlockState) -> Fields | None:
    """`./prog: error while loading shared libraries: libX.so.N: cannot open shared object file`: the dynamic loader
    refused to start a program (its path comes first, so no start pattern gates this rule; a substring test does)."""
    if "error while loading shared libraries" not in line:
        return None
    state.reset()
    return Fields(KIND_REPORT, level="ERROR", msg=line.strip())


#: The rules, in the order they are tried.
RULES: tuple[tuple[str, Callable[[str, BlockState], Fields | None]], ...] = (
    ("block_msg", _block_msg),
    ("block_head", _block_head),
    ("pta", _pta),
    ("c10", _c10),
    ("npu_logger", _npu_logger),
    ("mindie", _mindie),
    ("own_header", _own_header),
    ("py_traceback", stacks.py_traceback),
    ("py_frame", stacks.py_frame),
    ("py_exception", stacks.py_exception),
    ("func_file_line", _func_file_line),
    ("traceback_marker", _traceback_marker),
    ("advice", _advice),
    ("hccl_cluster", _hccl_cluster),
    ("extend_info", _extend_info),
    ("npu_error", _npu_error),
    ("npu_advice", _npu_advice),
    ("npu_function", _npu_function),
    ("py_between", stacks.py_between),
    ("py_markers", stacks.py_markers),
    ("cpp_stack", stacks.cpp_stack),
    ("ms_stack", stacks.ms_stack),
    ("ms_report", stacks.ms_report),
    ("bracket_level", _bracket_level),
    ("loader_error", _loader_error),
)
#: Of the rules that read a line only when one of their patterns matches at its start, whatever the block state:
#: those patterns (grammar.parse_other tries such a rule only on a line one of them can begin; firsts.py).
STARTS: dict[str, tuple[re.Pattern, ...]] = {
    "block_msg": _BLOCK_MSGS, "pta": (_PTA,), "c10": (_C10,), "npu_logger": (_NPU_LOGGER,), "mindie": (_MINDIE,),
    "own_header": (_OWN_HEADER, *_OWN_HEADER_2020),
    "traceback_marker": (_TRACEBACK,), "advice": (_ADVICE,), "extend_info": (_EXTEND_INFO,), "npu_error": (_NPU_ERROR,),
    "npu_function": (_NPU_FUNCTION, _NPU_HINT), "bracket_level": (_BRACKET_LEVEL,), **stacks.STARTS,
}
