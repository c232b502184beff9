"""Compressed streams read forward, once: everything decoded before damage is handed out before the error.

zlib loses the output of a call that fails, so each call runs on a copy of the decompressor's state, and a
failing call is replayed one input byte at a time from that copy: what comes out is all that can be decoded
(at least what `zcat` writes before it gives up). Used by archive.py for gzip (one or several members),
by zip_archive.py for deflated and stored entries, and by tar_archive.py to end a cut tar stream cleanly.
"""
from __future__ import annotations

import lzma
import tarfile
import zipfile
import zlib
from typing import BinaryIO

#: What reading a damaged, truncated or unreadable compressed stream raises.
DAMAGE = (EOFError, OSError, zlib.error, zipfile.BadZipFile, tarfile.TarError, lzma.LZMAError)
#: At most this much output per decompress call, so a bomb cannot take the memory.
STEP = 1 << 20
_READ = 1 << 16


def _salvage(z, data: bytes) -> bytes:
    """The output of `data` fed one byte at a time to `z` (a copy taken before a call that failed on it), up to
    the byte where it fails again."""
    out = []
    for i in range(len(data)):
        try:
            out.append(z.decompress(data[i:i + 1]))
        except zlib.error:
            break
        if z.eof:
            break
    return b"".join(out)


class Counting:
    """A read-only file wrapper that counts the compressed bytes consumed."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.consumed = 0

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        self.consumed += len(data)
        return data

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self.raw.close()


class Gunzip:
    """A gzip stream (one or several members) decompressed as it is read. Everything decoded before damage
    is returned first; the error is raised by the read after it."""

    def __init__(self, raw) -> None:
        self.raw = raw
        self.z = zlib.decompressobj(zlib.MAX_WBITS | 16)
        self.pending = b""
        self.error: BaseException | None = None
        self.done = False

    def _inflate(self, data: bytes) -> bytes:
        out = []
        while data:
            saved = self.z.copy()
            try:
                out.append(self.z.decompress(data, STEP))
            except zlib.error as e:
                self.done, self.error = True, e
                out.append(_salvage(saved, data))
                break
            if not (self.z.eof and self.z.unused_data.strip(b"\x00")):
                break
            data = self.z.unused_data   # another gzip member follows
            self.z = zlib.decompressobj(zlib.MAX_WBITS | 16)
        return b"".join(out)

    def read(self, n: int = -1) -> bytes:
        want = n if n >= 0 else float("inf")
        while len(self.pending) < want and not self.done:
            data = self.z.unconsumed_tail or self.raw.read(_READ)
            if not data:
                self.done = True
                if not self.z.eof:
                    self.error = EOFError("compressed data ends before the end of its gzip stream")
                break
            self.pending += self._inflate(data)
        if not self.pending and self.error is not None:
            error, self.error = self.error, None
            raise error
        if n < 0:
            out, self.pending = self.pending, b""
        else:
            out, self.pending = self.pending[:n], self.pending[n:]
        return out


class Stored:
    """The bytes of a stored zip entry of known size, read from the current position."""

    def __init__(self, fh: BinaryIO, size: int) -> None:
        self.fh, self.left, self.end, self.complete = fh, size, fh.tell() + size, size == 0

    def read(self, n: int = -1) -> bytes:
        data = self.fh.read(min(n if n >= 0 else self.left, self.left))
        self.left -= len(data)
        self.complete = self.left == 0
        return data


class Deflated:
    """A raw deflate zip entry decompressed from the current position, reading at most `limit` compressed bytes
    when given; `end` is where its data stops. As with Gunzip, what was decoded before damage is returned
    before the error is raised."""

    def __init__(self, fh: BinaryIO, limit: int | None = None) -> None:
        self.fh = fh
        self.left = limit
        self.z = zlib.decompressobj(-15)
        self.complete = False
        self.end = fh.tell()
        self.error: BaseException | None = None

    def _raw(self) -> bytes:
        size = _READ if self.left is None else min(_READ, self.left)
        data = self.fh.read(size) if size else b""
        if self.left is not None:
            self.left -= len(data)
        return data

    def read(self, n: int = -1) -> bytes:
        out, size = [], 0
        while not self.complete and self.error is None and (n < 0 or size < n):
            chunk = self.z.unconsumed_tail or self._raw()
            if not chunk:
                break
            saved = self.z.copy()
            try:
                piece = self.z.decompress(chunk, STEP)
            except zlib.error as e:
                self.error, piece = e, _salvage(saved, chunk)
            else:
                if self.z.eof:
                    self.complete = True
                    self.end = self.fh.tell() - len(self.z.unused_data)
            out.append(piece)
            size += len(piece)
        if not size and self.error is not None:
            error, self.error = self.error, None
            raise error
        return b"".join(out)


class Ending:
    """A tar stream that ends cleanly whatever happens to the stream it wraps: past that stream's end or damage
    it reads as NUL bytes, which a tar reader takes for the end of the archive (then, after PADDING, as an
    error, so a reader skipping a long entry stops soon). `end` is the count of real bytes, set when a read
    found none left: a whole tar stops at its end-of-archive blocks and never asks for more."""

    PADDING = 2 << 20   # more than one read of a member (spool.CHUNK) asks for, so no real byte is dropped

    def __init__(self, raw) -> None:
        self.raw = raw
        self.pos = 0
        self.end: int | None = None
        self.error: BaseException | None = None
        self.padded = 0

    def read(self, n: int = -1) -> bytes:
        if self.end is None:
            try:
                data = self.raw.read(n)
            except DAMAGE as e:
                data, self.error = b"", e
            if data:
                self.pos += len(data)
                return data
            self.end = self.pos
        size = max(n, 0)
        self.padded += size
        if self.padded > self.PADDING:
            raise EOFError("the archive ends here")
        return bytes(size)

    def readable(self) -> bool:
        return True


def reason(e: BaseException) -> str:
    """An exception as a short reason: its type and message."""
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
