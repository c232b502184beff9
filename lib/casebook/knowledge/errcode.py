"""AI Core error bits: decode `errcode:(a, b, c)`, the single `error code =` register, and the decimal bit lists.

The 910B/910C ("STARS") family prints hex words; the Ascend 950 ("David") family prints a list of decimal
bit indices. The bit names come from packaged tables (data/aicore-error-bits-*.tsv), their one-line
meanings from data/aicore-error-meanings.tsv, or are spelled out from the name's unit and condition parts
(data/aicore-error-parts.tsv) when no sentence of our own exists yet.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

NO_BIT_TEXT = "timeout or trap error"
STARS = "stars"      #: 910B/910C: hex masks
DAVID = "david"      #: Ascend 950: decimal bit lists
DAVID_TABLE = "data/aicore-error-bits-950.tsv"


@dataclass(frozen=True)
class ErrorBit:
    """One row of an error-bit table."""

    index: int   #: enum value (a: 0-63, b: 64-127, c: 128-175 after folding)
    word: str    #: a, b or c of the triple
    bit: int     #: bit in that word (for c: bit of the raw, unfolded word)
    mask: int
    name: str

    @property
    def meaning(self) -> str:
        """One line on what the bit means."""
        return meaning(self.name)


def _read_tsv(name: str) -> list[dict]:
    path = resources.files("casebook.knowledge").joinpath(name)
    if not path.is_file():
        return []
    return list(csv.DictReader(path.read_text(encoding="utf-8").splitlines(), delimiter="\t"))


@lru_cache(maxsize=1)
def bit_table() -> tuple[ErrorBit, ...]:
    """The 176 STARS error bits, read from the packaged TSV."""
    return tuple(ErrorBit(int(r["index"]), r["word"], int(r["bit_in_word"]), int(r["mask_in_word"], 16), r["name"])
                 for r in _read_tsv("data/aicore-error-bits-910b.tsv"))


@lru_cache(maxsize=1)
def david_table() -> dict[int, str]:
    """The Ascend 950 bit index -> name table (data/aicore-error-bits-950.tsv)."""
    return {int(r["index"]): r["name"] for r in _read_tsv(DAVID_TABLE)}


@lru_cache(maxsize=1)
def _meanings() -> dict[str, str]:
    return {r["name"]: r["meaning"] for r in _read_tsv("data/aicore-error-meanings.tsv")}


@lru_cache(maxsize=1)
def _parts() -> tuple[dict[str, str], list[tuple[str, str]]]:
    rows = _read_tsv("data/aicore-error-parts.tsv")
    units = {r["part"]: r["words"] for r in rows if r["kind"] == "unit"}
    # longest condition first, so DIV_BY_ZERO wins over DIV0 and WRAP_AROUND over ADDR
    conds = sorted(((r["part"], r["words"]) for r in rows if r["kind"] == "condition"), key=lambda p: -len(p[0]))
    return units, conds


def meaning(name: str) -> str:
    """Our one-line meaning of a bit name; spelled out from its unit and condition when no sentence exists."""
    known = _meanings().get(name)
    if known:
        return known
    units, conds = _parts()
    unit = units.get(name.split("_")[0], "AI Core")
    cond = next((words for part, words in conds if re.search(rf"(?:^|_){part}(?:_|$)", name)), None)
    return f"{unit}: {cond}." if cond else f"{unit} error ({name})."


def decode_triple(a: int, b: int, c: int) -> list[ErrorBit]:
    """Bits set in `errcode:(a, b, c)`, in index order (the table's c masks are on the raw, unfolded word)."""
    words = {"a": a, "b": b, "c": c}
    return [e for e in bit_table() if words[e.word] & e.mask]


def decode_error_code(value: int) -> list[ErrorBit]:
    """Bits set in the single `error code = 0x..` register (aicError[0], the `a` word)."""
    return decode_triple(value, 0, 0)


def parse_bit_list(text: str) -> list[int]:
    """`3, 79` or `3 79` -> [3, 79]; a run of more than 18 digits is no bit index and is left out."""
    return [int(x) for x in re.findall(r"\d+", text) if len(x) <= 18]


def decode_bit_list(indices: list[int]) -> list[tuple[int, str | None]]:
    """950 bit indices with their names; None for an index the table does not name."""
    table = david_table()
    return [(i, table.get(i)) for i in indices]


def parse_int(text: str) -> int:
    """`0x8000`, `0X10` or `16` as an int."""
    text = text.strip()
    return int(text, 16) if text.lower().startswith("0x") else int(text)
