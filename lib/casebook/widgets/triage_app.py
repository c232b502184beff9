"""TriageApp: the walk of one case, a step at a time, with the engineer's answers re-ranking it live.

All log text reaches the page through `html.escape`: plog lines are untrusted input, never markup.
"""
from __future__ import annotations

from html import escape

import ipywidgets as w

from .. import walk
from ..facts import FACTS, FactError
from ..triage import Triage

UNKNOWN = "unknown"
EN, ZH = "en", "中文"
_BOOL_OPTIONS = (UNKNOWN, "yes", "no")
_ROOT = "root_cause"
_CELL = "padding:2px 8px;text-align:left;vertical-align:top"


class TriageApp:
    """A case walk for the notebook: header, one step with back / next, questions, language switch."""

    def __init__(self, triage: Triage) -> None:
        self.triage = triage
        self.steps: list[walk.Step] = []
        self.step_index = 0
        self.questions: dict[str, w.ValueWidget] = {}
        self._asks: dict[str, tuple[str, str | None]] = {}   # fact -> (ask, ask_zh), kept once closed
        self._homes: dict[str, set[str]] = {}                # fact -> keys of the steps that asked it
        self._rows: dict[str, w.VBox] = {}
        self._build_widgets()
        self._adopt_given_answers()
        self.refresh()

    # -- layout ---------------------------------------------------------------------------------
    def _build_widgets(self) -> None:
        """Create the widgets that live as long as the app."""
        self.header = w.HTML()
        self.language = w.ToggleButtons(options=(EN, ZH), value=EN, description="Language")
        self.back = w.Button(description="Back", icon="arrow-left")
        self.next = w.Button(description="Next", icon="arrow-right")
        self.step_label = w.Label()
        self.body = w.HTML()
        self.status = w.HTML()
        self.question_box = w.VBox()
        self.back.on_click(lambda _: self._move(-1))
        self.next.on_click(lambda _: self._move(+1))
        self.language.observe(lambda _: self._render_step(), names="value")
        nav = w.HBox([self.back, self.step_label, self.next])
        self.widget = w.VBox([self.header, self.language, nav, self.body, self.question_box, self.status])

    def _repr_mimebundle_(self, **kwargs):
        """Display as the root widget, so a cell ending with `app` shows the app."""
        return self.widget._repr_mimebundle_(**kwargs)

    def _ipython_display_(self) -> None:
        """Display the root widget."""
        from IPython.display import display
        display(self.widget)

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
        self.steps = walk.build(self.triage)
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
    def _render_header(self) -> None:
        """Files, lines and the current diagnosis."""
        log, d = self.triage.log, self.triage.diagnosis
        verdict = (f"<b>{escape(d.case.id)}</b> ({escape(d.verdict)}, score {d.score:.2f})" if d
                   else "none confirmed or likely yet")
        self.header.value = (
            f"<div>Files read: <b>{len(log.files)}</b> · lines: <b>{log.lines}</b> · "
            f"unparsed: <b>{log.lines_unparsed}</b> · warnings: <b>{len(log.warnings)}</b></div>"
            f"<div>Diagnosis: {verdict} · candidates: {len(self.triage.candidates)} · "
            f"open questions: {len(self.triage.questions)}</div>")

    def _render_step(self) -> None:
        """The step label, navigation state, body and questions of the current step."""
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
        """The current step as HTML: title, findings, cited lines; every text escaped."""
        s = self.step
        parts = [f"<h3>{escape(self._title(s))}</h3>", _findings_html(s.findings), _cited_html(s.cited)]
        return "".join(p for p in parts if p)


def _shown(value: object) -> str:
    """A fact value as its widget shows it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _findings_html(findings: list[str]) -> str:
    """Findings as a bullet list; the walk's two-space indent becomes a nested item."""
    items = []
    for f in findings:
        indent = ' style="margin-left:1.5em"' if f.startswith("  ") else ""
        items.append(f"<li{indent}>{escape(f.strip())}</li>")
    return f"<ul>{''.join(items)}</ul>" if items else ""


def _cited_html(cited: list[walk.Cited]) -> str:
    """Cited lines as a table of file:line and text."""
    if not cited:
        return ""
    rows = "".join(f"<tr><td style='{_CELL};white-space:nowrap'><code>{escape(c.where)}</code></td>"
                   f"<td style='{_CELL}'><code style='white-space:pre-wrap;word-break:break-all'>"
                   f"{escape(c.text)}</code></td></tr>" for c in cited)
    head = f"<tr><th style='{_CELL}'>file:line</th><th style='{_CELL}'>log line</th></tr>"
    return f"<table>{head}{rows}</table>"
