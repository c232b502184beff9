"""The case report as Markdown: log text escaped so that it renders as plain text in any CommonMark viewer (no
markup, no raw HTML, no line break of its own), cited lines in fences longer than any run inside them."""
from __future__ import annotations

import re
from html import escape

import pandas as pd

from ..knowledge.messages import pick
from . import similar, tables
from .contents import (FOLD_ROWS, Contents, answers, box, causes_frame, evidence_lines, files, folds, leading_and_rest,
                       lists, more_hidden, more_rows, one_line, redact_frame, rest_shown, summary)
from .hypotheses import asks, verdict_words
from .step import QUESTIONS_SHOWN, Step

# CommonMark ends a line at LF, CR or CRLF: log text must carry none of them into the report
_LINE_BREAK = re.compile(r"\r\n?|\n")
# what makes inline markup of text: links and images ([), emphasis (* always; _ unless it sits between two
# letters or digits, where CommonMark never reads it as emphasis, so TASK_QUEUE_ENABLE stays as it is), code
# spans (`), strikethrough (~), and the backslash that would escape any of them
_INLINE_MARK = re.compile(r"[\\`*\[\]~]|(?<![^\W_])_|_(?![^\W_])")
_TICKS = re.compile(r"`+")
_TILDES = re.compile(r"~+")


def md_text(s: str) -> str:
    # knowledge-base prose: no raw HTML reaches a Markdown viewer
    return escape(s, quote=False)


def md_log(s: str) -> str:
    """Text that may come from a log, a file name or the engineer, as Markdown that renders it as plain text."""
    return _INLINE_MARK.sub(lambda m: "\\" + m.group(), escape(_LINE_BREAK.sub(" ", s), quote=False))


def md_code(s: str) -> str:
    """An inline code span holding `s` verbatim: delimited by more backticks than any run inside it."""
    s = _LINE_BREAK.sub(" ", s)
    ticks = "`" * (1 + max(map(len, _TICKS.findall(s)), default=0))
    return f"{ticks} {s} {ticks}" if s.startswith("`") or s.endswith("`") else f"{ticks}{s}{ticks}"


def _md_cell(s: object) -> str:
    return md_log(str(tables.cell(s))).replace("|", "\\|")


def md_table(df: pd.DataFrame) -> list[str]:
    head = "| " + " | ".join(_md_cell(c) for c in df.columns) + " |"
    rule = "|" + "---|" * len(df.columns)
    rows = ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return [head, rule, *rows, ""]


def md_block(lines: list[str]) -> list[str]:
    """Lines shown verbatim in a fenced block: a CR inside a line (CommonMark would end the line there and could
    end the fence) is shown as ␍, and the fence is longer than any run of tildes inside."""
    lines = [line.replace("\r", "␍").replace("\n", "␊") for line in lines]
    fence = "~" * max(4, 1 + max((len(r) for line in lines for r in _TILDES.findall(line)), default=0))
    return [f"{fence}text", *lines, fence, ""]


def _md_step(c: Contents, n: int, s: Step, R) -> list[str]:
    out = [f"### {n}. {s.title}", "", f"**{md_log(R(s.conclusion))}**", ""]
    asked = [f"- {md_text(s.ask(q))}" for q in s.questions]
    out += [f"*{md_text(c.say('report.questions'))}*", ""] + asked[:QUESTIONS_SHOWN] if asked else []
    if asked[QUESTIONS_SHOWN:]:   # the ticket asks the best few; the app and the command line hold the rest
        out += ["", md_text(c.say("report.more_questions", n=len(asked) - QUESTIONS_SHOWN))]
    out += [""] if s.questions else []
    if s.causes:
        out += [f"*{md_text(c.say('root.leading'))}*", ""] + md_table(redact_frame(causes_frame(c, s), R))
    out += [("  " if f.startswith("  ") else "") + f"- {md_log(R(f.strip()))}" for f in s.findings] + [""]
    for caption, df in s.tables:   # a ticket shows the first rows of a step's table, as of a fold's
        out += [f"*{md_log(R(caption))}*", ""] + md_table(redact_frame(df.head(FOLD_ROWS), R)) + more_rows(c, df)
    for fold in folds(s):
        out += [f"<details><summary>{md_log(R(fold.caption))}</summary>", ""]
        out += [f"- {md_log(R(f.strip()))}" for f in fold.findings[:FOLD_ROWS]] + [""]
        out += more_hidden(c, len(fold.findings) - FOLD_ROWS)
        for _, df in fold.tables:
            out += md_table(redact_frame(df.head(FOLD_ROWS), R)) + more_rows(c, df)
        if fold.cited:   # the first line of each template shown, as logged
            out += md_block([f"{R(x.where)}: {R(x.text)}" for x in fold.cited[:FOLD_ROWS]])
        out += ["</details>", ""]
    for p in c.plots.get(s.key, []):
        out += [f"![{md_log(p.caption)}]({p.href or 'data:image/png;base64,' + p.b64})", ""]
    if s.cited:
        out += [c.say("report.evidence"), ""] + md_block(evidence_lines(s, R))
    if s.key == "root_cause":
        out += similar.markdown_lines(c.seen, c.lang, R, md_text, md_log)
    return out


def markdown(c: Contents, R) -> str:
    t = c.triage
    out = [f"# {c.say('report.title')}", ""]
    for k, v in box(c):   # the summary box: what the ticket needs before anything else
        out += [f"> **{md_text(k)}**: {md_log(R(v))}", ">"]
    out[-1] = ""
    out += [f"- **{k}**: {md_log(v)}" for k, v in summary(c, R)] + [""]
    listed, others = files(c, R)
    out += [f"## {c.say('report.input')}", ""] + md_table(listed) + ([others, ""] if others else [])
    if t.log.warnings:
        out += [c.say("report.warnings"), ""] + md_block([R(w) for w in t.log.warnings])
    out += [f"## {c.say('report.chain')}", ""]
    for n, s in enumerate(c.steps, start=1):
        out += _md_step(c, n, s, R)
    out += [f"## {c.say('report.hypotheses')}", ""]
    asked = asks(t)
    lead, rest = leading_and_rest(t)
    for h in lead:   # the leading ones in full, each line once per list
        out += [f"### {h.case.id}: {verdict_words(c.lang, h.verdict)} ({c.say('report.score', score=f'{h.score:.2f}')})",
                "", md_text(pick(c.lang, h.case.title, h.case.title_zh)), ""]
        for label, groups in lists(t, c.lang, h, asked):
            out += [f"**{c.say(label)}**", ""]
            out += [f"- {md_code(R(where))}: {md_log(R(text))}" if where else f"- {md_log(R(fact))}"
                    for where, text, fact in groups] + [""]
        if h.missing:
            out += [f"**{c.say('report.missing')}**", ""]
            out += [f"- {md_text(pick(c.lang, m.ask or m.fact, m.ask_zh))}{'' if m.required else c.say('report.optional')}"
                    for m in h.missing] + [""]
    # past the leading ones, a line each for the first few: a ticket stays short, the app and --wide hold them all
    shown = rest_shown(rest)
    out += [f"- {md_text(one_line(c, h))}" for h in shown]
    out += [""] if rest else []
    out += more_hidden(c, len(rest) - len(shown))
    if not t.candidates:
        out += [c.say("report.no_candidate"), ""]
    out += [f"## {c.say('report.answers')}", ""]
    out += [f"- {md_log(R(a))}" for a in answers(c)] or [f"- {c.say('report.none')}"]
    out += [""]
    if c.collect is not None:
        out += [f"## {c.say('report.collect')}", "", R(c.collect.to_markdown(c.lang))]
    return "\n".join(out).rstrip() + "\n"
