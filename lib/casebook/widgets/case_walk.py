"""CaseWalk: a solved case narrated over its sample, each step's evidence beside why it matters."""
from __future__ import annotations

from html import escape

import ipywidgets as w

from ..judging.triage import Triage
from ..presenting.lesson import Lesson, lessons
from .step_view import markdown_html, step_html, styled


class CaseWalk:
    """Back / next through the lessons of one case; the evidence is the library's, the reasons the KB's."""

    def __init__(self, triage: Triage, case_id: str) -> None:
        self.triage, self.case_id = triage, case_id
        self.lessons: list[Lesson] = lessons(triage, case_id)
        self.index = 0
        self.title = w.HTML(f"<h2>{escape(triage.kb.cases[case_id].title)}</h2>")
        self.back = w.Button(description="Back", icon="arrow-left")
        self.next = w.Button(description="Next", icon="arrow-right")
        self.step_label = w.Label()
        self.evidence = w.HTML()
        self.why = w.HTML()
        self.back.on_click(lambda _: self.show(self.index - 1))
        self.next.on_click(lambda _: self.show(self.index + 1))
        # side by side where the page is wide enough, the reasons below the evidence where it is not; neither
        # is drawn over the other (step_view.STYLE: a column scrolls its own wide tables)
        columns = w.HBox([self.evidence, self.why])
        columns.add_class("casebook-walk")
        self.widget = styled(self.title, w.HBox([self.back, self.step_label, self.next]), columns)
        self.show(0)

    def _repr_mimebundle_(self, **kwargs):
        """Display as the root widget."""
        return self.widget._repr_mimebundle_(**kwargs)

    def show(self, index: int) -> None:
        """Show one step (clamped to the walk)."""
        self.index = max(0, min(len(self.lessons) - 1, index))
        lesson = self.lessons[self.index]
        s = lesson.step
        self.step_label.value = f"{self.index + 1}/{len(self.lessons)} · {s.title} / {s.title_zh}"
        self.back.disabled = self.index == 0
        self.next.disabled = self.index == len(self.lessons) - 1
        self.evidence.value = step_html(s, "What the logs show")
        self.why.value = self.why_html(lesson)

    @staticmethod
    def why_html(lesson: Lesson) -> str:
        """The case's reasons and page sections for one step."""
        items = "".join(f"<li>{escape(r)}</li>" for r in lesson.reasons)
        parts = ["<h3>Why it matters</h3>", f"<ul>{items}</ul>" if items else ""]
        parts += [f"<h4>{escape(name)}</h4>{markdown_html(text)}" for name, text in lesson.sections]
        return "".join(parts)
