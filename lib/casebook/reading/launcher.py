"""What torchrun prints about the workers it launched: its start-up banner and the summary it writes under
`ChildFailedError` when a worker dies. Each rule reads one named form and returns its Fields, or None.
"""
from __future__ import annotations

import re
from typing import Callable

from .fields import KIND_CONSOLE, KIND_REPORT, BlockState, Fields, number

#: the banner around torchrun's warning on OMP_NUM_THREADS, and that warning
_BANNER = re.compile(r"^\*{20,}\s*$")
_OMP_WARNING = re.compile(r"^Setting OMP_NUM_THREADS environment variable for each process to be \d+ in default\b")
#: the summary: `=====` rules around it, `train.py FAILED`, `Failures:` and `Root Cause (first observed failure):`
#: each with `[n]:` entries of `  key : value` fields (or `<NO_OTHER_FAILURES>`)
_RULE = re.compile(r"^={20,}\s*$")
_FAILED = re.compile(r"^(?P<script>\S+) FAILED\s*$")
_SECTION = re.compile(r"^(?P<title>Failures|Root Cause \(first observed failure\)):\s*$")
_ENTRY = re.compile(r"^\[(?P<n>\d+)\]:\s*$")
_FIELD = re.compile(r"^\s+(?P<key>time|host|rank|exitcode|error_file|traceback)\s*: ?(?P<value>.*)$", re.S)
_NONE = re.compile(r"^\s+<NO_OTHER_FAILURES>\s*$")
_RANK = re.compile(r"(?P<rank>\d+) \(local_rank: \d+\)")


def _banner(line: str, state: BlockState) -> Fields | None:
    if _BANNER.match(line):
        return Fields(KIND_REPORT, msg=line.strip())
    if _OMP_WARNING.match(line):
        return Fields(KIND_CONSOLE, level="WARNING", msg=line.strip())
    return None


def _summary(line: str, state: BlockState) -> Fields | None:
    if _RULE.match(line):
        return Fields(KIND_REPORT, msg=line.strip())
    m = _FAILED.match(line)
    if m:
        state.reset()
        state.report = "torchrun"
        f = Fields(KIND_REPORT, level="ERROR", msg=line.strip())
        f.extra["script"] = m["script"]
        return f
    if _SECTION.match(line) or _ENTRY.match(line):
        state.reset()
        state.report = "torchrun"
        return Fields(KIND_REPORT, msg=line.strip())
    if state.report != "torchrun":
        return None
    m = _FIELD.match(line)
    if m:
        f = Fields(KIND_REPORT, msg=line.strip())
        f.extra[m["key"]] = m["value"].strip()
        if m["key"] == "rank" and (r := _RANK.match(m["value"])):
            f.extra["rank"] = number(r["rank"])
        return f
    return Fields(KIND_REPORT, msg=line.strip()) if _NONE.match(line) else None


#: The rules, in the order they are tried.
RULES: tuple[tuple[str, Callable[[str, BlockState], Fields | None]], ...] = (
    ("torchrun_banner", _banner),
    ("torchrun_summary", _summary),
)
#: Of the rules that read a line only when one of their patterns matches at its start, whatever the block state:
#: those patterns (grammar.parse_other tries such a rule only on a line one of them can begin; firsts.py).
STARTS: dict[str, tuple[re.Pattern, ...]] = {"torchrun_banner": (_BANNER, _OMP_WARNING)}
