"""The walk as terminal text: every line fits the width (100 columns by default, Chinese characters counting two),
paths shortened in the middle without losing `:line`, tables narrowed to fit, and each cited log line on a line
of its own that starts with `>`.

With `wide=True` nothing is shortened or wrapped, and every cited line is printed whole. Text from the logs
(cited lines, paths, names quoted in sentences and tables) is shown with its control characters visible
(`terminal.visible`) before it is measured: an ESC or a C1 byte in a log line never reaches the terminal.
"""
from __future__ import annotations

import re
import unicodedata

import pandas as pd

from ..judging.triage import Triage
from ..knowledge.messages import EN, say
from . import similar, walk
from .citation import ELLIPSIS
from .step import Step
from .terminal import visible

#: Columns a line of the walk may take.
WIDTH = 100
#: Cited lines printed per step (all of them with `wide`).
MAX_CITED = 8
#: Narrowest a table column is cut to before the table is printed one row per block instead.
MIN_COLUMN = 6
_GAP = "  "
_TOKEN = re.compile(r"\s+|[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]|"
                    r"[^\s\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]+")
_CLOSING = set("，。、；：）」』》！？,.;:)]")
_OPENING = set("（「『《([")
_WHERE = re.compile(r"^(?P<head>.*?)(?P<tail>:\d+(?:-\d+)?)?$", re.S)


def char_width(ch: str) -> int:
    """Columns one character takes in a terminal: two for wide (CJK) characters."""
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def width_of(text: str) -> int:
    """Columns a text takes in a terminal."""
    return sum(char_width(c) for c in text)


def clip(text: str, width: int) -> str:
    """The text cut to `width` columns, the cut marked with an ellipsis."""
    if width_of(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        if used + char_width(ch) > width - 1:
            break
        out.append(ch)
        used += char_width(ch)
    return "".join(out) + ELLIPSIS


def shorten_where(where: str, width: int) -> str:
    """A path or `path:line` cut in the middle to `width` columns; the `:line` and the file name survive first."""
    if width_of(where) <= width:
        return where
    m = _WHERE.match(where)
    head, tail = m["head"], m["tail"] or ""
    room = width - width_of(tail) - 1
    if room <= 0:
        return ELLIPSIS + tail
    name = head.rsplit("/", 1)[-1]
    right = min(room, max(len(name) + 1, room * 2 // 3))
    if room - right < 4:   # a stub of two letters before the ellipsis says nothing
        right = room
    left = room - right
    return head[:left] + ELLIPSIS + head[len(head) - right:] + tail


def _pieces(text: str, width: int) -> list[str]:
    """Tokens to wrap: words, spaces, single Chinese characters; a word wider than `width` cut into pieces."""
    out = []
    for tok in _TOKEN.findall(text):
        while width_of(tok) > width and not tok.isspace():
            part = clip(tok, width + 1)[:-1] or tok[0]
            out.append(part)
            tok = tok[len(part):]
        out.append(tok)
    return out


def _carry(line: list[str], tok: str) -> list[str]:
    """Where a full line breaks: the tokens taken off its end to start the next line, so that a closing mark
    stays after its word and an opening bracket before its word."""
    carry: list[str] = []
    if tok[0] in _CLOSING:
        while line and line[-1] == " ":
            line.pop()
        if line:
            carry.append(line.pop())
    while line and (line[-1] == " " or line[-1][-1] in _OPENING):
        tok_back = line.pop()
        if tok_back != " ":
            carry.insert(0, tok_back)
    if not line:   # nothing left to break before: the line keeps its tokens
        line[:], carry = carry, []
    return carry


def wrap(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    """Greedy wrap at spaces and between Chinese characters to `width` columns; `first` and `rest` prefix the
    first and the following lines. No line starts with closing punctuation or ends with an opening bracket."""
    lines: list[list[str]] = [[]]
    room = width - width_of(first)
    used = 0
    for tok in _pieces(visible(text), max(width - max(width_of(first), width_of(rest)), 8)):
        if tok.isspace():
            if lines[-1]:
                lines[-1].append(" ")
                used += 1
            continue
        w = width_of(tok)
        if used + w > room and lines[-1]:
            lines.append(_carry(lines[-1], tok))
            room = width - width_of(rest)
            used = sum(width_of(x) for x in lines[-1])
        lines[-1].append(tok)
        used += w
    out = [(first if n == 0 else rest) + "".join(toks).rstrip() for n, toks in enumerate(lines) if toks or n == 0]
    return [line.rstrip() for line in out]


def _cell(value: object, width: int) -> str:
    text = "" if value is None else str(value)
    text = " ".join(text.split())
    if width_of(text) <= width:
        return text
    return shorten_where(text, width) if "/" in text and " " not in text else clip(text, width)


def table(df: pd.DataFrame, width: int = WIDTH, indent: str = "    ", wide: bool = False) -> list[str]:
    """A table in columns narrowed to fit `width`; when even the narrowest columns do not fit, one block of
    `header: value` lines per row."""
    heads = [visible(str(c)) for c in df.columns]
    rows = [[" ".join(visible("" if v is None else str(v)).split()) for v in r] for r in df.itertuples(index=False)]
    widths = [max([width_of(h)] + [width_of(r[i]) for r in rows]) for i, h in enumerate(heads)]
    room = width - width_of(indent) - len(_GAP) * (len(heads) - 1)
    if not wide:
        floor = [min(w, max(MIN_COLUMN, width_of(h))) for w, h in zip(widths, heads)]
        if sum(floor) > room:
            return _blocks(heads, rows, width, indent)
        while sum(widths) > room:
            i = max(range(len(widths)), key=lambda k: widths[k] - floor[k])
            widths[i] -= 1
    out = []
    for cells in [heads, *rows]:
        parts = [_cell(c, w) if not wide else c for c, w in zip(cells, widths)]
        out.append(indent + _GAP.join(p + " " * (w - width_of(p)) for p, w in zip(parts, widths)).rstrip())
    return out


def _blocks(heads: list[str], rows: list[list[str]], width: int, indent: str) -> list[str]:
    out = []
    for r in rows:
        for n, (h, v) in enumerate(zip(heads, r)):
            if v:
                out += wrap(f"{h}: {v}", width, indent + ("- " if n == 0 else "  "), indent + "    ")
    return out


def _cited(s: Step, width: int, wide: bool) -> list[str]:
    lines = [c for b in s.bursts for c in b.lines]
    shown = lines if wide else lines[:MAX_CITED]
    out = [f"  {s.say('cli.evidence')}"]
    for c in shown:
        where = visible(c.where)
        out.append("    " + (where if wide else shorten_where(where, width - 4)))
        text = visible(c.text.rstrip()) if wide else clip(visible(str(c.excerpt(width - 6))), width - 6)
        out.append("    > " + text)
    if len(lines) > len(shown):
        out += wrap(s.say("cli.more_cited", n=len(lines) - len(shown)), width, "    ", "    ")
    return out


def _question(s: Step, q, w: int) -> list[str]:
    """A question, and how to answer it on the command line."""
    return wrap(s.ask(q), w, "  ? ", "    ") + wrap(s.say("cli.answer", fact=q.fact), w, "    ", "    ")


def _findings(findings: list[str], w: int) -> list[str]:
    out = []
    for f in findings:
        detail = f.startswith("  ")
        out += wrap(f.strip(), w, "    · " if detail else "  - ", "      " if detail else "    ")
    return out


def _causes(s: Step, w: int) -> list[str]:
    """The leading causes one block each: the cause, then its reasons for, against, and what is unknown."""
    if not s.causes:
        return []
    out = wrap(s.say("root.leading") + s.say("cli.colon"), w, "  ", "  ")
    for n, c in enumerate(s.causes, start=1):
        out += wrap(s.say("root.cause", title=c.title, id=c.id, verdict=c.verdict), w, f"  {n}. ", "     ")
        for mark, key, texts in (("+", "for", c.for_), ("-", "against", c.against), ("?", "missing", c.missing)):
            for text in texts:
                out += wrap(s.say("root.cause.line", label=s.say(f"root.cause.{key}"), text=text), w,
                            f"     {mark} ", "       ")
    return out


def verdict_lines(steps: list[Step], width: int = WIDTH, wide: bool = False) -> list[str]:
    """The verdict before the walk: the root cause (or the family, and the question to ask first) and the fix."""
    by = {s.key: s for s in steps}
    root, fix = by.get("root_cause"), by.get("fix")
    if root is None:
        return []
    w = 10 ** 6 if wide else width
    out = ["", f"== {root.say('cli.verdict')}"]
    out += wrap(root.conclusion, w, "  ", "  ")
    if root.questions:
        out += _question(root, root.questions[0], w)
    if fix is not None and fix.conclusion:
        out += wrap(fix.conclusion, w, "  ", "  ")
    return out


def step_lines(s: Step, n: int, width: int = WIDTH, wide: bool = False) -> list[str]:
    """One step: heading, conclusion, questions, findings, tables, evidence."""
    w = 10 ** 6 if wide else width
    out = ["", f"== {n}. {s.title}"]
    out += wrap(s.conclusion, w, "  ", "  ")
    for q in (s.questions if wide else s.questions_shown):
        out += _question(s, q, w)
    if s.questions_more and not wide:
        out += wrap(s.say("cli.more_questions", n=len(s.questions_more)), w, "  ", "    ")
    out += _causes(s, w)
    out += _findings(s.findings, w)
    for caption, frame in s.tables:
        out += wrap(caption + s.say("cli.colon"), w, "  ", "  ")
        out += table(frame, width, "    ", wide)
    for fold in s.folds:   # folded away: the caption says it is there; --wide opens it
        if not wide:
            out += wrap(s.say("cli.folded", caption=fold.caption), w, "  ▸ ", "    ")
            continue
        out += wrap(fold.caption + s.say("cli.colon"), w, "  ", "  ")
        out += _findings(fold.findings, w)
        for caption, frame in fold.tables:
            out += table(frame, width, "    ", wide)
    if s.cited:
        out += _cited(s, width, wide)
    return out


def walk_lines(t: Triage, lang: str = EN, width: int = WIDTH, wide: bool = False, seen: list | None = None) -> list[str]:
    """The whole walk of a case as terminal lines: what was read, then the six steps; `seen`, the case memory's
    matches (memory.recall), shows as "Seen before" at the root cause."""
    log = t.log
    skipped = [f for f in log.files if f.skipped]
    out = wrap(say(lang, "cli.input", files=len(log.files), read=len(log.files) - len(skipped), skipped=len(skipped),
                   lines=log.lines, unparsed=log.lines_unparsed, bytes=log.bytes), 10 ** 6 if wide else width)
    for f in skipped:
        path = visible(f.path)
        out += wrap(say(lang, "cli.skipped", path=path if wide else shorten_where(path, width // 2), why=f.skipped),
                    10 ** 6 if wide else width, "  ", "    ")
    steps = walk.build(t, lang)
    out += verdict_lines(steps, width, wide)
    for n, s in enumerate(steps, start=1):
        out += step_lines(s, n, width, wide)
        if s.key == "root_cause":
            out += similar.console_lines(seen, lang, 10 ** 6 if wide else width, wrap)
    # the promise whatever a step holds: a heading or a caption quoting a log name is made inert too
    return [visible(line) for line in out]
