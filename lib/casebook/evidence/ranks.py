"""Across ranks: each rank's process and device, who failed first, whom the peers name, who is missing.

A rank is known from its own HCCL lines ("SetupAgent rankNum[3], rank[0], ... logicDevId[0], ...
deviceIp[124.0.0.21]", "hcom init ... rankNum[8], rank[0],server[...], device[0]") and torch_npu's
`RankID:n`. Peers are named in link reports (HCCL's LINK_ERROR_INFO table rows "dest_ip(rank) | src_ip(rank)
| role | status", "client : device[2] rank[2] get socket timeout") and notify timeouts ("remote rank [3]").
The rank at fault often logs nothing, so the rank the peers name matters as much as the time order, and
clocks of different nodes need not agree: communicator setup of one group is near-simultaneous on every
rank, so setup times far apart across nodes point to skewed clocks.
"""
from __future__ import annotations

import re
from collections import Counter
from datetime import datetime

from ..knowledge.messages import Note
from ..reading.plog import LogTable
from ..reading.scan import any_of
from .first_error import error_lines, time_order
from .items import LineRef, LinkFailure, RankInfo, RankView

# ids and counts have at most 18 digits (reading.grammar.MAX_DIGITS): a longer run of digits matches nothing
_RANK = re.compile(r"rankNum\[(?P<num>\d{1,18})\],\s*rank\[(?P<rank>\d{1,18})\]")
_DEVICE = re.compile(r"(?:logicDevId|device)\[(?P<dev>\d{1,18})\]")
_IP = re.compile(r"deviceIp\[(?P<ip>[\d.]+)\]")
_LINK_ROW = re.compile(r"\|\s*(?P<dst_ip>[\d.]+)\((?P<dst>\d{1,18})\)\s*\|\s*(?P<src_ip>[\d.]+)\((?P<src>\d{1,18})\)\s*\|\s*"
                       r"(?P<role>\w+)\s*\|\s*(?P<status>[\w ]+?)\s*\|")
_SOCKET = re.compile(r"(?P<role>client|server)\s*:\s*device\[(?P<dev>\d{1,18})\]\s*rank\[(?P<peer>\d{1,18})\]\s*get s\w+ timeout")
_REMOTE = re.compile(r"remote rank(?::)?\s*\[?(?P<peer>\d{1,18})(?!\d)\]?")
#: HCCL_CONNECT_TIMEOUT's default: ranks of one group start their setup within this of each other.
SETUP_SPREAD_S = 120


#: Lines this family reads (HCCL init, INFO level; the reader keeps them in big files too).
KEEP = ("rankNum[",)

def identities(log: LogTable) -> dict[tuple, RankInfo]:
    """(node, pid) -> its rank, from the process's own HCCL init lines."""
    # topology, incidents and the rank view all ask: built once per log table
    return dict(log.derive("rank_identities", _identities))


def _identities(log: LogTable) -> dict[tuple, RankInfo]:
    r = log.records
    hits = r[r["msg"].str.contains(any_of(KEEP), regex=True) & r["pid"].notna()]
    out: dict[tuple, RankInfo] = {}
    columns = ["file", "line", "time", "pid", "msg", "src_file", "src_line"]
    for file, line, time, pid, msg, src, src_line in hits[columns].itertuples(index=False):
        m = _RANK.search(msg)
        if not m or int(pid) < 0:
            continue
        key = (log.origin(file, src).node, int(pid))
        if key in out:
            continue
        dev = _DEVICE.search(msg[m.end():]) or _DEVICE.search(msg)
        ip = _IP.search(msg)
        out[key] = RankInfo(rank=int(m["rank"]), node=key[0], pid=key[1], device=int(dev["dev"]) if dev else None,
                            ip=ip["ip"] if ip else None, ref=LineRef(file, int(line), time, msg, src, src_line),
                            rank_num=int(m["num"]))
    return out


def _seconds(t: str | None) -> float | None:
    try:
        return datetime.fromisoformat(t).timestamp() if t else None
    except ValueError:
        return None


def extract(log: LogTable) -> RankView:
    """The cross-rank view of the case."""
    ident = identities(log)
    view = RankView()
    nums = [i.rank_num for i in ident.values()]
    view.rank_num = max((n for n in nums if n is not None), default=None)
    by_rank: dict[int, RankInfo] = {}
    for info in ident.values():
        by_rank.setdefault(info.rank, info)
    lines = error_lines(log)
    for e in sorted(lines, key=time_order):
        info = ident.get((e.node, e.pid))
        if info is not None and info.first_error is None:
            info.first_error = e
    view.ranks = sorted(by_rank.values(), key=lambda i: i.rank)
    view.links = _links(lines, ident)
    view.blamed = dict(Counter(link.peer for link in view.links if link.peer != link.rank))
    expected = set(range(view.rank_num)) if view.rank_num else set()
    named = set(view.blamed)
    view.missing = sorted((expected | named) - set(by_rank))
    view.clock_skew = _skew(log, ident)
    return view


def _links(lines, ident: dict[tuple, RankInfo]) -> list[LinkFailure]:
    out = []
    for e in lines:
        info = ident.get((e.node, e.pid))
        own = info.rank if info else None
        if m := _LINK_ROW.search(e.text):
            own = int(m["src"]) if own is None else own
            out.append(LinkFailure(e.node, e.pid, own, int(m["dst"]), m["dst_ip"], m["status"], m["role"], e.file,
                                   e.line, e.time, e.text))
        elif (m := _SOCKET.search(e.text)) and int(m["peer"]) != own:
            out.append(LinkFailure(e.node, e.pid, own, int(m["peer"]), None, "socket timeout", m["role"], e.file,
                                   e.line, e.time, e.text))
        elif (m := _REMOTE.search(e.text)) and int(m["peer"]) != own:
            out.append(LinkFailure(e.node, e.pid, own, int(m["peer"]), None, "notify timeout", None, e.file, e.line,
                                   e.time, e.text))
    return out


def _skew(log: LogTable, ident: dict[tuple, RankInfo]) -> list[str]:
    """Setup lines of one group far apart on different nodes: the nodes' clocks probably differ."""
    setups = [(i.node, i.rank, i.ref) for i in ident.values() if i.ref is not None and i.node is not None]
    notes, seen = [], set()
    for n1, r1, ref1 in setups:
        for n2, r2, ref2 in setups:
            t1, t2 = _seconds(ref1.time), _seconds(ref2.time)
            if n1 < n2 and (n1, n2) not in seen and t1 is not None and t2 is not None and abs(t2 - t1) > SETUP_SPREAD_S:
                notes.append(Note("ranks.skew", r1=r1, n1=n1, t1=ref1.time, r2=r2, n2=n2, t2=ref2.time,
                                  gap=f"{abs(t2 - t1):.0f}", limit=SETUP_SPREAD_S))
                seen.add((n1, n2))
    return notes

