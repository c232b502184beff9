"""The records that report an error: ERROR-level lines and error blocks, in a paste the lines of tools that
report an error without a level (torch_npu's warnings, a device's history and exception stream, msaicerr,
DCMI, the kernel) and the lines that say in words that something failed with a code, and in a paste that has no
such line at all, the lines that say in words that something failed (each bounded per file); and the codes those
records name."""
from __future__ import annotations

import re
from collections import Counter

from ..knowledge.literals import Haystack, required
from ..reading.bundle import ROLE_DEVICE_LOG, ROLE_DEVICE_OS_LOG, ROLE_SCREEN, ROLE_TEXT
from ..reading.device_text import OOM_KILL
from ..reading.stacks import EXCEPTION_NAME
from ..reading.table import LogTable, Record
from .codes import codes_in
from .items import CodeSighting

#: Roles of a file that is a paste (console output, copied lines), not a log file the job wrote.
PASTE_ROLES = (ROLE_SCREEN, ROLE_TEXT)
# Tools that print an error without an ERROR level; in a ticket these lines are the error, in a bundle the
# plog and the device's own logs tell it
_REPORTS = re.compile("|".join((
    r"\bNPU warning, error code is\s*:?\s*\d",            # torch_npu at teardown: an ACL call's failure
    r"\bsystem exception code \[0x[0-9a-fA-F]+\]",       # a device's hisi_logs history.log
    r"^\s*(?:(?:error )?code|AIC_ERROR)\s*:\s*0x[0-9a-fA-F]+\s*$",  # msaicerr's report: the AI Core error register
    r"(?i:\bdcmi\b).*\bfailed\b.*\bret is -\d+",        # npu-smi and DCMI
    r"\{\d+\}\[Hardware Error\]: Hardware error from",   # the kernel's APEI report of a memory error
    r"\b" + OOM_KILL + r"(?:ed)? process \d+",          # the kernel's OOM killer, its dmesg prefix cut
    r"^\s*Launch kernel failed: ",                       # MindSpore's kernel error block
    r"\bRTS_HWTS: [\w ]*(?:exception|error)\b",           # the driver's dump of an exception stream
    r"\bOther info\[\d+\]:.*\berror code=0x",            # ... and the task scheduler's code in it
    r"^\s*Load dynamic library: \S+ failed\b",           # MindSpore's device plugin that the loader refused
    r"^\s*\[Init\]\[Env\]init env failed\b",             # ACL's operator environment, printed without a level
    # the NPU driver installer that found no module for the running kernel and no build tree to make one with
    r"\btry build driver after input kernel absolute path\b",
    # an Ascend C kernel's own assert, printed as it stops (CANN 8.5 puts its version and a time stamp first)
    r"^\s*\[ASSERT\] (?:\[[^\]]*\]\s*)*\S+\.(?:cpp|cc|h|hpp|asc):\d+:(?:\s|$)",
)))
# The error manager's message without its pid and time, as CANN 5 and 6 print it ("E40002: The current Python version
# is ..."): a paste's, not a system log's (no literal narrows it, so it is tried on the paste lines alone)
_BARE_CODE = re.compile(r"^\s*E[A-Z0-9]\d{4}: (?!\[PID)\S")

# What a line says when it states a failure in words. A paste of one or two lines copied out of a console
# ("NPU out of memory. Tried to allocate ...", "unknown type name bfloat16_t") has no level and no block: its
# failure is said in words, and these are the words
_STATES = re.compile(r"(?i)\b(?:out of (?:device )?memory|not support(?:ed)?|unsupported|unknown type|can ?not|can't|"
                     r"could ?n[o']t|unable to|fail(?:ed|s|ure)?|errors?|invalid|incorrect|wrong|illegal|"
                     r"is not equal|mismatch(?:ed)?|(?:is|are) inconsistent|not found|no such file|no module named|"
                     r"not implemented|not registered|no \w+ (?:is )?registered|(?:is|are) incompatible|no suitable|"
                     r"has no attribute|not same|"
                     r"has not been|not allow(?:ed)? to|exceed(?:s|ed)?|overflow|timed? ?out|denied|refused|"
                     r"abort(?:ed)?|exception|"
                     r"segmentation fault|core dumped|killed|busy|but (?:got|actual(?:ly)?)|no (?:supported|valid|available)|"
                     # a checker's finding of a pair the code broke (msSanitizer's "Unpaired set_flag instructions")
                     r"unpaired|"
                     # a tool's own check of a path it was given: missing, or its owner and mode refused
                     r"does not exist|not exists?|security rules|check the folder owner|"
                     # an API's own check of an argument, worded as the rule it breaks ("widthStride(500) is not
                     # right, it should be 16 aligned!", "crop width 640 cannot be greater than input width 416",
                     # "the socversion X of bin package does not match the current device socversion Y")
                     r"(?:should|must) (?:not )?(?:be|have)|(?:is )?not right|unsupport|is not usable|"
                     # a rule stated as what is allowed ("simt_vf function can only call simt_callee function"), a
                     # symbol a library lacks ("aclnnX ... not in libopapi.so"), and a tool's advice where it printed no
                     # error of its own ("Please check the rtspUrl ...", "Please modify aclInit json")
                     r"can only (?:be|call|take|accept|run|use)|not in lib[\w.+-]*\.so|please (?:check|modify)|"
                     r"(?:does|do) ?n[o']t (?:match|have|contain)|not match|out of range|has already been created|"
                     r"(?:is|are|be) (?:greater|bigger|larger|smaller|less) than|(?:is|are) too (?:large|big|long|small|"
                     r"many|few)|(?:is|are) required|not available|undefined (?:reference|symbol)|not aligned|"
                     r"not (?:a )?valid|need to broadcast|SIG(?:SEGV|ABRT|BUS|ILL)|"
                     # a compiler's diagnostic where a paste cut its `error:` prefix
                     r"no matching (?:function|constructor) for call|use of undeclared identifier|no viable conversion|"
                     r"static assertion failed|redefinition of|"
                     # Python's own words for source it cannot parse, where a paste cut the SyntaxError's class
                     r"while scanning)\b|"
                     # a Python exception named by its class, where a paste cut its traceback ("ArrowInvalid: ...")
                     r"[a-z](?:Error|Exception|Invalid):|"
                     r"\bexpected:? ?[\[(]|"
                     # a test tool's own stop (hccl_test: "hccl interface return err ./common/src/...cc:499, retcode: 11")
                     r"return err\b|"
                     # pip's resolver giving up: its account of the conflict, whose pins follow on their own lines
                     r"\bconflict is caused by\b|"
                     # the same said in Chinese (a Chinese-locale console, a translated message): failed, error,
                     # does not match, not supported, timed out, abnormal, unable to, cannot find, does not exist
                     r"失败|错误|不匹配|不支持|超时|异常|无法|找不到|不存在|未找到")

#: How many lines that say they failed with a code a paste with error lines of its own adds per file: the first
#: error is among the first, and a console that repeats such a line at every step would otherwise make each of its
#: thousands of lines an error to place and classify.
TOLD_PER_FILE = 64
#: How many lines above a paste's first error line, when it is an exception without a message, are read as its start
#: where they say that something failed.
LEAD = 2
_BARE_EXCEPTION = re.compile(rf"^\s*{EXCEPTION_NAME}\s*:?\s*$")
#: The statement a traceback echoes above a bare AssertionError: the condition that failed is the message it lacks.
_ASSERT_ECHO = re.compile(r"^\s*assert\b")
#: The shell's word for a process that died of a signal, alone on its line: like a bare exception, it says nothing of
#: the cause, which the lines just above it print ("pthread_create failed ...", then "Segmentation fault (core dumped)")
_BARE_CRASH = re.compile(r"^\s*(?:(?:Segmentation fault|Aborted|Illegal instruction|Bus error|Floating point exception)"
                         r"(?: \(core dumped\))?|Killed)\s*$")
#: How many lines that say they failed a paste without any error line makes its errors, per file: a console that
#: states a failure at every step (a retry loop's "Call aclrtSetDevice failed, ret[107001]") would otherwise make
#: tens of thousands of lines errors to place, classify and rank, when its first few tell the case.
STATED_PER_FILE = 1000

# A device's own fault events, which its daemons log at EVENT level, not ERROR: a health event id (tsdaemon's
# `[TsdEVENT] Event id=0x8c17a005.`, a process it could not clean up) and a network port's link-fault flag in the port
# statistics (`rf_lf 1`, a remote or local fault on the fibre or cable): the lines the vendor's fault-diagnosis
# catalog reads as the fault
_DEVICE_FAULT = re.compile(r"\bEvent id=0x[0-9a-fA-F]{8}\b|\brf_lf [12]\b")
#: Lines besides error lines this family reads (the reader keeps them in big files too).
KEEP = ("Event id=", "rf_lf")

#: What every report line holds (one of these literals), read from the regex; and every line that says it failed.
_REPORTS_NEED = required(_REPORTS.pattern)
_STATES_NEED = required(_STATES.pattern)
_ASSERT_NEED = required(_ASSERT_ECHO.pattern)


def records(log: LogTable) -> list[Record]:
    """The error records of the log table, in its record order."""
    return log.derive("error_records", lambda t: t.picked(positions(t)))


def positions(log: LogTable) -> list[int]:
    """Where the error records are in the log table, ascending."""
    return log.derive("error_positions_said", _build)


def _build(log: LogTable) -> list[int]:
    err = log.error_positions()
    if faults := _device_faults(log):
        err = sorted(err + faults)
    pastes = _pastes(log)
    if not pastes:
        return err
    files, msgs, errs = log.column("file"), log.column("msg"), set(err)
    pasted = [(i, file, msg or "") for i, (file, msg) in enumerate(zip(files, msgs))
              if file in pastes and i not in errs]
    # the literals first (the log table's search of its distinct messages, shared with the families), then the
    # reports' regex on the few lines holding one
    if _REPORTS_NEED is None:
        extra = [i for i, _, msg in pasted if _REPORTS.search(msg)]
    else:
        holding = set(log.holding(_REPORTS_NEED.alternatives)) if not _REPORTS_NEED.folded else {
            pasted[k][0] for k in Haystack([msg for _, _, msg in pasted]).holding(_REPORTS_NEED)}
        extra = [i for i, _, msg in pasted if i in holding and _REPORTS.search(msg)]
    system = {f.path for f in log.files if f.system}
    taken = set(extra)
    coded = [i for i, file, msg in pasted if file not in system and i not in taken and _BARE_CODE.search(msg)]
    taken.update(coded)
    # a paste with no error line of any kind: the lines that say it failed are its errors; not a system log (an OS,
    # install or kernel log: reading/system_log.py), whose routine lines use those words, and whose failures carry
    # a level or a tool's report
    silent = {file for _, file, _ in pasted} - {files[i] for i in err} - {files[i] for i in taken} - system
    unsaid = [(i, file, msg) for i, file, msg in pasted if file not in system and i not in taken]
    hay = Haystack([msg for _, _, msg in unsaid])
    echoes = [unsaid[k] for k in hay.holding(_ASSERT_NEED) if _ASSERT_ECHO.match(unsaid[k][2])]
    if _STATES_NEED is not None:   # the wordings' literals first: one search over them all, the regex on the rest
        unsaid = [unsaid[k] for k in hay.holding(_STATES_NEED)]
    said = sorted({*((i, file, msg) for i, file, msg in unsaid if _STATES.search(msg)), *echoes})
    # an exception that says nothing ("RuntimeError:" alone) or a bare crash reports words a console printed just above
    # it ("Cannot find bin of op X", the assert statement a traceback echoes): the lines right before such an error line
    # are its start
    lines, errs = log.column("line"), set(err)
    # in a paste that has error lines, a line that says it failed and names the code it failed with ("Kernel task
    # happen error, retCode=0x26", "Call aclrtSetDevice failed, ret[107001]") is a report of its own beside them
    stated, per_file = [], Counter()
    for at, file, msg in said:
        if _starts_bare(at, files, lines, msgs, errs):
            stated.append(at)
        elif _ASSERT_ECHO.match(msg):   # an assert statement is a failure only as the start of a bare exception
            continue
        elif file in silent:
            if per_file[file] < STATED_PER_FILE:
                per_file[file] += 1
                stated.append(at)
        # a file's lines past its bound are not read for codes at all: a flood costs one counter test a line
        elif per_file[file] < TOLD_PER_FILE and codes_in(msg):
            per_file[file] += 1
            stated.append(at)
    return sorted(err + list(taken) + stated)


def _starts_bare(at: int, files: list, lines: list, msgs: list, errs: set[int]) -> bool:
    """Whether an error line that says nothing of its own (a bare exception or crash) follows the record at `at`
    within LEAD lines of its file."""
    for k in range(at + 1, min(at + 1 + LEAD, len(lines))):
        if files[k] != files[at] or lines[k] - lines[at] > LEAD:
            return False
        if k in errs and (_BARE_EXCEPTION.match(msgs[k] or "") or _BARE_CRASH.match(msgs[k] or "")):
            return True
    return False


def _device_faults(log: LogTable) -> list[int]:
    """Where a device log's EVENT lines report a fault of the device, ascending."""
    device_side = set(log.in_roles((ROLE_DEVICE_LOG, ROLE_DEVICE_OS_LOG)))
    if not device_side:
        return []
    levels, msgs = log.column("level"), log.column("msg")
    return [i for i in log.holding(KEEP)
            if i in device_side and levels[i] == "EVENT" and _DEVICE_FAULT.search(msgs[i] or "")]


def is_paste(log: LogTable, file: str) -> bool:
    """Whether a file read is a paste: its lines are in the order they were printed, its times sparse."""
    return file in _pastes(log)


def _pastes(log: LogTable) -> frozenset[str]:
    return log.derive("paste_files", lambda t: frozenset(f.path for f in t.files if f.role in PASTE_ROLES))


def code_sightings(log: LogTable) -> list[CodeSighting]:
    """Every code in every error line, with its file and line."""
    out: list[CodeSighting] = []
    for file, line, time, code, msg in ((r.file, r.line, r.time, r.code, r.msg) for r in records(log)):
        seen = set()
        pairs = codes_in(msg)
        if isinstance(code, str):
            pairs = ((code, "pta" if code.startswith("ERR") else "ecode"), *pairs)
        for c, family in pairs:
            if c not in seen:
                seen.add(c)
                out.append(CodeSighting(c, family, file, int(line), time, msg))
    return out
