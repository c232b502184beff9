"""Where Python took the package a failed import names: the installed release, or a folder of source.

An expert who sees `No module named 'vllm.benchmarks.serve'` first asks which `vllm` Python imported. The traceback
answers it when a frame runs inside that package (`/workspace/vllm/vllm/entrypoints/...` is a checkout,
`.../site-packages/vllm/...` the installed release), and so does an ImportError that prints the module's file
(`cannot import name 'x' from 'sciai.y' (/home/u/SciAI/sciai/y.py)`). A package read from a source folder (the
working directory, PYTHONPATH, an editable install) holds what that folder holds, not what the release does.
"""
from __future__ import annotations

import re

from ..reading.fields import KIND_PYTHON
from ..reading.table import LogTable
from . import errors, frames
from .items import Fact

FACT = "package_imported_from_source_folder"
#: A failed import that names its package: a submodule it lacks, a name it lacks (with the file it was read from),
#: or a framework without its version (most often a folder Python took for a namespace package)
_FAILED_IMPORT = re.compile(
    r"No module named '(?P<sub>[A-Za-z_]\w*)\.[\w.]+'"
    r"|cannot import name '[^']+' from '(?P<named>[A-Za-z_]\w*)[\w.]*' \((?P<path>[^)]*[/\\][^)]*)\)"
    r"|module '(?P<bare>[A-Za-z_]\w*)' has no attribute '__version__'")
#: pip's folders: a package under them is an installed release
_INSTALLED = {"site-packages", "dist-packages"}


def from_source_folder(path: str, package: str) -> bool | None:
    """Whether a path runs inside a folder of the package that is not an installed release (True), inside the
    installed release (False), or does not show the package (None)."""
    parts = [p for p in re.split(r"[/\\]", path) if p]
    if package not in parts[:-1]:
        return None
    return not _INSTALLED.intersection(parts[:parts.index(package)])


def extract(log: LogTable) -> dict[str, Fact]:
    """Whether the package of the first failed import that names one was read from a source folder, cited to the line
    whose path shows it: the package's own code, run from such a folder, failing to import a part of itself (a
    checkout that shadows the release or lacks the part), or the installed release printed as the module's file.
    Nothing when no path tells: code of another package importing this one says where that one lives, not this."""
    kinds, msgs = log.column("kind"), log.column("msg")
    failed = next(((i, m) for i in errors.positions(log) if kinds[i] == KIND_PYTHON
                   and (m := _FAILED_IMPORT.search(str(msgs[i])))), None)
    if failed is None:
        return {}
    at, m = failed
    package = m["sub"] or m["named"] or m["bare"]
    if m["path"] and from_source_folder(m["path"], package) is False:
        r = log.record(at)
        return {FACT: Fact(FACT, False, "log", r.file, int(r.line))}
    raised = frames.raising_frames(log)
    if raised is None or raised[0] > at or not from_source_folder(raised[1][-1][0], package):
        return {}
    r = log.record(raised[0])
    return {FACT: Fact(FACT, True, "log", r.file, int(r.line))}
