"""Literals every match of a regex holds: a substring test rules out most texts before the regex runs.

A knowledge base has hundreds of message signatures and a bundle hundreds of distinct error messages;
running every regex on every message is most of a ranking's time, while nearly every pair fails on a
literal the regex cannot match without. `required(pattern)` reads the parsed pattern and returns a set
of alternatives of which every match holds at least one (None when it cannot tell), so a text holding
none of them is known not to match.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import lru_cache

from ..reading import haystack

try:   # the parser of the standard `re` module: private, so its absence only turns the shortcut off
    from re import _constants as _sre
    from re import _parser as _parse
except ImportError:   # pragma: no cover - every supported CPython has them
    _parse = _sre = None

#: Under IGNORECASE an ASCII letter also matches these four letters outside ASCII (the dotted and dotless i,
#: the long s, the Kelvin sign; tests/test_literals.py checks every code point), so a text is folded by
#: mapping them to their ASCII letter before lower-casing it. Letters outside ASCII have other such pairs
#: (the micro sign and the Greek mu): a folded needle holds ASCII characters only.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
_FOLDS = tuple(chr(c) for c in _FOLD)


def _literal(code: int, folded: bool) -> bool:
    """Whether a literal character can stand in a needle (under IGNORECASE: an ASCII one, or a CJK character or
    punctuation mark, which has no case)."""
    return not folded or code < 128 or 0x3000 <= code <= 0x303F or 0x3400 <= code <= 0x4DBF or 0x4E00 <= code <= 0x9FFF


@dataclass(frozen=True)
class Required:
    """Every match holds one of `alternatives`; with `folded`, in the lower-cased text. With `exact`, every text
    holding one matches too: the regex is nothing but those literals, and need not run (or be compiled)."""

    alternatives: tuple[str, ...]
    folded: bool
    exact: bool = False

    def may_match(self, text: str) -> bool:
        """False only when no match of the regex can be in `text`."""
        hay = _fold(text) if self.folded else text
        return any(a in hay for a in self.alternatives)


def _folded(text: str) -> str:
    """The text as a case-folded needle is looked for in it."""
    # translate looks each character up in a dict: over a big bundle's joined messages it costs more than the
    # four searches that tell it has nothing to map
    if any(c in text for c in _FOLDS):
        text = text.translate(_FOLD)
    return text.lower()


#: The same, kept for the short texts tested one at a time (a Haystack folds its joined texts once, uncached).
_fold = lru_cache(maxsize=8192)(_folded)


def required(pattern: str) -> Required | None:
    """The literals one of which every match of `pattern` holds, or None when none can be named."""
    every = required_all(pattern)
    if not every:
        return None
    if len(every) == 1 and _is_literals(pattern):
        return dataclasses.replace(every[0], exact=True)
    return max(every, key=lambda need: _strength(need.alternatives))


def _is_literals(pattern: str) -> bool:
    """Whether `pattern` matches exactly the texts holding one of its literals: a run of literal characters and small
    classes, or alternatives of such runs, under no flag but IGNORECASE (ASCII and LOCALE fold otherwise than the
    needles' folding)."""
    if _parse is None:
        return False
    parsed = _parse.parse(pattern)
    if parsed.state.flags & (_sre.SRE_FLAG_ASCII | _sre.SRE_FLAG_LOCALE):
        return False
    folded = bool(parsed.state.flags & _sre.SRE_FLAG_IGNORECASE)
    items = list(parsed)
    while len(items) == 1 and items[0][0] is _sre.SUBPATTERN and not items[0][1][1] and not items[0][1][2]:
        items = list(items[0][1][3])   # a group of its own changes nothing the search answers
    branches = [list(b) for b in items[0][1][1]] if len(items) == 1 and items[0][0] is _sre.BRANCH else [items]
    return all(_is_run(branch, folded) for branch in branches)


def _is_run(items: list, folded: bool) -> bool:
    """Whether the items are literal characters and small classes only, branching into no more runs than
    `_candidates` names (each of them non-empty)."""
    runs = 1
    for op, arg in items:
        chars = _class_chars(op, arg, folded)
        if not chars or "" in chars:   # an optional character may leave a run empty or short: kept to the regex
            return False
        runs *= len(chars)
    return bool(items) and runs <= _MAX_RUNS


def required_all(pattern: str) -> tuple[Required, ...]:
    """Every set of literals the parts of `pattern` require in turn: a match holds one alternative of each set
    (none when no part can be named)."""
    if _parse is None:
        return ()
    try:
        parsed = _parse.parse(pattern)
    except re.error:
        return ()
    folded = bool(parsed.state.flags & _sre.SRE_FLAG_IGNORECASE)
    found = _candidates(list(parsed), folded)
    if not found and not folded:
        # a part that ignores case on its own (`(?i:...)`) names its literals in the folded text only: the whole
        # pattern is then looked for there, a weaker test that never misses a match
        folded = True
        found = _candidates(list(parsed), folded)
    return tuple(Required(tuple(dict.fromkeys(a.lower() for a in alts)) if folded else alts, folded) for alts in found)


def _sequence(items: list, folded: bool) -> tuple[str, ...] | None:
    """The best set of alternatives among the ones a sequence of pattern items requires: the one whose
    shortest alternative is longest (a longer literal rules out more texts)."""
    candidates = _candidates(items, folded)
    if not candidates:
        return None
    return max(candidates, key=_strength)


def _strength(alternatives: tuple[str, ...]) -> int:
    """How much a set of alternatives rules out: the length of its shortest (a longer literal rules out more texts)."""
    return min(len(a) for a in alternatives)


#: Alternatives a run of literals may branch into at a small character class (`driver[ _]version`: two).
_MAX_RUNS = 8


def _class_chars(op, arg, folded: bool) -> list[str] | None:
    """The texts one item matches when it is a literal character, a class of literal characters only (`[ _]`,
    `[.]`) or either of them made optional (`[ _]?`: the empty text too); else None."""
    if op is _sre.LITERAL:
        return [chr(arg)] if _literal(arg, folded) else None
    if op is _sre.IN:
        return [chr(c) for _, c in arg] if all(o is _sre.LITERAL and _literal(c, folded) for o, c in arg) else None
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT) and arg[0] == 0 and arg[1] == 1 \
            and len(arg[2]) == 1:
        (inner_op, inner_arg), = list(arg[2])
        chars = _class_chars(inner_op, inner_arg, folded) if inner_op in (_sre.LITERAL, _sre.IN) else None
        return ["", *chars] if chars else None
    return None


def _candidates(items: list, folded: bool) -> list[tuple[str, ...]]:
    """Each set of alternatives a sequence of pattern items requires, in the order of the items."""
    candidates: list[tuple[str, ...]] = []
    runs: list[str] = [""]   # the run of literals so far, branched at each small class it went through

    def close() -> None:
        if all(runs):   # an optional character may leave a branch empty: such a run requires nothing
            candidates.append(tuple(dict.fromkeys(runs)))
        runs[:] = [""]

    for op, arg in items:
        chars = _class_chars(op, arg, folded)
        if chars and len(runs) * len(chars) <= _MAX_RUNS:
            runs[:] = [r + c for r in runs for c in chars]
            continue
        close()
        if op is _sre.SUBPATTERN:
            _group, add, _remove, sub = arg
            if not add & _sre.SRE_FLAG_IGNORECASE or folded:
                inner = _sequence(list(sub), folded)
                if inner:
                    candidates.append(inner)
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
            least, _most, sub = arg
            if least >= 1:
                inner = _sequence(list(sub), folded)
                if inner:
                    candidates.append(inner)
        elif op is _sre.BRANCH:
            branches = [_sequence(list(b), folded) for b in arg[1]]
            if all(branches):
                candidates.append(tuple(dict.fromkeys(a for b in branches for a in b)))
        elif op is _sre.ATOMIC_GROUP:
            inner = _sequence(list(arg), folded)
            if inner:
                candidates.append(inner)
    close()
    return candidates


class Haystack(haystack.Haystack):
    """Many texts searched at once for the literals a regex requires."""

    def __init__(self, texts: list[str], index: Index | None = None) -> None:
        super().__init__(texts, fold=_folded)
        self._index = index
        self._present: Present | None = None   # what of the index's literals the texts hold, found once
        self._places: dict[bool, dict[str, list[int]]] = {}   # where each of those literals is, likewise

    def candidates(self, need: Required) -> list[int]:
        """Indices, ascending, of the texts that may match: those holding one of the requirement's literals. With an
        index that knows the requirement (each literal of a knowledge base looked for once), only the literals the
        texts hold are searched for, and a requirement with none is passed over."""
        if self._index is None or not self._index.knows(need):   # a requirement made after the index
            return self.holding(need) if self.may_hold(need) else []
        if self._present is None:
            self._present = self._index.present(self)
        if id(need) not in self._present.ids:
            return []
        places = self._places.get(need.folded)
        if places is None:   # where each literal the texts hold is, found once for every requirement
            places = self._places[need.folded] = self.places(self._present.literals[need.folded], need.folded)
        held = self._present.of(need)
        if len(held) == 1:
            return places[held[0]]
        return sorted(set().union(*(places[alt] for alt in held)))

    def joined(self, folded: bool) -> str:
        """The texts joined by newlines (case-folded when `folded`)."""
        return self._layout(folded)[0]

    def may_hold(self, need: Required) -> bool:
        """False only when no text holds one of the alternatives: most signatures of a knowledge base find none of
        theirs in a bundle's few distinct messages, and are told so without finding where."""
        joined = self.joined(need.folded)
        return any(a in joined for a in need.alternatives)

    def holding(self, need: Required, within: list[int] | None = None) -> list[int]:
        """Indices, ascending, of the texts that may match: those holding one of the alternatives (of the texts
        `within`, when named: a few texts are tested one by one rather than every occurrence found)."""
        if within is None:
            return self.holding_any(need.alternatives, need.folded)
        return [i for i in within if need.may_match(self.texts[i])]


class Index:
    """The literals of many regexes' requirements, each looked for once in a haystack: which regexes may match
    it, and with which of their literals, is then a lookup. A knowledge base has some 550 message signatures with
    1,100 distinct literals, and a bundle a few dozen to a few thousand distinct messages: one test per literal
    instead of several per signature, and each signature then finds where only the literals the bundle holds."""

    def __init__(self, needs: list[Required]) -> None:
        # by identity: the requirements are the knowledge base's own objects, and a dataclass's hash is slow
        self._known = {id(need): need for need in needs}
        users: dict[tuple[str, bool], list[int]] = {}
        for key, need in self._known.items():
            for alt in need.alternatives:
                users.setdefault((alt, need.folded), []).append(key)
        self._by_case = {folded: [(alt, tuple(keys)) for (alt, f), keys in users.items() if f is folded]
                         for folded in (False, True)}

    def __reduce__(self):
        # made anew when unpickled (a kept knowledge base): identities are not kept across processes
        return Index, (list(self._known.values()),)

    def knows(self, need: Required) -> bool:
        """Whether the requirement is one the index was made of."""
        return self._known.get(id(need)) is need

    def present(self, hay: Haystack) -> Present:
        """Which of the known literals are in one of the haystack's texts."""
        held: dict[bool, set[str]] = {False: set(), True: set()}
        for folded, literals in self._by_case.items():
            if not literals:
                continue
            # the knowledge base's 845 literals over a big bundle's 1,500 messages (200 KB): 3.4 ms through the
            # compiled search against 25 ms of str searches; over 8 KB, 0.24 ms against 1.65 ms
            held[folded].update(hay.held([alt for alt, _ in literals], folded))
        ids = {key for folded, literals in self._by_case.items() for alt, keys in literals if alt in held[folded]
               for key in keys}
        return Present(frozenset(ids), {f: frozenset(h) for f, h in held.items()})


@dataclass(frozen=True)
class Present:
    """What an index found in a haystack: the identities of the requirements some literal of which is there, and
    the literals there (folded and not)."""

    ids: frozenset[int]
    literals: dict[bool, frozenset[str]]

    def of(self, need: Required) -> list[str]:
        """The literals of `need` the haystack holds."""
        held = self.literals[need.folded]
        return [alt for alt in need.alternatives if alt in held]
