"""Device-side exception dumps: the task scheduler's `<exception_print>` register blocks in device logs.

An AI Core exception or an HWTS timeout makes the device's task scheduler (TSCH) log an ERROR line
("hwts aic exception, bitmap=..." / "hwts timeout exception bitmap=..."), then a dump:
`TIME:<t>, device_id=D, stream_id=S, task_id=T, exception_code=0x..`, the HWTS slot registers, and for an
AI Core exception one `####AICORE_INFO_START: core_id=C` section per core with `AIC_ERROR`, `PC_START` and
`CURRENT_PC`. Other TSCH lines may sit between the sections of one dump.
"""
from __future__ import annotations

import re

from ..knowledge.errcode import parse_int
from ..reading.grammar import KIND_EXCEPTION_PRINT, KIND_PLOG
from ..reading.table import LogTable
from .items import CoreDump, DeviceDump, LineRef

# ids and counts have at most 18 digits (reading.grammar.MAX_DIGITS): a longer run of digits matches nothing
_TIME = re.compile(r"^TIME:(?P<t>[\d:.-]+), device_id=(?P<dev>\d{1,18}), stream_id=(?P<stream>\d{1,18}), task_id=(?P<task>\d{1,18})(?!\d)"
                   r"(?:, exception_code=(?P<code>0x[0-9a-fA-F]+))?")
_CORE = re.compile(r"AICORE_INFO_START: core_id=(?P<core>\d{1,18})(?!\d)")
_REG = re.compile(r"^(?P<key>AIC_ERROR|PC_START|CURRENT_PC)=(?P<value>0x[0-9a-fA-F]+|\d{1,20})$")
# the TSCH line that opens a dump says what kind of exception it is
_TRIGGER = re.compile(r"hwts (?P<what>aic exception|timeout exception|sdma exception|aicpu exception)", re.I)
_KINDS = {"aic exception": "aicore_exception", "timeout exception": "hwts_timeout",
          "sdma exception": "sdma_exception", "aicpu exception": "aicpu_exception"}
_DETAIL = re.compile(r"^(?P<d>[a-z][a-z ]+(?:timeout|error|exception))$", re.I)


#: Lines this family reads besides the dumps themselves (the reader keeps them in big files too), and the registers of
#: a dump it reads (the reader keeps a dump's other registers out of the records: scan.select `dumps`).
KEEP = ("hwts ", "AIC_ERROR=", "PC_START=", "CURRENT_PC=")

def extract(log: LogTable) -> list[DeviceDump]:
    """Every exception dump in the device logs, with its cores' AIC_ERROR / PC_START / CURRENT_PC."""
    # the AI Core and incident families read the dumps too: build them once per log table
    return list(log.derive("device_dumps", _dumps))


def _dumps(log: LogTable) -> list[DeviceDump]:
    hits = log.picked(i for i, (kind, level, msg) in enumerate(zip(log.column("kind"), log.column("level"),
                                                                   log.column("msg")))
                      if kind == KIND_EXCEPTION_PRINT or (kind == KIND_PLOG and level == "ERROR" and KEEP[0] in msg))
    dumps: list[DeviceDump] = []
    # the lines of one dump are in one file: (file, src_file), the file a grep prefix quotes when there is one
    current: dict[tuple, DeviceDump] = {}
    trigger: dict[tuple, tuple[str, LineRef]] = {}
    core: dict[tuple, CoreDump] = {}
    for file, line, kind, time, msg, src, src_line in ((r.file, r.line, r.kind, r.time, r.msg, r.src_file, r.src_line)
                                                       for r in hits):
        # a reference is made only for the lines a dump cites: a register line needs none
        cite = lambda: LineRef(file, line, time, msg, src, src_line)
        where = (file, src)
        if kind == KIND_PLOG:
            m = _TRIGGER.search(msg)
            if m and not ("slot_id=" in msg and where in current):
                trigger[where] = (_KINDS[m["what"].lower()], cite())
            continue
        if m := _TIME.match(msg):
            ref = cite()
            what, tref = trigger.pop(where, ("exception", None))
            t = m["t"]
            iso = f"{t[:10]}T{t[11:19]}.{t[20:23]}{t[24:27]}" if len(t) >= 27 else ref.time
            dump = DeviceDump(file=file, line=int(line), time=iso, node=log.origin(file, src).node,
                              device=int(m["dev"]), stream_id=int(m["stream"]), task_id=int(m["task"]),
                              exception_code=m["code"].lower() if m["code"] else None, kind=what,
                              refs=[x for x in (tref, ref) if x is not None], src_file=src, src_line=src_line)
            dumps.append(dump)
            current[where] = dump
            core.pop(where, None)
            continue
        dump = current.get(where)
        if dump is None:
            continue
        if m := _CORE.search(msg):
            c = CoreDump(core=int(m["core"]), line=int(line), text=msg, src_line=src_line)
            dump.cores.append(c)
            core[where] = c
        elif (m := _REG.match(msg)) and where in core:
            setattr(core[where], m["key"].lower(), parse_int(m["value"]))
        elif (m := _DETAIL.match(msg)) and dump.detail is None:
            dump.detail = m["d"]
            dump.refs.append(cite())
    return dumps
