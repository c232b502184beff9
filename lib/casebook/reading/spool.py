"""The temporary area archive members are expanded into, and its removal on every exit a process can catch.

Members land in numbered files of one private folder (`casebook-spool-*` in the system temporary
directory), created with O_EXCL and mode 0600; names from archives never become file-system paths.
The folder goes away on `Spool.close()`, when the Spool is garbage-collected, at interpreter exit, before
the `casebook` command ends its process (`remove_live`), and on SIGTERM or SIGHUP (when the process has
left them to their default action, which would end it without a word). A process killed outright cannot
clean up: its folder holds a lock only a live process keeps, and the next Spool to start removes every
folder whose lock is free.
"""
from __future__ import annotations

import errno
import fcntl
import os
import shutil
import signal
import stat
import tempfile
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable

from .decompress import damage, reason
from .limits import EVERY_LAYER, LimitExceeded

PREFIX = "casebook-spool-"
_NEW = ".casebook-new-"   # a folder is created under this name, locked, and only then renamed to PREFIX…
CHUNK = 1 << 20
#: Signals whose default action ends the process silently: their handler removes the live folders first.
CLEANUP_SIGNALS = ("SIGTERM", "SIGHUP")

_LIVE: set[Path] = set()


@dataclass
class Member:
    """One entry found in an archive: spooled to a plain file, or refused with a reason."""

    display: str                       #: `outer.zip!/inner.tar.gz!/debug/plog/plog-1_….log`
    source: Path | None = None         #: the spooled copy (None when refused)
    size: int = 0                      #: bytes expanded
    refused: str | None = None         #: why the entry was not read
    warnings: list[str] = field(default_factory=list)


class Spool:
    """A private temporary folder holding the expanded members; removed on close() or when dropped."""

    def __init__(self) -> None:
        self.dir: Path | None = None
        self.count = 0
        self._finalizer = None

    def create(self) -> tuple[Path, BinaryIO]:
        """A new numbered file, opened for writing; it cannot exist already."""
        if self.dir is None:
            sweep()
            _remove_on_signals()
            self.dir, lock = _locked_folder()
            _LIVE.add(self.dir)
            self._finalizer = weakref.finalize(self, _remove, self.dir, lock)
        self.count += 1
        path = self.dir / f"{self.count:06d}.member"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        return path, os.fdopen(fd, "wb")

    def copy(self, stream, display: str, spend: Callable[[int, int], None]) -> Member:
        """Copy a member stream into a new numbered file, calling `spend(chunk, so_far)` for each chunk; damage
        keeps what was read, with a warning; a limit (or a full disk) raises LimitExceeded and leaves nothing."""
        path, out = self.create()
        m = Member(display, source=path)
        try:
            with out:
                while True:
                    try:
                        chunk = stream.read(CHUNK)
                    except damage() as e:
                        if not m.size:   # nothing decodes: the entry cannot be read at all
                            m.refused = f"unreadable: damaged compressed data ({reason(e)})"
                            break
                        m.warnings.append(f"{display}: damaged or truncated compressed data ({reason(e)}); "
                                          f"read up to the damage ({m.size} bytes)")
                        break
                    if not chunk:
                        break
                    spend(len(chunk), m.size + len(chunk))
                    out.write(chunk)
                    m.size += len(chunk)
        except LimitExceeded as e:
            path.unlink(missing_ok=True)
            raise LimitExceeded(str(e), e.scope) from None
        except OSError as e:   # writing: the temporary folder is full or gone
            path.unlink(missing_ok=True)
            raise LimitExceeded(f"{display}: refused: the temporary folder cannot hold it ({reason(e)})",
                                EVERY_LAYER) from None
        if m.refused:
            path.unlink(missing_ok=True)
            m.source = None
        return m

    def copy_fd(self, fd: int, display: str, spend: Callable[[int, int], None]) -> Member:
        """Copy what can be read from the descriptor `fd` (a pipe, a file, a terminal) into a new numbered file,
        calling `spend(chunk, so_far)` for each chunk; a limit raises LimitExceeded and leaves nothing, as does an
        OSError (reading or writing), raised as it is. A pipe is spliced in the kernel, no byte of it passing
        through Python: an endless standard input reaches its limit in a few seconds."""
        pipe = hasattr(os, "splice") and stat.S_ISFIFO(os.fstat(fd).st_mode)
        path, out = self.create()
        m = Member(display, source=path)
        try:
            with out:
                while True:
                    if pipe:
                        n = os.splice(fd, out.fileno(), CHUNK)
                    else:
                        chunk = os.read(fd, CHUNK)
                        out.write(chunk)
                        n = len(chunk)
                    if not n:
                        return m
                    m.size += n
                    spend(n, m.size)
        except BaseException:
            path.unlink(missing_ok=True)
            raise

    def close(self) -> None:
        """Remove the folder and everything in it (only the Spool that created it can)."""
        if self._finalizer is not None:
            self._finalizer()

    def __getstate__(self) -> dict:
        # a copy sent to another process may read the members but never removes the folder
        return {"dir": self.dir, "count": self.count}

    def __setstate__(self, state: dict) -> None:
        self.dir, self.count, self._finalizer = state["dir"], state["count"], None


def _locked_folder() -> tuple[Path, int]:
    """A new private folder, and the descriptor whose lock says its process is alive. It is locked before it
    gets its PREFIX name, so a sweep never sees it unlocked."""
    new = Path(tempfile.mkdtemp(prefix=_NEW))
    fd = os.open(new, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    final = new.with_name(PREFIX + new.name[len(_NEW):])
    os.rename(new, final)
    return final, fd


def _remove(folder: Path, lock: int) -> None:
    _LIVE.discard(folder)
    shutil.rmtree(folder, ignore_errors=True)
    os.close(lock)


def sweep(root: str | os.PathLike | None = None) -> list[Path]:
    """Remove the spool folders left by processes that are gone (no process holds their lock); the ones removed."""
    removed = []
    for folder in sorted(Path(root or tempfile.gettempdir()).glob(PREFIX + "*")):
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue   # not a folder, a link, or not ours to open
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            os.close(fd)
            continue   # its process is alive
        try:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
        finally:
            os.close(fd)
    return removed


def remove_live() -> None:
    """Remove this process's spool folders now, for a process about to end where no finalizer runs (a signal's
    default action, `os._exit`)."""
    for folder in list(_LIVE):
        shutil.rmtree(folder, ignore_errors=True)
        _LIVE.discard(folder)


def _on_signal(signum: int, frame) -> None:
    """Remove this process's spool folders, then end it as the signal's default action would."""
    remove_live()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _remove_on_signals() -> None:
    """Install _on_signal for CLEANUP_SIGNALS still at their default action; only the main thread can, and a
    handler someone else installed (or an ignored signal) is left alone."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in CLEANUP_SIGNALS:
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, _on_signal)
