"""Super pods: which physical super pod each rank's link ran in, against the logical one the job configured.

On Atlas A3 super nodes, HCCL_LOGIC_SUPERPOD_ID groups nodes into a logical super pod, and HCCL links two ranks of one
logical super pod over the super node's virtual NICs. A failed link prints the local rank's "local rank information:
nicType[VNIC_TYPE], logicSuperPodId[logic_1], phySuperPodId[0]" (transport_manager.cc). HCCL's link-stage guide: when
the two ends share a logical id and differ in the physical one, the logical super pod spans two physical ones, and the
virtual link between them cannot come up.
"""
from __future__ import annotations

import re

from ..knowledge.messages import Note
from ..reading.table import LogTable
from .items import Fact

_LOCAL = re.compile(r"local rank information: nicType\[\w+\],\s*logicSuperPodId\[(?P<logic>[^\]]+)\],\s*"
                    r"phySuperPodId\[(?P<phy>-?\d+)\]")
#: Lines this family reads.
KEEP = ("phySuperPodId[",)


def extract(log: LogTable) -> dict[str, Fact]:
    """`logic_superpod_spans_physical`: true when ranks of one logical super pod report two physical ones; false when
    two or more processes report one logical super pod in one physical one."""
    seen: dict[str, dict[int, tuple[str, int]]] = {}
    processes: dict[str, set] = {}
    for i in log.holding(KEEP):
        r = log.record(i)
        m = _LOCAL.search(str(r.msg))
        if m is None:
            continue
        seen.setdefault(m["logic"], {}).setdefault(int(m["phy"]), (r.file, int(r.line)))
        processes.setdefault(m["logic"], set()).add((r.file, r.pid))
    for logic, phys in seen.items():
        if len(phys) > 1:
            file, line = sorted(phys.values())[1]     # the first line that names another physical super pod
            return {"logic_superpod_spans_physical": Fact(
                "logic_superpod_spans_physical", True, "log", file, line,
                note=Note("fact.superpod_spans", logic=logic, phys=", ".join(map(str, sorted(phys)))))}
    for logic, phys in seen.items():
        if len(processes[logic]) > 1:
            (phy, (file, line)), = phys.items()
            return {"logic_superpod_spans_physical": Fact(
                "logic_superpod_spans_physical", False, "log", file, line,
                note=Note("fact.superpod_one", logic=logic, phy=phy, n=len(processes[logic])))}
    return {}
