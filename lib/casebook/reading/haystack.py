"""Many texts searched at once for literals: one joined string, so finding the texts that hold a literal costs one
search per text that holds it, not one test per text (the evidence families' literals over a bundle's messages, the
knowledge base's signature needles over the distinct values a bundle shows)."""
from __future__ import annotations

from bisect import bisect_right
from typing import Callable, Iterable


class Haystack:
    """Texts searched for literals; `fold` is what a text becomes before a folded search (lower-casing)."""

    def __init__(self, texts: list[str], fold: Callable[[str], str] = str.lower) -> None:
        self.texts = texts
        self._fold = fold
        self._joined: dict[bool, tuple[str, list[int]]] = {}

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

    def holding_any(self, literals: Iterable[str], folded: bool = False) -> list[int]:
        """Indices, ascending, of the texts holding one of `literals` (in the folded texts when `folded`)."""
        joined, starts = self._layout(folded)
        found: set[int] = set()
        for alt in literals:
            at = joined.find(alt)
            while at >= 0:
                i = bisect_right(starts, at) - 1
                found.add(i)
                # the next text: one hit is enough for a text
                at = joined.find(alt, starts[i + 1]) if i + 1 < len(starts) else -1
        return sorted(found)
