"""Quiz: one question per step over a hidden KB sample; each answer graded and explained, then a score."""
from __future__ import annotations

from html import escape

import ipywidgets as w

from ..presenting import quiz as quiz_logic
from .step_view import cited_html, styled


class Quiz:
    """A question panel per quiz question, a Check button each, and the running score."""

    def __init__(self, quiz: quiz_logic.Quiz) -> None:
        self.quiz = quiz
        self.choices: dict[str, w.RadioButtons] = {}
        self.checks: dict[str, w.Button] = {}
        self.feedback: dict[str, w.HTML] = {}
        panels = []
        for n, q in enumerate(quiz.questions, start=1):
            radio = w.RadioButtons(options=q.choices, value=None, layout=w.Layout(width="100%"))
            radio.add_class("casebook-choices")   # long choices wrap, each on lines of its own (step_view.STYLE)
            check = w.Button(description="Check", icon="check")
            out = w.HTML()
            check.on_click(lambda _, key=q.key: self.check(key))
            self.choices[q.key], self.checks[q.key], self.feedback[q.key] = radio, check, out
            head = w.HTML(f"<h3>{n}. {escape(q.prompt)}</h3>{cited_html(list(q.shown))}")
            panels.append(w.VBox([head, radio, check, out]))
        self.score = w.HTML()
        self.widget = styled(w.HTML("<p>A sample from the knowledge base, name hidden. Answer each step.</p>"),
                             *panels, self.score)
        self._render_score()

    def _repr_mimebundle_(self, **kwargs):
        """Display as the root widget."""
        return self.widget._repr_mimebundle_(**kwargs)

    def check(self, key: str) -> None:
        """Grade the chosen answer of one question and explain it."""
        choice = self.choices[key].value
        if choice is None:
            self.feedback[key].value = "<i>Pick an answer first.</i>"
            return
        g = self.quiz.answer(key, choice)
        verdict = ("<b style='color:#070'>Right.</b>" if g.correct
                   else f"<b style='color:#b00'>Not quite.</b> The answer is <code>{escape(g.answer)}</code>.")
        self.feedback[key].value = f"{verdict} {escape(g.explanation)}"
        self._render_score()

    def _render_score(self) -> None:
        right, total = self.quiz.score
        done = (f" The sample was <code>{escape(self.quiz.reveal())}</code>." if self.quiz.finished else "")
        self.score.value = f"<p class='casebook-score'>Score: {right}/{total}.{done}</p>"
