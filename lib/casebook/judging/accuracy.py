"""Accuracy on real captures: each capture's documented cause against what the triage names.

A capture folder holds `capture.txt` (the text as pasted), or `capture/` (a collection of log files as it was
published, its layout kept), and `expect.yaml` (the cause its source states:
`diagnosis`, a case id or a slug for a cause the knowledge base does not hold, `undocumented` or `no-failure`;
optional `accept`, other case ids that are exactly right; `family`, the symptom family or `none`; `batch`,
the collection round it came in). A capture is scored on four counts:

- right: the diagnosis is an expected case (for a capture without a documented cause: nothing is claimed);
- family: right, or the family the triage names is the expected family;
- top3: an expected case is among the first three candidates not ruled out;
- confirmed_wrong: some case other than the expected ones is `confirmed`.
"""
from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

from . import channels
from .ranking import CONFIRMED, RULED_OUT

#: Expected values that name no cause: the thread never found it, or the text shows no failure.
NO_CAUSE = ("undocumented", "no-failure")


@dataclass(frozen=True)
class Expected:
    """What a capture's thread says its cause is."""

    folder: str
    cases: tuple[str, ...]       #: acceptable case ids (or the slug of a cause the KB lacks)
    family: str | None           #: the expected symptom family, None when no family fits
    batch: int                   #: 0 for the captures collected before the batches
    cause: str

    @property
    def documented(self) -> bool:
        return self.cases[0] not in NO_CAUSE


@dataclass(frozen=True)
class Score:
    """One capture scored."""

    folder: str
    batch: int
    documented: bool
    right: bool
    family: bool
    top3: bool
    confirmed_wrong: tuple[str, ...]
    got: str | None              #: the diagnosis the triage named
    got_family: str | None
    expected: tuple[str, ...]


@dataclass(frozen=True)
class Figures:
    """A set of captures' counts: the documented ones for right / family / top3, all for confirmed_wrong."""

    batch: str
    n: int
    documented: int
    right: int
    family: int
    top3: int
    confirmed_wrong: int

    def as_dict(self) -> dict:
        return asdict(self)


def read_expected(folder: Path) -> Expected:
    """The expectation of one capture folder."""
    doc = yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8")) or {}
    cases = (str(doc.get("diagnosis") or "undocumented"), *(str(c) for c in doc.get("accept") or ()))
    family = doc.get("family")
    return Expected(folder.name, cases, None if family in (None, "none") else str(family),
                    int(doc.get("batch") or 0), str(doc.get("cause") or ""))


def capture_folders(root: Path) -> list[Path]:
    """The capture folders under a root, in name order (none when the root is not a folder)."""
    if not Path(root).is_dir():
        return []
    return sorted(p for p in Path(root).iterdir() if p.is_dir() and (p / "expect.yaml").is_file())


def score(want: Expected, doc: dict) -> Score:
    """One capture's triage (its JSON document) against its expectation."""
    got = doc.get("diagnosis")
    got_family = (doc.get("family") or {}).get("id")
    live = [c for c in doc.get("candidates") or [] if c["verdict"] != RULED_OUT]
    confirmed = tuple(c["case"] for c in live if c["verdict"] == CONFIRMED and c["case"] not in want.cases)
    if want.documented:
        right = got in want.cases
        family = right or (want.family is not None and got_family == want.family)
        top3 = any(c["case"] in want.cases for c in live[:3])
    else:
        right = family = top3 = got is None
    return Score(want.folder, want.batch, want.documented, right, family, top3, confirmed, got, got_family,
                 want.cases)


def figures(scores: list[Score], batch: str) -> Figures:
    """The counts of a set of scored captures."""
    documented = [s for s in scores if s.documented]
    return Figures(batch, len(scores), len(documented), sum(s.right for s in documented),
                   sum(s.family for s in documented), sum(s.top3 for s in documented),
                   sum(bool(s.confirmed_wrong) for s in scores))


def capture_of(folder: Path) -> Path:
    """What a capture folder gives the triage: its `capture/` collection when it has one, else its `capture.txt`."""
    collection = folder / "capture"
    return collection if collection.is_dir() else folder / "capture.txt"


def score_folders(folders: list[Path], kb=None, channel: str | None = None) -> list[Score]:
    """Triage every capture folder and score it; with a channel (channels.CHANNELS), each pasted capture as that
    channel carries it (a collection of log files is read as it is)."""
    from .contract import to_dict
    from .triage import triage
    out = []
    with tempfile.TemporaryDirectory(prefix="casebook-channel-") as tmp:
        for folder in folders:
            path = capture_of(folder)
            if channel is not None and path.is_file():
                path = channels.write_carried(path, channel, Path(tmp))
            out.append(score(read_expected(folder), to_dict(triage(path, kb=kb))))
            if path.parent == Path(tmp):
                path.unlink()
    return out


def proven(scores: list[Score]) -> dict[str, tuple[str, ...]]:
    """case id -> the documented captures it is the right diagnosis of (knowledge/proven.py)."""
    out: dict[str, list[str]] = {}
    for s in scores:
        if s.documented and s.right and s.got:
            out.setdefault(s.got, []).append(Path(s.folder).name)
    return {case: tuple(sorted(folders)) for case, folders in out.items()}
