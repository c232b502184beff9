"""Device and hardware text: what the device, the kernel and the device tools print, read line by line.

The device's `<exception_print>` register dump, the hisi_logs `history.log` records, kernel ring-buffer lines
(dmesg, the bbox `kbox.txt`) with the APEI `[Hardware Error]` records in them, the exception stream the task
scheduler reports to the console of a 310P, the tables npu-smi and ascend-dmi draw, msaicerr's `info.txt`, and
the failure lines of the driver's and DCMI's user libraries (npu-smi prints them). Each rule reads one named
form and returns its Fields, or None.
"""
from __future__ import annotations

import re
from typing import Callable

from .fields import (KIND_ATTACHMENT, KIND_BBOX, KIND_CONSOLE, KIND_EXCEPTION_PRINT, KIND_KERNEL, KIND_REPORT,
                     BlockState, Fields, number)

_EXCEPTION_PRINT = re.compile(r"^<exception_print>(?P<msg>.*)$", re.S)
#: A row of the memory words a dump prints after its registers (`<exception_print> 0x16500: 0x0 0x0 ...`, the unified
#: buffer's contents): an AI Core exception prints thousands of them, and no evidence family reads one.
_MEMORY_ROW = re.compile(r"<exception_print> 0x[0-9a-fA-F]+:(?: 0x[0-9a-fA-F]+)+ *")
#: One register of a dump (`<exception_print>HWS_REG_AIC_BASE_ADDR[0]=0x6000b0000000`, `...SQ_STATUS(sq_head)=0x1`):
#: a dump prints a thousand, and the families read a few of them by name (device_dump.KEEP)
_REGISTER_ROW = re.compile(r"<exception_print>[A-Z][A-Z0-9_]*(?:\[[A-Za-z0-9_]*\]|\([A-Za-z0-9_]*\))?=")
_BBOX = re.compile(r"^\[(?P<date>\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{6})\] (?P<msg>.*)$", re.S)
#: The NPU driver's own kernel lines (hicann/driver, sdk_driver/inc/dmc/dmc_log.h): `[ascend] [ERROR] [module] [func n]`
#: for an error, `[ascend] [module] [func n]` for the rest (the level then is the kernel's alone), and in the ring
#: buffer the host log agent writes out as `host_kernel.log`, `[ascend] [module] [LEVEL] [func n]` behind its date
#: and, in later drivers, the time since boot; the caller's `<comm:pid:tid>` follows
_DRIVER = re.compile(r"\[ascend\] (?:\[(?P<lead>[A-Z]+)\] )?\[[\w.-]+\](?: \[(?P<level>[A-Z]+)\])?(?= )")
_DRIVER_LEVELS = {"ERROR": "ERROR", "WARN": "WARNING", "WARNING": "WARNING", "INFO": "INFO", "NOTICE": "EVENT",
                  "EVENT": "EVENT", "DEBUG": "DEBUG"}
#: The time since boot the ring buffer puts after the date (`[2026-03-02-10:11:12.123456] [812.004512] [ascend] ...`)
_RING_UPTIME = re.compile(r"\[\s*(?P<uptime>\d+\.\d{6})\] ")
#: The printing task or CPU a kernel built with CONFIG_PRINTK_CALLER puts after the time: `[50041.360862][  T613] `
_CALLER = re.compile(r"\[\s*(?P<caller>[TC]\d+)\] ?")
#: `[ 3981.402215] msg`: seconds since boot; APEI prints `{4}[Hardware Error]: ...` for each field of a record
#: `dmesg -T` prints the wall time instead: `[Thu Nov 28 11:56:34 2024] msg`
_KERNEL = re.compile(r"^\[(?:\s*(?P<uptime>\d+\.\d{6})"
                     r"|(?P<wall>[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}))\] ?(?P<msg>.*)$", re.S)
#: The kernel's lines as syslog keeps them (/var/log/messages, syslog, an asys collection's host `message/`):
#: `May  8 10:00:01 node7 kernel: [812044.317300] msg`, the time since boot kept when the kernel printed it; the
#: months spelt out, so the rule is tried only on lines that start with a month's initial
_SYSLOG_KERNEL = re.compile(r"^(?P<stamp>(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d) "
                            r"(?P<host>\S+) (?:kern\.(?P<priority>[a-z]+) )?kernel: "
                            r"(?:\[\s*(?P<uptime>\d+\.\d{6})\] ?)?(?P<msg>.*)$", re.S)
#: The kernel's priorities that state an error, as a syslog that writes `facility.priority` (BusyBox's, on the device
#: OS: `May  8 17:48:37 (none) kern.err kernel: ...`) keeps them
_ERROR_PRIORITIES = {"err", "crit", "alert", "emerg"}
#: The kernel lines that report an error in their own words: APEI's hardware error records, and the OOM killer's
#: account of the process it killed (`Out of memory: Killed process 52111 (python3)`, the memory cgroup's twin); its
#: `invoked oom-killer` and `oom-kill:` lines before it are the same event, read as its context
#: The OOM killer's own words for a kill, as the kernel prints them (the paste reader, evidence/errors.py, reads them too)
OOM_KILL = r"(?:Memory cgroup out|Out) of memory: Kill"
#: The kernel's watchdogs finding a CPU that stopped: `NMI watchdog: Watchdog detected hard LOCKUP on cpu 34` (no
#: interrupt served; newer kernels put `CPU3: ` before it), `watchdog: BUG: soft lockup - CPU#12 stuck for 23s!` (no
#: other task scheduled), and the RCU stall detector's `rcu: INFO: rcu_sched self-detected stall on CPU` / `detected
#: stalls on CPUs/tasks`
LOCKUP = (r"(?:NMI )?watchdog: (?:CPU\d+: )?(?:Watchdog detected hard LOCKUP|BUG: soft lockup)|BUG: soft lockup - CPU#"
          r"|(?:rcu: )?INFO: rcu_\w+ (?:self-)?detected stalls?\b")
_KERNEL_ERROR = re.compile(r"^(?:\{\d+\})?\[Hardware Error\]:|^" + OOM_KILL + "|^(?:" + LOCKUP + ")")
#: the task scheduler's exception stream, printed by the runtime on a 310P:
#: `DEVICE[0] PID[358]:`, `EXCEPTION STREAM:`, then `Exception info:`, `Message info[0]:`, `Other info[0]:` lines
_TS_DEVICE = re.compile(r"^DEVICE\[(?P<device>\d+)\] PID\[(?P<pid>\d+)\]:\s*$")
_TS_STREAM = re.compile(r"^EXCEPTION STREAM:\s*$")
_TS_INFO = re.compile(r"^\s*(?P<part>Exception|Message|Other) info(?:\[\d+\])?:\s*(?P<msg>.*)$", re.S)
_TS_ERROR_CODE = re.compile(r"\berror code=0x[0-9a-fA-F]+")
#: the tables npu-smi and ascend-dmi draw: `+----+----+` borders (`+====+` under the heading), `| cell | cell |` rows
#: inside them; npu-smi's first row names the tool and its version
_TABLE_BORDER = re.compile(r"^\+[-=+]{10,}\+\s*$")
_TABLE_TITLE = re.compile(r"^\|\s*(?:npu-smi|ascend-dmi) \S+\s+Version:")
_TABLE_ROW = re.compile(r"^\|.*\|\s*$")
#: msaicerr's info.txt: numbered sections between stars, `key : value` fields, the instructions around the fault
_AICERR_SECTION = re.compile(r"^\*{5,}\s*(?P<n>\d+)\.\s*(?P<title>[A-Za-z][\w ]*?)\s*\*{5,}\s*$")
_AICERR_FIELD = re.compile(r"^(?P<key>[A-Za-z][\w ]*?)\s*:\s*(?P<value>\S.*)$", re.S)
_AICERR_BITS = re.compile(r"^\w+ bit\[\d+:\d+\]=[01]+ meaning:")
_AICERR_INSTRUCTION = re.compile(r"^(?:\* )?[0-9a-fA-F]+: \S")
_AICERR_SOURCE = re.compile(r"^/\S+:\d+\s*$")
_AICERR_PROSE = re.compile(r"^(?:related instructions \(error occured before the mark \*\):"
                           r"|For complete instructions, please view \S+)\s*$")
#: the field msaicerr names the AI Core error code in
_AICERR_CODE = "code"
#: the driver's and DCMI's user libraries: `DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)`,
#: `dcmi module initialize failed. ret is -8005`; later drivers give the reason too: `dcmi model initialized failed,
#: because the device is used. ret is -8020`
_DRIVER_FAILED = re.compile(r"^(?P<func>[A-Za-z_]\w*(?: \w+)*) failed(?:, because [^.]+)?\.? ?"
                            r"(?:\((?P<args>\w+=[^)]*)\)|ret is (?P<ret>-?\d+))\s*$")


def _exception_print(line: str, state: BlockState) -> Fields | None:
    m = _EXCEPTION_PRINT.match(line)
    return Fields(KIND_EXCEPTION_PRINT, msg=m["msg"].strip()) if m else None


def register_row(line: str) -> bool:
    """Whether a line is one register of a device dump: the scanner's `dumps` test of a register, written in Python
    (a register the families read holds one of their literals, and is picked for it)."""
    return _REGISTER_ROW.match(line) is not None


def memory_row(line: str) -> bool:
    """Whether a line is one row of a device dump's memory words (an exception_print line no evidence reads): the
    scanner's `dumps` test, written in Python (the scanner's model in the tests)."""
    return line.startswith("<exception_print> 0x") and _MEMORY_ROW.fullmatch(line) is not None


def _bbox(line: str, state: BlockState) -> Fields | None:
    """A line behind its date: the bbox history's, or the NPU driver's in its host log (a kernel line)."""
    m = _BBOX.match(line)
    if not m:
        return None
    d = m["date"]
    time, msg = f"{d[:10]}T{d[11:19]}.{d[20:]}", m["msg"].strip()
    ring = _RING_UPTIME.match(msg)
    rest = msg[ring.end():] if ring else msg
    driver = _DRIVER.match(rest)
    if driver is None:
        return Fields(KIND_BBOX, time=time, msg=msg)
    f = Fields(KIND_KERNEL, level=_driver_level(driver), time=time, msg=rest)
    if ring:
        f.extra["uptime"] = ring["uptime"]
    return f


def _driver_level(driver: re.Match) -> str | None:
    """The level the NPU driver's prefix states (None: the prefix states none, the kernel's level alone says it)."""
    said = driver["lead"] or driver["level"]
    return _DRIVER_LEVELS.get(said) if said else None


def _kernel(line: str, state: BlockState) -> Fields | None:
    """A kernel line: dmesg's (the time since boot, or `dmesg -T`'s wall time), or syslog's copy of it."""
    m = _KERNEL.match(line) or _SYSLOG_KERNEL.match(line)
    if not m:
        return None
    msg = m["msg"].strip()
    caller = _CALLER.match(msg) if m["uptime"] else None
    if caller:
        msg = msg[caller.end():]
    if _KERNEL_ERROR.match(msg) or (m.re is _SYSLOG_KERNEL and m["priority"] in _ERROR_PRIORITIES):
        level = "ERROR"
    else:
        level = _driver_level(driver) if (driver := _DRIVER.match(msg)) else None
    f = Fields(KIND_KERNEL, level=level, msg=msg)
    if m["uptime"]:
        f.extra["uptime"] = m["uptime"]
    if caller:
        f.extra["caller"] = caller["caller"]
    if m.re is _SYSLOG_KERNEL:
        f.extra.update(syslog_time=m["stamp"], host=m["host"])
    elif not m["uptime"]:
        f.extra["wall_time"] = m["wall"]
    return f


def _ts_stream(line: str, state: BlockState) -> Fields | None:
    m = _TS_DEVICE.match(line)
    if m:
        state.reset()
        state.report = "ts_stream"
        f = Fields(KIND_REPORT, pid=number(m["pid"]), msg=line.strip())
        f.extra["device"] = number(m["device"])
        return f
    if _TS_STREAM.match(line):
        state.report = "ts_stream"
        return Fields(KIND_REPORT, msg=line.strip())
    m = _TS_INFO.match(line)
    if not m:
        return None
    # the message names the exception, the other info its error code: both state the fault
    stated = m["part"] == "Message" or bool(_TS_ERROR_CODE.search(m["msg"]))
    return Fields(KIND_REPORT, level="ERROR" if stated else None, msg=line.strip())


def _table(line: str, state: BlockState) -> Fields | None:
    """A line of npu-smi's or ascend-dmi's table, read as an attachment (attachments.py reads what it states)."""
    if _TABLE_BORDER.match(line) or _TABLE_TITLE.match(line):
        state.reset()
        state.report = "table"
        return Fields(KIND_ATTACHMENT, msg=line.strip())
    if state.report == "table" and _TABLE_ROW.match(line):
        return Fields(KIND_ATTACHMENT, msg=line.strip())
    return None


def _aicerr(line: str, state: BlockState) -> Fields | None:
    m = _AICERR_SECTION.match(line)
    if m:
        state.reset()
        state.report = "aicerr"
        f = Fields(KIND_REPORT, msg=line.strip())
        f.extra["section"] = m["title"]
        return f
    if state.report != "aicerr":
        return None
    m = _AICERR_FIELD.match(line)
    if m:
        f = Fields(KIND_REPORT, level="ERROR" if m["key"] == _AICERR_CODE else None, msg=line.strip())
        f.extra[m["key"]] = m["value"].strip()
        return f
    if any(p.match(line) for p in (_AICERR_BITS, _AICERR_INSTRUCTION, _AICERR_SOURCE, _AICERR_PROSE)):
        return Fields(KIND_REPORT, msg=line.strip())
    return None


def _driver_failed(line: str, state: BlockState) -> Fields | None:
    m = _DRIVER_FAILED.match(line)
    return Fields(KIND_CONSOLE, level="ERROR", func=m["func"], msg=line.strip()) if m else None


#: The rules, in the order they are tried.
RULES: tuple[tuple[str, Callable[[str, BlockState], Fields | None]], ...] = (
    ("exception_print", _exception_print),
    ("bbox", _bbox),
    ("kernel", _kernel),
    ("ts_stream", _ts_stream),
    ("table", _table),
    ("aicerr", _aicerr),
    ("driver_failed", _driver_failed),
)
#: Of the rules that read a line only when one of their patterns matches at its start, whatever the block state:
#: those patterns (grammar.parse_other tries such a rule only on a line one of them can begin; firsts.py).
STARTS: dict[str, tuple[re.Pattern, ...]] = {
    "exception_print": (_EXCEPTION_PRINT,), "bbox": (_BBOX,), "kernel": (_KERNEL, _SYSLOG_KERNEL),
    "ts_stream": (_TS_DEVICE, _TS_STREAM, _TS_INFO), "driver_failed": (_DRIVER_FAILED,),
}
