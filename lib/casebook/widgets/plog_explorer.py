"""PlogExplorer: level counts, filters over the records, and the raw lines around any evidence line."""
from __future__ import annotations

from html import escape

import ipywidgets as w

from ..judging.triage import Triage
from ..presenting import logview
from .step_view import styled, table_html


class PlogExplorer:
    """Filters (level, module, file, pid, text) over the log table and a window around a chosen line."""

    def __init__(self, triage: Triage, limit: int = 200) -> None:
        self.triage, self.limit = triage, limit
        log = triage.log
        opts = logview.choices(log)
        self.level = w.Dropdown(options=opts["level"], value=logview.ANY, description="level")
        self.module = w.Dropdown(options=opts["module"], value=logview.ANY, description="module")
        self.file = w.Dropdown(options=opts["file"], value=logview.ANY, description="file",
                               layout=w.Layout(width="60%"))
        self.pid = w.Dropdown(options=opts["pid"], value=logview.ANY, description="pid")
        self.text = w.Text(description="contains", continuous_update=False)
        self.counts = w.HTML(table_html(logview.level_counts(log).reset_index()))
        self.records = w.HTML()
        self.shown = w.Label()
        n = logview.without_record(log)
        # a big bundle's INFO/DEBUG lines are counted, not kept: say so beside the filters that cannot see them
        self.unrecorded = (f"; {n} lines of big files have no record (counted above, shown around a line below)"
                           if n else "")
        ev = logview.evidence_lines(triage)
        self.evidence = w.Dropdown(options=[(f"{f}:{n}  {t[:90]}", (f, n)) for f, n, t in ev],
                                   description="evidence", layout=w.Layout(width="90%"))
        self.context = w.IntSlider(value=5, min=1, max=50, description="± lines")
        self.window = w.HTML()
        for box in (self.level, self.module, self.file, self.pid, self.text):
            box.observe(lambda _: self.apply(), names="value")
        for box in (self.evidence, self.context):
            box.observe(lambda _: self.show_window(), names="value")
        self.widget = styled(
            w.HTML("<h3>Lines per level</h3>"), self.counts,
            w.HTML("<h3>Records</h3>"), w.HBox([self.level, self.module, self.pid]), w.HBox([self.file, self.text]),
            self.shown, self.records,
            w.HTML("<h3>Around an evidence line</h3>"), self.evidence, self.context, self.window)
        self.apply()
        self.show_window()

    def _repr_mimebundle_(self, **kwargs):
        """Display as the root widget."""
        return self.widget._repr_mimebundle_(**kwargs)

    def apply(self) -> None:
        """Show the records that pass the filters."""
        f = logview.Filter(self.level.value, self.module.value, self.file.value, self.pid.value, self.text.value)
        df = logview.select(self.triage.log, f, self.limit)
        self.shown.value = f"{len(df)} record(s) shown (at most {self.limit})" + self.unrecorded
        self.records.value = table_html(df)

    def show_window(self) -> None:
        """The raw lines around the chosen evidence line, the line itself marked."""
        if self.evidence.value is None:
            self.window.value = "<i>No evidence line in this bundle.</i>"
            return
        file, line = self.evidence.value
        df = logview.window(self.triage.log, file, line, self.context.value, self.context.value)
        self.window.value = f"<p><code>{escape(file)}</code></p>{table_html(df)}"
