"""HTML for one walk step: findings, tables, figures and cited lines, every piece of text escaped.

Log lines are untrusted input: they reach the page through `html.escape`, and DataFrames through
`to_html(escape=True)`, never as markup. Figures are drawn when a step is shown and embedded as PNG.
"""
from __future__ import annotations

import base64
from html import escape

import mistune

from ..presenting import walk
from ..presenting.report import png_of

_CELL = "padding:2px 8px;text-align:left;vertical-align:top"
# KB pages are Markdown: raw HTML inside them is shown as text, not rendered
_MARKDOWN = mistune.create_markdown(escape=True, plugins=["table"])


def markdown_html(text: str) -> str:
    """Markdown to HTML with any raw HTML in it escaped."""
    return _MARKDOWN(text or "")


def findings_html(findings: list[str]) -> str:
    """Findings as a bullet list; the walk's two-space indent becomes a nested item."""
    items = []
    for f in findings:
        indent = ' style="margin-left:1.5em"' if f.startswith("  ") else ""
        items.append(f"<li{indent}>{escape(f.strip())}</li>")
    return f"<ul>{''.join(items)}</ul>" if items else ""


def cited_html(cited: list[walk.Cited]) -> str:
    """Cited lines as a table of file:line and text."""
    if not cited:
        return ""
    rows = "".join(f"<tr><td style='{_CELL};white-space:nowrap'><code>{escape(c.where)}</code></td>"
                   f"<td style='{_CELL}'><code style='white-space:pre-wrap;word-break:break-all'>"
                   f"{escape(c.text)}</code></td></tr>" for c in cited)
    head = f"<tr><th style='{_CELL}'>file:line</th><th style='{_CELL}'>log line</th></tr>"
    return f"<table class='casebook-cited'>{head}{rows}</table>"


def tables_html(tables: list) -> str:
    """A step's (caption, DataFrame) tables, the cells escaped."""
    return "".join(f"<p><i>{escape(str(caption))}</i></p>{df.to_html(index=False, escape=True, na_rep='', border=0)}"
                   for caption, df in tables)


def figure_png(make, cache: dict | None = None) -> bytes | None:
    """One figure as PNG, drawn once per key when a cache is given (None when there is nothing to draw)."""
    key = getattr(make, "key", None)
    if cache is not None and key is not None and key in cache:
        return cache[key]
    fig = make()
    png = png_of(fig) if fig is not None else None
    if cache is not None and key is not None:
        cache[key] = png
    return png


def figures_html(figures: list, cache: dict | None = None) -> str:
    """A step's figures embedded as PNG (drawn now, or taken from the cache)."""
    out = []
    for make in figures:
        png = figure_png(make, cache)
        if png is not None:
            data = base64.b64encode(png).decode("ascii")
            out.append(f"<img style='max-width:100%' alt='figure' src='data:image/png;base64,{data}'>")
    return "".join(out)


def step_html(step: walk.Step, title: str, cache: dict | None = None) -> str:
    """The whole step: title, conclusion, findings, tables, figures, cited lines."""
    conclusion = f"<p class='casebook-conclusion'><b>{escape(step.conclusion)}</b></p>" if step.conclusion else ""
    parts = [f"<h3>{escape(title)}</h3>", conclusion, findings_html(step.findings), tables_html(step.tables),
             figures_html(step.figures, cache), cited_html(step.cited)]
    return "".join(p for p in parts if p)
