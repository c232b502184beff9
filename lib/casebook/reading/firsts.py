"""The first characters a regex's match can have: a line that starts otherwise cannot be read by a rule whose
pattern must match at the line's start.

The grammar tries some thirty rules, in order, on every line without an slog header (grammar.OTHER_RULES), and a
console log is nearly all such lines. Most rules first match a pattern at the start of the line. `start(pattern)`
reads the parsed pattern (as knowledge/literals.py reads its literals) and names the characters a match can begin
with: some characters, and the classes the pattern names (whitespace, decimal digits, word characters, anything
but whitespace); None when it cannot tell (a `.`, a negated set, a case-insensitive pattern). The grammar then
tries on a line only the rules that can read a line starting as it does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

try:   # the parser of the standard `re` module: private, so its absence only turns the shortcut off
    from re import _constants as _sre
    from re import _parser as _parse
except ImportError:   # pragma: no cover - every supported CPython from 3.11 has them
    _parse = _sre = None

#: A range of more characters than this (`[\u4e00-\u9fff]`) is not spelled out: the start is unknown.
MOST_CHARS = 256


@dataclass(frozen=True)
class Start:
    """What the first character of a match can be."""

    chars: frozenset[str] = frozenset()
    spaces: bool = False     #: any whitespace (`\s`: what str.isspace accepts)
    digits: bool = False     #: any decimal digit (`\d`: str.isdecimal)
    word: bool = False       #: any word character (`\w`: str.isalnum, or `_`)
    nonspace: bool = False   #: any character but whitespace (`\S`)
    empty: bool = False      #: the match may be empty, so a line starting with anything may match

    def admits(self, first: str) -> bool:
        """Whether a match can begin a line whose first character is `first` ("" for an empty line)."""
        if self.empty:
            return True
        if not first:
            return False
        return (first in self.chars or (self.spaces and first.isspace()) or (self.digits and first.isdecimal())
                or (self.word and (first.isalnum() or first == "_")) or (self.nonspace and not first.isspace()))

    def __or__(self, other: Start) -> Start:
        return Start(self.chars | other.chars, self.spaces or other.spaces, self.digits or other.digits,
                     self.word or other.word, self.nonspace or other.nonspace, self.empty or other.empty)


_ZERO_WIDTH = Start(empty=True)


def start(pattern: re.Pattern) -> Start | None:
    """The first characters a match of `pattern` at a string's start can have, or None when it cannot tell."""
    if _parse is None or not isinstance(pattern.pattern, str) or pattern.flags & re.IGNORECASE:
        return None
    try:
        parsed = _parse.parse(pattern.pattern, pattern.flags)
    except re.error:   # pragma: no cover - the pattern compiled, so it parses
        return None
    return _sequence(list(parsed))


def starts(patterns: tuple[re.Pattern, ...]) -> Start | None:
    """Where a match of any of the patterns can start, or None when one of them cannot tell."""
    found = Start()
    for pattern in patterns:
        if (s := start(pattern)) is None:
            return None
        found |= s
    return found


def _sequence(items: list) -> Start | None:
    """A sequence can start where its first item does, and where the next ones do while those before may be empty."""
    found = Start()
    for op, arg in items:
        s = _item(op, arg)
        if s is None:
            return None
        found |= Start(s.chars, s.spaces, s.digits, s.word, s.nonspace)
        if not s.empty:
            return found
    return found | _ZERO_WIDTH


def _item(op, arg) -> Start | None:
    if op is _sre.LITERAL:
        return Start(frozenset(chr(arg)))
    if op is _sre.IN:
        return _set(arg)
    if op in (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT):
        return _ZERO_WIDTH   # `^`, `\b`, a lookaround: no character; leaving its condition out only admits more
    if op is _sre.SUBPATTERN:
        _group, add, _remove, sub = arg
        return None if add & re.IGNORECASE else _sequence(list(sub))
    if op is _sre.ATOMIC_GROUP:
        return _sequence(list(arg))
    if op is _sre.BRANCH:
        found = Start()
        for branch in arg[1]:
            if (s := _sequence(list(branch))) is None:
                return None
            found |= s
        return found
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
        least, most, sub = arg
        if most == 0:
            return _ZERO_WIDTH
        s = _sequence(list(sub))
        return s | _ZERO_WIDTH if s is not None and least == 0 else s
    return None   # any character, a negated literal, a back-reference: unknown


_CLASSES = {}
if _sre is not None:
    _CLASSES = {_sre.CATEGORY_SPACE: "spaces", _sre.CATEGORY_UNI_SPACE: "spaces",
                _sre.CATEGORY_DIGIT: "digits", _sre.CATEGORY_UNI_DIGIT: "digits",
                _sre.CATEGORY_WORD: "word", _sre.CATEGORY_UNI_WORD: "word",
                _sre.CATEGORY_NOT_SPACE: "nonspace", _sre.CATEGORY_UNI_NOT_SPACE: "nonspace"}


def _set(items: list) -> Start | None:
    """A character set `[...]` (or a class such as `\\s` outside one)."""
    chars: set[str] = set()
    classes: set[str] = set()
    for op, arg in items:
        if op is _sre.LITERAL:
            chars.add(chr(arg))
        elif op is _sre.RANGE and arg[1] - arg[0] < MOST_CHARS:
            chars.update(map(chr, range(arg[0], arg[1] + 1)))
        elif op is _sre.CATEGORY and arg in _CLASSES:
            classes.add(_CLASSES[arg])
        else:   # a negated set, a wide range, `\D` or `\W`
            return None
    return Start(frozenset(chars), **{c: True for c in classes})
