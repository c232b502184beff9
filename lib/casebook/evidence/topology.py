"""Process <-> device <-> thread <-> rank map, keyed by (node, pid).

Proof that a process drives a device is a line of that process naming the device from one of its
threads: the runtime's set-device lines, or any runtime line carrying `device_id=N` with its thread id.
HCCL's mentions of peers and ASCEND_RT_VISIBLE_DEVICES logical ids prove nothing about the process itself.
"""
from __future__ import annotations

import re

import pandas as pd

from ..reading.bundle import ROLE_DEVICE_LOG
from ..reading.plog import LogTable
from . import ranks
from .items import LineRef, ProcessTopology, Topology

# ids and counts have at most 18 digits (reading.grammar.MAX_DIGITS): a longer run of digits matches nothing
_SET_DEVICE = re.compile(r"(?:set device|SetDevice)\b.*?device_id=(\d{1,18})(?!\d)|^device_id=(\d{1,18})(?!\d)")
_DEVICE_ID = re.compile(r"\bdevice_id=(\d{1,18})(?!\d)")
_PROOF_MODULES = ("RUNTIME", "ASCENDCL", "APP")
#: Lines this family reads besides error lines; of a big file the reader also keeps the first `device_id=`
#: line of each thread and device (scan.DEVICE_SAMPLE), which is what this family needs of them.
KEEP = ("SetDevice:", "set device")


def extract(log: LogTable) -> Topology:
    """Who drove which device, from set-device and `device_id=` lines with a thread id."""
    r = log.records
    cand = r[r["module"].isin(_PROOF_MODULES) & r["tid"].notna() & r["pid"].notna()
             & r["msg"].str.contains("device_id=", regex=False)]
    procs: dict[tuple, ProcessTopology] = {}
    columns = ["file", "line", "time", "pid", "tid", "func", "msg", "src_file", "src_line"]
    for file, line, time, pid, tid, func, msg, src, src_line in cand[columns].itertuples(index=False):
        if pd.isna(pid) or int(pid) < 0:
            continue
        setting = _SET_DEVICE.search(msg) if func == "SetDevice" or "set device" in msg.lower() else None
        m = setting or _DEVICE_ID.search(msg)
        if not m:
            continue
        device = int(next(g for g in m.groups() if g is not None))
        node = log.origin(file, src).node
        p = procs.setdefault((node, int(pid)), ProcessTopology(node=node, pid=int(pid)))
        p.set_device_seen |= setting is not None
        threads = p.devices.setdefault(device, set())
        if str(tid) not in threads:
            threads.add(str(tid))
            p.refs.append(LineRef(file, int(line), time, msg, src, src_line))
    # a process's own HCCL init line gives its rank and that rank's device; it is kept apart from `devices`,
    # which holds only what the process's runtime lines prove
    for (node, pid), info in ranks.identities(log).items():
        p = procs.setdefault((node, pid), ProcessTopology(node=node, pid=pid))
        p.ranks[info.rank] = info.device
        if info.ref is not None:
            p.refs.append(info.ref)
    # the device-side copy of a process's log (`device-<id>/device-<pid>_<time>.log`) shows it ran on that device;
    # it names no thread, so it is kept apart from `devices` as well; a path a grep prefix quotes shows it too
    for f in log.files + log.sources:
        if f.role == ROLE_DEVICE_LOG and f.pid is not None and f.device is not None and not f.skipped:
            procs.setdefault((f.node, f.pid), ProcessTopology(node=f.node, pid=f.pid)).path_devices[f.device] = f.path
    return Topology(processes=sorted(procs.values(), key=lambda p: (p.node or "", p.pid)), ranks=ranks.extract(log))
