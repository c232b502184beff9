"""PasteBox: a text area for what a customer pasted into the ticket (grep output, a console, a chat message),
read as one capture."""
from __future__ import annotations

from typing import Callable

import ipywidgets as w

from ..knowledge.messages import EN, say
from ..reading.bundle import Pasted

#: The name the pasted text is shown under, as a file of the bundle.
PASTE_NAME = "<paste>"


class PasteBox:
    """A text area and a Read button; the button hands the text to `on_paste` as one capture (`on_empty` when
    there is none)."""

    def __init__(self, on_paste: Callable[[Pasted], None], on_empty: Callable[[], None]) -> None:
        self.on_paste = on_paste
        self.on_empty = on_empty
        self.text = w.Textarea(layout=w.Layout(width="60%", height="8em"))
        self.read_button = w.Button(icon="paste")
        self.read_button.on_click(lambda _: self._read())
        self.widget = w.HBox([self.text, self.read_button])
        self.relabel(EN)

    def relabel(self, lang: str) -> None:
        """The labels in one language (en or zh)."""
        self.text.placeholder = say(lang, "ui.paste.placeholder")
        self.read_button.description = say(lang, "ui.paste.read")

    def _read(self) -> None:
        if not self.text.value.strip():
            self.on_empty()
            return
        self.on_paste(Pasted(self.text.value.encode("utf-8"), PASTE_NAME))
