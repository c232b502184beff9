"""Across ranks: each rank's process and device, who failed first, whom the peers name, who is missing.

A rank is known from its own HCCL init lines (the format catalog's set-device `rank` forms: "SetupAgent
rankNum[3], rank[0], ... logicDevId[0], ... deviceIp[124.0.0.21]", "hcom init ... rankNum[8], rank[0],server[...],
device[0]", ...). Peers are named in link reports (the catalog's hccl_link forms: LINK_ERROR_INFO table rows in
each column layout HCCL has used, socket timeouts, heartbeat and cluster-exception lines) and notify timeouts
("remote rank [3]", "remote rank:[3]"). The rank at fault often logs nothing, so the rank the peers name
matters as much as the time order, and clocks of different nodes need not agree: communicator setup of one
group is near-simultaneous on every rank, so setup times far apart across nodes point to skewed clocks.

The notify timeouts and the failed link setups make a graph of waits, each rank to the peers it waited for (a link
setup names both ends by their world ranks: "Transport init error! createLink para:rank[1]-localUserrank[1]-...,
remoteRank[0]-remoteUserrank[0]-remoteIpAddr[...]"; the link table's rows and the socket timeouts name the peer). A
chain of waits ends at a rank that is waited for and waits for none: the rank to look at first. HCCL's fault
diagnosis guide reads link setup failures so, since they cascade: a rank whose link to a peer timed out may only be
waiting for a peer that waits for a third. A loop of notify waits that one rank is waited for twice in has every rank
of it alive and waiting for another: the collectives were issued in an order that cannot complete (a ring's waits
close a loop too, but each rank of it is waited for once).
"""
from __future__ import annotations

from collections import Counter

from ..knowledge import formats
from ..knowledge.formats import Hit
from ..knowledge.messages import Note
from ..reading.fields import seconds
from ..reading.table import LogTable
from . import cascade, collectives, membership
from .first_error import error_lines, time_order
from .items import Fact, LinkDetection, LinkFailure, RankInfo, RankView

#: HCCL_CONNECT_TIMEOUT's default: ranks of one group start their setup within this of each other.
SETUP_SPREAD_S = 120
#: What a notify timeout's link says of itself.
NOTIFY = "notify timeout"
#: Failure kinds of HCCL's own stages (the cascade rules and the format catalog name them): a rank whose first error
#: is of one was setting up links, or running a collective, itself.
HCCL_STAGES = frozenset({"link_failure", "hccl_timeout"})
#: What a link report says when the link was never set up: the rank waited for its peer to connect.
SETUP_WAITS = frozenset({"link setup", "socket timeout", "no connect", "time out"})


_DETECT = formats.select("hccl_link", "detect")


def _peer_report(text: str) -> Hit | None:
    """A link report or a timeout naming the remote rank."""
    return formats.select("hccl_link", "row", "socket", "peer", "setup").first(text) or formats.select(
        "hccl_timeout", "peer").first(text)


def extract(log: LogTable) -> RankView:
    """The cross-rank view of the case (built once per log table)."""
    return log.derive("rank_view", _extract)


def facts(log: LogTable) -> dict[str, Fact]:
    """`collective_order_differs` when the ranks' notify waits close a loop one rank is waited for twice in;
    `link_waits_end_at_peer` when failed link setups wait, along a chain, for a rank of the bundle that waits for
    none (false when every rank whose link failed waits for another: each end was there and waiting)."""
    view = extract(log)
    out = _setup_end(log, view)
    if not view.wait_loop:
        return out
    twice = [r for r in view.wait_loop if sum(r in peers for peers in view.waits.values()) > 1]
    link = next(x for x in view.links if x.status == NOTIFY and x.peer in twice)
    return out | {"collective_order_differs": Fact(
        "collective_order_differs", True, "log", link.file, link.line,
        note=Note("fact.rank_waits_loop", ranks=", ".join(map(str, view.wait_loop)),
                  twice=", ".join(map(str, twice))))}


def _setup_end(log: LogTable, view: RankView) -> dict[str, Fact]:
    """Where the failed link setups lead: to a rank of the bundle that waits for no one (HCCL's guide: read that
    rank's own logs first), or to no end (every rank named was itself waiting: the ends were there)."""
    setups = [x for x in view.links if x.status in SETUP_WAITS and x.rank is not None]
    if not setups:
        return {}
    present = {r.rank: r for r in view.ranks}
    ends = [(present[p], present[p].first_error or _node_first_error(log, view, present[p]))
            for p in dict.fromkeys(x.peer for x in setups) if p not in view.waits and p in present]
    # an end whose own first error is of HCCL's stages (a socket's recv failed, a link it set up timed out) was in
    # link setup or a collective too, waiting on a link its line names no peer of: the chain is lost there
    ends = [(info, first) for info, first in ends
            if first is None or cascade.classify(first.text)[1] not in HCCL_STAGES]
    if ends:
        end, first = ends[0]
        link = next(x for x in setups if x.peer == end.rank)
        waiters = sorted({x.rank for x in setups if x.peer == end.rank})
        own = (Note("fact.link_end_failed", file=first.file, line=first.line) if first is not None
               else Note("fact.link_end_silent"))
        note = Note("fact.link_waits_end", rank=end.rank, waiters=", ".join(map(str, waiters)), own=own)
        return {"link_waits_end_at_peer": Fact("link_waits_end_at_peer", True, "log", link.file, link.line, note=note)}
    if all(x.peer in view.waits for x in setups):
        ranks = sorted({x.rank for x in setups} | {x.peer for x in setups})
        note = Note("fact.link_waits_mutual", ranks=", ".join(map(str, ranks)))
        return {"link_waits_end_at_peer": Fact("link_waits_end_at_peer", False, "log", setups[0].file,
                                               setups[0].line, note=note)}
    return {}


def _extract(log: LogTable) -> RankView:
    ident = membership.identities(log)
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
    view.links = _links(log, lines, ident)
    view.blamed = dict(Counter(link.peer for link in view.links if link.peer != link.rank))
    view.collectives = collectives.failures(log)
    late = collectives.behind(view.collectives)
    view.behind = sorted({f.rank for f in late if f.rank is not None})
    view.waits, view.wait_ends, view.wait_loop = _waits(view.links)
    if late:
        view.wait_loop = []   # ranks at different collectives wait in different ops: their waits make no one loop
    expected = set(range(view.rank_num)) if view.rank_num else set()
    named = set(view.blamed)
    view.missing = sorted((expected | named) - set(by_rank))
    view.clock_skew = _skew(log, ident)
    view.detected = _detected(lines)
    return view


def _detected(lines) -> list[LinkDetection]:
    """HCCL's connect-timeout detection (CANN 8.5+): after a failed link setup its probes follow the cascade and name
    the pair where it starts, "srcRank (server S, device ID s) fails to connect to dstRank (server D, device ID d)";
    each pair once, as every rank that probed prints it."""
    found: dict[tuple, LinkDetection] = {}
    for e in lines:
        hit = _DETECT.first(e.text)
        if hit is not None:
            key = (hit.values["ip"], hit.int("device"), hit.values["peer_ip"], hit.int("peer_device"))
            found.setdefault(key, LinkDetection(*key, e.file, e.line, e.time, e.text))
    return list(found.values())


def _node_first_error(log: LogTable, view: RankView, info: RankInfo):
    """The first error of the rank's node when no other rank of the bundle ran there: lines its process wrote under
    another pid (a thread's, a child's) are still that rank's."""
    if info.node is None or any(r.node == info.node for r in view.ranks if r is not info):
        return None
    return min((e for e in error_lines(log) if e.node == info.node), key=time_order, default=None)


def _links(log: LogTable, lines, ident: dict[tuple, RankInfo]) -> list[LinkFailure]:
    out = []
    for e in lines:
        info = ident.get((e.node, e.pid))
        own = membership.rank_of(log, e.file, info.rank if info else None)
        hit = _peer_report(e.text)
        if hit is None or not hit.values.get("peer", "").isdigit():
            continue      # "remote rank [unknown]", "remote rank:[local]" name no rank
        peer = hit.int("peer")
        if peer is None:
            continue      # a run of digits no rank number has
        if hit.form.part == "setup":
            own = hit.int("rank")      # both ends by their world ranks, whichever communicator the link was for
        elif hit.form.part == "row":
            own = hit.int("rank") if own is None else own
        if peer == own and hit.form.part != "row":
            continue
        out.append(LinkFailure(e.node, e.pid, own, peer, hit.values.get("peer_ip"), _status(hit),
                               hit.values.get("role"), e.file, e.line, e.time, e.text))
    return out


def _waits(links: list[LinkFailure]) -> tuple[dict[int, list[int]], list[int], list[int]]:
    """The notify timeouts and failed link setups as a graph: rank -> the peers it waited for; the ranks where
    chains of waits end; the ranks of a loop of notify waits that one of them is waited for twice in (none when no
    loop has such a rank: two ends of a link that both timed out wait for each other, and that is no order)."""
    waits: dict[int, set[int]] = {}
    notify: dict[int, set[int]] = {}
    for x in links:
        if (x.status == NOTIFY or x.status in SETUP_WAITS) and x.rank is not None and x.peer != x.rank:
            waits.setdefault(x.rank, set()).add(x.peer)
            if x.status == NOTIFY:
                notify.setdefault(x.rank, set()).add(x.peer)
    ends = sorted({p for peers in waits.values() for p in peers} - set(waits))
    waited = Counter(p for peers in notify.values() for p in peers)
    loop: list[int] = []
    for start in sorted(notify):
        cycle = _cycle_from(start, notify)
        if cycle and any(waited[r] > 1 for r in cycle):
            loop = sorted(cycle)
            break
    return {r: sorted(p) for r, p in sorted(waits.items())}, ends, loop


def _cycle_from(start: int, waits: dict[int, set[int]]) -> list[int]:
    """The ranks of a loop of waits that `start` is on, found by walking the waits (empty when it is on none)."""
    path, stack, seen = [start], [iter(sorted(waits.get(start, ())))], {start}
    while stack:
        peers = stack[-1]
        nxt = next(peers, None)
        if nxt is None:
            stack.pop()
            path.pop()
        elif nxt == start:
            return list(path)
        elif nxt not in seen:
            seen.add(nxt)
            path.append(nxt)
            stack.append(iter(sorted(waits.get(nxt, ()))))
    return []


def _status(hit: Hit) -> str:
    """What the report says of the link: the table's status cell, or what kind of report it is."""
    if "status" in hit.values:
        return hit.values["status"]
    if hit.form.part == "socket":
        return "socket timeout"
    if hit.form.part == "setup":
        return "link setup"
    return "notify timeout" if hit.form.family == "hccl_timeout" else "link error"


def _skew(log: LogTable, ident: dict[tuple, RankInfo]) -> list[str]:
    """Setup lines of one group far apart on different nodes: the nodes' clocks probably differ."""
    setups = [(i.node, i.rank, i.ref) for i in ident.values() if i.ref is not None and i.node is not None]
    notes, seen = [], set()
    for n1, r1, ref1 in setups:
        for n2, r2, ref2 in setups:
            t1, t2 = seconds(ref1.time), seconds(ref2.time)
            if n1 < n2 and (n1, n2) not in seen and t1 is not None and t2 is not None and abs(t2 - t1) > SETUP_SPREAD_S:
                notes.append(Note("ranks.skew", r1=r1, n1=n1, t1=ref1.time, r2=r2, n2=n2, t2=ref2.time,
                                  gap=f"{abs(t2 - t1):.0f}", limit=SETUP_SPREAD_S))
                seen.add((n1, n2))
    return notes

