"""Text that reaches a terminal: log text made visible and inert.

A log line may carry bytes a terminal obeys: ESC starts CSI (clear the screen, move the cursor) and OSC (set
the window title, write the clipboard with OSC 52, hide a link behind text with OSC 8); the C1 controls
U+0080–U+009F are the same commands in one character (U+009B is CSI); CR and backspace overwrite what is
already shown. Like `less` and ripgrep, the walk shows each of them as text instead (`\\x1b`, `\\x9b`, `\\x0d`),
so what the log holds is seen and nothing in it is obeyed. A tab stays: it moves the cursor and no more.
"""
from __future__ import annotations

import re

# C0 but the tab, DEL, C1
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# what json.dumps(ensure_ascii=False) leaves as it is: it escapes C0 only
_JSON_CONTROL = re.compile(r"[\x7f-\x9f]")


def visible(text: str) -> str:
    """The text with every control character but the tab written as `\\xNN`."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def inert_json(text: str) -> str:
    """JSON text with DEL and the C1 controls written as `\\u00NN` escapes: the same JSON value, no raw control
    character on a terminal (outside strings JSON has none, so every one replaced sits inside a string)."""
    return _JSON_CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
