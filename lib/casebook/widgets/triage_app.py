"""TriageApp: open a bundle, walk its case a step at a time, answer what the logs lack, export the report.

All log text reaches the page escaped (see step_view): plog lines are untrusted input, never markup.
"""
from __future__ import annotations

from html import escape
from pathlib import Path

import ipywidgets as w

from ..judging.triage import Triage
from ..knowledge.vocabulary import FACTS, FactError
from ..presenting import walk
from ..presenting.casefile import CaseFile
from .export import ExportPanel
from .opener import BundleOpener
from .step_view import figure_png, step_html

UNKNOWN = "unknown"
EN, ZH = "en", "中文"
_BOOL_OPTIONS = (UNKNOWN, "yes", "no")
_ROOT = "root_cause"
#: The app's own labels in both languages (the walk's titles and questions come with theirs).
LABELS = {
    "back": ("Back", "上一步"), "next": ("Next", "下一步"), "files": ("Files read", "文件"),
    "lines": ("lines", "行数"), "unparsed": ("unparsed", "未解析"), "warnings": ("warnings", "警告"),
    "diagnosis": ("Diagnosis", "诊断"), "none": ("none confirmed or likely yet", "尚无确认或可能的结论"),
    "candidates": ("candidates", "候选"), "open": ("open questions", "待回答问题"),
    "empty": ("Open a bundle to start the walk.", "请先打开日志包。"),
}


class TriageApp:
    """The support engineer's app: bundle opener, files table, the walk with questions, export and case file."""

    def __init__(self, triage: Triage | None = None, *, folder: str | Path = ".") -> None:
        self.triage = triage
        self.steps: list[walk.Step] = []
        self.step_index = 0
        self.questions: dict[str, w.ValueWidget] = {}
        self._asks: dict[str, tuple[str, str | None]] = {}   # fact -> (ask, ask_zh), kept once closed
        self._homes: dict[str, set[str]] = {}                # fact -> keys of the steps that asked it
        self._rows: dict[str, w.VBox] = {}
        self._pngs: dict = {}   # figure key -> PNG: a step answers at once, not after a redraw
        self.opener = BundleOpener(self.load, kb=triage.kb if triage else None)
        self.export = ExportPanel(lambda: self.triage, lambda: self.step.key if self.steps else None,
                                  self._resumed, folder)
        self._build_widgets()
        if triage is not None:
            self.load(triage)
        else:
            self.refresh()

    # -- layout ---------------------------------------------------------------------------------
    def _build_widgets(self) -> None:
        """Create the widgets that live as long as the app."""
        self.header = w.HTML()
        self.files_table = w.HTML()
        self.language = w.ToggleButtons(options=(EN, ZH), value=EN, description="Language")
        self.back = w.Button(description="Back", icon="arrow-left")
        self.next = w.Button(description="Next", icon="arrow-right")
        self.step_label = w.Label()
        self.body = w.HTML()
        self.status = w.HTML()
        self.question_box = w.VBox()
        self.back.on_click(lambda _: self._move(-1))
        self.next.on_click(lambda _: self._move(+1))
        self.language.observe(lambda _: self._relabel(), names="value")
        files = w.Accordion(children=[self.files_table], titles=("Files",), selected_index=None)
        nav = w.HBox([self.back, self.step_label, self.next])
        self.widget = w.VBox([self.opener.widget, self.header, files, self.language, nav, self.body,
                              self.question_box, self.status, self.export.widget])

    def _repr_mimebundle_(self, **kwargs):
        """Display as the root widget, so a cell ending with `app` shows the app."""
        return self.widget._repr_mimebundle_(**kwargs)

    def _ipython_display_(self) -> None:
        """Display the root widget."""
        from IPython.display import display
        display(self.widget)

    def _label(self, key: str) -> str:
        en, zh = LABELS[key]
        return zh if self.language.value == ZH else en

    # -- the case -------------------------------------------------------------------------------
    def open(self, *paths, facts: dict | None = None) -> Triage:
        """Read a bundle (with the progress bar) and walk it from the first step."""
        self.opener.path_box.value = "; ".join(map(str, paths))
        t = self.opener.open(*paths, facts=facts)
        self.load(t)
        return t

    def load(self, triage: Triage) -> None:
        """Walk this case from the first step; questions start from its answers."""
        self.triage = triage
        self.step_index = 0
        self.questions, self._asks, self._homes, self._rows = {}, {}, {}, {}
        self.files_table.value = triage.log.files_frame().to_html(index=False, escape=True, na_rep="", border=0)
        self._adopt_given_answers()
        self._pngs = {}
        self.refresh()
        # drawn as part of loading, so every step of the walk answers without waiting for matplotlib
        for s in self.steps:
            for make in s.figures:
                figure_png(make, self._pngs)

    def _resumed(self, triage: Triage, case: CaseFile) -> None:
        self.opener.path_box.value = "; ".join(case.paths)
        self.load(triage)
        if case.step:
            self.goto(case.step)

    # -- navigation -----------------------------------------------------------------------------
    @property
    def step(self) -> walk.Step:
        """The step on screen."""
        return self.steps[self.step_index]

    def _move(self, delta: int) -> None:
        """Go delta steps forward or back, staying inside the walk."""
        self.step_index = max(0, min(len(self.steps) - 1, self.step_index + delta))
        self._render_step()

    def goto(self, key: str) -> None:
        """Show the step with this key (symptom, error_code, pc_start, topology, root_cause, fix)."""
        keys = [s.key for s in self.steps]
        if key not in keys:
            raise KeyError(f"no step {key!r}; steps: {', '.join(keys)}")
        self.step_index = keys.index(key)
        self._render_step()

    # -- state ----------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Rebuild the walk from the triage and redraw everything."""
        self.steps = walk.build(self.triage) if self.triage is not None else []
        for s in self.steps:
            for q in s.questions:
                self._remember(q.fact, q.ask, q.ask_zh, s.key)
        self._render_header()
        self._render_step()

    def _remember(self, fact: str, ask: str, ask_zh: str | None, step_key: str) -> None:
        """Note a question, the step it belongs to, and make its widget once."""
        self._asks[fact] = (ask or fact, ask_zh)
        # the root-cause step lists every question, so an answered one must stay reachable there
        self._homes.setdefault(fact, set()).update({step_key, _ROOT})
        if fact not in self.questions:
            given = self.triage.answers.get(fact)
            self.questions[fact] = self._make_input(fact, UNKNOWN if given is None else _shown(given))

    def _adopt_given_answers(self) -> None:
        """Answers passed to triage() get a widget too, so the engineer can change them."""
        for fact in self.triage.answers:
            spec = FACTS.get(fact)
            self._remember(fact, spec.doc if spec else fact, None, _ROOT)

    def _make_input(self, fact: str, value: str) -> w.ValueWidget:
        """A yes/no toggle, a choice list, or a text box, by the fact's kind."""
        spec = FACTS.get(fact)
        if spec is not None and spec.kind == "bool":
            box = w.ToggleButtons(options=_BOOL_OPTIONS, value=value, description=fact)
        elif spec is not None and spec.choices:
            box = w.Dropdown(options=(UNKNOWN, *spec.choices), value=value, description=fact)
        else:
            box = w.Text(value="" if value == UNKNOWN else value, placeholder=UNKNOWN, description=fact,
                         continuous_update=False)
        box.style.description_width = "initial"
        box.observe(lambda change, f=fact: self._on_answer(f, change["new"]), names="value")
        return box

    def _on_answer(self, fact: str, value: str) -> None:
        """Pass the answer to the triage (unknown forgets it) and redraw."""
        try:
            self.triage.answer(fact, None if value in (UNKNOWN, "") else value)
            self.status.value = ""
        except FactError as e:
            self.status.value = f'<span style="color:#b00">{escape(str(e))}</span>'
        self.refresh()

    # -- rendering ------------------------------------------------------------------------------
    def _relabel(self) -> None:
        self.back.description, self.next.description = self._label("back"), self._label("next")
        self._render_header()
        self._render_step()

    def _render_header(self) -> None:
        """Files, lines and the current diagnosis."""
        if self.triage is None:
            self.header.value = f"<div>{escape(self._label('empty'))}</div>"
            return
        log, d = self.triage.log, self.triage.diagnosis
        verdict = (f"<b>{escape(d.case.id)}</b> ({escape(d.verdict)}, score {d.score:.2f})" if d
                   else escape(self._label("none")))
        L = self._label
        self.header.value = (
            f"<div>{L('files')}: <b>{len(log.files)}</b> · {L('lines')}: <b>{log.lines}</b> · "
            f"{L('unparsed')}: <b>{log.lines_unparsed}</b> · {L('warnings')}: <b>{len(log.warnings)}</b></div>"
            f"<div class='casebook-diagnosis'>{L('diagnosis')}: {verdict} · {L('candidates')}: "
            f"{len(self.triage.candidates)} · {L('open')}: {len(self.triage.questions)}</div>")

    def _render_step(self) -> None:
        """The step label, navigation state, body and questions of the current step."""
        if not self.steps:
            self.step_label.value, self.body.value = "", ""
            self.back.disabled = self.next.disabled = True
            self.question_box.children = []
            return
        s = self.step
        self.step_label.value = f"{self.step_index + 1}/{len(self.steps)} · {self._title(s)}"
        self.back.disabled = self.step_index == 0
        self.next.disabled = self.step_index == len(self.steps) - 1
        self.body.value = self.html_of_step()
        self.question_box.children = [self._question_row(f) for f in self._visible_questions()]

    def _title(self, s: walk.Step) -> str:
        """The step title in the chosen language."""
        return s.title_zh if self.language.value == ZH else s.title

    def _visible_questions(self) -> list[str]:
        """Open questions of this step and answered ones asked here, in a stable order so none jumps."""
        s = self.step
        open_here = {q.fact for q in s.questions}
        return [f for f in self.questions
                if f in open_here or (f in self.triage.answers and s.key in self._homes[f])]

    def _question_row(self, fact: str) -> w.VBox:
        """The question text, in the chosen language, above its input; one row per fact, reused."""
        if fact not in self._rows:
            self._rows[fact] = w.VBox([w.HTML(), self.questions[fact]])
        ask, ask_zh = self._asks[fact]
        text = ask_zh if self.language.value == ZH and ask_zh else ask
        self._rows[fact].children[0].value = f"<div style='max-width:60em'>{escape(text)}</div>"
        return self._rows[fact]

    def html_of_step(self) -> str:
        """The current step as HTML: title, findings, tables, figures, cited lines; every text escaped."""
        return step_html(self.step, self._title(self.step), self._pngs)


def _shown(value: object) -> str:
    """A fact value as its widget shows it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
