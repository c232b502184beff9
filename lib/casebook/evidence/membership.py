"""Who is which rank: each process's rank in its communicator, from its own HCCL init lines.

A rank is known from its process's HCCL init lines (the format catalog's set-device `rank` forms: "SetupAgent
rankNum[3], rank[0], ... logicDevId[0], ... deviceIp[124.0.0.21]", "hcom init ... rankNum[8], rank[0],server[...],
device[0]", ...), and a process from its node and pid. A plog is one process's, so where a collection repeats a pid
on one node with another rank in each file (copied logs, containers that number their processes alike), the file's
own init line tells the processes apart.
"""
from __future__ import annotations

from ..knowledge import formats
from ..reading.table import LogTable
from .items import LineRef, RankInfo

_INIT = formats.select("set_device", "rank")

#: Lines this family reads (HCCL init, INFO level; the reader keeps them in big files too).
KEEP = _INIT.keep


def identities(log: LogTable) -> dict[tuple, RankInfo]:
    """(node, pid) -> its rank, from the process's own HCCL init lines."""
    # topology, incidents and the rank view all ask: built once per log table
    return dict(log.derive("rank_identities", _identities))


def _identities(log: LogTable) -> dict[tuple, RankInfo]:
    out: dict[tuple, RankInfo] = {}
    for file, line, time, pid, msg, src, src_line in ((r.file, r.line, r.time, r.pid, r.msg, r.src_file, r.src_line)
                                                      for r in log.picked(log.holding(KEEP)) if r.pid is not None):
        hit = _INIT.first(msg)
        if hit is None or int(pid) < 0:
            continue
        key = (log.origin(file, src).node, int(pid))
        if key in out:
            continue
        out[key] = RankInfo(rank=hit.int("rank"), node=key[0], pid=key[1], device=hit.int("device"),
                            ip=hit.values.get("ip"), ref=LineRef(file, int(line), time, msg, src, src_line),
                            rank_num=hit.int("rank_num"))
    return out


def _files(log: LogTable) -> dict[str, set[tuple]]:
    """file -> the (pid, rank) pairs its HCCL init lines name."""
    seen: dict[str, set[tuple]] = {}
    for r in log.picked(log.holding(KEEP)):
        if (hit := _INIT.first(r.msg)) is not None and (rank := hit.int("rank")) is not None:
            seen.setdefault(r.file, set()).add((r.pid, rank))
    return seen


def _shared_pids(log: LogTable) -> dict[str, int]:
    """file -> its rank, for the files of a (node, pid) that other files give another rank."""
    files = {f: next(iter(ids)) for f, ids in _files(log).items() if len(ids) == 1}   # a paste of several: its pids
    ranks: dict[tuple, set[int]] = {}
    for f, (pid, rank) in files.items():
        ranks.setdefault((log.origin(f).node, pid), set()).add(rank)
    return {f: rank for f, (pid, rank) in files.items() if len(ranks[(log.origin(f).node, pid)]) > 1}


def _shared(log: LogTable) -> dict[str, int]:
    return log.derive("rank_of_shared_pid_files", _shared_pids)


def rank_of(log: LogTable, file: str, known: int | None) -> int | None:
    """The rank of a line's process: its file's own where its pid is shared, else `known` (its node and pid's)."""
    return _shared(log).get(file, known)


def process_of(log: LogTable, file: str, node: str | None, pid) -> tuple:
    """A key for the process a line belongs to: its node and pid, and its file's rank where the pid is shared."""
    return node, pid, _shared(log).get(file)
