"""Generator of the knowledge base's sample bundles: every file under kb/samples is written here.

One module per family of cases, each with a `BUILDERS` table of (case id, sample name, builder); a builder
returns the sample's files (relative path -> text), `expect.yaml` included. Output depends only on the
seeds in the builders, so generating twice gives the same bytes.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from . import aicore, comm, founding, host, memory

#: Every sample, in the order written.
BUILDERS = founding.BUILDERS + aicore.BUILDERS + comm.BUILDERS + memory.BUILDERS + host.BUILDERS


def write_samples(root: Path) -> list[Path]:
    """(Re)write every sample folder under `root`, removing what an older generation left; return the files."""
    written: list[Path] = []
    for case in sorted({case for case, _, _ in BUILDERS}):
        folder = Path(root) / case
        if folder.exists():
            shutil.rmtree(folder)
    for case, name, build in BUILDERS:
        folder = Path(root) / case / name
        for rel, text in sorted(build().items()):
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8"))
            written.append(path)
    return written


__all__ = ["BUILDERS", "write_samples"]
