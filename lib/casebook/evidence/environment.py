"""Environment settings the bundle shows: printed in log lines (`TASK_QUEUE_ENABLE=1`,
`ASCEND_LAUNCH_BLOCKING: 0`, HCCL's `HCCL_EXEC_TIMEOUT set by environment to [600]s`) or stated by an attached dump
(env, pip list, version.info, npu-smi)."""
from __future__ import annotations

import re

from ..reading.grammar import KIND_ATTACHMENT
from ..reading.table import LogTable
from . import attachments
from .items import Fact

#: Variables whose value decides a known case; more come with the environment-dump reader.
#: vLLM-Ascend's shared-expert overlap is a key of its --additional-config (JSON on the command line or in a config
#: file), read the same way: `"multistream_overlap_shared_expert": true`.
VARIABLES = ("TASK_QUEUE_ENABLE", "ASCEND_LAUNCH_BLOCKING", "ASCEND_GLOBAL_LOG_LEVEL", "ASCEND_RT_VISIBLE_DEVICES",
             "ASCEND_HOST_LOG_FILE_NUM", "HCCL_EXEC_TIMEOUT", "HCCL_EVENT_TIMEOUT", "HCCL_CONNECT_TIMEOUT",
             "PER_STREAM_QUEUE", "HCCL_BUFFSIZE", "ASCEND_SLOG_PRINT_TO_STDOUT", "multistream_overlap_shared_expert")
#: HCCL states each variable it reads at start-up: `HCCL_EXEC_TIMEOUT set by environment to [600]s`.
_SETTING = re.compile(r"(?<![A-Za-z_])(?:export\s+)?(?P<name>" + "|".join(VARIABLES) + r")[\"']?\s*"
                      r"(?:=|:|is|set by environment to)\s*\[?(?P<value>[^\s,;\]\)}]+)")


#: Lines this family reads (any level; the reader keeps them in big files too).
KEEP = VARIABLES

def extract(log: LogTable) -> dict[str, Fact]:
    """Settings printed in log lines, then what attachments state that the lines do not; each with file and line."""
    facts = logged(log)
    for name, fact in attachments.extract(log).items():
        facts.setdefault(name, fact)
    return facts


def logged(log: LogTable) -> dict[str, Fact]:
    """The first value each variable is logged with, as a fact with its file and line."""
    hits = [r for r in log.picked(log.holding(KEEP))
            if r.kind != KIND_ATTACHMENT]   # an environment dump's lines are read whole by evidence/attachments.py
    facts: dict[str, Fact] = {}
    for file, line, msg in ((r.file, r.line, r.msg) for r in hits):
        for m in _SETTING.finditer(msg):
            value = m["value"].strip("'\"")
            if m["name"] not in facts and value:
                facts[m["name"]] = Fact(m["name"], value, "log", file, int(line))
    return facts
