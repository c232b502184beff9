"""HTML for one walk step, in the order an expert reads it: title and conclusion, then (the questions, which
are widgets) the findings, tables and figures, then the evidence, one block per burst of nearby lines.

Log lines are untrusted input: they reach the page through `html.escape`, and DataFrames through
`to_html(escape=True)`, never as markup. Figures are drawn when a step is shown and embedded as PNG.
"""
from __future__ import annotations

import base64
from html import escape

import ipywidgets as w
import mistune

from ..knowledge.messages import EN, say
from ..presenting.citation import Burst, Cited, bursts
from ..presenting.contents import png_of
from ..presenting.step import Step
from ..presenting.tables import cell

#: Cells up to this many characters never wrap (numbers, times, codes); longer ones wrap anywhere.
NOWRAP = 26
#: Class of the element every rendered step lives in; STYLE is scoped to it.
ROOT_CLASS = "casebook-app"
#: The look of steps and tables: wrapped to the panel (a path breaks anywhere, so `:line` stays in view),
#: the matched part of a cited line highlighted.
STYLE = f"""<style>
.{ROOT_CLASS} {{ max-width: 100%; }}
.{ROOT_CLASS} .casebook-conclusion {{ font-size: 1.1em; margin: 0.2em 0 0.6em 0; }}
.{ROOT_CLASS} table.casebook-table {{ border-collapse: collapse; font-size: 12px; margin-bottom: 0.8em; }}
.{ROOT_CLASS} table.casebook-table th, .{ROOT_CLASS} table.casebook-table td {{
  padding: 2px 8px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }}
.{ROOT_CLASS} table.casebook-table .casebook-nowrap {{ white-space: nowrap; }}
.{ROOT_CLASS} table.casebook-table tr:nth-child(even) {{ background: var(--jp-layout-color2, #f3f3f3); }}
.{ROOT_CLASS} .casebook-burst {{ margin: 0 0 0.6em 0; }}
.{ROOT_CLASS} .casebook-where {{ font-family: monospace; font-size: 12px; font-weight: bold; overflow-wrap: anywhere; }}
.{ROOT_CLASS} .casebook-cite {{ font-family: monospace; font-size: 12px; white-space: pre-wrap;
  overflow-wrap: anywhere; margin-left: 1em; }}
.{ROOT_CLASS} .casebook-cite summary {{ cursor: pointer; }}
.{ROOT_CLASS} .casebook-cite .casebook-full {{ display: block; margin: 0.2em 0 0.4em 2em;
  color: var(--jp-ui-font-color1, #222); }}
.{ROOT_CLASS} .casebook-lineno {{ color: var(--jp-ui-font-color2, #666); margin-right: 0.6em; }}
.{ROOT_CLASS} mark {{ background: #ffe58a; color: inherit; }}
.{ROOT_CLASS} .casebook-causes {{ display: flex; flex-wrap: wrap; gap: 0.8em; margin-bottom: 0.8em; }}
.{ROOT_CLASS} .casebook-cause {{ flex: 1 1 16em; min-width: 0; padding: 0.4em 0.6em; overflow-wrap: anywhere;
  border: 1px solid var(--jp-border-color1, #ccc); border-radius: 4px; }}
.{ROOT_CLASS} .casebook-cause ul {{ margin: 0.2em 0 0.4em 0; padding-left: 1.2em; }}
.{ROOT_CLASS} .casebook-choices .widget-radio-box {{ gap: 0.3em; }}
.{ROOT_CLASS} .casebook-choices .widget-radio-box label {{ height: auto; line-height: 1.35; white-space: normal;
  overflow-wrap: anywhere; align-items: flex-start; }}
.{ROOT_CLASS} .casebook-choices input {{ flex: none; margin-top: 0.2em; }}
.{ROOT_CLASS} .casebook-walk {{ flex-wrap: wrap; gap: 1em; }}
.{ROOT_CLASS} .casebook-walk > .widget-html {{ flex: 1 1 30em; min-width: 0; overflow-x: auto; }}
.{ROOT_CLASS} .casebook-walk table.casebook-table {{ display: block; overflow-x: auto; max-width: 100%; }}
.{ROOT_CLASS} .casebook-fold {{ margin: 0 0 0.6em 0; }}
.{ROOT_CLASS} .casebook-fold > summary {{ cursor: pointer; font-weight: bold; }}
</style>"""
# KB pages are Markdown: raw HTML inside them is shown as text, not rendered
_MARKDOWN = mistune.create_markdown(escape=True, plugins=["table"])


def styled(*children: w.Widget) -> w.VBox:
    """A root box whose steps, tables and cited lines take the look of STYLE."""
    box = w.VBox([w.HTML(STYLE), *children])
    box.add_class(ROOT_CLASS)
    return box


def markdown_html(text: str) -> str:
    """Markdown to HTML with any raw HTML in it escaped."""
    return _MARKDOWN(text or "")


def head_html(step: Step) -> str:
    """The step's conclusion in one sentence."""
    return f"<p class='casebook-conclusion'><b>{escape(step.conclusion)}</b></p>" if step.conclusion else ""


def findings_html(findings: list[str]) -> str:
    """Findings as a bullet list; the walk's two-space indent becomes a nested item."""
    items = []
    for f in findings:
        indent = ' style="margin-left:1.5em"' if f.startswith("  ") else ""
        items.append(f"<li{indent}>{escape(f.strip())}</li>")
    return f"<ul class='casebook-findings'>{''.join(items)}</ul>" if items else ""


def _cell(tag: str, value: object) -> str:
    text = str(cell(value))
    # a short value (a number, a time, a code) stays on one line; a long one (a path, a message) wraps anywhere
    wrap = " class='casebook-nowrap'" if len(text) <= NOWRAP else ""
    return f"<{tag}{wrap}>{escape(text)}</{tag}>"


def table_html(df) -> str:
    """A DataFrame as an escaped table that fits the panel; an unknown value is an empty cell."""
    head = "".join(_cell("th", c) for c in df.columns)
    rows = "".join(f"<tr>{''.join(_cell('td', v) for v in row)}</tr>" for row in df.itertuples(index=False))
    return f"<table class='casebook-table'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def tables_html(tables: list) -> str:
    """A step's (caption, DataFrame) tables, the cells escaped."""
    return "".join(f"<p><i>{escape(str(caption))}</i></p>{table_html(df)}" for caption, df in tables)


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


def figures_html(figures: list, cache: dict | None = None, lang: str | None = None) -> str:
    """A step's figures embedded as PNG (drawn now, or taken from the cache), each above its caption; with
    `lang`, a figure not in the cache yet is not drawn but announced in that language (it is being drawn)."""
    out = []
    for make in figures:
        key = getattr(make, "key", None)
        if lang is not None and cache is not None and key is not None and key not in cache:
            caption = escape(str(getattr(make, "caption", "")))
            out.append(f"<figure class='casebook-pending' style='margin:0 0 0.8em 0'><i>"
                       f"{escape(say(lang, 'ui.drawing'))}</i><figcaption><i>{caption}</i></figcaption></figure>")
            continue
        png = figure_png(make, cache)
        if png is not None:
            data = base64.b64encode(png).decode("ascii")
            caption = escape(str(getattr(make, "caption", "")))
            out.append(f"<figure style='margin:0 0 0.8em 0'><img style='max-width:100%' alt='{caption}' "
                       f"src='data:image/png;base64,{data}'><figcaption><i>{caption}</i></figcaption></figure>")
    return "".join(out)


def cite_html(c: Cited, lang: str) -> str:
    """One cited line: its number and the excerpt around the matched part (highlighted); when the excerpt
    is shorter than the line, a click opens the whole line."""
    part = c.excerpt()
    number = str(c.line) if c.file else say(lang, "source.engineer")
    text = (f"{escape(part.before)}<mark>{escape(part.match)}</mark>{escape(part.after)}" if part.match
            else escape(str(part)))
    shown = f"<span class='casebook-lineno'>{escape(number)}</span>{text}"
    where = escape(c.where, quote=True)
    if str(part) == c.text.rstrip():
        return f"<div class='casebook-cite' data-where='{where}'>{shown}</div>"
    return (f"<details class='casebook-cite' data-where='{where}'><summary title='{escape(say(lang, 'ui.full_line'))}'>"
            f"{shown}</summary><span class='casebook-full'>{escape(c.text)}</span></details>")


def burst_html(b: Burst, lang: str) -> str:
    """Nearby lines of one file under one `file:first-last` heading."""
    head = f"<div class='casebook-where'>{escape(b.where)}</div>" if b.file else ""
    return f"<div class='casebook-burst'>{head}{''.join(cite_html(c, lang) for c in b.lines)}</div>"


def cited_html(cited: list[Cited], lang: str = EN) -> str:
    """Cited lines grouped in bursts of nearby lines of one file."""
    blocks = "".join(burst_html(b, lang) for b in bursts(cited))
    return f"<div class='casebook-evidence'>{blocks}</div>" if blocks else ""


def evidence_html(step: Step) -> str:
    """The step's cited lines, each file:line once, grouped in bursts."""
    if not step.cited:
        return ""
    return f"<h4>{escape(say(step.lang, 'ui.evidence', n=len(step.cited)))}</h4>{cited_html(step.cited, step.lang)}"


def causes_html(step: Step) -> str:
    """The leading causes side by side, each with its reasons for and against and what is still unknown."""
    if not step.causes:
        return ""
    cols = []
    for c in step.causes:
        parts = [f"<b>{escape(c.title)}</b> <i>({escape(c.id)}, {escape(c.verdict)})</i>"]
        for key, texts in (("for", c.for_), ("against", c.against), ("missing", c.missing)):
            items = "".join(f"<li>{escape(t)}</li>" for t in texts) or \
                f"<li><i>{escape(say(step.lang, 'root.cause.nothing'))}</i></li>"
            parts.append(f"<div class='casebook-cause-{key}'>{escape(say(step.lang, f'root.cause.{key}'))}"
                         f"<ul>{items}</ul></div>")
        cols.append(f"<div class='casebook-cause' data-case='{escape(c.id, quote=True)}'>{''.join(parts)}</div>")
    return (f"<h4>{escape(say(step.lang, 'root.leading'))}</h4>"
            f"<div class='casebook-causes'>{''.join(cols)}</div>")


def folds_html(step: Step) -> str:
    """The parts of a step folded away, each opened by a click on its caption."""
    return "".join(f"<details class='casebook-fold'><summary>{escape(f.caption)}</summary>"
                   f"{findings_html(f.findings)}{tables_html(f.tables)}{_fold_lines(f.cited)}</details>"
                   for f in step.folds)


def _fold_lines(lines: list[Cited]) -> str:
    """The lines behind a folded part, as logged: `file:line` and text, outside the step's own evidence."""
    rows = "".join(f"<div class='casebook-cite'><span class='casebook-lineno'>{escape(c.where)}</span>"
                   f"{escape(c.text)}</div>" for c in lines)
    return f"<div class='casebook-fold-lines'>{rows}</div>" if rows else ""


def body_html(step: Step, cache: dict | None = None, pending: bool = False) -> str:
    """Everything after the questions: leading causes, findings, tables, folded parts, figures, evidence; with
    `pending`, the figures not in the cache are announced as being drawn instead of drawn now."""
    parts = [causes_html(step), findings_html(step.findings), tables_html(step.tables), folds_html(step),
             figures_html(step.figures, cache, step.lang if pending else None), evidence_html(step)]
    return "".join(p for p in parts if p)


def questions_html(step: Step) -> str:
    """The step's questions as text: the most useful few in view, the rest folded under "more questions"."""
    if not step.questions:
        return ""
    shown = "".join(f"<li>{escape(step.ask(q))}</li>" for q in step.questions_shown)
    more = "".join(f"<li>{escape(step.ask(q))}</li>" for q in step.questions_more)
    folded = (f"<details class='casebook-fold casebook-more-questions'><summary>"
              f"{escape(say(step.lang, 'root.more_questions', n=len(step.questions_more)))}</summary>"
              f"<ul>{more}</ul></details>") if more else ""
    return f"<p><b>{escape(say(step.lang, 'ui.questions'))}</b></p><ul class='casebook-questions'>{shown}</ul>{folded}"


def step_html(step: Step, title: str, cache: dict | None = None) -> str:
    """A whole step where its questions are text, not widgets (the training walk)."""
    return f"<h3>{escape(title)}</h3>" + head_html(step) + questions_html(step) + body_html(step, cache)
