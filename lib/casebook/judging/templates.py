"""Log templates: lines that differ only in their variable tokens, grouped by a fixed-depth parse tree.

The grouping is Drain's (He, Zhu, Zheng and Lyu, "Drain: An Online Log Parsing Approach with Fixed Depth Tree",
ICWS 2017), with the settings the unexplained errors use: a line's tokens are routed by their count, then by the
first token (a token holding a digit, or one past the width of the tree, goes to the wildcard), and join the most
similar group of that leaf when at least `similarity` of its fixed tokens agree; the template then keeps the
tokens all its lines share and writes `<*>` for the rest. A test holds it to the Drain3 library's groups; unlike
Drain3, loading it loads no persistence packages (~25 ms of every command-line triage).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

#: What a template shows for a token its lines do not share.
WILDCARD = "<*>"


@dataclass
class Group:
    """Lines of one template: its tokens, and how many lines joined it."""

    tokens: tuple[str, ...]
    size: int = 1

    @property
    def template(self) -> str:
        """The template as a line: its tokens joined by single spaces."""
        return " ".join(self.tokens)


def _has_digit(token: str) -> bool:
    """Whether a token holds a digit (an id, a count, a size: routed to the wildcard)."""
    return any(c.isdigit() for c in token)


def _likeness(template: tuple[str, ...], tokens: list[str]) -> tuple[float, int]:
    """Share of the template's tokens the line repeats (wildcards never count), and the template's wildcards."""
    if not tokens:
        return 1.0, 0
    same = wild = 0
    for t, token in zip(template, tokens):
        if t == WILDCARD:
            wild += 1
        elif t == token:
            same += 1
    return same / len(tokens), wild


class Miner:
    """Groups lines into templates as they come, in the order they come."""

    def __init__(self, masks: tuple[tuple[str, str], ...] = (), similarity: float = 0.5, width: int = 100):
        self._masks = [(re.compile(rx), f"<{name}>") for rx, name in masks]
        self.similarity = similarity
        self.width = width                #: children of a count node at most, the wildcard included
        self._leaves: dict[int, dict[str | None, list[Group]]] = {}
        self.groups: list[Group] = []     #: in the order they were made

    def mask(self, line: str) -> str:
        """The line with each mask's matches replaced by `<NAME>`, the masks applied in order."""
        for rx, name in self._masks:
            line = rx.sub(name, line)
        return line

    def add(self, line: str) -> Group:
        """The group the line joins, or a new one it starts."""
        tokens = self.mask(line).split()
        leaves = self._leaves.setdefault(len(tokens), {})
        # a line of one token (or none) has no first token to route by beyond its count
        key = tokens[0] if len(tokens) > 1 else None
        # the first token's own leaf when it has one, else the wildcard's (a count of one token has only its own)
        leaf = leaves.get(key) if key in leaves or key is None else leaves.get(WILDCARD)
        best = self._closest(leaf or [], tokens)
        if best is not None:
            best.tokens = tuple(t if t == token else WILDCARD for t, token in zip(best.tokens, tokens))
            best.size += 1
            return best
        group = Group(tuple(tokens))
        self.groups.append(group)
        self._place(leaves, key, group)
        return group

    def _closest(self, groups: list[Group], tokens: list[str]) -> Group | None:
        """The most alike group (more wildcards break a tie; the first made breaks the rest), if alike enough."""
        best, best_key = None, (-1.0, -1)
        for g in groups:
            key = _likeness(g.tokens, tokens)
            if key[0] > best_key[0] or (key[0] == best_key[0] and key[1] > best_key[1]):
                best, best_key = g, key
        return best if best is not None and best_key[0] >= self.similarity else None

    def _place(self, leaves: dict[str | None, list[Group]], key: str | None, group: Group) -> None:
        """Put a new group under its count and first token; the wildcard takes a token with a digit, and every
        token once the count node has `width` children."""
        if key is None or key in leaves:
            leaves.setdefault(key, []).append(group)
            return
        if _has_digit(key):
            key = WILDCARD
        elif WILDCARD in leaves:
            key = key if len(leaves) < self.width else WILDCARD
        elif len(leaves) + 1 == self.width:
            key = WILDCARD
        leaves.setdefault(key, []).append(group)
