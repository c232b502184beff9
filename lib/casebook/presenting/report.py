"""The case report for the ticket: Markdown or a standalone HTML page, in English or Chinese.

Sections: input summary, the chain (one heading per step: its conclusion, open questions, findings, tables,
figures, then the evidence with each file:line once), hypotheses with for / against / missing, the
engineer's answers, the fix, and optionally a collect-more request. Every piece of log text is escaped in
HTML (a plog line is data, never markup) and, with `redact=True`, passed through one Redactor so
placeholders stay stable across the whole report, the figures' texts included (node names on the timeline,
kernel names in titles). Figures are embedded as base64 PNG, so the HTML file stands alone. Table cells go
through `tables.tidy`: no None, NaN or 48213.0.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..judging.triage import Triage
from ..knowledge.messages import EN, LANGS
from .contents import draw, gather, keep_figures, png_of, redactor
from .markdown import markdown
from .page import page
from .redact import no_redaction

__all__ = ["FORMATS", "png_of", "redactor", "render", "write"]

FORMATS = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html"}


def render(t: Triage, fmt: str = "html", redact: bool = False, collect_more: bool = False,
           figures: bool = True, lang: str = EN, seen: list | None = None, comparison=None,
           figure_folder: Path | None = None) -> str:
    """The report as Markdown (`md`) or standalone HTML (`html`), worded in `lang` (en or zh); `seen`, the case
    memory's matches, shows as "Seen before" at the root cause; `comparison` (judging.comparison), a good run
    beside this one, as a section at the end. Markdown links its figures as PNG files written into
    `figure_folder` when one is given, and embeds them otherwise."""
    if fmt not in ("md", "html"):
        raise ValueError(f"report format is md or html, not {fmt!r}")
    if lang not in LANGS:
        raise ValueError(f"the report is worded in {' or '.join(LANGS)}, not {lang!r}")
    content = gather(t, collect_more, lang, seen)
    out = markdown if fmt == "md" else page
    R = redactor(t) if redact else no_redaction
    if redact:
        out(content, R)   # a first pass learns every name, so lines shown before a name's first sighting
    if figures:           # are hidden too, in the figures as well, and the numbering stays that of this pass
        draw(content, R)
        if fmt == "md" and figure_folder is not None and any(content.plots.values()):
            keep_figures(content, figure_folder)
    text = out(content, R)
    if comparison is not None:
        from .comparison import report_section
        section = report_section(comparison, fmt, lang, R)
        text = text + section if fmt == "md" else text.replace("\n</body></html>", "\n" + section + "</body></html>")
    return text


def write(t: Triage, path: str | os.PathLike, redact: bool = False, collect_more: bool = False,
          lang: str = EN, seen: list | None = None, comparison=None) -> Path:
    """Write the report; the format follows the file suffix (.md or .html). The HTML page stands alone; the
    Markdown file's figures go beside it, into NAME-figures/ (a Markdown viewer shows them, and the text stays
    small enough to paste into a ticket)."""
    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"{path}: the report is written as .md or .html")
    path.parent.mkdir(parents=True, exist_ok=True)
    folder = path.with_name(f"{path.stem}-figures") if fmt == "md" else None
    path.write_text(render(t, fmt, redact, collect_more, lang=lang, seen=seen, comparison=comparison,
                           figure_folder=folder), encoding="utf-8")
    return path
