"""Lines that state a cause in words: a framework, the runtime, the driver or pip saying what it found ("may be other
processes occupying this card", "some devices are used by other docker", "te 0.4.0 requires decorator, which is not
installed"). Such a line is evidence for the fact it states, cited to its file and line, so no
question is asked about it.
"""
from __future__ import annotations

import re
from typing import Iterable

from ..knowledge.terms import alternatives
from ..reading.table import LogTable
from .items import Fact

#: HCCL's heartbeat report of ranks in different operators: it states two facts.
_OPS_INCONSISTENT = re.compile(r"\[Op Inconsistent Occurred\]|communication operator is inconsistent")
#: (fact, value, regex) of the statements read.
STATEMENTS: tuple[tuple[str, object, re.Pattern], ...] = (
    ("other_processes_on_card", True,
     re.compile(r"(?i)other process(?:es)? (?:is |are )?occupying (?:this|the) (?:card|device)|"
                r"(?:card|device|npu) (?:may be |might be |is )?(?:occupied|in use) by (?:an)?other process")),
    # the NPU driver's kernel log when a container opens a card another container holds
    ("card_held_by_other_container", True,
     re.compile(r"(?i)\bdevices? (?:is |are )?(?:used|occupied|in use) by (?:an)?other (?:docker|container)s?\b")),
    # MindSpore's own version check at import or run_check(): "MindSpore version 2.3.1 and Ascend AI software package
    # (Ascend Data Center Solution)version 7.5 does not match", the same for its "te" and "hccl" wheels
    ("mindspore_matches_cann", False,
     re.compile(r"MindSpore version \S+ and .{0,80}?version \S+ does not match")),
    # ... or skipped it, for a CANN installed in a path of the user's own
    ("mindspore_version_checked", False, re.compile(r"package version checking is skipped")),
    # pip's resolver naming a module that a Python package shipped with CANN needs and the interpreter lacks
    ("cann_python_deps_installed", False,
     re.compile(rf"^\s*{alternatives('cann_python_packages')} [\w.+-]+ requires [\w.\[\]-]+, which is not installed")),
    # a CANN package's installer finding that the user cannot write where it installs, warned before it fails to
    # create a folder there
    ("install_path_writable", False, re.compile(r"(?i)does not have sufficient permissions")),
    # the operating system refusing a bind: whatever the level the framework logs it at, the port was taken
    ("port_in_use", True, re.compile(r"(?i)\baddress already in use\b|\bEADDRINUSE\b")),
    # a stack that measured /dev/shm against what it needs (Ray's raylet at WARNING, MindIE's backend at ERROR)
    ("shm_too_small_for_job", True,
     re.compile(r"memory available in /dev/shm\b|Shared memory available is not enough\b")),
    # HCCL's heartbeat, whose operator check compares the ranks' operators, finding them inconsistent
    ("collective_sequence_differs", True, _OPS_INCONSISTENT),
    ("collective_order_differs", True, _OPS_INCONSISTENT),
    # pip saying it put a command in a folder the shell does not search
    ("command_folder_on_path", False, re.compile(r"is installed in '[^']+' which is not on PATH")),
    # torch_npu's CPU fallback taking a custom op of a CUDA serving or kernel library: the library's CUDA kernel path
    # runs on an NPU install (an aten op that falls back is torch's own, and may well run on the CPU)
    ("framework_op_runs_on_npu", False,
     re.compile(rf"The operator '{alternatives('cuda_op_namespaces', 'cuda_kernel_libraries')}::\w+(?:\.\w+)?' is not "
                r"currently supported on the NPU backend")),
)
#: Lines this family reads (the literals keep their case: "lready in use" holds both "Address already in use" and
#: the lower-case "address already in use" some frameworks print).
KEEP = ("occupying", "occupied by", "in use by", "used by other", "which is not installed", "does not match",
        "version checking is skipped", "sufficient permissions", "which is not on PATH", "lready in use",
        "EADDRINUSE", "supported on the NPU backend", "memory available in /dev/shm", "Shared memory available is not",
        "Op Inconsistent Occurred", "operator is inconsistent")


def _stated(log: LogTable) -> list[tuple[int, str, object]]:
    """(position, fact, value) of every statement the log table's lines make, in line order (built once)."""
    def build(t: LogTable) -> list[tuple[int, str, object]]:
        msgs = t.column("msg")
        return [(i, name, value) for i in t.holding(KEEP) for name, value, pattern in STATEMENTS
                if pattern.search(str(msgs[i]))]
    return log.derive("statements", build)


def positions(log: LogTable) -> list[int]:
    """Where the lines stating one of the facts are in the log table, ascending: whatever their level (MindSpore
    states its version check's finding as a WARNING), each is read as a message too, as an error line is."""
    return list(dict.fromkeys(i for i, _, _ in _stated(log)))


def extract(log: LogTable) -> dict[str, Fact]:
    """Each fact as the first line stating it gives it, with its file and line, and the later lines stating it."""
    return facts_stated(log, _stated(log))


def facts_stated(log: LogTable, stated: Iterable[tuple[int, str, object]]) -> dict[str, Fact]:
    """The facts (position, fact, value) lines state, in line order: each as its first line gives it, citing its file
    and line and the later lines that state the same (the other families that read facts from lines use it too)."""
    lines: dict[tuple[str, object], list[tuple[str, int]]] = {}
    for i, name, value in stated:
        r = log.record(i)
        lines.setdefault((name, value), []).append((r.file, int(r.line)))
    facts: dict[str, Fact] = {}
    for (name, value), ((file, line), *more) in lines.items():
        if name not in facts:   # the first value stated, should a later line say otherwise
            facts[name] = Fact(name, value, "log", file, line, more=tuple(more))
    return facts
