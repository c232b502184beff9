"""Log lines cited as evidence: the whole line kept, the part that matters marked, excerpts around it, and
consecutive lines of one file grouped into bursts.

Renderers show `Cited.excerpt(width)` (the matched part highlighted, context cut with an ellipsis) and keep
`Cited.text` one click away; a burst is shown as one block under one `file:first-last` heading.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

#: Marks text cut from an excerpt or a path.
ELLIPSIS = "…"
#: Width of the excerpt a renderer shows by default (characters of log text).
EXCERPT = 160
#: Lines of one file at most this far apart belong to one burst (one error block, one report of several cores).
BURST_GAP = 5


@dataclass(frozen=True)
class Excerpt:
    """A shortened log line in three parts, so a renderer can highlight the one that matters."""

    before: str
    match: str
    after: str

    def __str__(self) -> str:
        return self.before + self.match + self.after


@dataclass(frozen=True)
class Cited:
    """A log line shown as evidence, whole, with the span of the part that matters."""

    file: str | None   #: path in the bundle; None for an engineer's answer
    line: int | None   #: 1-based line number in that file
    text: str          #: the whole line as logged (or the answer as given)
    span: tuple[int, int] | None = None   #: [start, end) of the part that matters in `text`; None: no part stands out
    src_file: str | None = None   #: the original file, when the line is a grep-quoted line of a capture
    src_line: int | None = None   #: the original line, likewise

    @property
    def where(self) -> str:
        """`file:line` (for a quoted line: the original, then the capture's line), or the source when no line
        backs it."""
        if not self.file:
            return "engineer"
        if self.src_line is None:
            return f"{self.file}:{self.line}"
        return f"{self.src_file or 'line'}:{self.src_line} (quoted at {self.file}:{self.line})"

    @property
    def key(self) -> tuple:
        """What makes two citations the same line: file and line, or the text of an answer."""
        return (self.file, self.line) if self.file else (None, self.text)

    def excerpt(self, width: int = EXCERPT) -> Excerpt:
        """At most `width` characters of the line around the part that matters, cuts marked with an ellipsis."""
        return excerpt(self.text, self.span, width)


def cited(file: str | None, line: int | None, text: str, focus: str | re.Pattern | None = None) -> Cited:
    """A citation whose span is the first match of `focus` (a regex, or a literal string) in the text."""
    span = None
    if focus:
        pattern = focus if isinstance(focus, re.Pattern) else re.compile(re.escape(focus))
        m = pattern.search(text)
        if m and m.end() > m.start():
            span = (m.start(), m.end())
    return Cited(file, line, text, span)


def excerpt(text: str, span: tuple[int, int] | None, width: int) -> Excerpt:
    """Cut `text` to `width` characters, keeping the span and about twice as much context after it as before
    (what follows a matched key, its value, matters more than what leads to it)."""
    text = text.rstrip()
    width = max(width, 8)
    start, end = span if span else (0, 0)
    if len(text) <= width:
        return Excerpt(text[:start], text[start:end], text[end:])
    if end - start >= width - 2:
        # the part that matters is itself too long: its head is what a reader needs
        return Excerpt("" if start == 0 else ELLIPSIS, text[start:start + width - 2] + ELLIPSIS, "")
    room = width - (end - start)
    before_room = min(start, max(room // 3, room - (len(text) - end)))
    after_room = room - before_room
    before = text[start - before_room:start]
    after = text[end:end + after_room]
    if start - before_room > 0:
        before = ELLIPSIS + before[1:]
    if end + after_room < len(text):
        after = after[:-1] + ELLIPSIS if after else ""
    return Excerpt(before, text[start:end], after)


@dataclass(frozen=True)
class Burst:
    """Cited lines of one file close together (one error block), shown as one group."""

    lines: tuple[Cited, ...]   #: in line order

    @property
    def file(self) -> str | None:
        return self.lines[0].file

    @property
    def where(self) -> str:
        """`file:line`, or `file:first-last` for several lines (quoted lines: the original's, then the capture's)."""
        first, last = self.lines[0], self.lines[-1]
        if first.file is None or first is last:
            return first.where
        if first.src_line is None:
            return f"{first.file}:{first.line}-{last.line}"
        return (f"{first.src_file or 'line'}:{first.src_line}-{last.src_line} "
                f"(quoted at {first.file}:{first.line}-{last.line})")


def bursts(lines: list[Cited]) -> list[Burst]:
    """Group citations into bursts of nearby lines of one file; bursts keep the order of their first citation."""
    order = {c.key: i for i, c in reversed(list(enumerate(lines)))}
    groups: list[list[Cited]] = []
    for c in sorted(lines, key=lambda c: (c.file is None, c.file or "", c.line or 0, order[c.key])):
        last = groups[-1][-1] if groups else None
        if (last is not None and c.file is not None and (c.file, c.src_file) == (last.file, last.src_file)
                and 0 <= (c.line or 0) - (last.line or 0) <= BURST_GAP):
            groups[-1].append(c)
        else:
            groups.append([c])
    groups.sort(key=lambda g: min(order[c.key] for c in g))
    return [Burst(tuple(g)) for g in groups]
