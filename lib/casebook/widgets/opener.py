"""BundleOpener: a path box for bundles of any size, an upload for small archives, a paste box for text pasted
into a ticket, and a progress bar.

Uploads travel through the notebook's websocket, so their size is capped by the server's
`websocket_max_message_size` (set to 256 MiB in `config/jupyter_server_config.json` and
`config/voila.json`); anything bigger is opened by path.
"""
from __future__ import annotations

import tempfile
from html import escape
from pathlib import Path
from typing import Callable

import ipywidgets as w

from ..judging.readings import read_case
from ..judging.triage import Triage
from ..knowledge.kb import KnowledgeBase, load_kb
from ..knowledge.messages import EN, say
from ..knowledge.vocabulary import FactError, normalize
from ..reading.bundle import BundleError, Pasted
from .paste_box import PasteBox

UPLOAD_LIMIT_MIB = 256
#: How many times the progress bar moves while the files are read, whatever their number.
PROGRESS_STEPS = 25


class BundleOpener:
    """Opens a bundle by path or upload and hands the new Triage to `on_open`."""

    def __init__(self, on_open: Callable[[Triage], None], kb: KnowledgeBase | None = None,
                 upload_dir: str | Path | None = None) -> None:
        self.on_open = on_open
        self.kb = kb
        self.upload_dir = Path(upload_dir) if upload_dir else None
        self.lang = EN
        self.path_box = w.Text(layout=w.Layout(width="60%"))
        self.open_button = w.Button(icon="folder-open")
        self.upload = w.FileUpload(accept=".gz,.tgz,.tar,.zip,.log,.txt", multiple=True)
        self.progress = w.IntProgress(min=0, max=4, value=0, description="")
        self.stage = w.Label()
        self.status = w.HTML()
        self._stage: tuple[str | None, dict] = (None, {})
        self.paste = PasteBox(lambda pasted: self._open([pasted]),
                              lambda: self._fail(ValueError(say(self.lang, "ui.paste.missing"))))
        self.open_button.on_click(lambda _: self._open_from_box())
        self.upload.observe(lambda change: self._open_upload(change["new"]), names="value")
        self.widget = w.VBox([w.HBox([self.path_box, self.open_button, self.upload]), self.paste.widget,
                              w.HBox([self.progress, self.stage]), self.status])
        self.relabel(EN)

    def relabel(self, lang: str) -> None:
        """Every label, and the progress line, in one language (en or zh)."""
        self.lang = lang
        self.path_box.description = say(lang, "ui.bundle")
        self.path_box.placeholder = say(lang, "ui.bundle.placeholder")
        self.open_button.description = say(lang, "ui.open")
        self.upload.description = say(lang, "ui.upload", mib=UPLOAD_LIMIT_MIB)
        self.paste.relabel(lang)
        msg_id, values = self._stage
        self._show_stage(msg_id, **values)

    def open(self, *paths: str | Path | Pasted, facts: dict | None = None) -> Triage:
        """Read the bundle(s) stage by stage, moving the progress bar, and return the case."""
        self.progress.value = 0
        self.status.value = ""
        self._show_stage("ui.stage.start")
        # the triage's own reading, so a bundle opened again in this process is not read again
        log, evidence = read_case(*paths, progress=self._reading, read=self._extracting)
        if log.unusable_reason():
            raise BundleError(f"{', '.join(map(str, paths))}: {log.unusable_reason()}")
        self.progress.value = self.progress.max - 1
        self._show_stage("ui.stage.ranking")
        if self.kb is None:
            self.kb = load_kb()
        answers = {k: normalize(k, v) for k, v in (facts or {}).items()}
        t = Triage(log=log, evidence=evidence, kb=self.kb, answers=answers)
        self.progress.value = self.progress.max
        self._show_stage("ui.stage.done", files=len(log.files), lines=log.lines, warnings=len(log.warnings))
        return t

    def _extracting(self, log) -> None:
        """The files are read; the evidence is next."""
        self._show_stage("ui.stage.evidence", files=len(log.files), lines=log.lines)
        self.progress.value = self.progress.max - 2

    def _reading(self, done: int, total: int) -> None:
        """One step per file read, then one for the evidence and one for the ranking; shown at most
        PROGRESS_STEPS times (every widget change is a message to the browser)."""
        if done != total and done % -(-total // PROGRESS_STEPS):
            return
        self.progress.max = total + 2
        self.progress.value = done
        self._show_stage("ui.stage.reading", done=done, total=total)

    def _show_stage(self, msg_id: str | None, /, **values) -> None:
        """The progress line, kept as a message so a change of language rewords it."""
        self._stage = (msg_id, values)
        self.stage.value = say(self.lang, msg_id, **values) if msg_id else ""

    def _fail(self, e: Exception) -> None:
        self.progress.value = 0
        self._show_stage(None)
        self.status.value = f"<span style='color:#b00'>{escape(str(e))}</span>"

    def _open_from_box(self) -> None:
        paths = [p.strip() for p in self.path_box.value.split(";") if p.strip()]
        if not paths:
            self._fail(ValueError(say(self.lang, "ui.bundle.missing")))
            return
        self._open(paths)

    def _open(self, paths: list) -> None:
        try:
            t = self.open(*paths)
        except (BundleError, FactError, OSError) as e:
            self._fail(e)
            return
        # the boxes show how this case was opened, nothing of the last one: a paste leaves no old path behind
        if any(isinstance(p, Pasted) for p in paths):
            self.path_box.value = ""
        else:
            self.paste.text.value = ""
        self.on_open(t)

    def _open_upload(self, files) -> None:
        """Store the uploaded files in a folder of their own and open it as the bundle."""
        if not files:
            return
        folder = Path(tempfile.mkdtemp(prefix="casebook-upload-", dir=self.upload_dir))
        for f in files:
            name = Path(str(f["name"])).name   # a browser sends a bare name; never trust it as a path
            if not name or name in (".", ".."):
                continue
            (folder / name).write_bytes(bytes(f["content"]))
        self.path_box.value = str(folder)
        self._open([folder])
