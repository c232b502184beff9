"""Regexes whose compiled program goes with them when a knowledge base is kept on disk.

Compiling a regex is mostly Python: the pattern is parsed and turned into the program the C matcher runs. A
knowledge base has some 470 distinct patterns, and a new process (the CLI) spent 70-120 ms compiling the ones a
bundle reached, more than it spends reading the knowledge base itself. A `Regex` kept in a pickle carries its
program, and the matcher rebuilds it from that in microseconds (all 470 in about 2 ms).

The program is the standard library's own compiler output, read through its private modules: it is kept only when
the pattern it rebuilds equals the one `re.compile` makes (a Pattern compares its program), and it is rebuilt only
by the same matcher version (`_sre.MAGIC`; a kept copy is also tied to the Python version, cache.py). Anything else
compiles the pattern as before.
"""
from __future__ import annotations

import re
from array import array

try:   # private modules of the standard `re`: without them every pattern is compiled as usual
    import _sre
    from re import _compiler, _parser
except ImportError:   # pragma: no cover - every supported CPython has them
    _sre = _compiler = _parser = None

#: The array type of the matcher's code words (4 bytes where CPython builds them so, else 2).
_WORD = "I" if _sre is None or _sre.CODESIZE == 4 else "H"


class Regex:
    """A regex compiled on first use: from the program a pickle kept when there is one, else from its source."""

    __slots__ = ("source", "_compiled", "_kept")

    def __init__(self, source: str, compiled: re.Pattern | None = None, kept: tuple | None = None) -> None:
        self.source = source
        self._compiled = compiled
        self._kept = kept

    @property
    def pattern(self) -> re.Pattern:
        """The compiled regex."""
        if self._compiled is None:
            self._compiled = _rebuilt(self.source, self._kept) if self._kept is not None else re.compile(self.source)
            self._kept = None
        return self._compiled

    def __reduce__(self):
        # rebuilt when first used, not when loaded: a bundle reaches a fraction of a knowledge base's patterns
        return Regex, (self.source, None, self._kept if self._kept is not None else program(self.source))

    def __repr__(self) -> str:
        return f"Regex({self.source!r})"


def program(source: str) -> tuple | None:
    """What `_sre.compile` makes the pattern of (the matcher's version first), or None when it cannot be had."""
    if _sre is None:
        return None
    try:
        parsed = _parser.parse(source, 0)
        # packed as the matcher's code words: a pickle loads one bytes object faster than thousands of ints
        code = array(_WORD, _compiler._code(parsed, 0)).tobytes()
        groupindex = dict(parsed.state.groupdict)
        indexgroup = [None] * parsed.state.groups
        for name, number in groupindex.items():
            indexgroup[number] = name
        kept = (_sre.MAGIC, int(parsed.state.flags), code, parsed.state.groups - 1, groupindex, tuple(indexgroup))
        # a standard library that builds its patterns otherwise is caught here: the rebuilt one must be re's own
        return kept if _built(source, kept) == re.compile(source) else None
    except Exception:   # any change of the private modules only turns the shortcut off
        return None


def _built(source: str, kept: tuple) -> re.Pattern:
    """The pattern `_sre.compile` makes of a kept program; ValueError when another matcher version kept it."""
    magic, flags, code, groups, groupindex, indexgroup = kept
    if magic != _sre.MAGIC:
        raise ValueError("another matcher version")
    words = array(_WORD)
    words.frombytes(code)
    return _sre.compile(source, flags, words.tolist(), groups, groupindex, indexgroup)


def _rebuilt(source: str, kept: tuple) -> re.Pattern:
    """The pattern rebuilt from its kept program, or compiled when it cannot be."""
    if _sre is not None:
        try:
            return _built(source, kept)
        except (ValueError, TypeError, RuntimeError):   # another matcher, or a program it does not accept
            pass
    return re.compile(source)
