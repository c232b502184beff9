"""MemoryPanel: "Seen before" at the root-cause step, **Save to memory**, and the resolution form of a saved case.

The memory is the one `casebook` uses (`$CASEBOOK_DB`, else the user's data folder) unless a location is given;
a memory that cannot be used shows its one-line reason and the walk goes on without it.
"""
from __future__ import annotations

import os
from html import escape
from pathlib import Path
from typing import Callable

import ipywidgets as w

from ..judging.triage import Triage
from ..knowledge.messages import EN, say
from ..memory.case import Resolution
from ..memory.recall import open_memory, recall
from ..memory.store import MemoryUnavailable
from ..presenting import similar
from ..presenting.memo import memo
from ..presenting.redact import no_redaction

#: The resolution form's fields, in order: (attribute of Resolution, message id of its label).
FIELDS = tuple((name, f"memory.field.{name}") for name in ("cause", "fix", "confirmed_by", "ticket", "notes", "who"))


class MemoryPanel:
    """The case memory beside the walk; `current()` gives the case on screen."""

    def __init__(self, current: Callable[[], Triage | None], location: str | os.PathLike | None = None,
                 threads: str | os.PathLike | None = None) -> None:
        self.current = current
        self.location, self.threads = location, Path(threads) if threads else None
        self.lang = EN
        self.matches: list = []
        self.case_id: str | None = None   #: the id the case on screen was saved under
        self.seen = w.HTML()
        self.seen.add_class("casebook-seen-before")
        self.redact = w.Checkbox(value=False, indent=False)
        self.save_button = w.Button(icon="database")
        self.inputs = {name: (w.Textarea if name in ("cause", "fix", "notes") else w.Text)() for name, _ in FIELDS}
        self.resolve_button = w.Button(icon="check")
        self.status = w.HTML()
        self.save_button.on_click(lambda _: self._guard(self.save))
        self.resolve_button.on_click(lambda _: self._guard(self.resolve))
        self.form = w.VBox([*self.inputs.values(), self.resolve_button])
        self.widget = w.VBox([self.seen, w.HBox([self.save_button, self.redact]), self.form, self.status])
        self.relabel(EN)

    def relabel(self, lang: str) -> None:
        """Every label in one language (en or zh), and "Seen before" worded again."""
        self.lang = lang
        self.save_button.description = say(lang, "memory.save")
        self.redact.description = say(lang, "ui.redact")
        self.resolve_button.description = say(lang, "memory.resolve")
        for name, msg_id in FIELDS:
            self.inputs[name].description = say(lang, msg_id)
        self._render()

    def _guard(self, action: Callable[[], object]) -> None:
        try:
            action()
        except (MemoryUnavailable, KeyError, ValueError) as e:
            text = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
            self.status.value = f"<span style='color:#b00'>{escape(text)}</span>"

    def _open(self):
        return open_memory(self.location, self.threads)

    def load(self) -> None:
        """Look up the case on screen: a new case starts unsaved, with an empty form."""
        self.case_id, self.matches, self.status.value = None, [], ""
        for box in self.inputs.values():
            box.value = ""
        t = self.current()
        if t is not None:
            try:
                self.matches = recall(t, self.location, self.threads)
            except MemoryUnavailable as e:
                self.status.value = f"<span style='color:#b00'>{escape(str(e))}</span>"
        self._render()

    def show(self, root_cause: bool) -> None:
        """"Seen before" shows at the root-cause step only."""
        self.seen.layout.display = None if root_cause else "none"

    def _render(self) -> None:
        self.seen.value = "".join(similar.html(self.matches, self.lang, no_redaction))

    def save(self) -> str | None:
        """Save the case on screen to the memory (redacted first when the box is ticked); returns its id."""
        t = self.current()
        if t is None:
            self.status.value = escape(say(self.lang, "ui.open_first"))
            return None
        fp, title = memo(t, redact=self.redact.value)
        with self._open() as store:
            self.case_id = store.add(fp, title=title).id
        self.status.value = f"<span class='casebook-saved'>{escape(say(self.lang, 'memory.saved', id=self.case_id))}</span>"
        return self.case_id

    def resolve(self) -> Resolution | None:
        """Record the form's resolution for the saved case."""
        if self.case_id is None:
            self.status.value = escape(say(self.lang, "memory.save_first"))
            return None
        given = Resolution(**{name: box.value.strip() or None for name, box in self.inputs.items()})
        with self._open() as store:
            done = store.resolve(self.case_id, given)
        self.status.value = escape(say(self.lang, "memory.resolved", id=self.case_id))
        return done.resolution
