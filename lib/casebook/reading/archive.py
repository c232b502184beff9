"""Open what customers pack their logs in (.gz, .zst, .tar, .tar.gz/.tgz, .zip, archives inside archives), safely.

Members are read as streams, once, in archive order, and copied into numbered files of a private
temporary folder (spool.py): a compressed tar has no random access, and each member must stay a plain
file that `plog.read_file` can read on its own, in any process. Names found in an archive are never used
as file-system paths (entries.py), so no entry can write outside the spool. Entries with absolute paths,
`..`, links pointing outside the archive, device files and FIFOs are refused and listed with the reason.
Decompression is bounded by a total size and an expansion ratio checked on every entry, every layer and
the whole read (limits.py). zstd is read like gzip when the `zstandard` package is installed (unzstd.py), and
refused as an unsupported compression when it is not.
"""
from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import BinaryIO, Iterator

from . import unzstd
from .decompress import Counting, Gunzip, damage
from .entries import MEMBER_SEP, stream_member_name
from .limits import Budget, LimitExceeded, Limits
from .spool import Member, Spool
from .unzstd import Unzstd

#: Compressed streams read, by kind: one file inside, or a tar.
_STREAMS = {"gzip": Gunzip, "zstd": Unzstd}


def kind_of(head: bytes) -> str | None:
    """`gzip`, `zstd`, `zip` or `tar` from a file's first 512 bytes; `bz2`/`xz` named so they can be refused; else
    None."""
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if head[:4] == unzstd.MAGIC:
        return "zstd"
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "tar"
    if head[:3] == b"BZh" and head[4:10] == b"1AY&SY":
        return "bz2"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    return None


def sniff(path: Path) -> str | None:
    """The archive kind of a file on disk (see kind_of), when it also opens as one; else None (read as a file)."""
    with open(path, "rb") as fh:
        kind = kind_of(fh.read(512))
        fh.seek(0)
        return kind if kind is None or _opens(fh, kind) else None


def _opens(fh: BinaryIO, kind: str) -> bool:
    """Whether a file with an archive's signature yields anything as that archive (a bare signature does not)."""
    # tarfile and zipfile load where an archive is met: a folder of plain files never needs them
    import tarfile
    import zipfile
    try:
        if kind == "gzip":
            return bool(Gunzip(fh).read(1))
        if kind == "zstd":
            return True   # no text starts with its magic number: read as zstd or refused, never as garbage lines
        if kind == "tar":
            return tarfile.open(fileobj=fh, mode="r|").next() is not None
        if kind == "zip":
            head = fh.read(30)
            return head[:4] == b"PK\x05\x06" or (len(head) == 30 and zipfile.is_zipfile(fh)) or (
                len(head) == 30 and 0 < struct.unpack("<H", head[26:28])[0] < 4096)
    except (EOFError, zlib.error, tarfile.TarError, OSError, ValueError, struct.error):
        return False
    return True


class Expander:
    """Expands one archive (and the archives inside it) into Members, within the limits of one read."""

    def __init__(self, spool: Spool, limits: Limits, budget: Budget | None = None) -> None:
        self.spool = spool
        self.limits = limits
        self.budget = budget or Budget(limits)

    def expand(self, path: Path, display: str, kind: str, depth: int = 0) -> Iterator[Member]:
        """Members of the archive at `path` (shown as `display`), nested archives expanded in place."""
        if depth >= self.limits.max_depth:
            yield Member(display, refused=f"refused: archives nested deeper than {self.limits.max_depth}")
            return
        if kind in ("bz2", "xz"):
            yield Member(display, refused=f"unsupported compression ({kind}); unpack it and send the files")
            return
        if kind == "zstd" and not unzstd.available():
            yield Member(display, refused="unsupported compression (zstd): the zstandard package is not installed; "
                                          "install it, or unpack the file (zstd -d) and send what it holds")
            return
        if depth == 0:
            self.budget.given += path.stat().st_size
        from . import tar_archive, zip_archive
        if kind == "zip":
            members = zip_archive.members(path, display, self.spool, self.budget)
        elif kind == "tar":
            members = tar_archive.members(path, display, self.spool, self.budget)
        else:
            members = self._stream(path, display, _STREAMS[kind])
        try:
            for m in members:
                yield from self._nested(m, depth)
        except LimitExceeded as e:
            members.close()   # its layer ends now, before anything else is expanded
            if depth and e.scope not in (None, display):
                raise   # the limit passed is an outer archive's (or the whole read's): that archive is refused
            yield Member(display, refused=str(e))

    def _nested(self, m: Member, depth: int) -> Iterator[Member]:
        """The member itself, or, when it is an archive, what it holds."""
        if m.source is None or m.refused:
            yield m
            return
        kind = sniff(m.source)
        if kind is None:
            yield m
            return
        try:
            for i in self.expand(m.source, m.display, kind, depth + 1):
                i.warnings[:0] = m.warnings
                yield i
        finally:
            m.source.unlink(missing_ok=True)   # the archive's own copy is no longer needed

    def _stream(self, path: Path, display: str, unpack) -> Iterator[Member]:
        """A .gz or .zst file: a tar inside is read as a tar stream, anything else is one member."""
        with open(path, "rb") as raw:
            try:
                head = unpack(raw).read(512)
            except damage():
                head = b""
        if kind_of(head) == "tar":
            from . import tar_archive
            yield from tar_archive.members(path, display, self.spool, self.budget, unpack)
            return
        with open(path, "rb") as rawfh:
            counted = Counting(rawfh)
            inner = f"{display}{MEMBER_SEP}{stream_member_name(display)}"
            with self.budget.layer(display, lambda: counted.consumed):
                yield self.spool.copy(unpack(counted), inner, lambda n, done: self.budget.spend(n, inner))


__all__ = ["Expander", "kind_of", "sniff"]
