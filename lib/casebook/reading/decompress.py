"""Compressed streams read forward, once: everything decoded before damage is handed out before the error.

zlib loses the output of a call that fails, so each call runs on a copy of the decompressor's state, and a
failing call is replayed one input byte at a time from that copy; and deflate starts from a window of NULs,
as gzip's own decoder does. What comes out is all that can be decoded: at least what `zcat` writes. Used by archive.py for gzip (one or several members),
by zip_archive.py for deflated and stored entries, and by tar_archive.py to end a cut tar stream cleanly.
"""
from __future__ import annotations

import struct
import zlib
from functools import cache
from typing import BinaryIO


@cache
def damage() -> tuple[type[BaseException], ...]:
    """What reading a damaged, truncated or unreadable compressed stream raises."""
    # the archive modules load here, when an archive is read (an `except damage()` is evaluated only when an exception
    # reaches it): a bundle of plain files never needs them, and they cost every command-line triage ~20 ms
    import lzma
    import tarfile
    import zipfile
    return EOFError, OSError, zlib.error, zipfile.BadZipFile, tarfile.TarError, lzma.LZMAError
#: At most this much output per decompress call, so a bomb cannot take the memory.
STEP = 1 << 20
_READ = 1 << 16
_GZIP_MAGIC = b"\x1f\x8b\x08"
_ZEROS = bytes(32768)


def inflater():
    """A raw deflate decompressor whose window starts as 32 KiB of NULs, as gzip's own does: a damaged stream
    that reaches back before its first byte then decodes NULs there and goes on, as zcat does, where zlib
    alone would stop (a whole stream never reaches back there, so it decodes the same)."""
    return zlib.decompressobj(-15, zdict=_ZEROS)


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


class Stepped:
    """A stream decoded a step at a time as it is read (`_step` gives the next output, `_stop` ends it): what was
    decoded before damage is returned first, and the error is raised by the read after it."""

    def __init__(self) -> None:
        self.pending = b""
        self.error: BaseException | None = None
        self.done = False

    def _step(self) -> bytes:
        raise NotImplementedError

    def _stop(self, error: BaseException | None) -> bytes:
        self.done, self.error = True, error
        return b""

    def read(self, n: int = -1) -> bytes:
        want = n if n >= 0 else float("inf")
        while len(self.pending) < want and not self.done:
            self.pending += self._step()
        if not self.pending and self.error is not None:
            error, self.error = self.error, None
            raise error
        if n < 0:
            out, self.pending = self.pending, b""
        else:
            out, self.pending = self.pending[:n], self.pending[n:]
        return out


class Gunzip(Stepped):
    """A gzip stream (one or several members) decompressed as it is read. Everything decoded before damage
    is returned first; the error is raised by the read after it. Members are inflated as raw deflate from a
    window of NULs (`inflater`), and their CRC-32 and size are checked here."""

    def __init__(self, raw) -> None:
        super().__init__()
        self.raw = raw
        self.buf = b""                 # compressed bytes read and not yet given to an inflater
        self.z = None                  # the current member's inflater; None between members
        self.members = 0
        self.crc = self.size = 0       # of the current member's output

    def _more(self) -> bool:
        data = self.raw.read(_READ)
        self.buf += data
        return bool(data)

    def _header(self) -> bytes:
        """Start the next member, skip NUL padding after one, or end the stream."""
        if self.members:
            self.buf = self.buf.lstrip(b"\x00")
        if not self.buf and not self._more():
            return self._stop(None if self.members else EOFError("empty gzip stream"))
        try:
            length = _header_length(self.buf)
        except zlib.error as e:
            return self._stop(e)
        if length is None:
            return b"" if self._more() else self._stop(EOFError("compressed data ends inside a gzip header"))
        self.buf, self.z, self.crc, self.size = self.buf[length:], inflater(), 0, 0
        self.members += 1
        return b""

    def _trailer(self) -> bytes:
        """Check the finished member's CRC-32 and size (the 8 bytes after its data)."""
        self.buf = self.z.unused_data + self.buf
        while len(self.buf) < 8 and self._more():
            pass
        if len(self.buf) < 8:
            return self._stop(EOFError("compressed data ends inside a gzip trailer"))
        crc, size = struct.unpack("<2I", self.buf[:8])
        self.buf, self.z = self.buf[8:], None
        if (crc, size) != (self.crc, self.size & 0xFFFFFFFF):
            return self._stop(zlib.error("incorrect data check (CRC-32 or size of a gzip member)"))
        return b""

    def _step(self) -> bytes:
        """Some more output (maybe none); at the end or at damage, `done` and `error` are set."""
        if self.z is None:
            return self._header()
        data = self.z.unconsumed_tail
        if not data:
            if not self.buf and not self._more():
                return self._stop(EOFError("compressed data ends before the end of its gzip stream"))
            data, self.buf = self.buf, b""
        saved = self.z.copy()
        try:
            out = self.z.decompress(data, STEP)
        except zlib.error as e:
            out = _salvage(saved, data)
            self.done, self.error = True, e
        self.crc, self.size = zlib.crc32(out, self.crc), self.size + len(out)
        if not self.done and self.z.eof:
            self._trailer()
        return out


def _header_length(buf: bytes) -> int | None:
    """The length of the gzip member header `buf` starts with (RFC 1952), None when more bytes are needed;
    zlib.error when `buf` does not start one."""
    if not _GZIP_MAGIC.startswith(buf[:3]) and not buf[:3].startswith(_GZIP_MAGIC):
        raise zlib.error("not a gzip member (incorrect header check)")
    if len(buf) < 10:
        return None
    flags, pos = buf[3], 10
    if flags & 0x04:   # extra field
        if len(buf) < 12:
            return None
        pos += 2 + struct.unpack("<H", buf[10:12])[0]
    for flag in (0x08, 0x10):   # file name, comment: NUL-terminated
        if flags & flag:
            end = buf.find(b"\x00", pos)
            if end < 0:
                return None
            pos = end + 1
    pos += 2 if flags & 0x02 else 0   # header CRC
    return pos if pos <= len(buf) else None


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
        self.z = inflater()
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
            except damage() as e:
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
