"""Base rates: how often each case is the stated cause of the real captures, and how many captures each family
has. Inside a family the causes are not equally likely; the ranking breaks ties by them and an open family names
its most frequent cause ("most often X, n of m reports").

The counts are data (kb/priors.yaml), written by `casebook kb priors` from the captures' expect.yaml files: the
cause each source states, never what the triage answered.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from . import cache
from .document import yaml_loader

#: The file of the counts, beside cases/ and families/.
FILE = "priors.yaml"


@dataclass(frozen=True)
class Priors:
    """Stated-cause counts of the real captures."""

    cases: dict[str, int] = field(default_factory=dict)      #: case id -> captures that state it as their cause
    families: dict[str, int] = field(default_factory=dict)   #: family id -> documented captures in that family

    def of(self, case_id: str) -> int:
        return self.cases.get(case_id, 0)


def count(expectations: list[dict], families_of: dict[str, str]) -> Priors:
    """The counts of a set of capture expectations (`diagnosis`, `accept`, `family`), for the cases that exist
    (`families_of`: case id -> its family, which stands for a capture's family when it names none)."""
    cases: dict[str, int] = {}
    families: dict[str, int] = {}
    for want in expectations:
        ids = [str(want.get("diagnosis") or ""), *(str(a) for a in want.get("accept") or ())]
        if ids[0] in ("", "undocumented", "no-failure"):
            continue
        known = list(dict.fromkeys(i for i in ids if i in families_of))
        for case in known:
            cases[case] = cases.get(case, 0) + 1
        family = want.get("family") or (families_of[known[0]] if known else None)
        if family and family != "none":
            families[str(family)] = families.get(str(family), 0) + 1
    return Priors(dict(sorted(cases.items())), dict(sorted(families.items())))


def dump(priors: Priors) -> str:
    """The text of kb/priors.yaml."""
    head = ("# How often each case is the cause its source states, over the real captures (tests/captures), and how\n"
            "# many documented captures each family has. Written by `casebook kb priors tests/captures`.\n")
    yaml, _ = yaml_loader()
    return head + yaml.safe_dump({"cases": priors.cases, "families": priors.families}, sort_keys=True)


@lru_cache(maxsize=4)
def load(root: Path) -> Priors:
    """The counts of a knowledge-base folder (none when it has no priors file), kept as the knowledge base is."""
    path = Path(root) / FILE
    return cache.kept(Path(root), _read, name="priors", kind=Priors) if path.is_file() else Priors()


def _read(root: Path) -> Priors:
    """The counts parsed from the folder's priors file."""
    path = Path(root) / FILE
    yaml, loader = yaml_loader()
    doc = yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or {}
    return Priors({str(k): int(v) for k, v in (doc.get("cases") or {}).items()},
                  {str(k): int(v) for k, v in (doc.get("families") or {}).items()})
