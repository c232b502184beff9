"""Compressed streams read forward, once: everything decoded before damage is handed out before the error.

Used by archive.py for gzip (one or several members), and for zip entries read from their local
headers when the zip's directory is lost.
"""
from __future__ import annotations

import zlib
from typing import BinaryIO


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

    _STEP = 1 << 20   # at most this much output per decompress call, so a bomb cannot take the memory

    def __init__(self, raw) -> None:
        self.raw = raw
        self.z = zlib.decompressobj(zlib.MAX_WBITS | 16)
        self.pending = b""
        self.error: BaseException | None = None
        self.done = False

    def read(self, n: int = -1) -> bytes:
        want = n if n >= 0 else float("inf")
        while len(self.pending) < want and not self.done:
            data = self.z.unconsumed_tail or self.raw.read(1 << 16)
            if not data:
                self.done = True
                if not self.z.eof:
                    self.error = EOFError("compressed data ends before the end of its gzip stream")
                break
            try:
                self.pending += self.z.decompress(data, self._STEP)
                if self.z.eof and self.z.unused_data.strip(b"\x00"):   # another gzip member follows
                    rest = self.z.unused_data
                    self.z = zlib.decompressobj(zlib.MAX_WBITS | 16)
                    self.pending += self.z.decompress(rest, self._STEP)
            except zlib.error as e:
                self.done, self.error = True, e
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
        self.fh, self.left, self.end, self.complete = fh, size, fh.tell() + size, False

    def read(self, n: int = -1) -> bytes:
        data = self.fh.read(min(n if n >= 0 else self.left, self.left))
        self.left -= len(data)
        self.complete = self.left == 0
        return data


class Deflated:
    """A raw deflate zip entry decompressed from the current position; `end` is where its data stops.
    As with Gunzip, what was decoded before damage is returned before the error is raised."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.z = zlib.decompressobj(-15)
        self.complete = False
        self.end = fh.tell()
        self.error: BaseException | None = None

    def read(self, n: int = -1) -> bytes:
        out = b""
        while not self.complete and self.error is None and (n < 0 or len(out) < n):
            chunk = self.z.unconsumed_tail or self.fh.read(1 << 16)
            if not chunk:
                break
            try:
                out += self.z.decompress(chunk, Gunzip._STEP)
            except zlib.error as e:
                self.error = e
            if self.z.eof:
                self.complete = True
                self.end = self.fh.tell() - len(self.z.unused_data)
        if not out and self.error is not None:
            error, self.error = self.error, None
            raise error
        return out
