"""How much archives may expand: the limits of one read, and the budget that enforces them as bytes come out.

The expansion ratio is checked at three levels, each once it has expanded past `ratio_floor`: one
compressed entry (a zip entry, a gzip stream) against its compressed size, each archive layer
(everything expanded from it and from the archives inside it) against the archive bytes read, and the
whole read (everything expanded by every layer) against the size of the archives given. A bomb built from
many small entries, nested layers or sparse tar members is stopped by one of the last two at about
`ratio_floor` bytes, long before `max_bytes`.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator


@dataclass(frozen=True)
class Limits:
    """Bounds on what archives may expand to; every one is a function argument and a CLI option."""

    max_bytes: int = 4 << 30          #: total bytes all archives of one read may expand to (4 GiB)
    max_ratio: float = 200.0          #: expanded / compressed bytes of an entry, a layer, and the whole read
    ratio_floor: int = 16 << 20       #: the ratio is enforced once that much has expanded (16 MiB)
    max_members: int = 100_000        #: entries per archive
    max_depth: int = 4                #: archives inside archives
    #: files one read takes in, in folders and archives together: each costs some memory and time whatever its size,
    #: and a ticket's bundle, even a cluster's, has a few thousand
    max_files: int = 10_000

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_members", "max_depth", "max_files"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Limits.{name} must be a whole number of 1 or more, not {value!r}")
        if isinstance(self.ratio_floor, bool) or not isinstance(self.ratio_floor, int) or self.ratio_floor < 0:
            raise ValueError(f"Limits.ratio_floor must be a whole number of 0 or more, not {self.ratio_floor!r}")
        # nan compares false with everything: it would switch the ratio check off without a word
        if not isinstance(self.max_ratio, (int, float)) or not math.isfinite(self.max_ratio) or self.max_ratio <= 0:
            raise ValueError(f"Limits.max_ratio must be a finite number above 0, not {self.max_ratio!r}")


#: The scope of a limit of the whole read: the outermost archive being expanded is refused.
EVERY_LAYER = "*"


class LimitExceeded(Exception):
    """An archive expands beyond a limit: a decompression bomb, or a bundle larger than allowed. `scope` is the
    display path of the archive to refuse (the layer whose ratio was passed), EVERY_LAYER, or None for the
    archive being expanded."""

    def __init__(self, message: str, scope: str | None = None) -> None:
        super().__init__(message)
        self.scope = scope


@dataclass
class Layer:
    """One archive being expanded: what came out of it and of the archives inside it, against its bytes read."""

    where: str                          #: its display path
    read: Callable[[], int]             #: archive bytes read so far (for a zip: its whole size)
    expanded: int = 0


class Budget:
    """Bytes expanded so far by one read, against its limits; `layer()` brackets the expansion of one archive."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.total = 0                    #: bytes expanded by every layer
        self.given = 0                    #: bytes of the outermost archives
        self.layers: list[Layer] = []     #: the archives being expanded, outermost first

    def _layer(self, where: str, read: Callable[[], int]) -> Iterator[Layer]:
        """One more archive being expanded inside the current ones (an archive inside is expanded whole before
        its parent goes on, so the layers nest)."""
        layer = Layer(where, read)
        self.layers.append(layer)
        try:
            yield layer
        finally:
            self.layers.remove(layer)


    #: the context of `_layer` (its body stays a plain method, which a mutation run can change)
    layer = contextmanager(_layer)

    def spend(self, n: int, where: str, entry: tuple[int, int] | None = None) -> None:
        """Count n more bytes expanded at `where` by the innermost layer (and so by each one around it); `entry`
        is (expanded, compressed) of a separately compressed entry. LimitExceeded past any limit."""
        self.total += n
        lim = self.limits
        if self.total > lim.max_bytes:
            raise LimitExceeded(f"{where}: refused: archives expand beyond {lim.max_bytes} bytes (--max-bytes)",
                                EVERY_LAYER)
        for layer in self.layers:
            layer.expanded += n
        checks = [(entry, "this entry", None)] if entry else []
        checks += [((layer.expanded, layer.read()), f"the archive {layer.where}", layer.where)
                   for layer in reversed(self.layers)]
        checks.append(((self.total, self.given), "the archives given, all layers together", EVERY_LAYER))
        for (expanded, compressed), what, scope in checks:
            if expanded > lim.ratio_floor and expanded > lim.max_ratio * max(compressed, 1):
                raise LimitExceeded(f"{where}: refused: {what} expands more than {lim.max_ratio:g} times its "
                                    f"compressed size (--max-ratio), a decompression bomb", scope)
