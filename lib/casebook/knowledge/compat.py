"""The compatibility tables of kb/compat/: which torch, Python and CANN each torch_npu release is made for, CANN
against the NPU driver, frameworks against their stack, chips against their capabilities, and bugs with the release
that fixes them. Each row carries the public source that states it; a row without one is a problem of `kb check`.

From the versions a bundle shows, the tables give facts: `torch_matches_torch_npu` and `cann_matches_torch_npu`,
each cited to its row and its source. From a chip (SoC) name it shows, the chip table gives its family and what the
family supports. A version or a chip the bundle does not show leaves the fact unknown: a question.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import cache
from .document import yaml_loader

#: The folder of the tables, beside cases/ and families/.
FOLDER = "compat"


@dataclass(frozen=True)
class Row:
    """One row of a table, with where it stands and the page that states it."""

    table: str
    line: int
    fields: dict
    source: str


def read_table(path: Path) -> list[Row]:
    """The rows of one table file, each with its line."""
    text = path.read_text(encoding="utf-8")
    yaml, loader = yaml_loader()
    node = yaml.compose(text, Loader=loader)
    rows = yaml.load(text, Loader=loader) or {}
    if node is None or not isinstance(rows, dict):
        return []
    seq = next((v for k, v in node.value if k.value == "rows"), None)
    lines = [item.start_mark.line + 1 for item in seq.value] if seq is not None else []
    return [Row(path.stem, line, dict(fields), str(fields.get("source") or ""))
            for line, fields in zip(lines, rows.get("rows") or []) if isinstance(fields, dict)]


@lru_cache(maxsize=4)
def tables(root: Path) -> dict[str, tuple[Row, ...]]:
    """Every table under `root`/compat, by name (kept per knowledge-base folder, and on disk like the knowledge
    base: each process that ranks needs them, and parsing their YAML costs more than the rest of a small triage)."""
    folder = Path(root) / FOLDER
    return cache.kept(folder, _read_tables, name="compat", kind=dict) if folder.is_dir() else {}


def _read_tables(folder: Path) -> dict[str, tuple[Row, ...]]:
    """Every table of one folder, parsed from its YAML."""
    return {p.stem: tuple(read_table(p)) for p in sorted(folder.glob("*.yaml"))}


def unsourced(root: Path) -> list[tuple[str, int]]:
    """(file, line) of every row that names no public page (http or https) as its source."""
    return [(f"{FOLDER}/{name}.yaml", row.line) for name, rows in tables(Path(root)).items() for row in rows
            if not re.match(r"https?://\S+$", row.source)]


def release(version: object) -> str:
    """A version as the tables write it: no leading v, no local build tag (`2.1.0.post3+cpu` -> `2.1.0.post3`)."""
    return re.sub(r"^[vV]|\+.*$", "", str(version).strip())


def torch_npu_row(rows: tuple[Row, ...], torch_npu: object) -> Row | None:
    """The torch_npu table's row of one release (a dev build counts as its base release)."""
    want = release(torch_npu)
    for candidate in (want, re.sub(r"\.dev\d+$|rc\d+$", "", want)):
        row = next((r for r in rows if release(r.fields.get("torch_npu", "")) == candidate), None)
        if row is not None:
            return row
    return None


def same_release(shown: str, listed: str) -> bool:
    """Does a version the logs show belong to a release the table lists (`2.1.0+cpu` to `2.1.0`, `8.0.RC2.alpha003`
    to `8.0.RC2`; case of RC ignored)?"""
    shown, listed = release(shown).lower(), release(listed).lower()
    return shown == listed or shown.startswith(listed + ".")


def chip_row(rows: tuple[Row, ...], soc: object, capability: str | None = None) -> Row | None:
    """The chip table's first row that lists this SoC name (`Ascend910B4-1`, in any case; a listed `Ascend950*` takes
    every name that starts with `Ascend950`), of the capability named or of any."""
    name = str(soc).strip().lower()
    for row in rows:
        if capability is not None and row.fields.get("capability") != capability:
            continue
        for listed in row.fields.get("soc_names") or ():
            listed = str(listed).split(" ")[0].lower()
            if listed == name or (listed.endswith("*") and name.startswith(listed[:-1])):
                return row
    return None


def chip_family(row: Row) -> str:
    """The family a chip row names, as the table writes it first (`910B`, `910_93`, `310P`, `950`)."""
    return str(row.fields.get("chip", "")).split(" ")[0]
