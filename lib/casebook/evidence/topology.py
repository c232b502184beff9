"""Process <-> device <-> thread <-> rank map, keyed by (node, pid).

Proof that a process drives a device is a line of that process naming the device from one of its
threads: the set-device forms of the format catalog (runtime, ACL, TDT, profiling and torch_npu lines, with
the thread from the header or, for TDT and profiling, from the message), or any runtime line carrying
`device_id=N` with its thread id. A line that says it logs the driver's (physical) id is kept apart from
the ids the job uses, so one card is not counted twice under ASCEND_RT_VISIBLE_DEVICES. HCCL's mentions of
peers and ASCEND_RT_VISIBLE_DEVICES logical ids prove nothing about the process itself.
"""
from __future__ import annotations

import re

from ..knowledge import formats
from ..reading.bundle import ROLE_DEVICE_LOG, ROLE_HOST_PLOG
from ..reading.table import LogTable
from . import membership, ranks
from .items import LineRef, ProcessTopology, Topology

# ids and counts have at most 18 digits (reading.grammar.MAX_DIGITS): a longer run of digits matches nothing
_DEVICE_ID = re.compile(r"\bdevice_id=(\d{1,18})(?!\d)")
_PROOF_MODULES = ("RUNTIME", "ASCENDCL", "APP", "TDT", "PROFILING")
_SET = formats.select("set_device", "set")
#: Lines this family reads besides error lines; of a big file the reader also keeps the first `device_id=`
#: line of each thread and device (scan.DEVICE_SAMPLE), which is what this family needs of them.
KEEP = _SET.keep


def extract(log: LogTable) -> Topology:
    """Who drove which device, from set-device and `device_id=` lines with a thread id."""
    modules, pids = log.column("module"), log.column("pid")
    cand = log.picked(i for i in log.holding(KEEP + ("device_id=",))
                      if modules[i] in _PROOF_MODULES and pids[i] is not None)
    procs: dict[tuple, ProcessTopology] = {}
    for file, line, time, pid, tid, msg, src, src_line in (
            (r.file, r.line, r.time, r.pid, r.tid, r.msg, r.src_file, r.src_line) for r in cand):
        if pid < 0:
            continue
        hit = _SET.first(msg)
        tid = hit.values.get("tid", tid) if hit else tid
        m = None if hit else _DEVICE_ID.search(msg)
        if tid is None or not (hit or m):
            continue
        device = hit.int("device") if hit else int(m[1])
        node = log.origin(file, src).node
        p = procs.setdefault((node, int(pid)), ProcessTopology(node=node, pid=int(pid)))
        p.set_device_seen |= hit is not None
        seen = p.physical_devices if hit and hit.form.ids == formats.PHYSICAL else p.devices
        threads = seen.setdefault(device, set())
        if str(tid) not in threads:
            threads.add(str(tid))
            p.refs.append(LineRef(file, int(line), time, msg, src, src_line))
    # a process's own HCCL init line gives its rank and that rank's device; it is kept apart from `devices`,
    # which holds only what the process's runtime lines prove
    for (node, pid), info in membership.identities(log).items():
        p = procs.setdefault((node, pid), ProcessTopology(node=node, pid=pid))
        p.ranks[info.rank] = info.device
        if info.ref is not None:
            p.refs.append(info.ref)
    # every process the text shows counts, whether or not its own lines name a device (a pasted console too)
    named = list(dict.fromkeys((file, pid, src) for file, pid, src in zip(log.column("file"), pids,
                                                                       log.column("src_file")) if pid is not None))
    aliases = _aliases(log, named)
    for file, pid, src in named:
        if int(pid) >= 0:
            node = log.origin(file, src).node
            procs.setdefault((node, int(pid)), ProcessTopology(node=node, pid=int(pid)))
    # ... and every process that wrote a plog of its own, whichever of its lines a reading kept as records (a big
    # plog is read selectively: a compile worker that logged only INFO lines is a process of the job all the same)
    for f in log.files:
        if f.role == ROLE_HOST_PLOG and f.pid is not None and not f.skipped:
            pid = aliases.get((f.node, f.pid), f.pid)
            procs.setdefault((f.node, pid), ProcessTopology(node=f.node, pid=pid))
    # the device-side copy of a process's log (`device-<id>/device-<pid>_<time>.log`) shows it ran on that device;
    # it names no thread, so it is kept apart from `devices` as well; a path a grep prefix quotes shows it too.
    # The pid in a file name is the host's view of the process: when its plog's lines carry another pid (a
    # container's), the process is that one, not a second
    for f in log.files + log.sources:
        if f.role == ROLE_DEVICE_LOG and f.pid is not None and f.device is not None and not f.skipped:
            pid = aliases.get((f.node, f.pid), f.pid)
            procs.setdefault((f.node, pid), ProcessTopology(node=f.node, pid=pid)).path_devices[f.device] = f.path
    return Topology(processes=sorted(procs.values(), key=lambda p: (p.node or "", p.pid)), ranks=ranks.extract(log))


def _aliases(log: LogTable, named: list[tuple]) -> dict[tuple, int]:
    """(node, pid in a host plog's file name) -> the one pid its lines carry, where the two differ (`named`: the
    distinct (file, pid, src_file) of the records with a pid)."""
    carried: dict[str, set[int]] = {}
    for file, pid, _ in named:
        carried.setdefault(file, set()).add(pid)
    out = {}
    for f in log.files:
        if f.role == ROLE_HOST_PLOG and f.pid is not None and f.path in carried:
            pids = {int(p) for p in carried[f.path] if int(p) >= 0}
            if len(pids) == 1 and f.pid not in pids:
                out[(f.node, f.pid)] = pids.pop()
    return out

