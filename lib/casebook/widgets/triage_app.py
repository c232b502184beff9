"""TriageApp: open a bundle, walk its case a step at a time, answer what the logs lack, export the report.

Each step reads as an expert's note: its conclusion, then the questions only the engineer can answer, then the
findings and the evidence. All log text reaches the page escaped (see step_view): plog lines are untrusted.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from html import escape
from pathlib import Path

import ipywidgets as w

from ..judging.triage import Triage
from ..knowledge.kb import KnowledgeBase
from ..knowledge.messages import EN, ZH, pick, say
from ..knowledge.vocabulary import FACTS, FactError
from ..presenting import tables, walk
from ..presenting.casefile import CaseFile
from ..presenting.step import QUESTIONS_SHOWN, Step
from .export import ExportPanel
from .figures import FigureDrawer
from .compare import BesidePanel
from .memory_form import MemoryPanel
from .opener import BundleOpener
from .step_view import body_html, head_html, styled, table_html

UNKNOWN = "unknown"
_ROOT = "root_cause"
#: What a notebook shows in place of the app where widgets cannot render: opened before it is run (an
#: untrusted notebook shows only plain text), or read on a site that renders notebooks.
NOT_RUN = "Run all cells (▶▶) to start the app. / 运行全部单元格（▶▶）以启动。"


class TriageApp:
    """The support engineer's app: bundle opener, files table, the walk with questions, export and case file."""

    def __init__(self, triage: Triage | None = None, *, folder: str | Path = "cases",
                 kb: KnowledgeBase | None = None) -> None:
        self.triage = triage
        self.steps: list[Step] = []
        self.step_index = 0
        self.questions = _Inputs(self._new_input)   # fact -> its input, made when first shown or asked for
        self._asks: dict[str, tuple[str, str | None]] = {}   # fact -> (ask, ask_zh), kept once closed
        self._homes: dict[str, set[str]] = {}                # fact -> keys of the steps that asked it
        self._rows: dict[str, w.VBox] = {}
        self._order: dict[str, list[str]] = {}               # step key -> the facts in the order last shown
        self._pngs: dict = {}   # figure key -> PNG: a step answers at once, not after a redraw
        self._drawer = FigureDrawer()
        self._screen = threading.Lock()   # the drawing thread and the page's own events both write the body
        self._quiet = False     # True while relabelling: a widget's options change, the answer does not
        # the knowledge base bundles are judged by: the one given, the triage's, else loaded at the first open
        self.opener = BundleOpener(self.load, kb=kb or (triage.kb if triage else None))
        self.export = ExportPanel(lambda: self.triage, lambda: self.step.key if self.steps else None,
                                  self._resumed, folder)
        self.memory = MemoryPanel(lambda: self.triage)
        self.beside = BesidePanel(lambda: self.triage)
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
        self.language = w.ToggleButtons(options=(("en", EN), ("中文", ZH)), value=EN)
        self.language.style.button_width = "4em"
        self.back = w.Button(icon="arrow-left")
        self.next = w.Button(icon="arrow-right")
        self.step_label = w.Label()
        self.head = w.HTML()
        self.question_title = w.HTML()
        self.question_box = w.VBox()
        self.question_box.add_class("casebook-questions")
        self.more_box = w.VBox()
        self.more_questions = w.Accordion(children=[self.more_box], selected_index=None)
        self.more_questions.add_class("casebook-more-questions")
        self.body = w.HTML()
        self.status = w.HTML()
        self.back.on_click(lambda _: self._move(-1))
        self.next.on_click(lambda _: self._move(+1))
        self.language.observe(lambda _: self._relabel(), names="value")
        self.files = w.Accordion(children=[self.files_table], selected_index=None)
        self.files.observe(lambda _: self._render_files(), names="selected_index")
        nav = w.HBox([self.back, self.step_label, self.next, self.language])
        self.widget = styled(self.opener.widget, self.header, self.files, nav, self.head, self.question_title,
                             self.question_box, self.body, self.memory.widget, self.beside.widget, self.status,
                             self.export.widget)
        self._label_widgets()

    def _repr_mimebundle_(self, **kwargs):
        """Display as the root widget, so a cell ending with `app` shows the app; where widgets cannot
        render, the plain-text view says how to start it instead of the widget's repr."""
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = NOT_RUN
        return bundle

    @property
    def lang(self) -> str:
        """The language the app speaks: en or zh."""
        return self.language.value

    def _say(self, msg_id: str, /, **values) -> str:
        return say(self.lang, msg_id, **values)

    # -- the case -------------------------------------------------------------------------------
    def open(self, *paths, facts: dict | None = None) -> Triage:
        """Read a bundle (with the progress bar) and walk it from the first step."""
        self.opener.path_box.value = "; ".join(map(str, paths))
        t = self.opener.open(*paths, facts=facts)
        self.load(t)
        return t

    def load(self, triage: Triage) -> None:
        """Walk this case from the first step; questions start from its answers; nothing of the last case stays
        (but the offer to compare it with this one)."""
        previous, self.triage = self.triage, triage
        self.step_index = 0
        self.questions, self._asks, self._homes, self._rows = _Inputs(self._new_input), {}, {}, {}
        self._order = {}
        self.status.value = ""
        self.export.new_case(_report_name(triage))
        self._adopt_given_answers()
        # kept with the reading (figures draw its evidence): a bundle opened again shows them without a redraw
        self._pngs = triage.log.derive("figure_pngs", lambda _: {})
        self.memory.load()
        self.beside.new_case(previous)
        self.refresh()

    def _resumed(self, triage: Triage, case: CaseFile) -> None:
        self.opener.path_box.value = "; ".join(case.paths)
        self.load(triage)
        if case.step:
            self.goto(case.step)

    # -- navigation -----------------------------------------------------------------------------
    @property
    def step(self) -> Step:
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
        """Rebuild the walk from the triage, in the app's language, and redraw everything."""
        self.steps = walk.build(self.triage, self.lang) if self.triage is not None else []
        for s in self.steps:
            for q in s.questions:
                self._remember(q.fact, q.ask, q.ask_zh, s.key)
        self._render_header()
        self._render_step()
        self._draw_figures()

    def _draw_figures(self) -> None:
        """Draw every step's figures behind the page, the step on screen first; a step on screen when its figures
        are done shows them."""
        steps = sorted(self.steps, key=lambda s: s is not self.step) if self.steps else []
        self._drawer.start([(s.figures, lambda s=s: self._show_figures(s)) for s in steps], self._pngs,
                           self._figure_failed)

    def _figure_failed(self, caption: str, error: Exception) -> None:
        self.status.value = (f'<span style="color:#b00">{escape(self._say("ui.figure_failed", caption=caption))}: '
                             f'{escape(f"{type(error).__name__}: {error}")}</span>')

    def _show_figures(self, step: Step) -> None:
        html = body_html(step, self._pngs, pending=True)
        with self._screen:
            if self.steps and self.step is step:
                self.body.value = html

    def wait_for_figures(self, timeout: float | None = None) -> None:
        """Return once the figures being drawn behind the page are drawn (and shown, for the step on screen)."""
        self._drawer.wait(timeout)

    def _remember(self, fact: str, ask: str, ask_zh: str | None, step_key: str) -> None:
        """Note a question and the step it belongs to (its input is made when first shown)."""
        self._asks[fact] = (ask or fact, ask_zh)
        # the root-cause step lists every question, so an answered one must stay reachable there
        self._homes.setdefault(fact, set()).update({step_key, _ROOT})

    def _new_input(self, fact: str) -> w.ValueWidget:
        """The input of a question the walk has asked, showing the answer given so far."""
        if fact not in self._asks:
            raise KeyError(f"no question {fact!r} in this walk")
        given = self.triage.answers.get(fact)
        return self._make_input(fact, UNKNOWN if given is None else _shown(given))

    def _adopt_given_answers(self) -> None:
        """Answers passed to triage() get a widget too, so the engineer can change them."""
        for fact in self.triage.answers:
            spec = FACTS.get(fact)
            self._remember(fact, spec.doc if spec else fact, None, _ROOT)

    def _options(self, fact: str) -> list[tuple[str, str]] | None:
        """(label, value) choices of a fact's input in the app's language; None for free text."""
        spec = FACTS.get(fact)
        unknown = (self._say("ui.unknown"), UNKNOWN)
        if spec is not None and spec.kind == "bool":
            return [unknown, (self._say("word.yes"), "yes"), (self._say("word.no"), "no")]
        if spec is not None and spec.choices:
            return [unknown, *((c, c) for c in spec.choices)]
        return None

    def _make_input(self, fact: str, value: str) -> w.ValueWidget:
        """A yes/no toggle, a choice list, or a text box, by the fact's kind."""
        options = self._options(fact)
        spec = FACTS.get(fact)
        if options is not None and spec.kind == "bool":
            box = w.ToggleButtons(options=options, value=value)
            box.style.button_width = "6em"
        elif options is not None:
            box = w.Dropdown(options=options, value=value)
        else:
            box = w.Text(value="" if value == UNKNOWN else value, placeholder=self._say("ui.unknown"),
                         continuous_update=False)
        # the question above the input is its label: a fact's id names nothing a reader asks
        box.add_class(f"casebook-fact-{fact}")
        box.observe(lambda change, f=fact: self._on_answer(f, change["new"]), names="value")
        return box

    def _on_answer(self, fact: str, value: str) -> None:
        """Pass the answer to the triage (unknown forgets it) and redraw."""
        if self._quiet:
            return
        try:
            self.triage.answer(fact, None if value in (UNKNOWN, "") else value)
            self.status.value = ""
        except FactError as e:
            self.status.value = f'<span style="color:#b00">{escape(str(e))}</span>'
        self.refresh()

    @contextmanager
    def _quietly(self):
        """Changes to the inputs inside this block are relabelling, not answers."""
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    # -- rendering ------------------------------------------------------------------------------
    def _label_widgets(self) -> None:
        """Every label of the app in its language."""
        self.back.description, self.next.description = self._say("ui.back"), self._say("ui.next")
        self.files.set_title(0, self._say("ui.files"))
        self.opener.relabel(self.lang)
        self.export.relabel(self.lang)
        self.memory.relabel(self.lang)
        self.beside.relabel(self.lang)
        with self._quietly():
            for fact, box in self.questions.items():
                options = self._options(fact)
                if options is not None:
                    value, box.options = box.value, options
                    box.value = value
                else:
                    box.placeholder = self._say("ui.unknown")

    def _relabel(self) -> None:
        self._label_widgets()
        self.refresh()

    def _render_header(self) -> None:
        """Files, lines and the current diagnosis."""
        self._render_files()
        if self.triage is None:
            self.header.value = f"<div>{escape(self._say('ui.empty'))}</div>"
            return
        log, d = self.triage.log, self.triage.diagnosis
        verdict = (self._say("ui.diagnosis.case", id=d.case.id, verdict=self._say(f"verdict.{d.verdict}"),
                             score=f"{d.score:.2f}") if d else self._say("ui.diagnosis.none"))
        summary = self._say("ui.summary", files=len(log.files), lines=log.lines, unparsed=log.lines_unparsed,
                            warnings=len(log.warnings))
        diagnosis = self._say("ui.diagnosis", diagnosis=verdict, candidates=len(self.triage.candidates),
                              questions=len(self.triage.questions))
        self.header.value = (f"<div>{escape(summary)}</div>"
                             f"<div class='casebook-diagnosis'><b>{escape(diagnosis)}</b></div>")

    def _render_files(self) -> None:
        """The files table, built while its section is open: a bundle of hundreds of files makes a long one."""
        shown = self.triage is not None and self.files.selected_index is not None
        self.files_table.value = table_html(tables.files(self.triage.log, self.lang)) if shown else ""

    def _render_step(self) -> None:
        """The step label, navigation state, conclusion, questions and body of the current step."""
        if not self.steps:
            self.step_label.value, self.head.value, self.body.value, self.question_title.value = "", "", "", ""
            self.back.disabled = self.next.disabled = True
            self.question_box.children = self.more_box.children = []
            return
        s = self.step
        self.memory.show(s.key == _ROOT)
        self.step_label.value = f"{self.step_index + 1}/{len(self.steps)} · {s.title}"
        self.back.disabled = self.step_index == 0
        self.next.disabled = self.step_index == len(self.steps) - 1
        self.head.value = head_html(s)
        facts = self._visible_questions()
        self.question_title.value = f"<b>{escape(self._say('ui.questions'))}</b>" if facts else ""
        rows = [self._question_row(f) for f in facts]
        self.more_box.children = rows[QUESTIONS_SHOWN:]
        self.more_questions.set_title(0, self._say("root.more_questions", n=len(rows) - QUESTIONS_SHOWN))
        self.question_box.children = rows[:QUESTIONS_SHOWN] + ([self.more_questions] if rows[QUESTIONS_SHOWN:] else [])
        html = body_html(s, self._pngs, pending=True)
        with self._screen:
            self.body.value = html

    @property
    def question_rows(self) -> list[w.VBox]:
        """The question rows of the step on screen, in order: those in view, then those under "more questions"."""
        return [r for r in self.question_box.children if r is not self.more_questions] + list(self.more_box.children)

    def _visible_questions(self) -> list[str]:
        """The step's open questions in its order (the most useful first) and the answered ones asked here; an
        answered question keeps the place it had when it was answered, the open ones fill the other places."""
        s = self.step
        open_here = [q.fact for q in s.questions if q.fact in self._asks]
        answered = [f for f in self._asks
                    if f not in open_here and f in self.triage.answers and s.key in self._homes[f]]
        before = self._order.get(s.key, [])
        kept = {before.index(f): f for f in answered if f in before}
        rest, out = iter(open_here), []
        while len(out) < len(open_here) + len(answered):
            nxt = kept.pop(len(out), None) or next(rest, None)
            if nxt is None:
                break
            out.append(nxt)
        out += [f for _, f in sorted(kept.items())] + list(rest) + [f for f in answered if f not in out]
        self._order[s.key] = out
        return out

    def _question_row(self, fact: str) -> w.VBox:
        """The question text, in the app's language, above its input; one row per fact, reused."""
        if fact not in self._rows:
            self._rows[fact] = w.VBox([w.HTML(), self.questions[fact]])
        ask, ask_zh = self._asks[fact]
        text = pick(self.lang, ask, ask_zh) if ask_zh or self.lang == EN else fact
        self._rows[fact].children[0].value = f"<div style='max-width:60em'>{escape(text)}</div>"
        return self._rows[fact]

    def html_of_step(self) -> str:
        """The current step as HTML: conclusion, findings, tables, figures, evidence; every text escaped."""
        self._drawer.draw(self.step.figures, self._pngs)
        return head_html(self.step) + body_html(self.step, self._pngs)


class _Inputs(dict):
    """The question inputs by fact, each made on first use: a walk asks dozens of questions, a page shows a few."""

    def __init__(self, make) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, fact: str) -> w.ValueWidget:
        box = self[fact] = self._make(fact)
        return box


def _shown(value: object) -> str:
    """A fact value as its widget shows it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _report_name(t: Triage) -> str:
    """What a case's report is named after: its (first) bundle, or the paste."""
    paths = [str(p) for p in t.log.paths]
    return paths[0] if paths else "case"

