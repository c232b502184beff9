"""Open what customers pack their logs in (.gz, .tar, .tar.gz/.tgz, .zip, archives inside archives), safely.

Members are read as streams, once, in archive order, and copied into numbered files of a private
temporary folder (the spool): a compressed tar has no random access, and each member must stay a
plain file that `plog.read_file` can read on its own, in any process. Names found in an archive are
never used as file-system paths, so no entry can write outside the spool. Entries with absolute
paths, `..`, links pointing outside the archive, device files and FIFOs are refused and listed with
the reason. Decompression is bounded by a total size and an expansion ratio (`Limits`).
"""
from __future__ import annotations

import gzip
import os
import re
import stat
import struct
import tarfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Callable, Iterator

from .decompress import Counting, Deflated, Gunzip, Stored
from .spool import Budget, LimitExceeded, Limits, Member, Spool

#: Separator between an archive and a member in display paths: `bundle.tar.gz!/debug/plog/plog-1_….log`.
MEMBER_SEP = "!/"
#: Name endings stripped from an archive's name when its members are classified by path.
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip", ".gz")
_CHUNK = 1 << 20


def kind_of(head: bytes) -> str | None:
    """`gzip`, `zip` or `tar` from a file's first 512 bytes; `bz2`/`xz` named so they can be refused; else None."""
    if head[:2] == b"\x1f\x8b":
        return "gzip"
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
    try:
        if kind == "gzip":
            return bool(Gunzip(fh).read(1))
        if kind == "tar":
            return tarfile.open(fileobj=fh, mode="r|").next() is not None
        if kind == "zip":
            head = fh.read(30)
            return head[:4] == b"PK\x05\x06" or (len(head) == 30 and zipfile.is_zipfile(fh)) or (
                len(head) == 30 and 0 < struct.unpack("<H", head[26:28])[0] < 4096)
    except (EOFError, zlib.error, tarfile.TarError, OSError, ValueError, struct.error):
        return False
    return True


def _absolute(name: str) -> bool:
    norm = name.replace("\\", "/")
    return norm.startswith("/") or (len(norm) > 1 and norm[1] == ":")


def unsafe_name(name: str) -> str | None:
    """Why an archive entry name may not be used (absolute, `..`, drive letter), or None."""
    norm = name.replace("\\", "/")
    if _absolute(norm):
        return "refused: absolute path"
    if ".." in norm.split("/"):
        return "refused: path with '..'"
    if not norm.strip("/"):
        return "refused: empty name"
    return None


def _link_inside(member: str, target: str) -> bool:
    """Whether a link stored at `member` pointing to `target` stays inside the archive."""
    if _absolute(target):
        return False
    parts: list[str] = []
    for p in (PurePosixPath(member).parent / target.replace("\\", "/")).parts:
        if p == "..":
            if not parts:
                return False
            parts.pop()
        elif p != ".":
            parts.append(p)
    return True


def member_name(name: str) -> str:
    """An entry's name as shown: `/` separators (zips made on Windows use `\\`), no leading `./`, printable."""
    name = printable(name.replace("\\", "/"))
    while name.startswith("./"):
        name = name[2:]
    return name


_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")


def printable(name: str) -> str:
    """A file or entry name safe to print and to put in JSON: bytes that are not UTF-8 become U+FFFD,
    control characters (a newline in a name) become `\\xNN`."""
    name = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return _CONTROL_CHARS.sub(lambda m: f"\\x{ord(m.group()):02x}", name)


def gz_member_name(display: str) -> str:
    """The name the one member of a bare .gz gets: the archive's own name without `.gz`."""
    name = display.split(MEMBER_SEP)[-1].rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".gz") and len(name) > 3 else name


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
        try:
            if kind == "zip":
                members = self._zip(path, display)
            elif kind == "tar":
                members = self._tar(path, display, compressed=False)
            else:
                members = self._gzip(path, display)
            for m in members:
                yield from self._nested(m, depth)
        except LimitExceeded as e:
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
        inner = list(self.expand(m.source, m.display, kind, depth + 1))
        m.source.unlink(missing_ok=True)   # the archive's own copy is no longer needed
        for i in inner:
            i.warnings[:0] = m.warnings
        yield from inner

    def _copy(self, stream: BinaryIO, display: str, ratio_of: Callable[[int], None] | None = None) -> Member:
        """Copy a member stream into the spool; damage keeps what was read, with a warning."""
        path, out = self.spool.create()
        m = Member(display, source=path)
        try:
            with out:
                while True:
                    chunk = stream.read(_CHUNK)
                    if not chunk:
                        break
                    out.write(chunk)
                    m.size += len(chunk)
                    self.budget.spend(len(chunk), display)
                    if ratio_of is not None:
                        ratio_of(m.size)
        except (EOFError, zlib.error, gzip.BadGzipFile, zipfile.BadZipFile, tarfile.ReadError, OSError) as e:
            m.warnings.append(f"{display}: damaged or truncated compressed data ({_reason(e)}); "
                              f"read up to the damage ({m.size} bytes)")
        except LimitExceeded as e:
            path.unlink(missing_ok=True)
            raise LimitExceeded(str(e)) from None
        return m

    def _gzip(self, path: Path, display: str) -> Iterator[Member]:
        """A .gz file: a tar inside is read as a tar stream, anything else is one member."""
        with open(path, "rb") as raw:
            try:
                head = Gunzip(raw).read(512)
            except (EOFError, zlib.error, OSError):
                head = b""
        if kind_of(head) == "tar":
            yield from self._tar(path, display, compressed=True)
            return
        with open(path, "rb") as rawfh:
            counted = Counting(rawfh)
            stream = Gunzip(counted)
            inner = f"{display}{MEMBER_SEP}{gz_member_name(display)}"
            yield self._copy(stream, inner,
                             lambda n: self.budget.check_ratio(n, counted.consumed, display))

    def _tar(self, path: Path, display: str, compressed: bool) -> Iterator[Member]:
        """Entries of a tar (plain or gzip-compressed), read as one forward stream."""
        with open(path, "rb") as rawfh:
            counted = Counting(rawfh)
            expanded = 0
            try:
                tar = tarfile.open(fileobj=Gunzip(counted) if compressed else counted, mode="r|")
            except (tarfile.TarError, EOFError, zlib.error, OSError) as e:
                yield Member(display, refused=f"not a readable tar archive ({_reason(e)})")
                return
            count = 0
            try:
                for info in tar:
                    count += 1
                    if count > self.limits.max_members:
                        yield Member(display, refused=f"refused: more than {self.limits.max_members} entries")
                        return
                    shown = f"{display}{MEMBER_SEP}{member_name(info.name)}"
                    if info.isdir():
                        continue
                    why = unsafe_name(info.name) or _tar_type_refusal(info)
                    if why:
                        yield Member(shown, refused=why)
                        continue
                    stream = tar.extractfile(info)
                    base = expanded
                    ratio = (lambda n: self.budget.check_ratio(base + n, counted.consumed, display)) \
                        if compressed else None
                    m = self._copy(stream, shown, ratio)
                    expanded += m.size
                    yield m
                    if m.warnings and m.size < info.size:
                        return   # a damaged stream cannot be followed past the damage
            except (tarfile.TarError, EOFError, zlib.error, OSError) as e:
                yield Member(f"{display}{MEMBER_SEP}(after entry {count})",
                             refused=f"archive damaged after entry {count} ({_reason(e)}); entries before it were read")

    def _zip(self, path: Path, display: str) -> Iterator[Member]:
        """Entries of a zip, each a separate stream; a bad entry does not stop the others."""
        try:
            zf = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError, ValueError) as e:
            # a truncated zip has lost its central directory: walk the local entry headers instead
            yield from self._zip_scan(path, display, _reason(e))
            return
        with zf:
            infos = zf.infolist()
            if len(infos) > self.limits.max_members:
                yield Member(display, refused=f"refused: more than {self.limits.max_members} entries")
                return
            for info in infos:
                shown = f"{display}{MEMBER_SEP}{member_name(info.filename)}"
                if info.is_dir():
                    continue
                why = unsafe_name(info.filename) or _zip_type_refusal(info, zf)
                if why:
                    yield Member(shown, refused=why)
                    continue
                if info.flag_bits & 0x1:
                    yield Member(shown, refused="encrypted zip entry")
                    continue
                try:
                    stream = zf.open(info)
                except (zipfile.BadZipFile, NotImplementedError, OSError, ValueError) as e:
                    yield Member(shown, refused=f"unreadable zip entry ({_reason(e)})")
                    continue
                with stream:
                    size = info.compress_size
                    yield self._copy(stream, shown, lambda n: self.budget.check_ratio(n, size, shown))

    def _zip_scan(self, path: Path, display: str, why: str) -> Iterator[Member]:
        """Entries of a zip without its central directory, from their local headers, up to the damage."""
        note = f"{display}: zip directory missing ({why}); entries read from their local headers"
        found = 0
        with open(path, "rb") as fh:
            while found < self.limits.max_members:
                head = fh.read(30)
                if len(head) < 30 or head[:4] != b"PK\x03\x04":
                    break
                _, _, flags, method, _, _, _, csize, _, nlen, xlen = struct.unpack("<4s5H3I2H", head)
                name = fh.read(nlen).decode("utf-8" if flags & 0x800 else "cp437", "replace")
                fh.seek(xlen, os.SEEK_CUR)
                shown = f"{display}{MEMBER_SEP}{member_name(name)}"
                found += 1
                refusal = unsafe_name(name) or ("encrypted zip entry" if flags & 0x1 else None) or (
                    None if method in (0, 8) and not (method == 0 and flags & 0x8)
                    else f"zip entry that cannot be read without the directory (method {method})")
                if refusal:   # without reading it, the next header cannot be found: stop here
                    yield Member(shown, refused=refusal, warnings=[note])
                    return
                start = fh.tell()
                stream = Deflated(fh) if method == 8 else Stored(fh, csize)
                m = self._copy(stream, shown, lambda n: self.budget.check_ratio(n, fh.tell() - start, shown))
                m.warnings.insert(0, note)
                if not stream.complete and len(m.warnings) == 1:
                    m.warnings.append(f"{shown}: truncated; read up to the damage ({m.size} bytes)")
                yield m
                if not stream.complete:
                    return
                fh.seek(stream.end)
                if flags & 0x8:   # a data descriptor follows: optional signature, crc and two sizes
                    fh.seek(12 if fh.read(4) == b"PK\x07\x08" else 8, os.SEEK_CUR)
        if not found:
            yield Member(display, refused=f"not a readable zip archive ({why})")


def _tar_type_refusal(info: tarfile.TarInfo) -> str | None:
    """Why a tar entry that is not a regular file is refused (links, devices, FIFOs)."""
    if info.issym() or info.islnk():
        kind = "symlink" if info.issym() else "hardlink"
        where = "inside" if _link_inside(info.name, info.linkname) else "outside"
        if where == "outside":
            return f"refused: {kind} pointing outside the archive ({printable(info.linkname)})"
        return f"{kind} to {printable(info.linkname)}: links are not followed (the target is read as itself)"
    if info.ischr() or info.isblk():
        return "refused: device file"
    if info.isfifo():
        return "refused: FIFO"
    if not info.isreg():
        return f"refused: not a regular file (tar type {info.type!r})"
    return None


def _zip_type_refusal(info: zipfile.ZipInfo, zf: zipfile.ZipFile) -> str | None:
    """Why a zip entry is refused: unix symlinks, devices and FIFOs recorded in its mode bits."""
    mode = info.external_attr >> 16
    if not mode:
        return None
    if stat.S_ISLNK(mode):
        with zf.open(info) as fh:   # a link's target is short; never read a huge entry whole
            target = fh.read(4096).decode("utf-8", "replace")
        if _link_inside(info.filename, target):
            return f"symlink to {printable(target)}: links are not followed (the target is read as itself)"
        return f"refused: symlink pointing outside the archive ({printable(target)})"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "refused: device file"
    if stat.S_ISFIFO(mode):
        return "refused: FIFO"
    return None


def _reason(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def strip_suffix(name: str) -> str:
    """An archive's name without its archive ending (`worker-0.tar.gz` -> `worker-0`)."""
    low = name.lower()
    for s in ARCHIVE_SUFFIXES:
        if low.endswith(s) and len(name) > len(s):
            return name[: -len(s)]
    return name


def path_for_roles(display: str) -> str:
    """The path a member's role is judged from: archive names become folders (`w-0.tgz!/a.log` -> `w-0/a.log`)."""
    parts = display.split(MEMBER_SEP)
    return "/".join([strip_suffix(p) for p in parts[:-1]] + [parts[-1]])


__all__ = ["ARCHIVE_SUFFIXES", "Budget", "Expander", "LimitExceeded", "Limits", "MEMBER_SEP", "Member", "Spool",
           "kind_of", "path_for_roles", "sniff", "strip_suffix", "unsafe_name"]
