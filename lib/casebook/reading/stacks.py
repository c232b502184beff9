"""Stacks as a console shows them: Python tracebacks, native (c10, libstdc++, glibc) stacks, MindSpore's reports.

Rules of the same shape as screen.py's (one form each, Fields or None), tried in the order screen.RULES gives.
"""
from __future__ import annotations

import re

from .fields import KIND_PYTHON, KIND_REPORT, KIND_STACK, BlockState, Fields, number

# --- Python ---------------------------------------------------------------------------------------------------

_PY_TRACEBACK = re.compile(r"^\s*Traceback \(most recent call last\):\s*$")
_PY_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+))?$')
#: the name of an exception class as Python prints it (`NotImplementedError`, `torch.OutOfMemoryError`)
EXCEPTION_NAME = r"[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit)"
#: an exception line of its own: a class named ...Error, ...Exception, ...Interrupt or ...Exit, or one of the socket
#: module's, whose names end otherwise (`socket.gaierror: [Errno -2] Name or service not known`)
_PY_EXC = re.compile(rf"^(?P<exc>{EXCEPTION_NAME}(?:_\w+)?"
                     r"|socket\.(?:gaierror|herror|timeout)): ?(?P<msg>.*)$", re.S)
#: inside a traceback, the line after its frames is the exception whatever its class is named: a dotted name
#: (`pyarrow.lib.ArrowInvalid: ...`, `socket.gaierror: ...`) or a capitalised word (`StopIteration: ...`, `ArrowInvalid:
#: ...`); an all-capitals word is a level a log line printed amid the traceback (`WARNING: ...`), not a class
_PY_ANY_EXC = re.compile(r"^(?P<exc>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Z]\w*[a-z]\w*): (?P<msg>\S.*)$", re.S)
#: an exception as its repr prints it, where a framework logs `repr(e)` instead of the traceback:
#: `TypeError("CheckpointConfig.__init__() got an unexpected keyword argument 'strict'")`
_PY_REPR = re.compile(rf"""^(?P<exc>{EXCEPTION_NAME})\((?P<q>['"])(?P<msg>.+)(?P=q)\)\s*$""", re.S)
#: an exception raised without a message ends its traceback with its name alone: `NotImplementedError`
_PY_BARE_EXC = re.compile(rf"^(?P<exc>{EXCEPTION_NAME})\s*$")
#: what Python prints between the tracebacks of chained exceptions, and before one raised at exit or in a thread
_PY_BETWEEN = re.compile(r"^(?:During handling of the above exception, another exception occurred:"
                         r"|The above exception was the direct cause of the following exception:"
                         r"|Error in atexit\._run_exitfuncs:|Exception ignored in: .*|Exception in thread .+:)\s*$")
#: one or two spaces before a word: the indent a paste gave every line of a traceback
_PASTE_INDENT = re.compile(r"^ {1,2}\S")
#: Python 3.11's markers under a source line: `^^^^` where the failing expression is, `~~~` around it
_PY_MARKERS = re.compile(r"^\s*[~^]*\^[~^]*\s*$")


def py_traceback(line: str, state: BlockState) -> Fields | None:
    if not _PY_TRACEBACK.match(line):
        return None
    state.reset()
    state.in_python = True
    return Fields(KIND_PYTHON, msg=line.strip())


def py_frame(line: str, state: BlockState) -> Fields | None:
    """`File "x.py", line 12, in f`: a frame reads as one even when the paste left out the `Traceback` line."""
    m = _PY_FRAME.match(line)
    if not m:
        return None
    if not state.in_python:
        state.reset()
        state.in_python = True
    return Fields(KIND_PYTHON, src=f"{m['file']}:{m['line']}", func=m["func"], msg=line.strip())


#: the report state after an exception whose message ends with a colon: its details follow on indented lines
EXCEPTION_DETAILS = "exception details"
#: a detail line of such a message: torch's load_state_dict joins its errors with a newline and a tab
_PY_DETAIL = re.compile(r"^(?:\t| {4,8})(?P<msg>\S.*)$", re.S)


def py_exception(line: str, state: BlockState) -> Fields | None:
    """`XxxError: msg` or its repr `XxxError('msg')`; where it ends a traceback, also an exception of another name, or
    its name alone (elsewhere neither is an exception)."""
    m = (_PY_EXC.match(line) or _PY_REPR.match(line)
         or (_PY_ANY_EXC.match(line) or _PY_BARE_EXC.match(line) if state.in_python else None))
    if not m:
        return None
    state.reset()
    f = Fields(KIND_PYTHON, level="ERROR", msg=line.strip())
    f.extra["exception"] = m["exc"]
    if f.msg.endswith(":"):
        state.report = EXCEPTION_DETAILS
    return f


def py_exception_detail(line: str, state: BlockState) -> Fields | None:
    """An indented line under an exception whose message ended with a colon (`RuntimeError: Error(s) in loading
    state_dict for X:`, then a tab and `size mismatch for ...`): a part of that message, at its level."""
    m = _PY_DETAIL.match(line) if state.report == EXCEPTION_DETAILS else None
    return Fields(KIND_PYTHON, level="ERROR", msg=m["msg"].strip()) if m else None


def py_exception_shifted(line: str, state: BlockState) -> Fields | None:
    """Inside a traceback, an exception line a paste indented with the rest (` AssertionError`, one or two spaces: a
    source line under a frame has four more)."""
    return py_exception(line.lstrip(" "), state) if state.in_python and _PASTE_INDENT.match(line) else None


def py_between(line: str, state: BlockState) -> Fields | None:
    if not _PY_BETWEEN.match(line):
        return None
    state.reset()
    return Fields(KIND_PYTHON, msg=line.strip())


def py_markers(line: str, state: BlockState) -> Fields | None:
    return Fields(KIND_PYTHON, msg=line.strip()) if _PY_MARKERS.match(line) else None


# --- native call stacks and framework reports -------------------------------------------------------------------

#: c10::Error's stack: `Exception raised from operator() at f.ts:1130 (most recent call first):`, `frame #0: ...`
_CPP_RAISED = re.compile(r"^Exception raised from (?P<func>\S+) at (?P<src>\S+:\d+) \(most recent call first\):\s*$")
_CPP_FRAME = re.compile(r"^frame #(?P<n>\d+): (?P<msg>.*)$", re.S)
#: libstdc++ on an uncaught exception: `terminate called after throwing an instance of 'c10::Error'`, then
#: `  what():  <the exception's message>`
#: glibc's heap checks abort with one of these lines: the process's memory was corrupted
_GLIBC_ABORT = re.compile(r"^(?:free\(\): invalid (?:pointer|size)"
                          r"|double free or corruption ?\((?:out|top|fasttop|!prev)\)"
                          r"|malloc_consolidate\(\): invalid chunk size|malloc\(\): corrupted top size"
                          r"|corrupted size vs\. prev_size|munmap_chunk\(\): invalid pointer)\s*$")
_TERMINATE = re.compile(r"^terminate called (?:after throwing an instance of '(?P<type>[^']+)'|recursively)\s*$")
_WHAT = re.compile(r"^\s+what\(\):\s+(?P<msg>.*)$", re.S)
#: MindSpore's call stacks: `The function call stack:` then `In file /x.py:106/ code/`; `path.cc:917 Func`
_MS_STACK_TITLE = re.compile(r"^The function call stack(?: \(See file '[^']*' for more details[^)]*\))?:\s*$")
_MS_IN_FILE = re.compile(r"^In file (?P<src>\S+:\d+)/(?P<code>.*)/\s*$")
_MS_CC_FRAME = re.compile(r"^(?P<src>[\w./-]+\.(?:cc|cpp|h|c):\d+) (?P<func>[\w:~]+)\s*$")
#: MindSpore's error report: sections under a title (`- Ascend Error Message:`, `Kernel error:`), each between
#: rules of dashes; the messages under an error title state the error
_MS_RULE = re.compile(r"^-{20,}\s*$")
_MS_SEARCH = re.compile(r'^\(Please search "Ascend Error Message" at \S+ for error code description\)\s*$')
_MS_TITLE = re.compile(r"^(?:- )?(?P<title>(?:Ascend|Framework|Kernel|Python|C\+\+|Operator|Graph)"
                       r"(?: [A-Za-z+]+)*(?: Error(?: Message)?| Call Stack| error)):?"
                       r"(?: \(For framework developers\))?\s*$")


def cpp_stack(line: str, state: BlockState) -> Fields | None:
    m = _CPP_RAISED.match(line)
    if m:
        state.reset()
        return Fields(KIND_STACK, src=m["src"], func=m["func"], msg=line.strip())
    m = _CPP_FRAME.match(line)
    if m:
        f = Fields(KIND_STACK, msg=m["msg"].strip())
        f.extra["frame"] = number(m["n"])
        return f
    m = _TERMINATE.match(line)
    if m:
        state.reset()
        state.report = "terminate"
        f = Fields(KIND_STACK, level="ERROR", msg=line.strip())
        if m["type"]:
            f.extra["exception"] = m["type"]
        return f
    if _GLIBC_ABORT.match(line):
        state.reset()
        return Fields(KIND_STACK, level="ERROR", msg=line.strip())
    m = _WHAT.match(line)
    if m and state.report == "terminate":
        state.report = None
        return Fields(KIND_STACK, level="ERROR", msg=m["msg"].strip())
    return None


def ms_stack(line: str, state: BlockState) -> Fields | None:
    if _MS_STACK_TITLE.match(line):
        state.reset()
        state.report = "stack"
        return Fields(KIND_STACK, msg=line.strip())
    m = _MS_IN_FILE.match(line) or _MS_CC_FRAME.match(line)
    if m:
        return Fields(KIND_STACK, src=m["src"], func=m.groupdict().get("func"), msg=line.strip())
    return None


def ms_report(line: str, state: BlockState) -> Fields | None:
    if _MS_RULE.match(line) or _MS_SEARCH.match(line):
        state.in_block = state.in_python = False
        return Fields(KIND_REPORT, msg=line.strip())
    m = _MS_TITLE.match(line)
    if m:
        state.reset()
        state.report = "stack" if m["title"].endswith("Stack") else "error"
        f = Fields(KIND_REPORT, msg=line.strip())
        f.extra["section"] = m["title"]
        return f
    if state.report == "error" and line[:1].strip() and not state.in_block:
        return Fields(KIND_REPORT, level="ERROR", msg=line.strip())
    return None


#: Of these rules, those that read a line only when one of their patterns matches at its start (screen.STARTS).
STARTS: dict[str, tuple[re.Pattern, ...]] = {
    "py_traceback": (_PY_TRACEBACK,), "py_frame": (_PY_FRAME,), "py_exception": (_PY_EXC, _PY_REPR, _PY_ANY_EXC, _PY_BARE_EXC),
    "py_between": (_PY_BETWEEN,), "py_markers": (_PY_MARKERS,),
}
