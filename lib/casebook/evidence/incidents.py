"""Incidents: per node and device, the first error and the later error lines that followed it."""
from __future__ import annotations

from ..plog import LogTable
from .first_error import error_lines, time_order
from .items import Incident


def extract(log: LogTable) -> list[Incident]:
    """One incident per (node, device) that logged errors, first by time; lines naming no device group by pid."""
    ranks = {f.path: f.rank for f in log.files}
    groups: dict[tuple, Incident] = {}
    for e in sorted(error_lines(log), key=time_order):
        key = (e.node, e.device, None if e.device is not None else e.pid)
        inc = groups.get(key)
        if inc is None:
            groups[key] = Incident(node=e.node, rank=ranks.get(e.file), device=e.device, pid=e.pid, first=e,
                                   cascade=0, last_time=e.time)
        else:
            inc.cascade += 1
            inc.last_time = max(filter(None, (inc.last_time, e.time)), default=None)
    return sorted(groups.values(), key=lambda i: time_order(i.first))
