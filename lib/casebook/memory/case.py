"""A remembered case: its fingerprint, where it comes from (the team's own, or a seeded public thread) and, once
solved, its resolution."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from .fingerprint import Fingerprint

#: Where a remembered case comes from: saved by the team, or one of the field's public threads shipped in kb/threads.
SOURCES = ("team", "seed")


@dataclass
class Resolution:
    """How a case was solved, in the words of whoever solved it."""

    cause: str | None = None          #: the cause, in words
    fix: str | None = None            #: what fixed it
    confirmed_by: str | None = None   #: how the fix was confirmed (a rerun, the vendor, a public thread)
    ticket: str | None = None         #: the ticket id
    notes: str | None = None
    who: str | None = None
    cause_zh: str | None = None       #: the cause in Chinese, when written
    fix_zh: str | None = None         #: the fix in Chinese, when written

    def as_dict(self) -> dict:
        """The resolution as JSON-ready data, unset fields left out."""
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}

    @classmethod
    def from_dict(cls, d: dict | None) -> "Resolution | None":
        """The resolution from as_dict()'s data (None for none); unknown keys are ignored."""
        if not d:
            return None
        names = {f.name for f in fields(cls)}
        return cls(**{k: str(v) for k, v in d.items() if k in names and v is not None})


@dataclass
class Case:
    """One case in the memory."""

    id: str
    source: str                          #: team or seed
    fingerprint: Fingerprint = field(default_factory=Fingerprint)
    kind: str | None = None              #: a seed's thread kind (issue, pull-request, forum, faq, docs, blog, commit)
    url: str | None = None
    title: str | None = None
    product: str | None = None           #: torch_npu, vllm-ascend, mindspore, cann ...
    resolution: Resolution | None = None
    created: str | None = None           #: ISO time, UTC
    updated: str | None = None

    def as_dict(self) -> dict:
        """The case as one JSON Lines record (what `casebook memory export` writes)."""
        return {"id": self.id, "source": self.source, "kind": self.kind, "url": self.url, "title": self.title,
                "product": self.product, "fingerprint": self.fingerprint.as_dict(),
                "resolution": self.resolution.as_dict() if self.resolution else None,
                "created": self.created, "updated": self.updated}

    @classmethod
    def from_dict(cls, d: dict) -> "Case":
        """A case from as_dict()'s record; raises ValueError naming what is wrong."""
        if not isinstance(d, dict):
            raise ValueError("a case is a JSON object")
        if not isinstance(d.get("id"), str) or not d["id"].strip():
            raise ValueError("a case needs an `id` string")
        if d.get("source", "team") not in SOURCES:
            raise ValueError(f"`source` is one of {', '.join(SOURCES)}, not {d.get('source')!r}")
        fp = d.get("fingerprint") or {}
        if not isinstance(fp, dict):
            raise ValueError("`fingerprint` is a JSON object")
        return cls(id=d["id"].strip(), source=d.get("source", "team"), fingerprint=Fingerprint.from_dict(fp),
                   kind=d.get("kind"), url=d.get("url"), title=d.get("title"), product=d.get("product"),
                   resolution=Resolution.from_dict(d.get("resolution")), created=d.get("created"),
                   updated=d.get("updated"))
