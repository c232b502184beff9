"""Which device a line speaks of, in the wordings the runtime, torch_npu and the file layout use."""
from __future__ import annotations

import re

_PATTERNS = (
    re.compile(r"\bdevice_id=(\d+)"),
    re.compile(r"\bdevice\((?:chipId:)?(\d+)"),
    re.compile(r"\bdeviceId\[(\d+)\]"),
    re.compile(r"\bdevId[=:]\s?(\d+)"),
    re.compile(r"\bDevice\[(\d+)\]"),
    re.compile(r"\bDevice:(\d+)"),
)


def device_in(text: str) -> int | None:
    """The device id a message names, or None."""
    for pat in _PATTERNS:
        m = pat.search(text)
        if m:
            return int(m.group(1))
    return None
