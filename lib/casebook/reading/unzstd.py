"""zstd streams (`.zst`, `.tar.zst`) read forward, once, as gzip is (decompress.Gunzip): everything decoded before
damage is handed out before the error, and a stream cut short is damage too.

The `zstandard` package decodes; it says nothing when its input stops inside a frame, and one call decodes all
that its input holds (a run-length block is 4 bytes for 128 KiB). So the frames are walked here, block by block
(RFC 8878): each block goes to the decoder on its own, which bounds a call's output to one block (128 KiB at
most), and a frame whose last block or checksum is missing is named as cut. Skippable frames are skipped.
Without the package, zstd is refused as an unsupported compression (archive.py), never read as text.
"""
from __future__ import annotations

from .decompress import Stepped

try:
    import zstandard
except ImportError:   # optional: requirements.txt installs it
    zstandard = None

#: The first bytes of a zstd frame.
MAGIC = b"\x28\xb5\x2f\xfd"
#: Magic numbers of skippable frames (metadata a decoder passes over).
_SKIPPABLE = range(0x184D2A50, 0x184D2A60)
_READ = 1 << 16
_DICT_ID = (0, 1, 2, 4)
_CONTENT_SIZE = (0, 2, 4, 8)   # by the frame header's flag; flag 0 with a single segment: 1 byte


class ZstdDamage(OSError):
    """zstd data that does not decode (a changed byte, a wrong checksum, a frame the decoder refuses)."""


def available() -> bool:
    """Whether zstd can be read (the `zstandard` package is installed)."""
    return zstandard is not None


class Unzstd(Stepped):
    """A zstd stream (one or several frames) decoded as it is read; what was decoded before damage is returned
    first, and the error is raised by the read after it."""

    def __init__(self, raw) -> None:
        super().__init__()
        self.raw = raw
        self.buf = b""                 # compressed bytes read and not yet decoded
        self.z = None                  # the current frame's decoder; None between frames
        self.last = False              # the current frame's last block was decoded
        self.checksum = 0              # bytes of the current frame's checksum, after its last block
        self.frames = 0

    def _have(self, n: int) -> bool:
        """Whether `n` compressed bytes are buffered, reading more as needed."""
        while len(self.buf) < n:
            data = self.raw.read(max(_READ, n - len(self.buf)))
            if not data:
                return False
            self.buf += data
        return True

    def _take(self, n: int) -> bytes:
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _frame(self) -> bytes:
        """Start the next frame (skipping skippable ones), or end the stream."""
        if not self._have(4):
            if self.buf or not self.frames:
                return self._stop(EOFError("compressed data ends inside a zstd frame header" if self.buf
                                           else "empty zstd stream"))
            return self._stop(None)
        magic = int.from_bytes(self.buf[:4], "little")
        if magic in _SKIPPABLE:
            if not self._have(8):
                return self._stop(EOFError("compressed data ends inside a skippable zstd frame"))
            return self._skip(8 + int.from_bytes(self.buf[4:8], "little"))
        if self.buf[:4] != MAGIC:
            return self._stop(ZstdDamage("not a zstd frame (unknown magic number)"))
        if not self._have(5):
            return self._stop(EOFError("compressed data ends inside a zstd frame header"))
        fhd = self.buf[4]
        single = fhd >> 5 & 1
        size = 5 + (not single) + _DICT_ID[fhd & 3] + (_CONTENT_SIZE[fhd >> 6] or single)
        if not self._have(size):
            return self._stop(EOFError("compressed data ends inside a zstd frame header"))
        self.z, self.last, self.checksum = zstandard.ZstdDecompressor().decompressobj(), False, 4 * (fhd >> 2 & 1)
        self.frames += 1
        return self._decode(self._take(size))

    def _skip(self, n: int) -> bytes:
        """Pass over n bytes (a skippable frame) without keeping them."""
        while n > len(self.buf):
            n -= len(self.buf)
            self.buf = self.raw.read(_READ)
            if not self.buf:
                return self._stop(EOFError("compressed data ends inside a skippable zstd frame"))
        self.buf = self.buf[n:]
        return b""

    def _block(self) -> bytes:
        """Decode the current frame's next block, or its checksum after the last one."""
        if self.last:
            if not self._have(self.checksum):
                return self._stop(EOFError("compressed data ends before the checksum of its zstd frame"))
            out, self.z = self._decode(self._take(self.checksum)), None
            return out
        if not self._have(3):
            return self._stop(EOFError("compressed data ends before the last block of its zstd frame"))
        head = int.from_bytes(self.buf[:3], "little")
        kind, size = head >> 1 & 3, head >> 3
        if kind == 3:
            return self._stop(ZstdDamage("zstd block of the reserved type"))
        if not self._have(3 + (1 if kind == 1 else size)):   # a run-length block holds one byte
            return self._stop(EOFError("compressed data ends inside a zstd block"))
        out = self._decode(self._take(3 + (1 if kind == 1 else size)))
        self.last = bool(head & 1)
        if self.last and not self.checksum:
            self.z = None
        return out

    def _decode(self, data: bytes) -> bytes:
        try:
            return self.z.decompress(data)
        except zstandard.ZstdError as e:
            return self._stop(ZstdDamage(str(e)))

    def _step(self) -> bytes:
        return self._frame() if self.z is None else self._block()
