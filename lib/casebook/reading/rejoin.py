"""A capture read line by line, with the lines its paste broke joined back when the continuation is unambiguous.

A line starts like a line of its own when it is a line of the paste itself, carries a wrapper (paste.py), or
the grammar accepts it without context; a piece that the grammar accepts only by what may sit anywhere in a line (an
error block's `[FUNC:..][FILE:..][LINE:..]` trailer) may still be the rest of a line. A piece that does not start a
line continues the line before it when:
- **Re-wrapped** at a width W, the capture's longest line (a terminal, a mail client, `fold`, `textwrap`): the
  line before was cut, either at exactly W characters (a terminal's hard cut, joined as it is) or before a word that
  would not fit in W (a word wrap, which drops the space: joined with one, unless it cut a word longer than W). The
  capture counts as re-wrapped when at least two breaks are found where the line starts like a log line and the
  piece does not, or at least two different lines are exactly W long and go on below (a terminal cuts a tool's
  own messages too). The width once known, every such break is joined, but where the piece starts as the line
  does (the next item of a list, the same tool's next line), or the line is a table's row.
- **Split once**: the line before is a grep-quoted line (grep prints no line without its prefix), a long slog
  header line (SPLIT_FROM characters or more) or the capture's longest line where a mail client would have wrapped
  it, and it does not end like a sentence while the piece goes on in mid-sentence (a small letter, a digit,
  continuing punctuation, an opening bracket or quote); or the longest line carries a launcher's or a collector's
  prefix and the piece, which carries none, goes on in mid-sentence.
- **A traceback frame** broken before it names its function: up to FRAME_PIECES pieces.

A joined line is read as one record at the line number of its first piece; each later piece keeps a record of
kind `continuation`, so every line is still counted once.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Iterator

from .grammar import (HEADER, KIND_ATTACHMENT, KIND_BLANK, KIND_BLOCK_LINE, KIND_UNPARSED, BlockState, Fields,
                      parse_header, parse_line)
from .paste import CODE_FIRST, Peeled, open_line, peel, read_line, read_peeled
from .prefixes import GREP, PasteState, capture_form

#: A re-wrapped capture shows at least this many breaks at its width.
MIN_BREAKS = 2
#: Narrower captures are not taken for re-wrapped ones: short lines are short because they are.
MIN_WIDTH = 40
#: How a line split in mid-sentence goes on: a small letter, a digit, punctuation that closes or continues, an opening
#: parenthesis, angle bracket or quote (`(download.mindspore.cn)|…`, `<module>`, a message's closing `"`).
_MID_SENTENCE = re.compile(r"""[a-z0-9,.;:)\]}=/(<'"]""")
#: How a complete line ends: a split is not looked for after these.
_ENDED = (".", "!", "?", "]")
#: Kinds a line gets from text anywhere in it: an error block's trailer.
_ANYWHERE = (KIND_BLOCK_LINE,)
#: The widths mail clients and forum editors wrap at: a line no longer was broken there only if the next word would not
#: have fitted in the narrowest.
MAIL_WIDTHS = (72, 80)
#: How a line starts that the grammar reads only whole: a traceback's frame cut before its function, an error code's
#: message.
_STARTS = re.compile(r'\s*File "|' + CODE_FIRST.pattern)
#: A traceback's frame line that does not reach its function's name yet (`File`, `File "x.py", line 12, in`), and how
#: many pieces it may have been broken into.
_FRAME_CUT = re.compile(r'\s*File(?: "[^"]*(?:"(?:, line(?: \d+(?:, in)?)?)?)?)?\s*$')
FRAME_PIECES = 3
#: A paste splits long lines: an slog line shorter than this is taken as whole.
SPLIT_FROM = 100
_DIGITS = re.compile(r"\d+")
#: A program's output line names the program first: `make: `, `usage: `, `eth0: `.
_NAMED = re.compile(r"[\w.\[\]-]+: ")
#: Lines of one list start alike: the same first word, the same mark (a table's border, a bullet), or `NAME=`.
_LIST_START = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=|[^\w\s]")


@dataclass(frozen=True)
class Join:
    """One line rebuilt from pieces: its first piece's index, and what goes before each piece that follows."""

    first: int
    seps: tuple[str, ...]

    @property
    def more(self) -> int:
        """How many pieces follow the first."""
        return len(self.seps)

    def text(self, texts: list[str]) -> str:
        """The line rebuilt from its pieces."""
        pieces = texts[self.first + 1:self.first + 1 + self.more]
        return texts[self.first] + "".join(sep + piece for sep, piece in zip(self.seps, pieces))


#: How a line starts a line of its own (_start): not at all, by what may sit anywhere in a line, by its start.
NOT, ANYWHERE, AT_START = 0, 1, 2


def _start(text: str, state: PasteState) -> int:
    """How a line would start a line of its own, the state left as it is: ANYWHERE when only by what the rest of a
    broken line holds as often as a line's start (an error block's `[FUNC:..][FILE:..][LINE:..]` at its end)."""
    if HEADER.match(text):
        # an slog header opens a line whatever peeling finds (a wrapper, furniture, or none): open_line's rule too
        return AT_START
    p = peel(text, replace(state, grep_files=set(state.grep_files)))
    # the capture's margin is on every line: it says nothing of where a line starts
    if p.furniture or any(w != "margin" for w in p.wrappers):
        return AT_START
    kind = parse_line(p.text, BlockState()).kind
    if kind in (KIND_UNPARSED, KIND_BLANK, KIND_ATTACHMENT):
        return AT_START if _STARTS.match(p.text) else NOT
    return ANYWHERE if kind in _ANYWHERE else AT_START


def _opens(text: str, state: PasteState) -> bool:
    """Whether a line would start like a line of its own, the state left as it is."""
    return _start(text, state) != NOT


def _first_word(text: str) -> str:
    return text.split(None, 1)[0] if text.strip() else ""


def _word(text: str) -> int:
    return len(_first_word(text))


def _same_start(text: str, piece: str) -> bool:
    """Whether a piece starts with the first word of the line above, its digits aside: a tool's repeated output line
    ("OpenBLAS blas_thread_init: ..." twice, a compiler's `file.cpp:49: error:` then `file.cpp:50: error:`), not the
    rest of a sentence a word wrap moved down."""
    return _DIGITS.sub("0", _first_word(text)) == _DIGITS.sub("0", _first_word(piece))


def _ruled(text: str) -> bool:
    """Whether a line is a table's row or rule, or a banner: it ends with the mark it starts with (`|`, `+`, `*`)."""
    return len(text) > 1 and not text[0].isalnum() and not text[0].isspace() and text[-1] == text[0]


def _alike(text: str, piece: str) -> bool:
    """Whether a piece starts as the line above does: the next item of a list, not the rest of the line."""
    a, b = _LIST_START.match(text.lstrip()), _LIST_START.match(piece)
    return _same_start(text, piece) or bool(a and b and (a[0] == b[0] or a[0].endswith("=") and b[0].endswith("=")))


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
    rest: list[int] = []
    for i in cut:
        chained = bool(breaks) and breaks[-1] == i - 1
        # the next piece first: in a log of slog lines of one width it opens a line, and the test ends there
        piece = _start(texts[i + 1], fresh)
        if piece == AT_START:
            continue
        # the width is learnt from lines that open as log lines and pieces that do not, even by their ends
        if piece == NOT and (chained or _opens(texts[i], fresh)):
            breaks.append(i)
        elif not _alike(texts[i], texts[i + 1]):
            rest.append(i)
    # lines of the width that differ show a terminal's cut whatever they hold (a tool's own messages, no log line
    # among them), but for a table's rows
    full = [i for i in rest if len(texts[i]) == width and not _ruled(texts[i])]
    if len(breaks) < MIN_BREAKS and len({texts[i] for i in full}) < MIN_BREAKS:
        return []
    hard = _terminal(texts, breaks if len(breaks) >= MIN_BREAKS else full, width)
    # once the breaks of log lines show the width, a cut line that is no log line of its own (a traceback's frame,
    # a tool's message) was broken by it too, unless the piece after it reads like its sibling in a list; a terminal
    # cuts at the width and nowhere else: a shorter line was whole
    breaks = sorted(breaks + [i for i in rest if not hard or len(texts[i]) == width])
    joins: list[Join] = []
    for i in breaks:   # consecutive breaks make one line of several pieces
        sep = "" if hard or _word_cut(texts[i], texts[i + 1], width) else " "
        if joins and joins[-1].first + joins[-1].more == i:
            joins[-1] = Join(joins[-1].first, joins[-1].seps + (sep,))
        else:
            joins.append(Join(i, (sep,)))
    return joins


def _terminal(texts: list[str], breaks: list[int], width: int) -> bool:
    """Whether breaks are a terminal's cuts, not a word wrap's. A terminal cuts every broken line at the width, and
    keeps a space it cuts at; a word wrap drops that space and fills a line to the width only when it cuts a word
    longer than the width or, by chance, when the line fits exactly: that chance twice over, in different lines, is
    taken for a terminal (one line repeated, the same error from every process, fits the same way every time). Wider
    than a mail client wraps, lines all of the width are a terminal's."""
    if not all(len(texts[i]) == width for i in breaks):
        return False
    if width > MAIL_WIDTHS[1] or any(texts[i].endswith(" ") or texts[i + 1].startswith(" ") for i in breaks):
        return True
    return len({texts[i] for i in breaks if not _word_cut(texts[i], texts[i + 1], width)}) >= MIN_BREAKS


def _word_cut(text: str, piece: str, width: int) -> bool:
    """Whether a word wrap cut a word longer than the width (a path, a mangled symbol) where the line ends, as
    wrappers do that would otherwise leave it longer than the width."""
    return len(text) == width and not text[-1].isspace() and len(text.rsplit(None, 1)[-1]) + _word(piece) > width


def _split(text: str, header: Fields | None, p: Peeled | None, cont: str, paste: PasteState,
           longest: int, repeated: set[str]) -> str | None:
    """What joins the next line to this one when the paste split this one in two, or None (`longest`: the length of
    the capture's longest line; `repeated`: the lines it holds more than once, each a line of its own)."""
    if not cont.strip():
        return None
    quoted = p is not None and bool(GREP & set(p.wrappers))
    # a mail client breaks the longest line of a capture, whatever it holds, before a word past its width: a line
    # that long which stops in mid-sentence goes on below it as a slog header does, unless it is a command the
    # paste shows, the piece names a program as its output's lines do (`make: `, `usage: `), or it is a line the
    # capture holds again or the next of a list
    # A launcher's or a collector's prefix marks where its lines start: the longest line under one, with a piece
    # below it that carries none, was cut there by a terminal or a mail client, whichever its width says.
    narrowest, widest = MAIL_WIDTHS
    apart = (len(text) == longest and not _alike(text, cont) and cont not in repeated
             and not (p is not None and p.furniture))
    prefixed = apart and p is not None and any(w != "margin" for w in p.wrappers) and len(text) >= MIN_WIDTH
    # (an slog line that short holds a few words after its header: its split is the long header's rule)
    broken = (apart and header is None and len(text) <= widest and len(text) + 1 + _word(cont) > narrowest
              and not _NAMED.match(cont))
    # (under a prefix, a piece that goes on in lower case is no new sentence though the cut fell after a full stop)
    cut = bool(_MID_SENTENCE.match(cont)) and (prefixed or not text.rstrip().endswith(_ENDED) and (
        broken or len(text) >= SPLIT_FROM and (header is not None or parse_header(p.text) is not None)))
    if not (quoted or cut) or _opens(cont, paste):
        return None
    return _sep(text, cont, prefixed and len(text) > widest or _word_cut(text, cont, longest))


def _frame(text: str, after: list[str], paste: PasteState, longest: int) -> tuple[str, int] | None:
    """A traceback frame line broken before it names its function (`File "x.py", line 12, in` and `<module>` below
    it) rebuilt from the pieces `after` it, and how many it took; or None. Pieces are joined within the quoted path as
    they are, elsewhere with a space (a terminal's cut, past the widest mail wrap, as it is)."""
    if not _FRAME_CUT.match(text):
        return None
    for n, piece in enumerate(after, start=1):
        if not piece.strip() or piece[:2].isspace() or _opens(piece, paste):
            break
        quoted = text.count('"') % 2 == 1 and not piece.startswith('"')
        text += _sep(text, piece, quoted or len(text) == longest > MAIL_WIDTHS[1]) + piece
        if not _FRAME_CUT.match(text):
            return text, n
    return None


def _sep(text: str, piece: str, as_is: bool) -> str:
    """What goes between a line and a piece cut from it: nothing where the cut kept its space or cut a word as it
    was (`as_is`), else the space a word wrap dropped."""
    return "" if as_is or text.endswith(" ") or piece.startswith(" ") else " "


def read_capture(texts: list[str], state: BlockState, paste: PasteState,
                 blanks: bool = True) -> Iterator[tuple[int, Fields, Peeled | None, int]]:
    """(index of the first piece, fields, wrappers peeled, pieces that follow) for every line of a capture; without
    `blanks`, for every line but the empty ones (never a piece of a joined line: a piece holds text)."""
    paste.margin, paste.led = capture_form(texts)
    wrapped = {j.first: j for j in rewrapped(texts)}
    # what the splits of a capture that is not re-wrapped ask of all its lines
    longest, repeated = (0, set()) if wrapped else (max(map(len, texts), default=0),
                                                    {t for t, n in Counter(texts).items() if n > 1})
    k = 0
    while k < len(texts):
        if not blanks and not texts[k]:
            k += 1
            continue
        if wrapped:
            j = wrapped.get(k, Join(k, ()))
            yield (k, *read_line(j.text(texts), state, paste), j.more)
            k += j.more + 1
            continue
        text = texts[k]
        if not text:   # what the steps below make of an empty line, without them: a flood of them costs little
            yield k, Fields(KIND_BLANK), None, 0
            k += 1
            continue
        header, p = open_line(text, paste)
        sep = _split(text, header, p, texts[k + 1], paste, longest, repeated) if k + 1 < len(texts) else None
        if sep is not None and header is not None:
            header = parse_header(sep.join(texts[k:k + 2]))
        elif sep is not None:   # the wrappers of the first piece are the whole line's
            p = replace(p, text=p.text + sep + texts[k + 1])
        more = int(sep is not None)
        if p is not None and header is None and not more:
            frame = _frame(p.text, texts[k + 1:k + 1 + FRAME_PIECES], paste, longest)
            if frame is not None:
                p, more = replace(p, text=frame[0]), frame[1]
        yield (k, *read_peeled(header, p, state), more)
        k += 1 + more
