"""Tar archives, plain or compressed (gzip, zstd), read as one forward stream.

The stream is wrapped in decompress.Ending, so a tar cut (or damaged) inside an entry ends cleanly: the
entry keeps every byte before the cut, with a warning, and nothing after it is read. A tar that ends
between entries without its end-of-archive blocks (cut at a block boundary, or inside a header) is listed
as cut after the last entry read. A compressed tar's stream is read on past the tar's end to its own, where
its check is (gzip's CRC-32 and size, zstd's checksum): a byte changed inside an entry's data that still
decodes is named there, on the last entry (held back until then). Links, devices and FIFOs are listed, never
followed or created.
"""
from __future__ import annotations

import tarfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from .decompress import Counting, Ending, damage, reason
from .entries import MEMBER_SEP, DisplayNames, link_refusal, unsafe_name
from .limits import Budget, LimitExceeded
from .spool import CHUNK, Member, Spool


class _UpToCut:
    """An entry's stream that stops where the tar stream's real bytes end (the rest would be Ending's NULs)."""

    def __init__(self, stream, ending: Ending, info: tarfile.TarInfo) -> None:
        self.stream, self.ending, self.info = stream, ending, info
        self.given = 0

    def read(self, n: int = -1) -> bytes:
        data = self.stream.read(n)
        if self.ending.end is not None:
            # a sparse entry's holes are not in the stream, so its bytes cannot be matched to the cut: it stops
            real = 0 if self.info.issparse() else self.ending.end - self.info.offset_data - self.given
            data = data[:max(real, 0)]
        self.given += len(data)
        return data

    @property
    def cut(self) -> bool:
        """Whether the entry stopped short of its size because the stream ended."""
        return _short(self.ending.end, self.given, self.info.size)


def _short(end: int | None, given: int, size: int) -> bool:
    """Whether an entry whose stream ended (at `end`) gave fewer than its `size` bytes."""
    return end is not None and given < size


def members(path: Path, display: str, spool: Spool, budget: Budget,
            unpack: Callable[[BinaryIO], BinaryIO] | None = None) -> Iterator[Member]:
    """Entries of a tar (compressed when `unpack`, decompress.Gunzip or unzstd.Unzstd, is given), in archive
    order, up to any damage."""
    with open(path, "rb") as rawfh:
        counted = Counting(rawfh)
        with budget.layer(display, lambda: counted.consumed):
            stream = unpack(counted) if unpack is not None else None
            yield from _entries(Ending(stream or counted), display, spool, budget, stream)


def _entries(ending: Ending, display: str, spool: Spool, budget: Budget, unpacked=None) -> Iterator[Member]:
    try:
        tar = tarfile.open(fileobj=ending, mode="r|")
    except (tarfile.TarError, EOFError) as e:
        yield Member(display, refused=f"not a readable tar archive ({reason(ending.error or e)})")
        return
    count = 0
    names = DisplayNames(display)
    held: Member | None = None   # the entry read last, given out once the next header (or the end) is read
    try:
        for info in tar:
            if held is not None:
                yield held
                held = None
            count += 1
            if count > budget.limits.max_members:
                yield Member(display, refused=f"refused: more than {budget.limits.max_members} entries")
                return
            if info.isdir():
                continue
            shown = names(info.name)
            why = unsafe_name(info.name) or _type_refusal(info)
            if why:
                yield Member(shown, refused=why)
                continue
            stream = _UpToCut(tar.extractfile(info), ending, info)
            m = spool.copy(stream, shown, lambda n, done: budget.spend(n, shown))
            if stream.cut:
                m.warnings.append(f"{shown}: damaged or truncated archive inside this entry{_why(ending)}; "
                                  f"read up to the damage ({m.size} of {info.size} bytes)")
            if stream.cut or m.warnings:
                yield m
                return   # a damaged stream cannot be followed past the damage
            held = m
    except (tarfile.TarError, EOFError) as e:
        ending.error = ending.error or e   # a header cut or damaged (EOFError: Ending's padding ran out)
        ending.end = ending.pos if ending.end is None else ending.end
    if unpacked is not None and ending.end is None:
        try:
            damage = _to_its_end(unpacked, display, budget)
        except LimitExceeded:
            if held is not None:
                yield held   # read before the limit was passed: it stays read
            raise
        if damage is not None:
            note = (f"{display}: damaged compressed data ({reason(damage)}), found after the tar's end: the bytes "
                    f"of its {count} entries may not be the ones packed; they were read as they decoded")
            if held is None:
                yield Member(f"{display}{MEMBER_SEP}(after entry {count})", refused=note)
            else:
                held.warnings.append(note)
    if held is not None:
        yield held
    if ending.end is not None:
        why = _why(ending) or " (it ends without its end-of-archive blocks)"
        yield Member(f"{display}{MEMBER_SEP}(after entry {count})",
                     refused=f"archive cut or damaged after entry {count}{why}; entries before it were read")


def _to_its_end(unpacked, display: str, budget: Budget) -> BaseException | None:
    """Read a compressed stream on from the tar's end to its own, so that its check is made; the damage found
    there, or None. What comes out counts against the limits (a bomb may hide after the tar)."""
    try:
        while chunk := unpacked.read(CHUNK):
            budget.spend(len(chunk), display)
    except damage() as e:
        return e
    return None


def _why(ending: Ending) -> str:
    return f" ({reason(ending.error)})" if ending.error is not None else ""


def _type_refusal(info: tarfile.TarInfo) -> str | None:
    """Why a tar entry that is not a regular file is refused (links, devices, FIFOs)."""
    if info.issym() or info.islnk():
        return link_refusal("symlink" if info.issym() else "hardlink", info.name, info.linkname)
    if info.ischr() or info.isblk():
        return "refused: device file"
    if info.isfifo():
        return "refused: FIFO"
    if not info.isreg():
        return f"refused: not a regular file (tar type {info.type!r})"
    return None
