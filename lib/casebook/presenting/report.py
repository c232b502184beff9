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
from ..knowledge.messages import EN, LANGS, pick, say, words
from . import collect, plots, tables, walk
from .citation import Cited
from .hypotheses import FIX_KEYS, fact_words, is_fact, verdict_words
from .redact import Redactor, no_redaction, node_folders
from .step import Step

FORMATS = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html"}
_CSS = ("body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}"
        "code,pre{font-family:ui-monospace,monospace;font-size:90%}pre{white-space:pre-wrap;word-break:break-all;"
        "background:#f6f6f6;padding:.4em}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
        "padding:2px 6px;text-align:left;vertical-align:top}td code{white-space:pre-wrap;word-break:break-all}"
        ".v-confirmed{color:#070}.v-likely{color:#750}.v-ruled_out{color:#777}img{max-width:100%}"
        "mark{background:#fde68a}.conclusion{font-weight:600}")


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
    steps: list[Step]
    lang: str = EN
    plots: dict[str, list[Plot]] = field(default_factory=dict)   #: step key -> its figures
    collect: collect.CollectRequest | None = None

    def say(self, msg_id: str, /, **values) -> str:
        return say(self.lang, msg_id, **values)


def png_of(fig: Figure) -> bytes:
    """A figure as PNG bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return buf.getvalue()


def _draw(make: Callable[[], Figure], caption: str, R) -> Plot | None:
    fig = make()
    if fig is None:
        return None
    if R is not no_redaction:
        plots.relabel(fig, R)
    return Plot(R(caption), png_of(fig))


def gather(t: Triage, collect_more: bool = False, lang: str = EN) -> _Content:
    """The walk in `lang` and the collect-more request when asked for; the figures are drawn by `draw`."""
    return _Content(t, walk.build(t, lang), lang, collect=collect.build(t) if collect_more else None)


def draw(c: _Content, R=no_redaction) -> None:
    """The figures of the walk, each drawn once, its texts passed through `R`."""
    for s in c.steps:
        drawn = [_draw(f, getattr(f, "caption", s.title), R) for f in s.figures]
        c.plots[s.key] = [p for p in drawn if p]
    # the walk's own figures win; without them, the timeline
    if not any(c.plots.values()) and c.triage.evidence.incidents:
        drawn = _draw(lambda: plots.timeline(c.triage.evidence.incidents), c.say("figure.timeline"), R)
        c.plots["symptom"] = [drawn] if drawn else []


def redactor(t: Triage) -> Redactor:
    """The Redactor of one case, told the names of its nodes: those the reader found, and the folders the bundle
    is split into per machine (a short host name is nowhere else recognisable as one)."""
    return Redactor(hosts={f.node for f in t.log.files if f.node} | node_folders([f.path for f in t.log.files],
                                                                                 t.log.paths))


def render(t: Triage, fmt: str = "html", redact: bool = False, collect_more: bool = False,
           figures: bool = True, lang: str = EN) -> str:
    """The report as Markdown (`md`) or standalone HTML (`html`), worded in `lang` (en or zh)."""
    if fmt not in ("md", "html"):
        raise ValueError(f"report format is md or html, not {fmt!r}")
    if lang not in LANGS:
        raise ValueError(f"the report is worded in {' or '.join(LANGS)}, not {lang!r}")
    content = gather(t, collect_more, lang)
    out = _markdown if fmt == "md" else _html
    R = redactor(t) if redact else no_redaction
    if redact:
        out(content, R)   # a first pass learns every name, so lines shown before a name's first sighting
    if figures:           # are hidden too, in the figures as well, and the numbering stays that of this pass
        draw(content, R)
    return out(content, R)


def write(t: Triage, path: str | os.PathLike, redact: bool = False, collect_more: bool = False,
          lang: str = EN) -> Path:
    """Write the report; the format follows the file suffix (.md or .html)."""
    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"{path}: the report is written as .md or .html")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(t, fmt, redact, collect_more, lang=lang), encoding="utf-8")
    return path


# -- shared pieces ------------------------------------------------------------------------------------------
def _summary(c: _Content, R) -> list[tuple[str, str]]:
    t = c.triage
    log, d = t.log, t.diagnosis
    skipped = sum(1 for f in log.files if f.skipped)
    return [(c.say("report.input"), ", ".join(R(printable(p)) for p in log.paths)),
            (c.say("report.files"), c.say("report.files_value", files=len(log.files), skipped=skipped)),
            (c.say("report.lines"), c.say("report.lines_value", lines=log.lines, unparsed=log.lines_unparsed,
                                          bytes=log.bytes)),
            (c.say("report.error_lines"), str(t.evidence.error_lines)),
            (c.say("report.diagnosis"), c.say("report.diagnosis_value", id=d.case.id, verdict=verdict_words(
                c.lang, d.verdict), score=f"{d.score:.2f}") if d else c.say("report.no_diagnosis"))]


def _redact_frame(df: pd.DataFrame, R) -> pd.DataFrame:
    if R is no_redaction:
        return df
    out = df.copy()
    for col in out.columns:
        out[col] = out[col].map(lambda v: R(v) if isinstance(v, str) else v)
    return out


def _where(c: _Content, file, line) -> str:
    return f"{file}:{line}" if file else c.say("source.engineer")


def _fix_items(c: _Content) -> list[tuple[str, str]]:
    d = c.triage.diagnosis
    if d is None:
        return []
    return [(c.say(f"report.fix.{k}"), pick(c.lang, d.case.fix[k], d.case.fix_zh.get(k))) for k in FIX_KEYS
            if d.case.fix.get(k)]


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
    return _md_log(str(tables.cell(s))).replace("|", "\\|")


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


def _md_step(c: _Content, n: int, s: Step, R) -> list[str]:
    out = [f"### {n}. {s.title}", "", f"**{_md_log(R(s.conclusion))}**", ""]
    for q in s.questions:
        out.append(f"- {_md_text(c.say('report.question', fact=q.fact, ask=s.ask(q)))}")
    out += [""] if s.questions else []
    out += [("  " if f.startswith("  ") else "") + f"- {_md_log(R(f.strip()))}" for f in s.findings] + [""]
    for caption, df in s.tables:
        out += [f"*{_md_log(R(caption))}*", ""] + _md_table(_redact_frame(df, R))
    for p in c.plots.get(s.key, []):
        out += [f"![{_md_log(p.caption)}](data:image/png;base64,{p.b64})", ""]
    if s.cited:
        lines = []
        for b in s.bursts:
            lines += [f"{R(x.where)}: {R(x.text)}" for x in b.lines]
        out += [c.say("report.evidence"), ""] + _md_block(lines)
    return out


def _markdown(c: _Content, R) -> str:
    t = c.triage
    out = [f"# {c.say('report.title')}", ""]
    out += [f"- **{k}**: {_md_log(v)}" for k, v in _summary(c, R)] + [""]
    out += [f"## {c.say('report.input')}", ""] + _md_table(_redact_frame(tables.files(t.log, c.lang), R))
    if t.log.warnings:
        out += [c.say("report.warnings"), ""] + _md_block([R(w) for w in t.log.warnings])
    out += [f"## {c.say('report.chain')}", ""]
    for n, s in enumerate(c.steps, start=1):
        out += _md_step(c, n, s, R)
    out += [f"## {c.say('report.hypotheses')}", ""]
    for h in t.candidates:
        out += [f"### {h.case.id}: {verdict_words(c.lang, h.verdict)} ({c.say('report.score', score=f'{h.score:.2f}')})",
                "", _md_text(pick(c.lang, h.case.title, h.case.title_zh)), ""]
        for label, items in (("report.for", h.for_), ("report.against", h.against)):
            out += [f"**{c.say(label)}**", ""] if items else []
            for i in items:
                why = f" — {_md_text(i.why)}" if i.why and c.lang == EN else ""
                if is_fact(t, i):
                    out.append(f"- {_md_log(R(fact_words(t, c.lang, i)))}{why}")
                else:
                    out.append(f"- [{i.id}] {_md_code(R(_where(c, i.file, i.line)))}: {_md_log(R(words(c.lang, i.text)))}{why}")
            out += [""] if items else []
        if h.missing:
            out += [f"**{c.say('report.missing')}**", ""]
            out += [f"- {m.fact}{'' if m.required else c.say('report.optional')}: "
                    f"{_md_text(pick(c.lang, m.ask, m.ask_zh))}" for m in h.missing] + [""]
    if not t.candidates:
        out += [c.say("report.no_candidate"), ""]
    out += [f"## {c.say('report.answers')}", ""]
    out += [f"- {k} = {_md_log(R(str(v)))}" for k, v in sorted(t.answers.items())] or [f"- {c.say('report.none')}"]
    items = _fix_items(c)
    out += ["", f"## {c.say('report.fix')}", ""]
    out += [f"- **{label}**: {_md_text(text)}" for label, text in items] or [c.say("report.no_fix")]
    out += [""]
    if c.collect is not None:
        out += [f"## {c.say('report.collect')}", "", R(c.collect.to_markdown(c.lang))]
    return "\n".join(out).rstrip() + "\n"


# -- HTML ----------------------------------------------------------------------------------------------------
_INDENT = ' style="margin-left:1.5em"'


def _h(s: object) -> str:
    return escape("" if s is None else str(s))


def _html_table(df: pd.DataFrame) -> str:
    return df.to_html(index=False, escape=True, na_rep="", border=0)


def _marked(x: Cited, R) -> str:
    """A cited line with the part that matters in <mark>, every piece escaped (and redacted)."""
    if not x.span:
        return _h(R(x.text))
    a, b = x.span
    return f"{_h(R(x.text[:a]))}<mark>{_h(R(x.text[a:b]))}</mark>{_h(R(x.text[b:]))}"


def _html_step(c: _Content, n: int, s: Step, R) -> list[str]:
    body = [f"<h3>{n}. {_h(s.title)}</h3>", f"<p class='conclusion'>{_h(R(s.conclusion))}</p>"]
    if s.questions:
        body.append("<ul class='questions'>" + "".join(
            f"<li>{_h(c.say('report.question', fact=q.fact, ask=s.ask(q)))}</li>" for q in s.questions) + "</ul>")
    body.append("<ul>" + "".join(f"<li{_INDENT if f.startswith('  ') else ''}>{_h(R(f.strip()))}</li>"
                                 for f in s.findings) + "</ul>")
    for caption, df in s.tables:
        body.append(f"<p><i>{_h(R(caption))}</i></p>{_html_table(_redact_frame(df, R))}")
    for p in c.plots.get(s.key, []):
        body.append(f"<figure><img alt='{_h(p.caption)}' src='data:image/png;base64,{p.b64}'>"
                    f"<figcaption>{_h(p.caption)}</figcaption></figure>")
    if s.cited:
        body.append(f"<table class='evidence'><tr><th>{_h(c.say('report.where'))}</th>"
                    f"<th>{_h(c.say('report.log_line'))}</th></tr>")
        for b in s.bursts:
            body += [f"<tr><td><code>{_h(R(x.where))}</code></td><td><code>{_marked(x, R)}</code></td></tr>"
                     for x in b.lines]
        body.append("</table>")
    return body


def _html(c: _Content, R) -> str:
    t = c.triage
    body = [f"<h1>{_h(c.say('report.title'))}</h1>", "<table>"]
    body += [f"<tr><th>{_h(k)}</th><td>{_h(v)}</td></tr>" for k, v in _summary(c, R)] + ["</table>"]
    body += [f"<h2>{_h(c.say('report.input'))}</h2>", _html_table(_redact_frame(tables.files(t.log, c.lang), R))]
    if t.log.warnings:
        body.append(f"<p>{_h(c.say('report.warnings'))}</p><pre>" + "\n".join(_h(R(w)) for w in t.log.warnings)
                    + "</pre>")
    body.append(f"<h2>{_h(c.say('report.chain'))}</h2>")
    for n, s in enumerate(c.steps, start=1):
        body += _html_step(c, n, s, R)
    body.append(f"<h2>{_h(c.say('report.hypotheses'))}</h2>")
    for h in t.candidates:
        body.append(f"<h3 class='v-{_h(h.verdict)}'>{_h(h.case.id)}: {_h(verdict_words(c.lang, h.verdict))} "
                    f"({_h(c.say('report.score', score=f'{h.score:.2f}'))})</h3>"
                    f"<p>{_h(pick(c.lang, h.case.title, h.case.title_zh))}</p>")
        for label, items in (("report.for", h.for_), ("report.against", h.against)):
            if items:
                body.append(f"<p><b>{_h(c.say(label))}</b></p><ul>")
                body += [(f"<li>{_h(R(fact_words(t, c.lang, i)))}" if is_fact(t, i) else
                          f"<li>[{_h(i.id)}] {_h(R(_where(c, i.file, i.line)))}: <code>{_h(R(words(c.lang, i.text)))}</code>")
                         + (f" — {_h(i.why)}" if i.why and c.lang == EN else "") + "</li>" for i in items]
                body.append("</ul>")
        if h.missing:
            body.append(f"<p><b>{_h(c.say('report.missing'))}</b></p><ul>")
            body += [f"<li>{_h(m.fact)}{_h('' if m.required else c.say('report.optional'))}: "
                     f"{_h(pick(c.lang, m.ask, m.ask_zh))}</li>" for m in h.missing]
            body.append("</ul>")
    if not t.candidates:
        body.append(f"<p>{_h(c.say('report.no_candidate'))}</p>")
    body.append(f"<h2>{_h(c.say('report.answers'))}</h2><ul>")
    body += [f"<li>{_h(k)} = {_h(R(str(v)))}</li>" for k, v in sorted(t.answers.items())] or [
        f"<li>{_h(c.say('report.none'))}</li>"]
    body.append(f"</ul><h2>{_h(c.say('report.fix'))}</h2>")
    items = _fix_items(c)
    body.append("<ul>" + "".join(f"<li><b>{_h(k)}</b>: {_h(v)}</li>" for k, v in items) + "</ul>" if items else
                f"<p>{_h(c.say('report.no_fix'))}</p>")
    if c.collect is not None:
        body.append(f"<h2>{_h(c.say('report.collect'))}</h2><ol>")
        for a in c.collect.asks:
            how = "<pre>" + "\n".join(_h(R(x)) for x in a.how) + "</pre>" if a.how else ""
            body.append(f"<li><b>{_h(words(c.lang, a.what))}</b>: {_h(R(words(c.lang, a.why)))}{how}</li>")
        body.append("</ol>" if c.collect.asks else f"</ol><p>{_h(c.say('report.nothing_to_collect'))}</p>")
    html_lang = "zh-CN" if c.lang != EN else "en"
    return (f"<!DOCTYPE html>\n<html lang='{html_lang}'><head><meta charset='utf-8'>"
            f"<title>{_h(c.say('report.page_title'))}</title>"
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
