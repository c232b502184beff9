"""`casebook kb stats`: how much the knowledge base knows, as counts that the checks stand behind."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

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

    def as_dict(self) -> dict:
        return asdict(self)


def sourced(page: CodePage) -> bool:
    """Does the code's definition name where it comes from (a catalog row's source, a page's Sources line)?"""
    return bool(page.extra.get("source")) or "Source" in page.body or "http" in page.body


def sample_folders(root: Path, owner: str) -> list[Path]:
    folder = root / "samples" / owner
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


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
                 drafts=sum(1 for c in kb.cases.values() if c.status == "draft"))
