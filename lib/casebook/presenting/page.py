"""The case report as one standalone HTML page: every piece of log text escaped (a plog line is data, never
markup), the part of a cited line that matters marked, figures embedded as base64 PNG."""
from __future__ import annotations

from html import escape

import pandas as pd

from ..knowledge.messages import EN, pick, words
from . import similar
from .citation import Cited
from .contents import (FOLD_ROWS, Contents, answers, box, causes_frame, files, folds, leading_and_rest, lists,
                       more_hidden, more_rows, one_line, redact_frame, rest_shown, summary)
from .hypotheses import asks, verdict_words
from .step import QUESTIONS_SHOWN, Step

_CSS = ("body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}"
        "code,pre{font-family:ui-monospace,monospace;font-size:90%}pre{white-space:pre-wrap;word-break:break-all;"
        "background:#f6f6f6;padding:.4em}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
        "padding:2px 6px;text-align:left;vertical-align:top}td code{white-space:pre-wrap;word-break:break-all}"
        ".v-confirmed{color:#070}.v-likely{color:#750}.v-ruled_out{color:#777}img{max-width:100%}"
        "mark{background:#fde68a}.conclusion{font-weight:600}"
        ".summary{border:2px solid #446;border-radius:6px;padding:.2em 1em;margin:1em 0;background:#f4f6fb}"
        "details>summary{cursor:pointer;font-weight:600}")
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


def _html_step(c: Contents, n: int, s: Step, R) -> list[str]:
    body = [f"<h3>{n}. {_h(s.title)}</h3>", f"<p class='conclusion'>{_h(R(s.conclusion))}</p>"]
    asked = [f"<li>{_h(s.ask(q))}</li>" for q in s.questions]
    if asked:
        body.append(f"<p><i>{_h(c.say('report.questions'))}</i></p><ul class='questions'>"
                    + "".join(asked[:QUESTIONS_SHOWN]) + "</ul>")
    if asked[QUESTIONS_SHOWN:]:   # the ticket asks the best few; the app and the command line hold the rest
        body.append(f"<p>{_h(c.say('report.more_questions', n=len(asked) - QUESTIONS_SHOWN))}</p>")
    if s.causes:
        body.append(f"<p><i>{_h(c.say('root.leading'))}</i></p>{_html_table(redact_frame(causes_frame(c, s), R))}")
    body.append("<ul>" + "".join(f"<li{_INDENT if f.startswith('  ') else ''}>{_h(R(f.strip()))}</li>"
                                 for f in s.findings) + "</ul>")
    for caption, df in s.tables:   # the first rows, as the markdown shows them
        body.append(f"<p><i>{_h(R(caption))}</i></p>{_html_table(redact_frame(df.head(FOLD_ROWS), R))}"
                    + "".join(f"<p>{_h(x)}</p>" for x in more_rows(c, df) if x))
    for fold in folds(s):
        body.append(f"<details><summary>{_h(R(fold.caption))}</summary><ul>"
                    + "".join(f"<li>{_h(R(f.strip()))}</li>" for f in fold.findings[:FOLD_ROWS]) + "</ul>"
                    + "".join(f"<p>{_h(x)}</p>" for x in more_hidden(c, len(fold.findings) - FOLD_ROWS) if x)
                    + "".join(_html_table(redact_frame(df.head(FOLD_ROWS), R)) + "".join(
                        f"<p>{_h(x)}</p>" for x in more_rows(c, df)) for _, df in fold.tables)
                    + ("<pre>" + "\n".join(f"{_h(R(x.where))}: {_h(R(x.text))}" for x in fold.cited[:FOLD_ROWS])
                       + "</pre>" if fold.cited else "") + "</details>")
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
    if s.key == "root_cause":
        body += similar.html(c.seen, c.lang, R)
    return body


def page(c: Contents, R) -> str:
    t = c.triage
    body = [f"<h1>{_h(c.say('report.title'))}</h1>"]
    body.append("<div class='summary'>" + "".join(f"<p><b>{_h(k)}</b>: {_h(R(v))}</p>" for k, v in box(c)) + "</div>")
    body.append("<table>")
    body += [f"<tr><th>{_h(k)}</th><td>{_h(v)}</td></tr>" for k, v in summary(c, R)] + ["</table>"]
    listed, others = files(c, R)
    body += [f"<h2>{_h(c.say('report.input'))}</h2>", _html_table(listed)] + ([f"<p>{_h(others)}</p>"] if others else [])
    if t.log.warnings:
        body.append(f"<p>{_h(c.say('report.warnings'))}</p><pre>" + "\n".join(_h(R(w)) for w in t.log.warnings)
                    + "</pre>")
    body.append(f"<h2>{_h(c.say('report.chain'))}</h2>")
    for n, s in enumerate(c.steps, start=1):
        body += _html_step(c, n, s, R)
    body.append(f"<h2>{_h(c.say('report.hypotheses'))}</h2>")
    asked = asks(t)
    lead, rest = leading_and_rest(t)
    for h in lead:   # the leading ones in full, each line once per list
        body.append(f"<h3 class='v-{_h(h.verdict)}'>{_h(h.case.id)}: {_h(verdict_words(c.lang, h.verdict))} "
                    f"({_h(c.say('report.score', score=f'{h.score:.2f}'))})</h3>"
                    f"<p>{_h(pick(c.lang, h.case.title, h.case.title_zh))}</p>")
        for label, groups in lists(t, c.lang, h, asked):
            body.append(f"<p><b>{_h(c.say(label))}</b></p><ul>")
            body += [f"<li><code>{_h(R(where))}</code>: <code>{_h(R(text))}</code></li>" if where else
                     f"<li>{_h(R(fact))}</li>" for where, text, fact in groups]
            body.append("</ul>")
        if h.missing:
            body.append(f"<p><b>{_h(c.say('report.missing'))}</b></p><ul>")
            body += [f"<li>{_h(pick(c.lang, m.ask or m.fact, m.ask_zh))}"
                     f"{_h('' if m.required else c.say('report.optional'))}</li>" for m in h.missing]
            body.append("</ul>")
    if rest:   # as in the markdown: the first few past the leading ones, and those an answer ruled out
        shown = rest_shown(rest)
        body.append("<ul>" + "".join(f"<li class='v-{_h(h.verdict)}'>{_h(one_line(c, h))}</li>"
                                     for h in shown) + "</ul>")
        body += [f"<p>{_h(x)}</p>" for x in more_hidden(c, len(rest) - len(shown)) if x]
    if not t.candidates:
        body.append(f"<p>{_h(c.say('report.no_candidate'))}</p>")
    body.append(f"<h2>{_h(c.say('report.answers'))}</h2><ul>")
    body += [f"<li>{_h(R(a))}</li>" for a in answers(c)] or [f"<li>{_h(c.say('report.none'))}</li>"]
    body.append("</ul>")
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
