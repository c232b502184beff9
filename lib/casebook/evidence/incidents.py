"""Incidents: per node, device and process, each burst of errors with its first real failure and its cascade.

The seeds are the error lines and the device-side events (hardware errors, bbox records, exception dumps).
Lines of a burst (no gap longer than BURST_GAP_S) form one incident; its `first` is the earliest line the
cascade table calls a cause, so fallout (507899, 107022), wrappers (torch_npu ERRxxxxx, tracebacks,
synchronize calls) and a lone generic 507018 never stand as the failure. An HCCL timeout or link failure
that follows another device's own fault within CONSEQUENCE_WINDOW_S is marked a consequence of it.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

from ..knowledge.messages import Note, named
from ..reading.fields import seconds
from ..reading.table import LogTable
from . import hardware, membership
from .cascade import BENIGN, CAUSE, DECORATION, DEVICE_FAULTS, GENERIC, PEER_SYMPTOMS, classify
from .first_error import error_lines, time_order
from .items import ErrorLine, Incident

#: Lines of one device closer than this (seconds) belong to one burst.
BURST_GAP_S = 60
#: HCCL waits up to HCCL_EXEC_TIMEOUT (default 1800 s) for a dead peer; a timeout later than this plus some
#: slack after a device fault is not taken as its consequence.
CONSEQUENCE_WINDOW_S = 2400


def _seeds(log: LogTable) -> list[tuple[ErrorLine, str, str | None]]:
    """(line, cascade role, kind) for every error line and device event, devices filled in where known."""
    events = hardware.extract(log)
    event_of = {(r.file, r.line): ev for ev in events for r in ev.refs}
    identity = membership.identities(log)
    lines = error_lines(log)
    # a process whose lines name one device (or whose HCCL rank sits on one) owns its device-less lines too
    pid_devices: dict[tuple, set] = {}
    for e in lines:
        if e.pid is not None and e.device is not None:
            pid_devices.setdefault((e.node, e.pid), set()).add(e.device)
    for (node, pid), info in identity.items():
        if info.device is not None and (node, pid) not in pid_devices:
            pid_devices[(node, pid)] = {info.device}
    seeds = []
    covered = set()
    for e in lines:
        role, kind, _ = classify(e.text)
        ev = event_of.get((e.file, e.line))
        if ev is not None:
            e, role, kind = replace(e, device=ev.device), CAUSE, ev.kind
        elif e.device is None and e.pid is not None and len(pid_devices.get((e.node, e.pid), ())) == 1:
            e = replace(e, device=next(iter(pid_devices[(e.node, e.pid)])))
        covered.add((e.file, e.line))
        seeds.append((e, role, kind))
    for ev in events:
        if not any((r.file, r.line) in covered for r in ev.refs):
            own = next((r for r in ev.refs if (r.file, r.line) == (ev.file, ev.line)), None)
            seeds.append((ErrorLine(ev.file, ev.line, ev.time, ev.node, None, ev.device, ev.code, ev.text,
                                    src_file=own and own.src_file, src_line=own and own.src_line), CAUSE, ev.kind))
    return seeds


def extract(log: LogTable) -> list[Incident]:
    """Incidents, first by time: one per burst of one (node, device, process); device-side events have no process."""
    identity = membership.identities(log)
    groups: dict[tuple, list] = {}
    for seed in sorted(_seeds(log), key=lambda s: time_order(s[0])):
        e = seed[0]
        groups.setdefault((e.node, e.device, e.pid if e.device is None or e.pid is not None else None), []).append(seed)
    # a device-side incident belongs to the rank whose process sits on that device, when only one does
    rank_of_device: dict[tuple, set] = {}
    for info in identity.values():
        rank_of_device.setdefault((info.node, info.device), set()).add(info.rank)
    incidents = []
    for (node, device, pid), seeds in groups.items():
        for burst in _bursts(seeds):
            inc = _incident(node, device, pid, burst)
            ident = identity.get((node, pid))
            inc.rank = log.origin(inc.first.file, inc.first.src_file).rank if ident is None else ident.rank
            on_device = rank_of_device.get((node, device), set())
            if inc.rank is None and pid is None and len(on_device) == 1:
                inc.rank = next(iter(on_device))
            incidents.append(inc)
    incidents.sort(key=lambda i: time_order(i.first))
    _mark_consequences(incidents)
    return incidents


def _bursts(seeds: list) -> list[list]:
    out: list[list] = []
    last = None
    for seed in seeds:
        t = seconds(seed[0].time)
        if out and (t is None or last is None or t - last <= BURST_GAP_S):
            out[-1].append(seed)
        else:
            out.append([seed])
        last = t if t is not None else last
    return out


def _incident(node, device, pid, burst: list) -> Incident:
    def rank_of(seed) -> int:
        role, kind = seed[1], seed[2]
        if role == CAUSE:
            return 0 if kind else 1
        return {GENERIC: 2, BENIGN: 4, DECORATION: 5}.get(role, 3)
    first = min(burst, key=rank_of)   # min keeps time order among equals
    roles = Counter(role if role != CAUSE else "cause" for e, role, kind in burst if e is not first[0])
    times = [e.time for e, _, _ in burst if e.time]
    kind = first[2] or ("benign" if first[1] == BENIGN else "error")
    return Incident(node=node, rank=None, device=device, pid=pid, first=first[0], cascade=len(burst) - 1,
                    last_time=max(times) if times else None, kind=kind, roles=dict(roles))


def _mark_consequences(incidents: list[Incident]) -> None:
    faults = [i for i in incidents if i.kind in DEVICE_FAULTS and i.first.time]
    for inc in incidents:
        if inc.kind not in PEER_SYMPTOMS or not inc.first.time:
            continue
        t = seconds(inc.first.time)
        for f in faults:
            ft = seconds(f.first.time)
            other = (f.node, f.device) != (inc.node, inc.device)
            if other and ft is not None and t is not None and 0 <= t - ft <= CONSEQUENCE_WINDOW_S:
                inc.role = "consequence"
                inc.because = Note("incident.because", kind=named("kind", f.kind), device=f.device,
                                   node=Note("incident.of", node=f.node) if f.node else "", time=f.first.time,
                                   where=f"{f.first.file}:{f.first.line}")
                break
