"""ExportPanel: the case report (Markdown and HTML, optionally redacted, with a collect-more request),
and saving / resuming the case as a small JSON file."""
from __future__ import annotations

import base64
import re
from html import escape
from pathlib import Path
from typing import Callable

import ipywidgets as w

from ..judging.triage import Triage
from ..knowledge.messages import EN, say
from ..presenting import casefile, report
from ..reading.bundle import BundleError


#: (widget, attribute, message id) of every label of the panel.
_LABELS = (("redact", "description", "ui.redact"), ("collect_more", "description", "ui.collect_more"),
           ("name", "description", "ui.report"), ("export_button", "description", "ui.export"),
           ("notes", "placeholder", "ui.notes"), ("case_path", "description", "ui.case_file"),
           ("save_button", "description", "ui.save"), ("resume_button", "description", "ui.resume"))


class ExportPanel:
    """Buttons and options under the walk; `current()` gives the case, `on_resume` takes a resumed one.

    Reports and case files go to `folder` (the notebook's is the project's `cases/`, which git ignores).
    """

    def __init__(self, current: Callable[[], Triage | None], current_step: Callable[[], str | None],
                 on_resume: Callable[[Triage, casefile.CaseFile], None], folder: str | Path = "cases") -> None:
        self.current, self.current_step, self.on_resume = current, current_step, on_resume
        self.folder = Path(folder)
        self.lang = EN
        self.redact = w.Checkbox(value=False, indent=False)
        self.collect_more = w.Checkbox(value=False, indent=False)
        self.name = w.Text(value="case-report")
        self.export_button = w.Button(icon="file-export", button_style="primary")
        self.notes = w.Textarea(layout=w.Layout(width="60%"))
        self.case_path = w.Text(value="case.json")
        self.save_button = w.Button(icon="save")
        self.resume_button = w.Button(icon="folder-open")
        self.status = w.HTML()
        self._mine: dict[str, int] = {}   # report stem -> id of the case this panel wrote it for
        self.export_button.on_click(lambda _: self.export())
        self.save_button.on_click(lambda _: self._guard(self.save))
        self.resume_button.on_click(lambda _: self._guard(self.resume))
        self.widget = w.VBox([
            w.HBox([self.name, self.export_button, self.redact, self.collect_more]),
            self.notes, w.HBox([self.case_path, self.save_button, self.resume_button]), self.status])
        self.relabel(EN)

    def relabel(self, lang: str) -> None:
        """Every label in one language (en or zh); messages follow from the next action on."""
        self.lang = lang
        for name, attr, msg_id in _LABELS:
            setattr(getattr(self, name), attr, say(lang, msg_id))

    def new_case(self, bundle: str) -> None:
        """A new case is open: a report name of its own, from its bundle's (one no report in the folder has yet),
        no notes, no status."""
        self.name.value = self._free(f"{_stem(bundle)}-report")
        self.notes.value = ""
        self.status.value = ""

    def _free(self, stem: str, case: int = 0) -> str:
        """`stem`, or `stem-2`, `stem-3`...: the first whose report files are absent or were written for `case` (the
        id of a case; 0, no case, for a name to start from)."""
        n, out = 1, stem
        while self._mine.get(out) != case and any((self.folder / f"{out}{x}").exists() for x in (".html", ".md")):
            n += 1
            out = f"{stem}-{n}"
        return out

    def _guard(self, action: Callable[[], object]) -> None:
        try:
            action()
        except (casefile.CaseFileError, BundleError, OSError, ValueError) as e:
            self.status.value = f"<span style='color:#b00'>{escape(str(e))}</span>"

    def export(self) -> list[Path]:
        """Write NAME.html and NAME.md into the folder, in the panel's language; show where, with a download
        link for the HTML."""
        t = self.current()
        if t is None:
            self.status.value = escape(say(self.lang, "ui.open_first"))
            return []
        asked = _stem(self.name.value.strip() or "case-report")
        stem = self._free(asked, id(t))   # a report of another case is never written over
        self.name.value, self._mine[stem] = stem, id(t)
        written = [report.write(t, self.folder / f"{stem}{suffix}", redact=self.redact.value,
                                collect_more=self.collect_more.value, lang=self.lang) for suffix in (".html", ".md")]
        data = base64.b64encode(written[0].read_bytes()).decode("ascii")
        links = ", ".join(f"<code>{escape(str(p))}</code>" for p in written)
        kept = escape(say(self.lang, "ui.name_taken", name=asked)) + " " if stem != asked else ""
        self.status.value = (f"<span class='casebook-exported'>{kept}{say(self.lang, 'ui.written', paths=links)}</span> · "
                             f"<a download='{escape(written[0].name)}' href='data:text/html;base64,{data}'>"
                             f"{escape(say(self.lang, 'ui.download'))}</a>")
        return written

    def save(self) -> Path:
        """Save paths, answers, notes and the step on screen."""
        t = self.current()
        if t is None:
            raise ValueError(say(self.lang, "ui.open_first"))
        path = casefile.CaseFile.of(t, notes=self.notes.value, step=self.current_step()).save(
            self.folder / self.case_path.value.strip())
        self.status.value = say(self.lang, "ui.saved", path=f"<code>{escape(str(path))}</code>")
        return path

    def resume(self) -> Triage:
        """Load the case file, read its bundle again and hand the case to the app."""
        cf = casefile.load(self.folder / self.case_path.value.strip())
        t = cf.resume()
        self.on_resume(t, cf)
        self.notes.value = cf.notes   # after the app took the case: a new case starts with no notes
        self.status.value = escape(say(self.lang, "ui.resumed", answers=len(cf.answers), paths=len(cf.paths)))
        return t


def _stem(name: str) -> str:
    """A file name stem from a bundle's name or a typed one: no folder, no suffix, no character a path mangles."""
    base = Path(name).name
    for suffix in (".html", ".md", ".tar.gz", ".tgz", ".zip", ".tar", ".gz", ".log", ".txt"):
        if base.lower().endswith(suffix) and len(base) > len(suffix):
            base = base[:-len(suffix)]
            break
    return re.sub(r"[^\w.-]+", "-", base).strip("-.") or "case-report"

