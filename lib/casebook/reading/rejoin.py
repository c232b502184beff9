"""A capture read line by line, with the lines its paste broke joined back when the continuation is unambiguous.

A line starts like a line of its own when it is a line of the paste itself, carries a wrapper (paste.py), or
the grammar accepts it without context. A piece that does not continues the line before it when:
- **Re-wrapped** at a width W (a terminal, a mail client, `fold`, `textwrap`): the line's first piece starts
  like a line, and the piece before was cut, either at exactly W characters (a hard cut, joined as it is) or
  before a word that would not fit in W (a word wrap, which drops the space: joined with one; a piece that starts
  with the line's own first word is a repeated line instead). The capture
  counts as re-wrapped when no line is longer than W (its longest line) and at least two such breaks are
  found. Lines that do not start like log lines (tables, environment dumps, package lists) are never joined.
- **Split once**: the line before is a grep-quoted line (grep prints no line without its prefix), or a long slog
  header line (SPLIT_FROM characters or more) that does not end like a sentence while the piece goes on in
  mid-sentence (a small letter, a digit, continuing punctuation).

A joined line is read as one record at the line number of its first piece; each later piece keeps a record of
kind `continuation`, so every line is still counted once.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterator

from .grammar import HEADER, KIND_BLANK, BlockState, Fields, opens_line, parse_header
from .paste import Peeled, open_line, peel, read_line, read_peeled
from .prefixes import GREP, PasteState, capture_form

#: A re-wrapped capture shows at least this many breaks at its width.
MIN_BREAKS = 2
#: Narrower captures are not taken for re-wrapped ones: short lines are short because they are.
MIN_WIDTH = 40
#: How a line split in mid-sentence goes on: a small letter, a digit or punctuation that closes or continues.
_MID_SENTENCE = re.compile(r"[a-z0-9,.;:)\]}=/]")
#: How a complete line ends: a split is not looked for after these.
_ENDED = (".", "!", "?", "]")
#: A paste splits long lines: an slog line shorter than this is taken as whole.
SPLIT_FROM = 100


@dataclass(frozen=True)
class Join:
    """One line rebuilt from pieces: its first piece's index, how many pieces follow, and what goes between."""

    first: int
    more: int
    sep: str


def _opens(text: str, state: PasteState) -> bool:
    """Whether a line would start like a line of its own, the state left as it is."""
    if HEADER.match(text):
        # an slog header opens a line whatever peeling finds (a wrapper, furniture, or none): open_line's rule too
        return True
    p = peel(text, replace(state, grep_files=set(state.grep_files)))
    # the capture's margin is on every line: it says nothing of where a line starts
    return p.furniture or any(w != "margin" for w in p.wrappers) or opens_line(p.text)


def _word(text: str) -> int:
    return len(text.split(None, 1)[0]) if text.strip() else 0


def _same_start(text: str, piece: str) -> bool:
    """Whether a piece starts with the first word of the line above: a tool's repeated output line
    ("OpenBLAS blas_thread_init: ..." twice), not the rest of a sentence a word wrap moved down."""
    return text.split(None, 1)[:1] == piece.split(None, 1)[:1]


def rewrapped(texts: list[str]) -> list[Join]:
    """The joins of a capture re-wrapped at one width, or [] when it does not look re-wrapped."""
    width = max(map(len, texts), default=0)
    if width < MIN_WIDTH:
        return []
    # a cut piece is as long as the width, or the next piece's first word would not have fitted after it; the
    # next piece starts with at most the one space the cut fell before (an indented line is a line of its own)
    cut = [i for i in range(len(texts) - 1) if texts[i].strip() and texts[i + 1].strip()
           and not texts[i + 1][:2].isspace() and (len(texts[i]) == width or (
               not texts[i + 1][0].isspace() and len(texts[i]) + 1 + _word(texts[i + 1]) > width
               and not _same_start(texts[i], texts[i + 1])))]
    if len(cut) < MIN_BREAKS:
        return []
    fresh = PasteState()
    breaks: list[int] = []
    for i in cut:
        chained = bool(breaks) and breaks[-1] == i - 1
        # the next piece first: in a log of slog lines of one width it opens a line, and the test ends there
        if not _opens(texts[i + 1], fresh) and (chained or _opens(texts[i], fresh)):
            breaks.append(i)
    if len(breaks) < MIN_BREAKS:
        return []
    sep = "" if all(len(texts[i]) == width for i in breaks) else " "
    joins: list[Join] = []
    for i in breaks:   # consecutive breaks make one line of several pieces
        if joins and joins[-1].first + joins[-1].more == i:
            joins[-1] = Join(joins[-1].first, joins[-1].more + 1, sep)
        else:
            joins.append(Join(i, 1, sep))
    return joins


def _split(text: str, header: Fields | None, p: Peeled | None, cont: str, paste: PasteState) -> str | None:
    """What joins the next line to this one when the paste split this one in two, or None."""
    if not cont.strip():
        return None
    quoted = p is not None and bool(GREP & set(p.wrappers))
    cut = (len(text) >= SPLIT_FROM and not text.rstrip().endswith(_ENDED) and bool(_MID_SENTENCE.match(cont))
           and (header is not None or parse_header(p.text) is not None))
    if not (quoted or cut) or _opens(cont, paste):
        return None
    return "" if text.endswith(" ") or cont.startswith(" ") else " "


def read_capture(texts: list[str], state: BlockState, paste: PasteState,
                 blanks: bool = True) -> Iterator[tuple[int, Fields, Peeled | None, int]]:
    """(index of the first piece, fields, wrappers peeled, pieces that follow) for every line of a capture; without
    `blanks`, for every line but the empty ones (never a piece of a joined line: a piece holds text)."""
    paste.margin, paste.led = capture_form(texts)
    wrapped = {j.first: j for j in rewrapped(texts)}
    k = 0
    while k < len(texts):
        if not blanks and not texts[k]:
            k += 1
            continue
        if wrapped:
            j = wrapped.get(k, Join(k, 0, ""))
            yield (k, *read_line(j.sep.join(texts[k:k + j.more + 1]), state, paste), j.more)
            k += j.more + 1
            continue
        text = texts[k]
        if not text:   # what the steps below make of an empty line, without them: a flood of them costs little
            yield k, Fields(KIND_BLANK), None, 0
            k += 1
            continue
        header, p = open_line(text, paste)
        sep = _split(text, header, p, texts[k + 1], paste) if k + 1 < len(texts) else None
        if sep is not None and header is not None:
            header = parse_header(sep.join(texts[k:k + 2]))
        elif sep is not None:   # the wrappers of the first piece are the whole line's
            p = replace(p, text=p.text + sep + texts[k + 1])
        more = int(sep is not None)
        yield (k, *read_peeled(header, p, state), more)
        k += 1 + more
