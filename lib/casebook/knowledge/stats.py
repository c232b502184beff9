"""`casebook kb stats`: how much the knowledge base knows, as counts that the checks stand behind."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

from . import compat, priors, proven
from .checks import UNKNOWN_SAMPLES
from .kb import CodePage, KnowledgeBase

#: The file beside a sample built from a public log that names the log's source.
SOURCE_NOTE = "SOURCE.md"


@dataclass(frozen=True)
class Stats:
    """Counts of the knowledge base."""

    cases: int                       #: verified root-cause cases (verified, in a known family)
    families: int
    codes: int                       #: distinct codes whose definition names a source
    samples: int                     #: sample folders, of cases, families and unknown failures
    cases_without_real_source: int   #: verified cases none of whose samples names a public source beside it
    drafts: int
    captures: int = 0                #: real captures beside the knowledge base (tests/captures), each with its cause
    priors: int = 0                  #: cases with a prior measured from the real captures
    cases_proven_real: int = 0       #: cases the triage names rightly for at least one real capture (proven.yaml)
    compatibility_rows: int = 0      #: rows of the version and chip tables, each with its source
    first_sight: tuple = ()          #: each batch of captures at first sight (kb/first-sight.yaml)

    def as_dict(self) -> dict:
        return asdict(self)


def sourced(page: CodePage) -> bool:
    """Does the code's definition name where it comes from (a catalog row's source, a page's Sources line)?"""
    return bool(page.extra.get("source")) or "Source" in page.body or "http" in page.body


def sample_folders(root: Path, owner: str) -> list[Path]:
    folder = root / "samples" / owner
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


#: The batch table of the real captures at first sight, beside the knowledge base.
FIRST_SIGHT = "first-sight.yaml"
FIRST_SIGHT_KEYS = ("batch", "n", "right", "family", "top3", "confirmed_wrong")


def first_sight(root: Path) -> tuple[dict, ...]:
    """Each batch's first-sight figures: {batch, n, right, family, top3, confirmed_wrong}."""
    path = root / FIRST_SIGHT
    if not path.is_file():
        return ()
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return tuple({k: row[k] for k in FIRST_SIGHT_KEYS} for row in doc.get("batches") or ())


def capture_count(root: Path) -> int:
    """The real captures of the project's test set (folders holding an expect.yaml), 0 outside a checkout."""
    folder = root.parent / "tests" / "captures"
    return sum(1 for p in folder.iterdir() if (p / "expect.yaml").is_file()) if folder.is_dir() else 0


def stats(kb: KnowledgeBase) -> Stats:
    """The counts of one loaded knowledge base."""
    verified = [c for c in kb.cases.values() if c.status == "verified" and c.family in kb.families]
    owners = [*kb.cases, *kb.families, UNKNOWN_SAMPLES]
    unsourced = [c for c in verified
                 if not any((s / SOURCE_NOTE).is_file() for s in sample_folders(kb.root, c.id))]
    return Stats(cases=len(verified), families=len(kb.families),
                 codes=len({code for code, page in kb.codes.items() if sourced(page)}),
                 samples=sum(len(sample_folders(kb.root, o)) for o in owners),
                 cases_without_real_source=len(unsourced),
                 drafts=sum(1 for c in kb.cases.values() if c.status == "draft"),
                 captures=capture_count(kb.root), first_sight=first_sight(kb.root),
                 compatibility_rows=sum(len(rows) for rows in compat.tables(kb.root).values()),
                 priors=sum(1 for case, n in priors.load(kb.root).cases.items() if n and case in kb.cases),
                 cases_proven_real=sum(1 for case in proven.load(kb.root) if case in kb.cases))
