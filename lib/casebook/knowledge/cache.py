"""The loaded knowledge base kept on disk, so a new process (the CLI) reads one file instead of parsing ~150
markdown pages with their YAML.

A kept copy is used only when it was made from the same files: its name is a digest of the knowledge base's
folder (as given and resolved), of the path, size and modification time of every file under it (samples aside, which loading does
not read), of the same for the code that loads it (this package's modules and data), and of the Python
version. Anything that cannot be read or written falls back to loading from the markdown. The format catalog
(formats.py) and the compatibility tables (compat.py) are kept the same way, each under its own name.

A copy is a pickle, and loading a pickle can run any code it names, so only copies this user's own process wrote
are loaded: each starts with an HMAC-SHA256 of its name and bytes, keyed by 32 random bytes kept beside them
(`key`, mode 0600), checked before a byte is unpickled. The folder must belong to this user and be closed to
others (it is made 0700, and closed when it is this user's); the key must be a regular file of this user that no
one else can read, else a new one is made (and every copy made with the old one is rebuilt). A copy that is
damaged, foreign, of another type or not a regular file is ignored and replaced; a folder of someone else's is
not used at all.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import stat
import sys
import tempfile
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")
#: Folders of the knowledge base that loading does not read.
UNREAD = ("samples",)
#: Copies kept (knowledge bases of other folders, or of earlier versions of the files, until they age out).
KEEP = 4
#: The secret the copies are signed with, in the folder beside them.
KEY = "key"
_KEY_BYTES = 32
#: What a copy starts with, before its digest and its pickle.
MAGIC = b"casebook-kept-1\n"
_DIGEST = hashlib.sha256().digest_size
_CODE = Path(__file__).resolve().parent


def folder() -> Path:
    """Where kept copies go: `$CASEBOOK_CACHE`, else `~/.cache/casebook`."""
    env = os.environ.get("CASEBOOK_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "casebook"


def _stamp(top: Path, skip: tuple[str, ...] = ()) -> list[tuple[str, int, int]]:
    """(relative path, size, mtime) of every file under `top`, in a fixed order (each folder's files by name, then
    its folders by name); every process that triages stamps the knowledge base, so no path is resolved twice."""
    out: list[tuple[str, int, int]] = []
    folders = [(os.fspath(top), "")]
    while folders:
        where, rel = folders.pop()
        try:
            with os.scandir(where) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        inner = []
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                if e.name != "__pycache__" and not (rel == "" and e.name in skip):
                    inner.append((e.path, rel + e.name + "/"))
            elif e.is_dir():   # a link to a folder is not followed, as os.walk does not
                continue
            else:
                st = e.stat()
                out.append((rel + e.name, st.st_size, st.st_mtime_ns))
        folders.extend(reversed(inner))
    return out


def key(root: Path) -> str:
    """The digest a copy of the knowledge base under `root` is kept by."""
    # the path as given too: the copy holds it (a knowledge base names its root)
    parts = (str(root), str(root.resolve()), _stamp(root, UNREAD), _stamp(_CODE), sys.version)
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


def kept(root: Path, load: Callable[[Path], T], name: str = "kb", kind: type = object) -> T:
    """`load(root)`, or the copy kept from an earlier load of the same files; `name` tells kept things apart (the
    knowledge base, the format catalog), each with its own last KEEP copies; a copy that is not a `kind` is not
    used."""
    try:
        top = folder()
        path = top / f"{name}-{key(root)}.pickle"
        secret = _secret(top) if _private(top) else None
    except OSError:
        return load(root)
    if secret is None:   # a folder others may write to or that is not this user's: nothing is kept there
        return load(root)
    value = _load(path, secret)
    if isinstance(value, kind) and value is not None:
        return value
    value = load(root)
    _keep(path, value, secret)
    return value


def _private(top: Path) -> bool:
    """Whether `top` is a folder of this user that no one else may enter (made so when it is this user's)."""
    top.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.stat(top)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        return False
    if stat.S_IMODE(st.st_mode) & 0o077:
        # opened to others before (an older version left it 0755): closed now; a copy someone else put there
        # meanwhile is not signed with the key, so it is ignored
        os.chmod(top, 0o700)
    return True


def _secret(top: Path) -> bytes | None:
    """The key of the copies in `top`: read when it is a regular file of this user's that no one else can read,
    else made anew (the copies signed with the old one are then rebuilt); None when it cannot be had."""
    path = top / KEY
    for _ in range(2):   # made anew at most once: another process may be making it at the same time
        found = _read(path, 0o077)
        if found is not None and len(found) == _KEY_BYTES:
            return found
        if found is not None or path.is_symlink() or path.exists():
            path.unlink(missing_ok=True)
        # written whole under another name, then linked: a reader never sees part of a key
        fd, tmp = tempfile.mkstemp(dir=top, prefix=".key-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(os.urandom(_KEY_BYTES))
            os.link(tmp, path)
        except FileExistsError:
            continue
        finally:
            os.unlink(tmp)
    found = _read(path, 0o077)
    return found if found is not None and len(found) == _KEY_BYTES else None


def _read(path: Path, closed: int = 0) -> bytes | None:
    """The bytes of a regular file of this user's (none of the `closed` mode bits set), or None; a link, a
    folder, a FIFO or a device at `path` is not opened for reading (it could block or never end)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) & closed:
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)


def _digest(secret: bytes, path: Path, data: bytes | memoryview) -> bytes:
    """The HMAC of a copy: its name (a copy of other files cannot pass for this one) and its pickle."""
    mac = hmac.new(secret, path.name.encode() + b"\0", hashlib.sha256)
    mac.update(data)
    return mac.digest()


def _load(path: Path, secret: bytes) -> object | None:
    """The kept copy at `path` when it is one this user's process wrote for this name, else None."""
    blob = _read(path)
    if blob is None or not blob.startswith(MAGIC) or len(blob) < len(MAGIC) + _DIGEST:
        return None
    digest, data = blob[len(MAGIC):len(MAGIC) + _DIGEST], memoryview(blob)[len(MAGIC) + _DIGEST:]
    if not hmac.compare_digest(digest, _digest(secret, path, data)):
        return None   # damaged, foreign or planted: never unpickled
    try:
        return pickle.loads(data)
    except Exception:   # signed but not loadable here (a class the code no longer has): loaded anew, replaced
        return None


def _keep(path: Path, value: object, secret: bytes) -> None:
    """Write the copy, signed, and drop all but the last KEEP copies beside it."""
    tmp = None
    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        # written beside its place and renamed, so a process reading at the same time never sees half a copy
        prefix = path.name.split("-", 1)[0]
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{prefix}-", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC + _digest(secret, path, data) + data)
        os.replace(tmp, path)
        tmp = None
        copies = sorted(path.parent.glob(f"{prefix}-*.pickle"), key=lambda p: p.lstat().st_mtime_ns, reverse=True)
        for old in copies[KEEP:]:
            old.unlink()
    except OSError:   # a folder at its place, a full disk: the next run loads from the markdown again
        pass
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
