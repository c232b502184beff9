"""The loaded knowledge base kept on disk, so a new process (the CLI) reads one file instead of parsing ~150
markdown pages with their YAML.

A kept copy is used only when it was made from the same files: its name is a digest of the knowledge base's
folder (as given and resolved), of the path, size and modification time of every file under it (samples aside, which loading does
not read), of the same for the code that loads it (this package's modules and data), and of the Python
version. Anything that cannot be read or written falls back to loading from the markdown. The format catalog
(formats.py) is kept the same way, under its own name.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")
#: Folders of the knowledge base that loading does not read.
UNREAD = ("samples",)
#: Copies kept (knowledge bases of other folders, or of earlier versions of the files, until they age out).
KEEP = 4
_CODE = Path(__file__).resolve().parent


def folder() -> Path:
    """Where kept copies go: `$CASEBOOK_CACHE`, else `~/.cache/casebook`."""
    env = os.environ.get("CASEBOOK_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "casebook"


def _stamp(top: Path, skip: tuple[str, ...] = ()) -> list[tuple[str, int, int]]:
    """(relative path, size, mtime) of every file under `top`, in a fixed order."""
    out = []
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not (Path(root) == top and d in skip) and d != "__pycache__")
        for name in sorted(files):
            st = os.stat(os.path.join(root, name))
            out.append((os.path.relpath(os.path.join(root, name), top), st.st_size, st.st_mtime_ns))
    return out


def key(root: Path) -> str:
    """The digest a copy of the knowledge base under `root` is kept by."""
    # the path as given too: the copy holds it (a knowledge base names its root)
    parts = (str(root), str(root.resolve()), _stamp(root, UNREAD), _stamp(_CODE), sys.version)
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


def kept(root: Path, load: Callable[[Path], T], name: str = "kb") -> T:
    """`load(root)`, or the copy kept from an earlier load of the same files; `name` tells kept things apart (the
    knowledge base, the format catalog), each with its own last KEEP copies."""
    try:
        path = folder() / f"{name}-{key(root)}.pickle"
    except OSError:
        return load(root)
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)
    except Exception:   # none yet, or a damaged or foreign copy (any unpickling error): load anew, replace it
        pass
    value = load(root)
    _keep(path, value)
    return value


def _keep(path: Path, value: object) -> None:
    """Write the copy, and drop all but the last KEEP copies beside it."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # written beside its place and renamed, so a process reading at the same time never sees half a copy
        prefix = path.name.split("-", 1)[0]
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{prefix}-", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        tmp = None
        copies = sorted(path.parent.glob(f"{prefix}-*.pickle"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in copies[KEEP:]:
            old.unlink()
    except OSError:
        pass
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
