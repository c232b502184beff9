"""Zip archives: entries listed by the central directory, or found from their local headers when it is lost.

Stored and deflated entries (nearly all zips) are decoded by decompress.py from the entry's own bytes and
their CRC-32 checked here, so an entry whose CRC is wrong or whose data is damaged keeps everything that
decodes, with a warning; bzip2 and lzma entries go through zipfile, which drops the last read (up to 1 MiB)
of a damaged one. An entry that cannot be read at all (encrypted, an unknown compression method, a link
whose target does not decode) is listed as refused, and the other entries are read.
"""
from __future__ import annotations

import os
import stat
import struct
import zipfile
import zlib
from pathlib import Path
from typing import BinaryIO, Iterator

from .decompress import Deflated, Stored, damage, reason
from .entries import DisplayNames, link_refusal, unsafe_name
from .limits import Budget
from .spool import Member, Spool

#: Compression methods read: stored and deflated here, bzip2 and lzma through zipfile.
_OWN_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_METHODS = _OWN_METHODS + (zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)
#: What opening an entry can raise besides DAMAGE: an encrypted or unsupported entry, a bad header.
_UNREADABLE = damage() + (RuntimeError, NotImplementedError, ValueError, struct.error)


class _Crc:
    """A stream wrapper computing the CRC-32 of what it hands out."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.value = 0

    def read(self, n: int = -1) -> bytes:
        data = self.stream.read(n)
        self.value = zlib.crc32(data, self.value)
        return data


def members(path: Path, display: str, spool: Spool, budget: Budget) -> Iterator[Member]:
    """Entries of a zip, each a separate stream; a bad entry does not stop the others."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as e:
        # a truncated zip has lost its central directory: walk the local entry headers instead
        yield from _scan(path, display, spool, budget, reason(e))
        return
    opened = [0]   # compressed bytes of the entries opened so far: the layer's bytes read (its directory may
    # list one deflated stream under many names, so the file's size says nothing)
    with zf, open(path, "rb") as fh, budget.layer(display, lambda: opened[0]):
        infos = zf.infolist()
        if len(infos) > budget.limits.max_members:
            yield Member(display, refused=f"refused: more than {budget.limits.max_members} entries")
            return
        names = DisplayNames(display)
        for info in infos:
            if info.is_dir():
                continue
            shown = names(info.filename)
            why = unsafe_name(info.filename) or _method_refusal(info.flag_bits, info.compress_type)
            if not why:
                try:
                    raw = _open(zf, fh, info)
                    why = _type_refusal(info, raw)
                except _UNREADABLE as e:
                    why = f"unreadable zip entry ({reason(e)})"
            if why:
                yield Member(shown, refused=why)
                continue
            stream = _Crc(raw)
            opened[0] += info.compress_size
            m = spool.copy(stream, shown, lambda n, done: budget.spend(n, shown, (done, info.compress_size)))
            if info.compress_type in _OWN_METHODS and not m.warnings:
                m.warnings += _checked(shown, stream, info.CRC, m.size)
            yield m


def _method_refusal(flags: int, method: int) -> str | None:
    """Why an entry cannot be decoded whatever its bytes: encrypted, or a compression method not read."""
    if flags & 0x1:
        return "refused: encrypted zip entry"
    if method not in _METHODS:
        return f"refused: zip entry compressed with method {method}, which is not read"
    return None


def _open(zf: zipfile.ZipFile, fh: BinaryIO, info: zipfile.ZipInfo):
    """A stream of an entry's expanded bytes: decoded here when stored or deflated, else by zipfile."""
    if info.compress_type not in _OWN_METHODS:
        return zf.open(info)
    fh.seek(info.header_offset)
    head = fh.read(30)
    if len(head) < 30 or head[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"no local header at byte {info.header_offset}")
    name_len, extra_len = struct.unpack("<2H", head[26:30])
    fh.seek(info.header_offset + 30 + name_len + extra_len)
    if info.compress_type == zipfile.ZIP_STORED:
        return Stored(fh, info.compress_size)
    return Deflated(fh, info.compress_size)


def _checked(shown: str, stream: _Crc, crc: int | None, size: int) -> list[str]:
    """Warnings for an entry read to its end: data that stops early, or whose CRC-32 is not the one recorded."""
    if not stream.stream.complete:
        return [f"{shown}: damaged or truncated entry (its compressed data ends early); read up to the damage "
                f"({size} bytes)"]
    if crc is not None and stream.value != crc:
        return [f"{shown}: CRC-32 is {stream.value:08x}, the archive records {crc:08x}: the data may be damaged; "
                f"read as it decoded ({size} bytes)"]
    return []


def _type_refusal(info: zipfile.ZipInfo, stream) -> str | None:
    """Why a zip entry is refused: unix symlinks, devices and FIFOs recorded in its mode bits."""
    mode = info.external_attr >> 16
    if not mode:
        return None
    if stat.S_ISLNK(mode):
        # a link's target is short; never read a huge entry whole
        return link_refusal("symlink", info.filename, stream.read(4096)[:4096].decode("utf-8", "replace"))
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "refused: device file"
    if stat.S_ISFIFO(mode):
        return "refused: FIFO"
    return None


def _scan(path: Path, display: str, spool: Spool, budget: Budget, why: str) -> Iterator[Member]:
    """Entries of a zip without its central directory, from their local headers, up to the damage."""
    note = f"{display}: zip directory missing ({why}); entries read from their local headers"
    found = 0
    names = DisplayNames(display)
    with open(path, "rb") as fh, budget.layer(display, fh.tell):
        while True:
            head = fh.read(30)
            if len(head) < 30 or head[:4] != b"PK\x03\x04":
                break
            if found == budget.limits.max_members:
                yield Member(display, refused=f"refused: more than {found} entries", warnings=[note])
                return
            _, _, flags, method, _, _, crc, csize, _, nlen, xlen = struct.unpack("<4s5HI2I2H", head)
            name = fh.read(nlen).decode("utf-8" if flags & 0x800 else "cp437", "replace")
            fh.seek(xlen, os.SEEK_CUR)
            shown = names(name)
            found += 1
            refusal = unsafe_name(name) or _method_refusal(flags, method) or (
                None if method in _OWN_METHODS and not (method == zipfile.ZIP_STORED and flags & 0x8)
                else f"zip entry that cannot be read without the directory (method {method})")
            if refusal:   # without reading it, the next header cannot be found: stop here
                yield Member(shown, refused=refusal, warnings=[note])
                return
            start = fh.tell()
            stream = _Crc(Deflated(fh) if method == zipfile.ZIP_DEFLATED else Stored(fh, csize))
            m = spool.copy(stream, shown, lambda n, done: budget.spend(n, shown, (done, fh.tell() - start)))
            damaged = bool(m.warnings) or not stream.stream.complete
            if not damaged:
                described = _skip_data(fh, stream.stream.end, flags & 0x8)
                crc = described if flags & 0x8 else crc
            m.warnings = [note] + (m.warnings or _checked(shown, stream, crc, m.size))
            yield m
            if damaged:
                return
        if not found:
            yield Member(display, refused=f"not a readable zip archive ({why})")


def _skip_data(fh: BinaryIO, end: int, descriptor: int) -> int | None:
    """Move past an entry's data and its data descriptor, if it has one; the CRC-32 that descriptor records."""
    fh.seek(end)
    if not descriptor:
        return None
    if fh.read(4) != b"PK\x07\x08":   # the descriptor's signature is optional
        fh.seek(end)
    desc = fh.read(12)
    return struct.unpack("<I", desc[:4])[0] if len(desc) == 12 else None
