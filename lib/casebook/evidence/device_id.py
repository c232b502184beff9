"""Which device a line speaks of, in the wordings the runtime, torch_npu and the file layout use."""
from __future__ import annotations

import re

# ids and counts have at most 18 digits (reading.grammar.MAX_DIGITS): a longer run of digits matches nothing
_PATTERNS = (
    re.compile(r"\bdevice_id=(\d{1,18})(?!\d)"),
    re.compile(r"\bdevice\((?:chipId:)?(\d{1,18})(?!\d)"),
    re.compile(r"\bdeviceId\[(\d{1,18})\]"),
    re.compile(r"\bdevId[=:]\s?(\d{1,18})(?!\d)"),
    re.compile(r"\bDevice\[(\d{1,18})\]"),
    re.compile(r"\bDevice:(\d{1,18})(?!\d)"),
)


def device_in(text: str) -> int | None:
    """The device id a message names, or None."""
    for pat in _PATTERNS:
        m = pat.search(text)
        if m:
            return int(m.group(1))
    return None
