"""Across ranks: each rank's process and device, who failed first, whom the peers name, who is missing.

A rank is known from its own HCCL init lines (the format catalog's set-device `rank` forms: "SetupAgent
rankNum[3], rank[0], ... logicDevId[0], ... deviceIp[124.0.0.21]", "hcom init ... rankNum[8], rank[0],server[...],
device[0]", ...). Peers are named in link reports (the catalog's hccl_link forms: LINK_ERROR_INFO table rows in
each column layout HCCL has used, socket timeouts, heartbeat and cluster-exception lines) and notify timeouts
("remote rank [3]", "remote rank:[3]"). The rank at fault often logs nothing, so the rank the peers name
matters as much as the time order, and clocks of different nodes need not agree: communicator setup of one
group is near-simultaneous on every rank, so setup times far apart across nodes point to skewed clocks.
"""
from __future__ import annotations

from collections import Counter
from datetime import datetime

from ..knowledge import formats
from ..knowledge.formats import Hit
from ..knowledge.messages import Note
from ..reading.table import LogTable
from .first_error import error_lines, time_order
from .items import LineRef, LinkFailure, RankInfo, RankView

#: HCCL_CONNECT_TIMEOUT's default: ranks of one group start their setup within this of each other.
SETUP_SPREAD_S = 120
_INIT = formats.select("set_device", "rank")

#: Lines this family reads (HCCL init, INFO level; the reader keeps them in big files too).
KEEP = _INIT.keep


def _peer_report(text: str) -> Hit | None:
    """A link report or a timeout naming the remote rank."""
    return formats.select("hccl_link", "row", "socket", "peer").first(text) or formats.select(
        "hccl_timeout", "peer").first(text)


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
        hit = _peer_report(e.text)
        if hit is None or not hit.values.get("peer", "").isdigit():
            continue      # "remote rank [unknown]", "remote rank:[local]" name no rank
        peer = hit.int("peer")
        if peer is None:
            continue      # a run of digits no rank number has
        if hit.form.part == "row":
            own = hit.int("rank") if own is None else own
        elif peer == own:
            continue
        out.append(LinkFailure(e.node, e.pid, own, peer, hit.values.get("peer_ip"), _status(hit),
                               hit.values.get("role"), e.file, e.line, e.time, e.text))
    return out


def _status(hit: Hit) -> str:
    """What the report says of the link: the table's status cell, or what kind of report it is."""
    if "status" in hit.values:
        return hit.values["status"]
    if hit.form.part == "socket":
        return "socket timeout"
    return "notify timeout" if hit.form.family == "hccl_timeout" else "link error"


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

