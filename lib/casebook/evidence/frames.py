"""The frame that raised: the innermost `File "...", line N` above a Python exception outside Python's own library,
and whether that code is what the job called (a framework, its plugin, a library) or the job's own script.

An expert reads that frame first: an error raised inside `site-packages/vllm_ascend/...` is the package's code meeting
a path it does not handle, one raised at the top level of `train.py` is the script's. A path names its package, or
the traceback shows the script calling into another file; a paste that cut the paths or kept one frame tells neither,
and the fact stays unknown. The first traceback of the log is the one read: an exception raised while another was
handled is its fallout.
"""
from __future__ import annotations

import re

from ..knowledge.terms import alternatives
from ..reading.fields import KIND_PYTHON
from ..reading.table import LogTable
from . import errors
from .items import Fact

FACT = "raising_frame_in_package"
#: Lines this family reads besides error lines: the frames of a traceback.
KEEP = ('File "',)
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line \d+(?:, in (?P<func>.+?))?\s*$')
#: Python's own library and code it generates: `/usr/lib/python3.10/multiprocessing/...`, `<string>`, `<frozen ...>`
_PYTHONS_OWN = re.compile(r"^<|[/\\]lib[/\\]python\d(?:\.\d+)?[/\\](?!(?:site|dist)-packages[/\\])")
#: an installed package's code: pip's folders, or a folder named as a package that frameworks and libraries ship
#: (a source checkout of vllm-ascend runs from `.../vllm-ascend/vllm_ascend/...`)
_PACKAGE = re.compile(rf"[/\\](?:site-packages|dist-packages|{alternatives('framework_packages')})[/\\]")


def in_package(path: str) -> bool:
    """Does the path of a frame name an installed package's folder (pip's, or a framework's own name)?"""
    return bool(_PACKAGE.search("/" + path.replace("\\", "/")))


def raised_in_package(frames: list[tuple[str, str]]) -> bool | None:
    """Whether the innermost of a traceback's frames ((path, function), outermost first, Python's own library left
    out) is code the job called rather than its own script; None when the frames shown cannot tell (one frame of a
    folder no package names, or paths a paste cut to `.../x.py`)."""
    path, func = frames[-1]
    if in_package(path):
        return True
    if func == "<module>" or (len(frames) > 1 and all(p == path for p, _ in frames)):
        return False   # the script's own top level raised, or every frame shown is the script's
    if len(frames) > 1:
        return True    # the script called into another file, which raised
    return None


def raising_frames(log: LogTable) -> tuple[int, list[tuple[str, str]]] | None:
    """(position of the innermost, (path, function) of each frame outermost first) of the frames outside Python's
    own library above the log's first Python exception whose traceback shows one, or None when none does (a paste
    of the last line alone); read once per log (this family and the import reader both ask)."""
    return log.derive("raising_frames", _raising_frames)


def _raising_frames(log: LogTable) -> tuple[int, list[tuple[str, str]]] | None:
    frames = log.holding(KEEP)
    if not frames:
        return None
    kinds, files, msgs = (log.column(c) for c in ("kind", "file", "msg"))
    raised = {i for i in errors.positions(log) if kinds[i] == KIND_PYTHON and i > frames[0]}
    above: list[tuple[int, str, str]] = []   # the frames read since the last exception, of one file
    for i in sorted({*frames, *raised}):
        m = _FRAME.match(str(msgs[i])) if kinds[i] == KIND_PYTHON else None
        if m:
            # the frames kept are all of one file: a frame of another file starts them again
            if above and files[above[-1][0]] != files[i]:
                above = []
            above.append((i, m["path"], m["func"] or ""))
        elif i in raised:
            # the standard library and generated code raise on what their caller handed them: the caller decides
            own = [f for f in above if files[f[0]] == files[i] and not _PYTHONS_OWN.search(f[1])]
            if own:
                return own[-1][0], [(path, func) for _, path, func in own]
            above = []
    return None


def extract(log: LogTable) -> dict[str, Fact]:
    """Whether the first traceback was raised in code the job called, cited to the frame that raised."""
    found = raising_frames(log)
    value = raised_in_package(found[1]) if found else None
    if value is None:
        return {}
    r = log.record(found[0])
    return {FACT: Fact(FACT, value, "log", r.file, int(r.line))}
