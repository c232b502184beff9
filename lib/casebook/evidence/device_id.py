"""Which device a line speaks of, in the wordings the runtime, torch_npu and the file layout use."""
from __future__ import annotations

import re
from functools import lru_cache

from ..knowledge import formats

# ids and counts have at most 18 digits (reading.grammar.MAX_DIGITS): a longer run of digits matches nothing
_PATTERNS = (
    re.compile(r"\bdevice_id=(\d{1,18})(?!\d)"),
    re.compile(r"\bdevice\((?:chipId:)?(\d{1,18})(?!\d)"),
    re.compile(r"\bdeviceId\[(\d{1,18})\]"),
    re.compile(r"\bdevId[=:]\s?(\d{1,18})(?!\d)"),
    re.compile(r"\bDevice\[(\d{1,18})\]"),
    re.compile(r"\bDevice:(\d{1,18})(?!\d)"),
)


@lru_cache(maxsize=4096)   # a big bundle repeats each error message on every rank
def device_in(text: str) -> int | None:
    """The device id a message names, or None: the common `device_id=N`-like fields first, then the `device`
    of a catalog form (a form that logs the driver's physical id is not taken: the job's ids are wanted)."""
    return _device(text)


def _device(text: str) -> int | None:
    """The device id a message names, or None, uncached."""
    for pat in _PATTERNS:
        m = pat.search(text)
        if m:
            return int(m.group(1))
    hit = formats.devices().first(text)
    return None if hit is None else hit.int("device")
