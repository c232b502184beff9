"""The collectives the ranks were in when HCCL gave up: the tags of its failure lines.

HCCL names the operation a failed task belongs to by its tag, the collective's kind and its communicator
(`tag[AllReduce_127.10.0.1%enp_60000_0_1768829307415862]`, `tag[Broadcast_8841200917745501_2]`, graph mode's
`tag[HcomAllGather_...]`). Collectives pair by order, so two processes of one communicator that time out in collectives
of different kinds issued different sequences: the log answers what an engineer is otherwise asked to compare.
"""
from __future__ import annotations

import re

from ..knowledge.messages import Note
from ..reading.table import LogTable
from .items import Fact

#: A failure line's tag: the collective's kind, then its communicator; an index a release appends (`_2`) is not
#: part of the communicator.
TAG = re.compile(r"\btag[:=]?\s*\[(?:Hcom)?(?P<kind>[A-Z][A-Za-z]+?)_(?P<group>[^\]\s]+?)(?:_\d{1,3})?\]")
#: The lines that report a collective's task as failed or timed out (a tag on an INFO line is the collective at work);
#: the task exception's base information ends in the algorithm (`AlgType(level 0-1-2):[...]`), which a paste that
#: broke the line keeps beside the tag.
FAILED = re.compile(r"(?i)Task run failed|TaskExecStage|EI0002|times? ?out|AlgType\(")
#: What every tag holds. No line is kept for it besides the error lines and a paste's lines without a header, which
#: every reading keeps already (an INFO line's tag is the collective at work), so the family adds nothing to KEEP.
TAGGED = ("tag[", "tag:[")
#: How many records after a headerless tag line its process may be named: a paste that broke the task exception's
#: line leaves the tag on a line of its own, before the process's next header.
NEAR = 3


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


def extract(log: LogTable) -> dict[str, Fact]:
    """`collective_sequence_differs` when two processes of one communicator failed in collectives of different
    kinds, cited to the first line that shows the second kind."""
    levels = log.column("level")
    seen: dict[str, tuple[str, object]] = {}   # communicator -> (kind, process) of its first failure line
    for pos in log.holding(TAGGED):
        r = log.record(pos)
        if levels[pos] not in (None, "ERROR") or not FAILED.search(r.msg):
            continue
        process = _process(log, pos)
        for m in TAG.finditer(r.msg):
            first = seen.setdefault(m["group"], (m["kind"], process))
            if first[0] != m["kind"] and first[1] != process:
                return {"collective_sequence_differs": Fact(
                    "collective_sequence_differs", True, "log", r.file, r.line,
                    note=Note("fact.collectives_differ", first=first[0], second=m["kind"], group=m["group"]))}
    return {}
