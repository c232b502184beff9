"""BundleOpener: a path box for bundles of any size, an upload for small archives, a paste box for text, and a
progress bar.

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

from ..evidence.registry import KEEP, extract_evidence
from ..judging.triage import Triage
from ..knowledge.kb import KnowledgeBase, load_kb
from ..knowledge.vocabulary import FactError, normalize
from ..reading.bundle import BundleError, Pasted
from ..reading.plog import read_plog
from .paste_box import PasteBox

#: What the progress bar steps through.
STAGES = ("reading the logs", "extracting evidence", "ranking known cases", "done")
UPLOAD_LIMIT_MIB = 256


class BundleOpener:
    """Opens a bundle by path or upload and hands the new Triage to `on_open`."""

    def __init__(self, on_open: Callable[[Triage], None], kb: KnowledgeBase | None = None,
                 upload_dir: str | Path | None = None) -> None:
        self.on_open = on_open
        self.kb = kb
        self.upload_dir = Path(upload_dir) if upload_dir else None
        self.path_box = w.Text(placeholder="plog folder, archive or file (several: separate with ;)",
                               description="Bundle", layout=w.Layout(width="60%"))
        self.open_button = w.Button(description="Open", icon="folder-open")
        self.upload = w.FileUpload(accept=".gz,.tgz,.tar,.zip,.log,.txt", multiple=True,
                                   description=f"Upload (≤ {UPLOAD_LIMIT_MIB} MiB)")
        self.progress = w.IntProgress(min=0, max=len(STAGES), value=0, description="")
        self.stage = w.Label()
        self.status = w.HTML()
        self.paste = PasteBox(lambda pasted: self._open([pasted]), lambda why: self._fail(ValueError(why)))
        self.open_button.on_click(lambda _: self._open_from_box())
        self.upload.observe(lambda change: self._open_upload(change["new"]), names="value")
        self.widget = w.VBox([w.HBox([self.path_box, self.open_button, self.upload]), self.paste.widget,
                              w.HBox([self.progress, self.stage]), self.status])

    def open(self, *paths: str | Path | Pasted, facts: dict | None = None) -> Triage:
        """Read the bundle(s) stage by stage, moving the progress bar, and return the case."""
        self.progress.value = 0
        self.status.value = ""
        self._stage(0)
        log = read_plog(*paths, keep=KEEP, progress=self._reading)
        if log.unusable_reason():
            raise BundleError(f"{', '.join(map(str, paths))}: {log.unusable_reason()}")
        self.stage.value = f"{STAGES[1]} ({len(log.files)} files, {log.lines} lines read)"
        self.progress.value = self.progress.max - 2
        evidence = extract_evidence(log)
        self.progress.value = self.progress.max - 1
        self.stage.value = STAGES[2]
        if self.kb is None:
            self.kb = load_kb()
        answers = {k: normalize(k, v) for k, v in (facts or {}).items()}
        t = Triage(log=log, evidence=evidence, kb=self.kb, answers=answers)
        self.progress.value = self.progress.max
        self.stage.value = f"{len(log.files)} files, {log.lines} lines, {len(log.warnings)} warnings"
        return t

    def _reading(self, done: int, total: int) -> None:
        """One step per file read, then one for the evidence and one for the ranking."""
        self.progress.max = total + 2
        self.progress.value = done
        self.stage.value = f"{STAGES[0]} ({done}/{total} files)"

    def _stage(self, i: int) -> None:
        self.progress.value = i
        self.stage.value = STAGES[i]

    def _fail(self, e: Exception) -> None:
        self.progress.value = 0
        self.stage.value = ""
        self.status.value = f"<span style='color:#b00'>{escape(str(e))}</span>"

    def _open_from_box(self) -> None:
        paths = [p.strip() for p in self.path_box.value.split(";") if p.strip()]
        if not paths:
            self._fail(ValueError("type the path of a plog folder, archive or file"))
            return
        self._open(paths)

    def _open(self, paths: list) -> None:
        try:
            t = self.open(*paths)
        except (BundleError, FactError, OSError) as e:
            self._fail(e)
            return
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
