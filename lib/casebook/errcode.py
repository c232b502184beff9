"""AI Core error bits: decode `errcode:(a, b, c)` and the single `error code =` register (910B/910C STARS family)."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

NO_BIT_TEXT = "timeout or trap error"


@dataclass(frozen=True)
class ErrorBit:
    """One row of the STARS error-bit table."""

    index: int   #: enum value (a: 0-63, b: 64-127, c: 128-175 after folding)
    word: str    #: a, b or c of the triple
    bit: int     #: bit in that word (for c: bit of the raw, unfolded word)
    mask: int
    name: str


@lru_cache(maxsize=1)
def bit_table() -> tuple[ErrorBit, ...]:
    """The 176 error bits, read from the packaged TSV."""
    text = resources.files("casebook").joinpath("data/aicore-error-bits-910b.tsv").read_text(encoding="utf-8")
    rows = csv.DictReader(text.splitlines(), delimiter="\t")
    return tuple(ErrorBit(int(r["index"]), r["word"], int(r["bit_in_word"]), int(r["mask_in_word"], 16), r["name"])
                 for r in rows)


def decode_triple(a: int, b: int, c: int) -> list[ErrorBit]:
    """Bits set in `errcode:(a, b, c)`, in index order (the table's c masks are on the raw, unfolded word)."""
    words = {"a": a, "b": b, "c": c}
    return [e for e in bit_table() if words[e.word] & e.mask]


def decode_error_code(value: int) -> list[ErrorBit]:
    """Bits set in the single `error code = 0x..` register (aicError[0], the `a` word)."""
    return decode_triple(value, 0, 0)


def parse_int(text: str) -> int:
    """`0x8000`, `0X10` or `16` as an int."""
    text = text.strip()
    return int(text, 16) if text.lower().startswith("0x") else int(text)
