"""The memory's seed: the field's solved public threads (kb/threads/*.yaml), loaded on first use and loaded again
whenever the files change (an upgrade), keyed by their digest. Only cases of source "seed" are replaced; the
team's own cases are never touched.
"""
from __future__ import annotations

from pathlib import Path

from ..knowledge import cache, threads
from ..knowledge.kb import default_root
from .case import Case, Resolution
from .fingerprint import MAX_WORDS, Fingerprint, chip, ops_in, template, words
from .store import Store

#: The meta value that holds the digest of the seed loaded.
DIGEST = "seed_digest"


def default_folder() -> Path:
    """The threads folder of the project's knowledge base."""
    return threads.folder(default_root())


def fingerprint(t: threads.Thread) -> Fingerprint:
    """A thread's fingerprint: its first error masked as a triage masks the bundle's."""
    ops = list(dict.fromkeys(t.ops + ops_in(t.first_error)))
    said = dict.fromkeys(words(template(t.first_error)) + words(t.title))
    return Fingerprint(codes=tuple(dict.fromkeys(t.codes)), template=template(t.first_error), ops=tuple(ops),
                       family=t.family, cause=t.case, versions=dict(t.versions), chip=chip(t.chip),
                       words=tuple(said)[:MAX_WORDS])


def case(t: threads.Thread) -> Case:
    """The memory's case for one thread."""
    return Case(id=t.id, source="seed", fingerprint=fingerprint(t), kind=t.source, url=t.url, title=t.title,
                product=t.product,
                resolution=Resolution(cause=t.cause.get("en"), cause_zh=t.cause.get("zh"), fix=t.fix.get("en"),
                                      fix_zh=t.fix.get("zh"), confirmed_by=f"public {t.source}"))


def seed(store: Store, folder: Path | None = None, skip: set[str] | frozenset = frozenset()) -> bool:
    """Load the threads into the memory unless the ones loaded have the same digest; True when it loaded them.
    `skip` leaves threads out (and makes the digest differ), as the leave-one-out measure does."""
    folder = Path(folder) if folder is not None else default_folder()
    # the digest reads every thread file; kept by the folder's names, sizes and times, as the knowledge base is
    digest = cache.kept(folder, threads.digest, name="threads", kind=str)
    digest += ":-" + ",".join(sorted(skip)) if skip else ""
    if store.meta(DIGEST) == digest:
        return False
    records = [case(t) for t in threads.load(folder) if t.id not in skip]
    with store.transaction():
        if store.meta(DIGEST) == digest:   # another process loaded it while this one waited for the lock
            return False
        team = {c.id for c in store.cases("team")} if records else set()
        store.replace_source("seed", [c for c in records if c.id not in team])
        store.set_meta(DIGEST, digest)
    return True
