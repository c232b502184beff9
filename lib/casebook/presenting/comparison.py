"""A comparison as terminal text, in English or Chinese: the verdict, then versions, settings, topology, the message
flow and timing, every difference with its line on both sides (`file:line`), within 100 columns."""
from __future__ import annotations

import re
from html import escape

from ..judging.comparison import SETTING, TOPOLOGY, VERSION, Change, Comparison, OneSided, Steps
from ..judging.flow import Departure, Line
from ..knowledge.messages import EN, ZH, say
from .console import WIDTH, clip, shorten_where, width_of, wrap
from .terminal import visible

#: Templates listed per side; cited log lines are cut to the width unless `wide`.
TEMPLATES = 10
#: Terminal lines a line the runs part on may take.
WRAPPED = 3


def lines(c: Comparison, lang: str = EN, width: int = WIDTH, wide: bool = False) -> list[str]:
    """The comparison as lines of at most `width` columns (`wide`: nothing cut or wrapped)."""
    w = 10 ** 6 if wide else width
    out: list[str] = []
    for head in say(lang, "compare.title", good=c.good, bad=c.bad).split("\n"):
        out += wrap(head, w, "", "  ")
    out.append("")
    out += wrap(verdict(c, lang), w)
    for key, topic in (("compare.versions", VERSION), ("compare.settings", SETTING), ("compare.topology", TOPOLOGY)):
        out += ["", say(lang, key)]
        changes = c.of(topic)
        out += [f"  {say(lang, 'compare.nothing')}"] if not changes else [x for ch in changes
                                                                         for x in _change(ch, lang, w, wide)]
    out += ["", say(lang, "compare.flow")]
    out += _flow(c, lang, w, wide)
    out += ["", say(lang, "compare.timing")]
    out += _timing(c, lang, w)
    return out


_PLACE = re.compile(r"\b(node|process|device) (\d+)\b")


def stream_words(label: str, lang: str = EN) -> str:
    """A stream's label (`node 2, process 3, host plog (debug)`) with its places worded in the language."""
    return label if lang == EN else _PLACE.sub(lambda m: say(lang, f"compare.place.{m[1]}", n=m[2]), label)


def verdict(c: Comparison, lang: str = EN) -> str:
    """One sentence: no difference, or how many of each kind and where the flow first parts."""
    if c.same:
        return say(lang, "compare.same", streams=c.streams, good=f"{c.lines[0]:,}", bad=f"{c.lines[1]:,}")
    counted = [(len(c.of(topic)), key) for topic, key in ((VERSION, "versions"), (SETTING, "settings"),
                                                           (TOPOLOGY, "topology"))]
    what = say(lang, "list.sep").join(say(lang, f"compare.n.{key}" + (".one" if n == 1 else ""), n=n)
                                      for n, key in counted if n)
    text = (say(lang, "compare.differs", what=what, departures=len(c.departures), streams=c.streams) if what else
            say(lang, "compare.differs.flow", departures=len(c.departures), streams=c.streams))
    if c.first is not None:
        first = say(lang, "compare.first", stream=stream_words(c.first.stream, lang), after=_after(c.first, lang))
        text += first if lang == ZH else " " + first
    return text


def _after(d: Departure, lang: str) -> str:
    seconds = d.bad_after_s if d.bad_after_s is not None else d.good_after_s
    if seconds is None:
        return say(lang, "compare.after_unknown")
    return say(lang, "compare.after", seconds=_seconds(seconds))


def _seconds(x: float) -> str:
    """Seconds as people read them: three decimals below ten, one below a day's worth, whole ones above."""
    return f"{x:.3f}" if abs(x) < 10 else f"{x:,.1f}" if abs(x) < 86400 else f"{x:,.0f}"


def _value(v: str | None, lang: str) -> str:
    return say(lang, "compare.not_shown") if v is None else v


def _change(ch: Change, lang: str, w: int, wide: bool) -> list[str]:
    name = say(lang, f"compare.topic.{ch.name}") if ch.topic == TOPOLOGY else ch.name
    out = wrap(f"{name}: {_value(ch.good, lang)} → {_value(ch.bad, lang)}", w, "  - ", "    ")
    for side, at in (("good", ch.good_at), ("bad", ch.bad_at)):
        if at is not None:
            out += _cited(say(lang, f"compare.{side}"), at, w, wide)
    return out


def _cited(label: str, line: Line, w: int, wide: bool, indent: str = "    ", whole: bool = False) -> list[str]:
    """`label  file:line`, then the line itself after `>`: cut to the width, or with `whole` (the lines the runs
    part on) wrapped over up to WRAPPED lines."""
    head = f"{indent}{label}  "
    where = visible(line.where)
    out = [head + (where if wide else shorten_where(where, max(w - width_of(head), 12)))]
    if line.text:
        text = visible(line.text.rstrip())
        if wide:
            out.append(f"{indent}> {text}")
        elif whole:
            room = w - len(indent) - 2
            pieces = _chunks(text, room)
            if len(pieces) > WRAPPED:   # the rest of a long line on the last one, cut
                pieces = pieces[:WRAPPED - 1] + [clip("".join(pieces[WRAPPED - 1:]), room)]
            out += [f"{indent}> {x}" for x in pieces]
        else:
            out.append(f"{indent}> " + clip(text, w - len(indent) - 2))
    return out


def _chunks(text: str, width: int) -> list[str]:
    """A log line in pieces of `width` columns, cut anywhere (a log line's spaces are part of it)."""
    out, piece, used = [], [], 0
    for ch in text:
        cw = width_of(ch)
        if used + cw > width:
            out.append("".join(piece))
            piece, used = [], 0
        piece.append(ch)
        used += cw
    return out + (["".join(piece)] if piece else [])


def _flow(c: Comparison, lang: str, w: int, wide: bool) -> list[str]:
    out = wrap(say(lang, "compare.streams", streams=c.streams, good=f"{c.lines[0]:,}", bad=f"{c.lines[1]:,}"), w,
               "  ", "  ")
    for side, stream in c.unpaired[:TEMPLATES]:
        out += wrap(say(lang, "compare.unpaired", side=say(lang, f"compare.{side}"), stream=stream_words(stream, lang)),
                    w, "  - ", "    ")
    if len(c.unpaired) > TEMPLATES:
        out.append(f"    … {say(lang, 'compare.more', n=len(c.unpaired) - TEMPLATES)}")
    if not c.departures:
        out += wrap(say(lang, "compare.no_departure"), w, "  ", "  ")
    for d in c.departures[:TEMPLATES]:
        out += wrap(say(lang, f"compare.departure.{d.kind}", stream=stream_words(d.stream, lang), after=_after(d, lang)),
                    w, "  - ", "    ")
        both = say(lang, "compare.both")
        if d.common_good is not None and d.common_bad is not None and d.common_good.where == d.common_bad.where:
            out += _cited(both, d.common_bad, w, wide)   # one file in both runs (a bundle beside its own copy)
        else:
            for side, at in (("good", d.common_good), ("bad", d.common_bad)):
                out += _cited(f"{both} ({say(lang, f'compare.{side}')})", at, w, wide) if at is not None else []
        for side, at in (("good", d.good), ("bad", d.bad)):
            label = say(lang, f"compare.{side}")
            out += _cited(label, at, w, wide, whole=True) if at is not None else \
                [f"    {label}  {say(lang, 'compare.ended')}"]
    if len(c.departures) > TEMPLATES:
        out += [f"  … {say(lang, 'compare.more', n=len(c.departures) - TEMPLATES)}"]
    for key, listed, count in (("compare.new", c.new, c.new_count), ("compare.gone", c.gone, c.gone_count)):
        if count:
            out += wrap(say(lang, key, n=count), w, "  ", "  ") + _templates(listed, count, lang, w, wide)
    return out


def _templates(listed: list[OneSided], count: int, lang: str, w: int, wide: bool) -> list[str]:
    out = []
    for t in listed[:TEMPLATES]:
        where = visible(t.at.where)
        where = where if wide else shorten_where(where, max(w - 30, 20))
        out += wrap(say(lang, "compare.template", count=t.count, where=where), w, "  - ", "    ")
        text = visible(t.template)
        out.append("    > " + (text if wide else clip(text, w - 6)))
    if count > min(len(listed), TEMPLATES):
        out.append(f"    … {say(lang, 'compare.more', n=count - min(len(listed), TEMPLATES))}")
    return out


def _timing(c: Comparison, lang: str, w: int) -> list[str]:
    if c.good_steps is None and c.bad_steps is None:
        out = wrap(say(lang, "compare.no_steps"), w, "  ", "  ")
    else:
        out = []
        for side, s in (("good", c.good_steps), ("bad", c.bad_steps)):
            out += wrap(_steps(s, say(lang, f"compare.{side}"), lang, w), w, "  - ", "    ")
    d = c.first
    if d is not None and (d.good_after_s is not None or d.bad_after_s is not None):
        seconds = [say(lang, "compare.not_shown") if x is None else say(lang, "compare.seconds", s=_seconds(x))
                   for x in (d.good_after_s, d.bad_after_s)]
        out += wrap(say(lang, "compare.to_departure", good=seconds[0], bad=seconds[1]), w, "  - ", "    ")
    return out


def _steps(s: Steps | None, side: str, lang: str, w: int) -> str:
    if s is None:
        return say(lang, "compare.no_steps_side", side=side)
    return say(lang, "compare.steps", side=side, median=f"{s.median_s:g}", count=s.count,
               where=shorten_where(visible(s.first.where), max(w - 40, 20)))


def report_section(c: Comparison, fmt: str, lang: str = EN, R=lambda s: s) -> str:
    """The comparison as a section of the case report: a heading and the text in a block (Markdown), or in a
    <pre> (HTML, escaped); every line passed through the report's redaction `R`."""
    text = "\n".join(R(x) for x in lines(c, lang))
    title = say(lang, "compare.report")
    if fmt == "md":
        fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
        return f"\n## {title}\n\n{fence}text\n{text}\n{fence}\n"
    return f"<h2>{escape(title)}</h2>\n<pre>{escape(text)}</pre>\n"
