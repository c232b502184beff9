"""KbBrowser: search cases and code pages (code, kernel name, words in English or Chinese) and read them."""
from __future__ import annotations

from html import escape

import ipywidgets as w

from ..knowledge.kb import KnowledgeBase
from ..knowledge.search import Hit, page, search
from .step_view import markdown_html


class KbBrowser:
    """A search box, the matching entries, and the chosen page rendered."""

    def __init__(self, kb: KnowledgeBase, query: str = "") -> None:
        self.kb = kb
        self.hits: list[Hit] = []
        self.query = w.Text(value=query, placeholder="code, kernel name, or words (English or 中文)",
                            description="Search", continuous_update=False)
        self.results = w.Select(options=[], rows=8, layout=w.Layout(width="90%"))
        self.count = w.Label()
        self.page = w.HTML()
        self.query.observe(lambda _: self.run(), names="value")
        self.results.observe(lambda _: self._render_page(), names="value")
        self.widget = w.VBox([w.HBox([self.query, self.count]), self.results, self.page])
        self.run()

    def _repr_mimebundle_(self, **kwargs):
        """Display as the root widget."""
        return self.widget._repr_mimebundle_(**kwargs)

    def run(self) -> list[Hit]:
        """Search with the current query and show the best match."""
        self.hits = search(self.kb, self.query.value)
        self.results.options = [(h.label, i) for i, h in enumerate(self.hits)]
        self.count.value = f"{len(self.hits)} match(es)"
        self.results.value = 0 if self.hits else None
        self._render_page()
        return self.hits

    def _render_page(self) -> None:
        i = self.results.value
        if i is None or i >= len(self.hits):
            self.page.value = "<p><i>Nothing matches.</i></p>" if not self.hits else ""
            return
        h = self.hits[i]
        self.page.value = (f"<p><code>{escape(h.path)}</code> · matched on {escape(', '.join(h.matched) or 'all')}"
                           f"</p>{markdown_html(page(self.kb, h.kind, h.id))}")
