"""The caching allocator's out-of-memory summary, read as numbers.

torch_npu (like torch on CUDA) ends an allocation it cannot make with `Tried to allocate R (NPU n; T total capacity;
A already allocated; C current active; F free; [L allowed;] V reserved in total by PyTorch)`. The `allowed` amount is
printed only when the process has capped its own share of the card (a memory fraction), and the allocator then
refuses a request that would take what it holds past that cap. Whether the cap is what stopped the request is
arithmetic an engineer does from the line: the request fits what the card had (free, and what the process holds
cached but not allocated) yet passes the cap; or it is larger than what the card had, and fails the same without the
cap. The same numbers say whose memory filled the card: when the request did not fit what the card had free and the
process's allocator reserves little of what is not free, that memory is held outside the job's allocator.
"""
from __future__ import annotations

import re

from ..reading.table import LogTable
from .items import Fact

_SIZE = r"[0-9]+(?:\.[0-9]+)? ?(?:bytes|[KMGTPE]i?B)"
_SUMMARY = re.compile(rf"Tried to allocate (?P<request>{_SIZE}) \((?:NPU|GPU) \d+; (?P<total>{_SIZE}) total capacity; "
                      rf"(?P<allocated>{_SIZE}) already allocated; (?:{_SIZE} current active; )?"
                      rf"(?P<free>{_SIZE}) free; (?:(?P<allowed>{_SIZE}) allowed; )?"
                      rf"(?P<reserved>{_SIZE}) reserved in total by PyTorch\)")
_UNITS = {"bytes": 0, "B": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}
#: The fact a summary with an `allowed` amount settles.
CAP_STOPPED = "oom_cap_stopped_request"
#: The fact any summary may settle: whether what filled the card is held outside the job's allocator.
HELD_OUTSIDE = "oom_card_held_outside_job"
#: Shares of the card that neither the allocator reserves nor is free, above which (below which) the card is held
#: outside (by) the job: the buffers a job keeps outside its allocator (HCCL's, a graph's workspace) take a few GiB of
#: a card, not half of it.
_MOST, _LITTLE = 0.5, 0.25
#: Lines this family reads.
KEEP = (" reserved in total by PyTorch",)


def size(text: str) -> float:
    """Bytes of an allocator size (`48.78 GiB`, `512.00 MiB`, `20 bytes`)."""
    number, unit = re.fullmatch(r"([0-9.]+) ?(\w+)", text).groups()
    return float(number) * 1024 ** _UNITS[unit if unit in _UNITS else unit[0]]


def cap_stopped(summary: re.Match) -> bool | None:
    """Whether the cap, not the card, refused the request: True when it fits what the card had free and cached but
    not under the cap, False when the card could not have held it; None when the numbers say neither, or the summary
    prints no cap."""
    if summary["allowed"] is None:
        return None
    request, free, allowed = (size(summary[k]) for k in ("request", "free", "allowed"))
    allocated, reserved = size(summary["allocated"]), size(summary["reserved"])
    fits_card = request <= free + max(0.0, reserved - allocated)
    if not fits_card:
        return False
    return True if reserved + request > allowed else None


def held_outside(summary: re.Match) -> bool | None:
    """Whether the card was filled outside the job's allocator: True when the request did not fit what the card had
    free and most of the card is neither free nor reserved by the allocator, False when little of it is; None
    otherwise."""
    request, free, total = size(summary["request"]), size(summary["free"]), size(summary["total"])
    if request <= free or total <= 0:   # the card had room: the cap or the allocator's own pieces refused it
        return None
    outside = (total - free - size(summary["reserved"])) / total
    return True if outside > _MOST else False if outside < _LITTLE else None


#: Each fact a summary may settle, and how.
_SETTLED_BY = ((CAP_STOPPED, cap_stopped), (HELD_OUTSIDE, held_outside))


def extract(log: LogTable) -> dict[str, Fact]:
    """The facts the first summaries that settle them give, each with its file and line: the cap (a summary with an
    `allowed` amount) and whose memory filled the card."""
    facts: dict[str, Fact] = {}
    for file, line, msg in ((r.file, r.line, r.msg) for r in log.picked(log.holding(KEEP))):
        m = _SUMMARY.search(msg)
        if m is None:
            continue
        for name, settle in _SETTLED_BY:
            if name not in facts and (verdict := settle(m)) is not None:
                facts[name] = Fact(name, verdict, "log", file, int(line))
        if len(facts) == len(_SETTLED_BY):
            break
    return facts
