"""Many texts searched at once for literals: one joined string, so finding the texts that hold a literal costs one
search per text that holds it, not one test per text (the evidence families' literals over a bundle's messages, the
knowledge base's signature needles over the distinct values a bundle shows)."""
from __future__ import annotations

from bisect import bisect_right
from typing import Callable, Iterable

try:   # the compiled scanner's literal search; without it every literal is found with str.find
    from ._linescan import find
except ImportError:   # pragma: no cover - the extension is optional (setup.py)
    find = None
#: What the compiled search reports (`_linescan.find`): the lines holding one of the literals; each (literal, line)
#: pair, flat; the literals held.
LINES, PAIRS, HELD = 0, 1, 2

#: Literals given to the compiled search at once (it takes up to 511: its MAX_LITERALS, less the one slot it keeps);
#: the knowledge base's literal index hands it the same number (literals.Index.present).
AT_ONCE = 255
#: The bytes times the literals from which the compiled search is used: it first sets up 300 KB of tables, which
#: costs as much as some 50 str.find calls over 10 KB.
_COMPILED_FROM = 1 << 19


class Haystack:
    """Texts searched for literals; `fold` is what a text becomes before a folded search (lower-casing)."""

    def __init__(self, texts: list[str], fold: Callable[[str], str] = str.lower) -> None:
        self.texts = texts
        self._fold = fold
        self._joined: dict[bool, tuple[str, list[int]]] = {}
        self._bytes: dict[bool, bytes | None] = {}

    def _layout(self, folded: bool) -> tuple[str, list[int]]:
        """The texts (folded when `folded`) joined by newlines, and where each starts."""
        if folded not in self._joined:
            joined, starts = self._joined[False] if False in self._joined else self._join(self.texts)
            if folded:
                # folded whole, in one call, when that keeps the joined length: a fold never shortens a text (both in
                # use only keep or lengthen one, as str.lower does U+0130), so an equal total means every text kept
                # its length and starts where it did; else each text is folded and the starts are counted anew
                whole = self._fold(joined)
                joined, starts = (whole, starts) if len(whole) == len(joined) else self._join(
                    [self._fold(t) for t in self.texts])
            self._joined[folded] = (joined, starts)
        return self._joined[folded]

    @staticmethod
    def _join(parts: list[str]) -> tuple[str, list[int]]:
        starts, at = [], 0
        for p in parts:
            starts.append(at)
            at += len(p) + 1
        return "\n".join(parts), starts

    def _encoded(self, folded: bool) -> bytes | None:
        """The joined texts as UTF-8, for the compiled search: None when it cannot take them (no compiled search,
        or a text holding a newline, so that a line of the bytes is no longer one text)."""
        if folded not in self._bytes:
            joined, starts = self._layout(folded)
            whole = find is not None and joined.count("\n") == len(starts) - 1
            self._bytes[folded] = joined.encode("utf-8", "surrogatepass") if whole and starts else None
        return self._bytes[folded]

    def compiled(self, literals: int, folded: bool = False) -> bool:
        """Whether a search for that many literals goes through the compiled search (holding_any, held, places)."""
        return len(self._layout(folded)[0]) * literals >= _COMPILED_FROM and self._encoded(folded) is not None

    def _parts(self, literals: list[str], folded: bool, count: int | None = None
               ) -> tuple[bytes | None, list[list[tuple[str, bytes]]]]:
        """The bytes the compiled search reads, and the literals it takes (three bytes of UTF-8 and more) with their
        UTF-8, AT_ONCE at a time; (None, []) where a search for `count` literals (all of them, unless named) does not
        go through it. A byte string holds a literal's UTF-8 exactly where the text holds the literal, and its lines
        are the texts."""
        if not self.compiled(len(literals) if count is None else count, folded):
            return None, []
        taken = [(a, e) for a in literals if len(e := a.encode("utf-8", "surrogatepass")) >= 3]
        return self._encoded(folded), [taken[k:k + AT_ONCE] for k in range(0, len(taken), AT_ONCE)]

    def holding_any(self, literals: Iterable[str], folded: bool = False) -> list[int]:
        """Indices, ascending, of the texts holding one of `literals` (in the folded texts when `folded`)."""
        literals = list(dict.fromkeys(literals))
        data, parts = self._parts(literals, folded)
        # one pass over the bytes per 255 literals, instead of one str.find per literal and per text holding it (the
        # literals of an evidence family over a collection's 6,000 messages: 31 ms to 2 ms)
        found = {i for part in parts for i in find(data, tuple(e for _, e in part), LINES)}
        taken = {a for part in parts for a, _ in part}
        return sorted(found.union(self._finding([a for a in literals if a not in taken], folded)))

    def held(self, literals: Iterable[str], folded: bool = False) -> set[str]:
        """The literals one of the texts holds (the folded texts when `folded`); a literal spanning two lines, which
        no text holds, is found only by the plain search of the joined texts."""
        literals = list(dict.fromkeys(literals))
        joined = self._layout(folded)[0]
        one_line = [a for a in literals if "\n" not in a]
        data, parts = self._parts(one_line, folded, len(literals))
        if data is None:
            return {a for a in literals if a in joined}
        # one pass over the bytes per 255 literals tells which of them occur, instead of one search of the whole
        # joined text per literal (a knowledge base's 845 literals over a big bundle's 1,500 messages: 25 ms to 3.4)
        out = {part[i][0] for part in parts for i in find(data, tuple(e for _, e in part), HELD)}
        taken = {a for part in parts for a, _ in part}
        return out | {a for a in one_line if a not in taken and a in joined}

    def places(self, literals: Iterable[str], folded: bool = False) -> dict[str, list[int]]:
        """For each of `literals`, the indices, ascending, of the texts holding it (in the folded texts when
        `folded`)."""
        literals = list(dict.fromkeys(literals))
        out: dict[str, list[int]] = {a: [] for a in literals}
        data, parts = self._parts(literals, folded)
        # one pass over the bytes per 255 literals names every text each of them is in, instead of one compiled
        # search per literal set asked for (a knowledge base's 500 requirements a big bundle's messages hold: each
        # search sets up its tables and reads the whole bundle's messages again)
        for part in parts:
            pairs = find(data, tuple(e for _, e in part), PAIRS)
            for lit, line in zip(pairs[::2], pairs[1::2]):
                out[part[lit][0]].append(line)
        taken = {a for part in parts for a, _ in part}
        for a in literals:
            if a not in taken:
                out[a] = sorted(self._finding([a], folded))
        return out

    def _finding(self, literals: list[str], folded: bool) -> set[int]:
        """Indices of the texts holding one of `literals`, each literal found with str.find."""
        joined, starts = self._layout(folded)
        found: set[int] = set()
        for alt in literals:
            at = joined.find(alt)
            while at >= 0:
                i = bisect_right(starts, at) - 1
                found.add(i)
                # the next text: one hit is enough for a text
                at = joined.find(alt, starts[i + 1]) if i + 1 < len(starts) else -1
        return found
