"""The case report for the ticket: Markdown or a standalone HTML page.

Sections: input summary, the chain (each step's findings, tables, figures and cited lines with file:line),
hypotheses with for / against / missing, the engineer's answers, the fix, and optionally a collect-more
request. Every piece of log text is escaped in HTML (a plog line is data, never markup) and, with
`redact=True`, passed through one Redactor so placeholders stay stable across the whole report.
Figures are embedded as base64 PNG, so the HTML file stands alone.
"""
from __future__ import annotations

import base64
import io
import os
import re
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Callable

import pandas as pd
from matplotlib.figure import Figure

from ..judging.triage import Triage
from ..reading.entries import printable
from . import collect, plots, walk
from .redact import Redactor, no_redaction

FORMATS = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html"}
_CSS = ("body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}"
        "code,pre{font-family:ui-monospace,monospace;font-size:90%}pre{white-space:pre-wrap;word-break:break-all;"
        "background:#f6f6f6;padding:.4em}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
        "padding:2px 6px;text-align:left;vertical-align:top}.v-confirmed{color:#070}.v-likely{color:#750}"
        ".v-ruled_out{color:#777}img{max-width:100%}")


@dataclass
class Plot:
    """A figure drawn once and kept as PNG bytes."""

    caption: str
    png: bytes

    @property
    def b64(self) -> str:
        """The PNG as base64 text for a data: URL."""
        return base64.b64encode(self.png).decode("ascii")


@dataclass
class _Content:
    """Everything a report shows, gathered once and rendered per format."""

    triage: Triage
    steps: list[walk.Step]
    plots: dict[str, list[Plot]] = field(default_factory=dict)   #: step key -> its figures
    collect: collect.CollectRequest | None = None


def png_of(fig: Figure) -> bytes:
    """A figure as PNG bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return buf.getvalue()


def _draw(make: Callable[[], Figure], caption: str) -> Plot | None:
    fig = make()
    return Plot(caption, png_of(fig)) if fig is not None else None


def gather(t: Triage, collect_more: bool = False, figures: bool = True) -> _Content:
    """The walk, its figures drawn once, and the collect-more request when asked for."""
    c = _Content(t, walk.build(t), collect=collect.build(t) if collect_more else None)
    if figures:
        for s in c.steps:
            drawn = [_draw(f, getattr(f, "caption", s.title)) for f in s.figures]
            c.plots[s.key] = [p for p in drawn if p]
        # the walk's own figures win; without them, the timeline and the first fault's address map
        if not any(c.plots.values()) and t.evidence.incidents:
            drawn = _draw(lambda: plots.timeline(t.evidence.incidents), "Errors per device and process")
            c.plots["symptom"] = [drawn] if drawn else []
        if not any(c.plots.get("pc_start", [])) and t.evidence.aicore_faults:
            fault = t.evidence.aicore_faults[0]
            drawn = _draw(lambda: plots.address_map(fault), "Address map of the first AI Core fault")
            c.plots["pc_start"] = [drawn] if drawn else []
    return c


def render(t: Triage, fmt: str = "html", redact: bool = False, collect_more: bool = False,
           figures: bool = True) -> str:
    """The report as Markdown (`md`) or standalone HTML (`html`)."""
    if fmt not in ("md", "html"):
        raise ValueError(f"report format is md or html, not {fmt!r}")
    content = gather(t, collect_more, figures)
    out = _markdown if fmt == "md" else _html
    if not redact:
        return out(content, no_redaction)
    r = Redactor(hosts={f.node for f in t.log.files if f.node})
    out(content, r)          # a first pass learns every name, so lines shown before a name's first sighting
    return out(content, r)   # are hidden too, and the numbering stays that of the first pass


def write(t: Triage, path: str | os.PathLike, redact: bool = False, collect_more: bool = False) -> Path:
    """Write the report; the format follows the file suffix (.md or .html)."""
    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"{path}: the report is written as .md or .html")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(t, fmt, redact, collect_more), encoding="utf-8")
    return path


# -- shared pieces ------------------------------------------------------------------------------------------
def _summary(t: Triage, R) -> list[tuple[str, str]]:
    log, d = t.log, t.diagnosis
    return [("Input", ", ".join(R(printable(p)) for p in log.paths)),
            ("Files", f"{len(log.files)} ({sum(1 for f in log.files if f.skipped)} skipped)"),
            ("Lines", f"{log.lines} ({log.lines_unparsed} kept unparsed), {log.bytes} bytes"),
            ("Error lines", str(t.evidence.error_lines)),
            ("Diagnosis", f"{d.case.id} ({d.verdict}, score {d.score:.2f})" if d else "none confirmed or likely")]


def _files(t: Triage, R) -> pd.DataFrame:
    df = t.log.files_frame()[["path", "role", "device", "pid", "lines", "unparsed", "first_time", "last_time",
                              "skipped"]]
    return _redact_frame(df, R)


def _redact_frame(df: pd.DataFrame, R) -> pd.DataFrame:
    if R is no_redaction:
        return df
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object:
            out[col] = out[col].map(lambda v: R(v) if isinstance(v, str) else v)
    return out


def _where(file, line) -> str:
    return f"{file}:{line}" if file else "engineer"


# -- Markdown ------------------------------------------------------------------------------------------------
# CommonMark ends a line at LF, CR or CRLF: log text must carry none of them into the report
_LINE_BREAK = re.compile(r"\r\n?|\n")
# what makes inline markup of text: links and images ([), emphasis (* always; _ unless it sits between two
# letters or digits, where CommonMark never reads it as emphasis, so TASK_QUEUE_ENABLE stays as it is), code
# spans (`), strikethrough (~), and the backslash that would escape any of them
_INLINE_MARK = re.compile(r"[\\`*\[\]~]|(?<![^\W_])_|_(?![^\W_])")
_TICKS = re.compile(r"`+")
_TILDES = re.compile(r"~+")


def _md_text(s: str) -> str:
    # knowledge-base prose: no raw HTML reaches a Markdown viewer
    return escape(s, quote=False)


def _md_log(s: str) -> str:
    """Text that may come from a log, a file name or the engineer, as Markdown that renders it as plain text."""
    return _INLINE_MARK.sub(lambda m: "\\" + m.group(), escape(_LINE_BREAK.sub(" ", s), quote=False))


def _md_code(s: str) -> str:
    """An inline code span holding `s` verbatim: delimited by more backticks than any run inside it."""
    s = _LINE_BREAK.sub(" ", s)
    ticks = "`" * (1 + max(map(len, _TICKS.findall(s)), default=0))
    return f"{ticks} {s} {ticks}" if s.startswith("`") or s.endswith("`") else f"{ticks}{s}{ticks}"


def _md_cell(s: object) -> str:
    return _md_log("" if s is None or (isinstance(s, float) and pd.isna(s)) else str(s)).replace("|", "\\|")


def _md_table(df: pd.DataFrame) -> list[str]:
    head = "| " + " | ".join(_md_cell(c) for c in df.columns) + " |"
    rule = "|" + "---|" * len(df.columns)
    rows = ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return [head, rule, *rows, ""]


def _md_block(lines: list[str]) -> list[str]:
    """Lines shown verbatim in a fenced block: a CR inside a line (CommonMark would end the line there and could
    end the fence) is shown as ␍, and the fence is longer than any run of tildes inside."""
    lines = [line.replace("\r", "␍").replace("\n", "␊") for line in lines]
    fence = "~" * max(4, 1 + max((len(r) for line in lines for r in _TILDES.findall(line)), default=0))
    return [f"{fence}text", *lines, fence, ""]


def _markdown(c: _Content, R) -> str:
    t = c.triage
    out = ["# Case report", ""]
    out += [f"- **{k}**: {_md_log(v)}" for k, v in _summary(t, R)] + [""]
    out += ["## Input", ""] + _md_table(_files(t, R))
    if t.log.warnings:
        out += ["Warnings:", ""] + _md_block([R(w) for w in t.log.warnings])
    out += ["## The chain", ""]
    for n, s in enumerate(c.steps, start=1):
        out += [f"### {n}. {s.title} / {s.title_zh}", ""]
        out += [("  " if f.startswith("  ") else "") + f"- {_md_log(R(f.strip()))}" for f in s.findings] + [""]
        for caption, df in s.tables:
            out += [f"*{_md_log(R(caption))}*", ""] + _md_table(_redact_frame(df, R))
        for p in c.plots.get(s.key, []):
            out += [f"![{_md_log(p.caption)}](data:image/png;base64,{p.b64})", ""]
        if s.cited:
            out += ["Evidence:", ""] + _md_block([f"{R(x.where)}: {R(x.text)}" for x in s.cited])
        for q in s.questions:
            out += [f"- open question ({q.fact}): {_md_text(q.ask)}"]
        if s.questions:
            out.append("")
    out += ["## Hypotheses", ""]
    for h in t.candidates:
        out += [f"### {h.case.id}: {h.verdict} (score {h.score:.2f})", "", _md_text(h.case.title), ""]
        for label, items in (("For", h.for_), ("Against", h.against)):
            out += [f"**{label}**", ""] if items else []
            for i in items:
                out.append(f"- [{i.id}] {_md_code(R(_where(i.file, i.line)))} {_md_log(R(i.text))}"
                           + (f" — {_md_text(i.why)}" if i.why else ""))
            out += [""] if items else []
        if h.missing:
            out += ["**Missing**", ""] + [f"- {m.fact}{'' if m.required else ' (optional)'}: {_md_text(m.ask)}"
                                         for m in h.missing] + [""]
    if not t.candidates:
        out += ["No known case has a matching signature.", ""]
    out += ["## Answers given", ""]
    out += [f"- {k} = {_md_log(R(str(v)))}" for k, v in sorted(t.answers.items())] or ["- none"]
    out += ["", "## Fix", ""] + _md_fix(t) + [""]
    if c.collect is not None:
        out += ["## Collect more", "", R(c.collect.to_markdown())]
    return "\n".join(out).rstrip() + "\n"


def _fix_items(t: Triage) -> list[tuple[str, str]]:
    d = t.diagnosis
    if d is None:
        return []
    labels = (("workaround", "Workaround now"), ("fix", "Real fix"), ("version_advice", "Versions"),
              ("confirm", "How to confirm the fix"))
    return [(label, d.case.fix[k]) for k, label in labels if d.case.fix.get(k)]


def _md_fix(t: Triage) -> list[str]:
    items = _fix_items(t)
    if not items:
        return ["No diagnosis yet: answer the open questions or collect what the chain asks for."]
    return [f"- **{label}**: {_md_text(text)}" for label, text in items]


# -- HTML ----------------------------------------------------------------------------------------------------
_INDENT = ' style="margin-left:1.5em"'


def _h(s: object) -> str:
    return escape("" if s is None else str(s))


def _html_table(df: pd.DataFrame) -> str:
    return df.to_html(index=False, escape=True, na_rep="", border=0)


def _html(c: _Content, R) -> str:
    t = c.triage
    body = ["<h1>Case report</h1>", "<table>"]
    body += [f"<tr><th>{_h(k)}</th><td>{_h(v)}</td></tr>" for k, v in _summary(t, R)] + ["</table>"]
    body += ["<h2>Input</h2>", _html_table(_files(t, R))]
    if t.log.warnings:
        body.append("<p>Warnings:</p><pre>" + "\n".join(_h(R(w)) for w in t.log.warnings) + "</pre>")
    body.append("<h2>The chain</h2>")
    for n, s in enumerate(c.steps, start=1):
        body.append(f"<h3>{n}. {_h(s.title)} / {_h(s.title_zh)}</h3><ul>")
        body += [f"<li{_INDENT if f.startswith('  ') else ''}>{_h(R(f.strip()))}</li>" for f in s.findings]
        body.append("</ul>")
        for caption, df in s.tables:
            body.append(f"<p><i>{_h(R(caption))}</i></p>{_html_table(_redact_frame(df, R))}")
        for p in c.plots.get(s.key, []):
            body.append(f"<figure><img alt='{_h(p.caption)}' src='data:image/png;base64,{p.b64}'>"
                        f"<figcaption>{_h(p.caption)}</figcaption></figure>")
        if s.cited:
            body.append("<table><tr><th>file:line</th><th>log line</th></tr>")
            body += [f"<tr><td><code>{_h(R(x.where))}</code></td><td><code>{_h(R(x.text))}</code></td></tr>"
                     for x in s.cited]
            body.append("</table>")
        body += [f"<p>Open question ({_h(q.fact)}): {_h(q.ask)}</p>" for q in s.questions]
    body.append("<h2>Hypotheses</h2>")
    for h in t.candidates:
        body.append(f"<h3 class='v-{_h(h.verdict)}'>{_h(h.case.id)}: {_h(h.verdict)} (score {h.score:.2f})</h3>"
                    f"<p>{_h(h.case.title)}</p>")
        for label, items in (("For", h.for_), ("Against", h.against)):
            if items:
                body.append(f"<p><b>{label}</b></p><ul>")
                body += [f"<li>[{_h(i.id)}] <code>{_h(R(_where(i.file, i.line)))}</code> {_h(R(i.text))}"
                         + (f" — {_h(i.why)}" if i.why else "") + "</li>" for i in items]
                body.append("</ul>")
        if h.missing:
            body.append("<p><b>Missing</b></p><ul>")
            body += [f"<li>{_h(m.fact)}{'' if m.required else ' (optional)'}: {_h(m.ask)}</li>" for m in h.missing]
            body.append("</ul>")
    if not t.candidates:
        body.append("<p>No known case has a matching signature.</p>")
    body.append("<h2>Answers given</h2><ul>")
    body += [f"<li>{_h(k)} = {_h(R(str(v)))}</li>" for k, v in sorted(t.answers.items())] or ["<li>none</li>"]
    body.append("</ul><h2>Fix</h2>")
    items = _fix_items(t)
    body.append("<ul>" + "".join(f"<li><b>{_h(k)}</b>: {_h(v)}</li>" for k, v in items) + "</ul>" if items else
                "<p>No diagnosis yet: answer the open questions or collect what the chain asks for.</p>")
    if c.collect is not None:
        body.append("<h2>Collect more</h2><ol>")
        for a in c.collect.asks:
            how = "<pre>" + "\n".join(_h(R(x)) for x in a.how) + "</pre>" if a.how else ""
            body.append(f"<li><b>{_h(a.what)}</b>: {_h(R(a.why))}{how}</li>")
        body.append("</ol>" if c.collect.asks else "</ol><p>Nothing more to collect.</p>")
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>Casebook case report</title>"
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
