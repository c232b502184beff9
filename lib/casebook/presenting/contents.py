"""What a case report holds, gathered once for both of its formats: the walk's steps, the figures drawn (their
texts passed through the case's one Redactor), the summary box, the files listed, the leading causes side by side,
each hypothesis's reasons grouped by the line they cite, and the engineer's answers."""
from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd
from matplotlib.figure import Figure

from ..judging.ranking import RULED_OUT, Item
from ..judging.triage import Triage
from ..knowledge.messages import EN, pick, say, words
from ..reading.entries import printable
from . import collect, plots, tables, walk
from .hypotheses import fact_words, is_fact, leading, verdict_words
from .redact import Redactor, no_redaction, node_folders
from .step import Step

#: Rows a folded table shows in the report (the unexplained templates, most frequent first); the app shows all.
FOLD_ROWS = 10


@dataclass
class Plot:
    """A figure drawn once and kept as PNG bytes."""

    caption: str
    png: bytes
    href: str | None = None   #: where a Markdown report finds the figure as a file of its own (None: embedded)

    @property
    def b64(self) -> str:
        """The PNG as base64 text for a data: URL."""
        return base64.b64encode(self.png).decode("ascii")


@dataclass
class Contents:
    """Everything a report shows, gathered once and rendered per format."""

    triage: Triage
    steps: list[Step]
    lang: str = EN
    plots: dict[str, list[Plot]] = field(default_factory=dict)   #: step key -> its figures
    collect: collect.CollectRequest | None = None
    seen: list = field(default_factory=list)   #: the case memory's matches, shown at the root cause

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


def gather(t: Triage, collect_more: bool = False, lang: str = EN, seen: list | None = None) -> Contents:
    """The walk in `lang` and the collect-more request when asked for; the figures are drawn by `draw`."""
    return Contents(t, walk.build(t, lang), lang, collect=collect.build(t) if collect_more else None,
                    seen=list(seen or ()))


def draw(c: Contents, R=no_redaction) -> None:
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


def summary(c: Contents, R) -> list[tuple[str, str]]:
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


def redact_frame(df: pd.DataFrame, R) -> pd.DataFrame:
    if R is no_redaction:
        return df
    out = df.copy()
    for col in out.columns:
        out[col] = out[col].map(lambda v: R(v) if isinstance(v, str) else v)
    return out


def where(c: Contents, file, line) -> str:
    return f"{file}:{line}" if file else c.say("source.engineer")


def box(c: Contents) -> list[tuple[str, str]]:
    """The summary box at the top: the conclusion, the question to ask first while the cause is open, the fix."""
    by = {s.key: s for s in c.steps}
    root, fix = by["root_cause"], by["fix"]
    out = [(c.say("report.box.conclusion"), root.conclusion)]
    d = c.triage.diagnosis
    if root.questions and (d is None or d.verdict != "confirmed"):
        out.append((c.say("report.box.ask"), root.ask(root.questions[0])))
    workaround = pick(c.lang, d.case.fix.get("workaround", ""), d.case.fix_zh.get("workaround")) if d else ""
    out.append((c.say("report.box.fix"), fix.conclusion + (" " + workaround if workaround else "")))
    return out


def by_line(items: list) -> list[list]:
    """A hypothesis's items grouped by the line they cite, in the order first cited: each line once per list."""
    groups: dict[object, list] = {}
    for i in items:
        groups.setdefault((i.file, i.line) if i.file else ("#", i.id), []).append(i)
    return list(groups.values())


def files(c: Contents, R) -> tuple[pd.DataFrame, str]:
    """The files the report lists (those with an error line, and those skipped) and a sentence on the others."""
    log = c.triage.log
    shown = set(log.errors()["file"]) | {f.path for f in log.files if f.skipped}
    others = sum(1 for f in log.files if f.path not in shown)
    return (redact_frame(tables.files(log, c.lang, only=shown), R),
            c.say("report.other_files" if others > 1 else "report.other_files_one", n=others) if others else "")


def answers(c: Contents) -> list[str]:
    """The engineer's answers in words: the question each answers, and the answer."""
    t = c.triage
    return [fact_words(t, c.lang, Item(k, f"{k} = {v}", None, None)) if k in t.facts else f"{k}: {v}"
            for k, v in sorted(t.answers.items())]


def evidence_lines(s: Step, R) -> list[str]:
    """A step's cited lines as text: a file's path once, each of its lines under it as `  line: text`; a line
    quoted from another file keeps its whole `where`."""
    out, last = [], None
    for b in s.bursts:
        for x in b.lines:
            if x.file and x.src_line is None and x.line is not None:
                if x.file != last:
                    out.append(f"{R(x.file)}:")
                    last = x.file
                out.append(f"  {x.line}: {R(x.text)}")
            else:
                out.append(f"{R(x.where)}: {R(x.text)}")
                last = None
    return out


def causes_frame(c: Contents, s: Step) -> pd.DataFrame:
    """The leading causes side by side: one column per cause, a row for the reasons for, against, and unknown."""
    sep = c.say("list.semi")
    cols = {"": [c.say("root.cause.for"), c.say("root.cause.against"), c.say("root.cause.missing")]}
    for x in s.causes:
        head = c.say("root.cause", title=x.title, id=x.id, verdict=x.verdict)
        cols[head] = [sep.join(v) or c.say("root.cause.nothing") for v in (x.for_, x.against, x.missing)]
    return pd.DataFrame(cols)


def lists(t: Triage, lang: str, h, asked: dict) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """A hypothesis's for and against lists: one entry per cited line, (file:line, its text, ""), or a fact in words
    ("", "", the fact); the reasons stand beside the leading causes in the root-cause step."""
    out = []
    for label, items in (("report.for", h.for_), ("report.against", h.against)):
        groups = []
        for group in by_line(items):
            i = group[0]
            if is_fact(t, i):
                groups.append(("", "", fact_words(t, lang, i, asked)))
            elif i.file:
                groups.append((f"{i.file}:{i.line}", words(lang, i.text), ""))
        if groups:
            out.append((label, groups))
    return out


def leading_and_rest(t: Triage) -> list:
    """The hypotheses the root-cause step sets side by side, then the other candidates."""
    lead = [h for _, h, _ in leading(t) if h is not None]
    return lead, [h for h in t.candidates if h not in lead]


def rest_shown(rest: list) -> list:
    """Of the candidates past the leading ones, those a ticket lists: the first FOLD_ROWS, and every one an answer
    ruled out (what the engineer's answers removed stays in view)."""
    return rest[:FOLD_ROWS] + [h for h in rest[FOLD_ROWS:] if h.verdict == RULED_OUT]


def one_line(c: Contents, h) -> str:
    """A hypothesis past the leading ones, in one line: its id, verdict and score (the step shows its title)."""
    return c.say("report.candidate", id=h.case.id, verdict=verdict_words(c.lang, h.verdict), score=f"{h.score:.2f}")


def more_rows(c: Contents, df: pd.DataFrame) -> list[str]:
    """The sentence under a folded table cut to FOLD_ROWS rows."""
    return more_hidden(c, len(df) - FOLD_ROWS)


def more_hidden(c: Contents, hidden: int) -> list[str]:
    """The sentence under a table or list with `hidden` of its rows left out (none when there are none)."""
    return [c.say("report.more_rows", n=hidden), ""] if hidden > 0 else []


def folds(s: Step) -> list:
    """A step's folded parts the report shows: every candidate is in the hypotheses section already."""
    return [f for f in s.folds if f.key != "candidates"]


def keep_figures(c: Contents, folder: Path) -> None:
    """Write each figure as a PNG file into `folder` (its earlier figures removed first) and point the figure at it
    by a path relative to the folder's parent, where the report goes."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("figure-*.png"):
        old.unlink()
    n = 0
    for plots_of_step in c.plots.values():
        for p in plots_of_step:
            n += 1
            (folder / f"figure-{n}.png").write_bytes(p.png)
            p.href = f"{folder.name}/figure-{n}.png"
