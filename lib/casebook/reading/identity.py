"""What a file's own lines say about it: its role when the path did not say, its pid and rank, and whether it
starts in the middle of a record.

A file whose path names no role is a screen capture when it holds an error block, a torch_npu or Python error, a
call stack or a tool's report, or when most of its lines came wrapped (a script's logging, a launcher's prefixes,
grep output: paste.py); it is a host or device slog when most of its lines are slog headers; an environment dump
when attachments.py knows its form. A process's rank, stated in one of its files (HCCL's SetupAgent line), holds
for its others.
"""
from __future__ import annotations

import re
from collections import Counter

from . import attachments
from .bundle import ROLE_DEVICE_LOG, ROLE_ENVIRONMENT, ROLE_HOST_PLOG, ROLE_SCREEN, ROLE_TEXT, LogFile, slog_role
from .grammar import (KIND_ATTACHMENT, KIND_BLANK, KIND_BLOCK_HEAD, KIND_BLOCK_LINE, KIND_BLOCK_MSG, KIND_NPU_MESSAGE,
                      KIND_PLOG, KIND_PTA, KIND_PYTHON, KIND_REPORT, KIND_STACK, KIND_UNPARSED)

#: What only a console shows: an error block (whole or a part of it), torch_npu's lines, a traceback or call
#: stack, a tool's or framework's report.
_CAPTURE_KINDS = {KIND_BLOCK_HEAD, KIND_BLOCK_MSG, KIND_BLOCK_LINE, KIND_PTA, KIND_NPU_MESSAGE, KIND_PYTHON, KIND_STACK,
                  KIND_REPORT}
#: HCCL's init line of a process, which states its rank.
RANK_IN_LINE = re.compile(r"\bSetupAgent rankNum\[\d+\], rank\[(?P<rank>\d+)\]")


def settle(f: LogFile, rows: list[tuple], kinds: Counter, wrapped: int, sample: list[str], first_kind: str | None,
           pid: int | None, ranks: set[int | None], unrecorded: int = 0) -> list[tuple]:
    """Role, unparsed count, rotation cut, pid and rank of a file whose lines are read (`wrapped`: its lines that
    came inside a paste's wrappers; `unrecorded`: its slog header lines read but left without a record, flood.py)."""
    rows = _settle_role(f, rows, kinds, wrapped, unrecorded)
    if f.role in (ROLE_TEXT, ROLE_ENVIRONMENT):
        rows = _attachment(f, rows, sample)
    f.unparsed = sum(1 for r in rows if r[2] == KIND_UNPARSED)
    f.continues = f.role in (ROLE_HOST_PLOG, ROLE_DEVICE_LOG) and first_kind not in (None, KIND_PLOG)
    if f.pid is None and f.role == ROLE_HOST_PLOG and pid is not None:
        f.pid = pid
    ranks.discard(None)   # a rank too long to be one
    if f.rank is None and len(ranks) == 1:
        f.rank = ranks.pop()
    return rows


def _settle_role(f: LogFile, rows: list[tuple], kinds: Counter, wrapped: int, unrecorded: int = 0) -> list[tuple]:
    """A screen capture or an slog file, from the content, when the path did not say."""
    if f.role != ROLE_TEXT:
        return rows
    written = len(rows) + unrecorded - kinds[KIND_BLANK]
    if any(kinds[k] for k in _CAPTURE_KINDS) or (written and wrapped * 2 >= written):
        f.role = ROLE_SCREEN
    elif kinds[KIND_PLOG] and kinds[KIND_PLOG] * 2 >= written:
        f.role = slog_role(f.path)
    return rows


def _attachment(f: LogFile, rows: list[tuple], sample: list[str]) -> list[tuple]:
    """The lines of an environment dump become attachments."""
    kind = attachments.kind_of(f.path.rsplit("/", 1)[-1], sample)
    if kind is not None:
        f.role, f.attachment = ROLE_ENVIRONMENT, kind
        return [r if r[2] != KIND_UNPARSED else r[:2] + (KIND_ATTACHMENT,) + r[3:] for r in rows]
    if f.role == ROLE_ENVIRONMENT:
        f.role = ROLE_TEXT
    return rows


def share(files: list[LogFile]) -> None:
    """A rank one file of a process states (HCCL's SetupAgent line) holds for its other files too."""
    ranks: dict[tuple, set] = {}
    for f in files:
        if f.pid is not None and f.rank is not None:
            ranks.setdefault((f.node, f.pid), set()).add(f.rank)
    for f in files:
        known = ranks.get((f.node, f.pid), set())
        if f.rank is None and f.pid is not None and len(known) == 1:
            f.rank = next(iter(known))
