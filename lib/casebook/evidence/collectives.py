"""The collectives the ranks were in when HCCL gave up on them, compared across each communicator.

HCCL's task exception report names the failed task's collective by its tag, the collective's kind and its
communicator (`tag[AllReduce_127.10.0.1%enp_60000_0_1768829307415862]`, `tag[Broadcast_8841200917745501_2]`, graph
mode's `tag[HcomAllGather_...]`). Releases that report more add lines of their own: the process's rank in the
communicator (`groupRank information is group:[...], rankSize[4], rankId[2]`) and the op's data (`opData information
is ... index[21], count[256], ..., dataType[float32]`); some put `index[3]` after the tag. The index counts the
communicator's collectives. HCCL's fault-diagnosis guide compares these across the ranks of one communicator:

- at the same index, another kind: the ranks issued different collectives (`collective_sequence_differs`,
  `collective_order_differs`);
- at the same index and kind, another element count or data type: they called one collective with different
  arguments (`collective_sequence_differs`, `collective_arguments_differ`);
- at different indexes: the ranks at the lowest index are behind, and their peers wait for them at a later
  collective (`collective_index_differs`). A rank that stalled, or that issued fewer collectives, leaves this;
- in the same collective, failures further apart than HCCL_EXEC_TIMEOUT: each rank waits that long from when it
  arrives, so the ranks arrived that far apart, and the later one was held up before it (`peer_rank_exited_or_stalled`).
  Only failures of one node are compared: the clocks of two nodes need not agree.

The compute stream waits for the event a collective records on completion, with a timeout of its own
(HCCL_EVENT_TIMEOUT in torch_npu, the `timeout=N` of the device's `event wait timeout occurred` line), which must be
larger than HCCL_EXEC_TIMEOUT (`event_timeout_above_exec_timeout`, read when the job logged HCCL_EXEC_TIMEOUT).
"""
from __future__ import annotations

import re
from dataclasses import replace

from ..knowledge.messages import Note
from ..reading.fields import seconds
from ..reading.table import LogTable
from . import environment, membership
from .items import Fact, FailedCollective

#: A failure line's tag: the collective's kind, then its communicator; an index a release appends (`_2`) is not
#: part of the communicator.
TAG = re.compile(r"\btag[:=]?\s*\[(?:Hcom)?(?P<kind>[A-Z][A-Za-z]+?)_(?P<group>[^\]\s]+?)(?:_\d{1,3})?\]")
#: The lines that report a collective's task as failed or timed out (a tag on an INFO line is the collective at work);
#: the task exception's base information ends in the algorithm (`AlgType(level 0-1-2):[...]`), which a paste that
#: broke the line keeps beside the tag.
FAILED = re.compile(r"(?i)Task run failed|TaskExecStage|EI0002|times? ?out|AlgType\(")
#: The report's other lines: the rank in the communicator, and the op's data.
GROUP_RANK = re.compile(r"groupRank information is group:\s*\[(?P<group>[^\]]*)\].*?\brankId\s*\[(?P<rank>\d+)\]")
OP_DATA = re.compile(r"opData information is .*?\bindex\s*\[(?P<index>\d+)\](?:.*?\bcount\s*\[(?P<count>\d+)\])?"
                     r"(?:.*?\bdataType\s*\[(?P<dtype>\w+)\])?")
INDEX = re.compile(r"\bindex\s*\[(?P<index>\d+)\]")
#: The device scheduler's report of a stream's event wait that ran past its timeout.
EVENT_WAIT = re.compile(r"event wait timeout occurred during task execution\b.*?\btimeout=(?P<timeout>\d+)")
#: What every line of the report holds. No line is kept for them besides the error lines and a paste's lines
#: without a header, which every reading keeps already (a tag on an INFO line is the collective at work), so the
#: family adds nothing to KEEP.
TAGGED = ("tag[", "tag:[", "groupRank information", "opData information")
#: How many records after a headerless tag line its process may be named: a paste that broke the task exception's
#: line leaves the tag on a line of its own, before the process's next header.
NEAR = 3
#: The longest default HCCL_EXEC_TIMEOUT a release uses (1800 s, later 1836 s): failures further apart than this
#: arrived apart under either.
EXEC_TIMEOUT_S = 1836


def _process(log: LogTable, pos: int) -> int | str:
    """The process a record belongs to: its pid, else the pid of the next headed record of its file within NEAR, else
    the file (a paste without pids: one process a file)."""
    files, pids = log.column("file"), log.column("pid")
    for i in range(pos, min(pos + NEAR + 1, len(files))):
        if files[i] != files[pos]:
            break
        if pids[i] is not None:
            return int(pids[i])
    return files[pos]


def failures(log: LogTable) -> list[FailedCollective]:
    """The first collective each process failed in, per communicator, with what its report's lines add."""
    return log.derive("failed_collectives", _failures)


def _failures(log: LogTable) -> list[FailedCollective]:
    levels = log.column("level")
    ident = membership.identities(log)
    found: dict[tuple, FailedCollective] = {}   # (process, communicator) -> its first failure
    last: dict[tuple, tuple] = {}               # process -> the key of the report its next lines belong to
    for pos in log.holding(TAGGED):
        if levels[pos] not in (None, "ERROR"):
            continue
        r = log.record(pos)
        pid = _process(log, pos)
        node = log.origin(r.file, r.src_file).node
        process = membership.process_of(log, r.file, node, pid)
        tag = TAG.search(r.msg) if FAILED.search(r.msg) else None
        if tag is not None:
            key = (process, tag["group"])
            last[process] = key
            if key not in found:
                known = ident.get((node, pid))
                rank = membership.rank_of(log, r.file, known.rank if known else None)
                index = INDEX.search(r.msg[tag.end():])
                found[key] = FailedCollective(pid, node, tag["group"], tag["kind"], index and int(index["index"]),
                                              None, None, rank, r.file, r.line, r.time, r.msg)
            continue
        key = last.get(process)
        if key is None or key not in found or found[key].file != r.file:
            continue
        f = found[key]
        if (m := GROUP_RANK.search(r.msg)) and m["group"] in (f.group, ""):
            found[key] = replace(f, rank=int(m["rank"]))   # the rank in this communicator, not in the first one
        elif (m := OP_DATA.search(r.msg)) and f.count is None and f.dtype is None:
            found[key] = replace(f, index=f.index if f.index is not None else int(m["index"]),
                               count=m["count"] and int(m["count"]), dtype=m["dtype"])
    return list(found.values())


def _communicators(fails: list[FailedCollective]) -> dict[str, list[FailedCollective]]:
    """The failures by communicator, for the communicators whose failures are of one run: a rank that failed twice
    is two runs' logs in one folder (a rank-table communicator keeps its name from run to run), not to be compared."""
    out: dict[str, list[FailedCollective]] = {}
    for f in fails:
        out.setdefault(f.group, []).append(f)
    return {group: fs for group, fs in out.items()
            if len(ranks := [f.rank for f in fs if f.rank is not None]) == len(set(ranks))}


def differing(fails: list[FailedCollective]) -> tuple[FailedCollective, FailedCollective, str] | None:
    """The first two processes of one communicator that failed at the same index (or at indexes not logged) in
    collectives of another kind, count or data type, and what differs."""
    for group in _communicators(fails).values():
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if a.index is not None and b.index is not None and a.index != b.index:
                    continue
                if a.kind != b.kind:
                    return a, b, "kind"
                if a.count is not None and b.count is not None and a.count != b.count:
                    return a, b, "count"
                if a.dtype and b.dtype and a.dtype != b.dtype:
                    return a, b, "dtype"
    return None


def behind(fails: list[FailedCollective]) -> list[FailedCollective]:
    """The processes at the lowest collective index of a communicator whose processes failed at different indexes."""
    out = []
    for group in _communicators(fails).values():
        indexes = {f.index for f in group if f.index is not None}
        if len(indexes) > 1:
            out += [f for f in group if f.index == min(indexes)]
    return out


def apart(fails: list[FailedCollective], timeout_s: float) -> tuple[FailedCollective, FailedCollective] | None:
    """The first and the last failure of one collective on one node when they lie further apart than the timeout."""
    same: dict[tuple, list[tuple[float, FailedCollective]]] = {}
    for f in (f for group in _communicators(fails).values() for f in group):
        if (t := seconds(f.time)) is not None:
            same.setdefault((f.node, f.group, f.kind, f.index), []).append((t, f))
    for timed in same.values():
        timed.sort(key=lambda x: x[0])
        if len(timed) > 1 and timed[-1][0] - timed[0][0] > timeout_s:
            return timed[0][1], timed[-1][1]
    return None


def _exec_timeout(settings: dict[str, Fact]) -> int | None:
    """The HCCL_EXEC_TIMEOUT the job logged, in seconds; None when it logged none (or no number)."""
    fact = settings.get("HCCL_EXEC_TIMEOUT")
    return int(fact.value) if fact is not None and str(fact.value).isdigit() else None


def _event_timeout(log: LogTable, settings: dict[str, Fact], execute: int | None) -> dict[str, Fact]:
    """`event_timeout_above_exec_timeout`, from the event wait line's timeout (else the HCCL_EVENT_TIMEOUT the job
    logged) against the HCCL_EXEC_TIMEOUT the job logged, else against its longest default (the fact's source is then
    `default`: an engineer who knows the job raised it answers otherwise); nothing without an event timeout."""
    logged = execute is not None
    execute_s = execute if logged else EXEC_TIMEOUT_S
    waited = next(((r, int(m["timeout"])) for r in log.picked(log.holding(("event wait timeout",)))
                   if (m := EVENT_WAIT.search(r.msg))), None)
    event = settings.get("HCCL_EVENT_TIMEOUT")
    if waited is not None:
        file, line, seconds = waited[0].file, waited[0].line, waited[1]
    elif event is not None and str(event.value).isdigit():
        file, line, seconds = event.file, event.line, int(event.value)
    else:
        return {}
    above = seconds == 0 or seconds > execute_s   # 0: the wait never times out
    return {"event_timeout_above_exec_timeout": Fact(
        "event_timeout_above_exec_timeout", above, "log" if logged else "default", file, int(line),
        note=Note("fact.event_timeout" if logged else "fact.event_timeout_default", event=seconds, execute=execute_s))}


def _who(f: FailedCollective) -> str:
    return f"rank {f.rank}" if f.rank is not None else f"process {f.process}"


def extract(log: LogTable) -> dict[str, Fact]:
    """`collective_sequence_differs` when two processes of one communicator failed at one index in different
    collectives (`collective_order_differs`) or with different arguments (`collective_arguments_differ`);
    `collective_index_differs` when they failed at different indexes."""
    fails = failures(log)
    settings = environment.logged(log)
    execute = _exec_timeout(settings)
    out: dict[str, Fact] = _event_timeout(log, settings, execute)
    pair = differing(fails)
    if pair is not None:
        a, b, what = pair
        note = (Note("fact.collectives_differ", first=a.kind, second=b.kind, group=a.group) if what == "kind" else
                Note("fact.collective_arguments_differ", kind=a.kind, what=what, first=getattr(a, what),
                     second=getattr(b, what), group=a.group))
        for name in ("collective_sequence_differs",
                     "collective_order_differs" if what == "kind" else "collective_arguments_differ"):
            out[name] = Fact(name, True, "log", b.file, b.line, note=note)
    timeout_s = execute or EXEC_TIMEOUT_S   # a logged 0 is no timeout to compare with
    pair = apart(fails, timeout_s) if len(fails) > 1 else None
    if pair is not None:
        first, last = pair
        gap = seconds(last.time) - seconds(first.time)
        out["peer_rank_exited_or_stalled"] = Fact(
            "peer_rank_exited_or_stalled", True, "log", last.file, last.line,
            note=Note("fact.collective_reached_apart", first=_who(first), last=_who(last), kind=first.kind,
                      gap=f"{gap:.0f}", timeout=timeout_s))
    late = behind(fails)
    if late:
        f = late[0]
        ahead = sorted({g.index for g in fails if g.group == f.group and g.index is not None and g.index != f.index})
        out["collective_index_differs"] = Fact(
            "collective_index_differs", True, "log", f.file, f.line,
            note=Note("fact.collective_index_behind", who=", ".join(_who(g) for g in late), index=f.index,
                      others=", ".join(map(str, ahead)), group=f.group))
    return out
