"""Tar archives, plain or gzip-compressed, read as one forward stream.

The stream is wrapped in decompress.Ending, so a tar cut (or damaged) inside an entry ends cleanly: the
entry keeps every byte before the cut, with a warning, and nothing after it is read. A tar that ends
between entries without its end-of-archive blocks (cut at a block boundary, or inside a header) is listed
as cut after the last entry read. Links, devices and FIFOs are listed, never followed or created.
"""
from __future__ import annotations

import tarfile
from pathlib import Path
from typing import Iterator

from .decompress import Counting, Ending, Gunzip, reason
from .entries import MEMBER_SEP, DisplayNames, link_refusal, unsafe_name
from .limits import Budget
from .spool import Member, Spool


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
        return self.ending.end is not None and self.given < self.info.size


def members(path: Path, display: str, spool: Spool, budget: Budget, compressed: bool) -> Iterator[Member]:
    """Entries of a tar (gzip-compressed when `compressed`), in archive order, up to any damage."""
    with open(path, "rb") as rawfh:
        counted = Counting(rawfh)
        with budget.layer(display, lambda: counted.consumed):
            yield from _entries(Ending(Gunzip(counted) if compressed else counted), display, spool, budget)


def _entries(ending: Ending, display: str, spool: Spool, budget: Budget) -> Iterator[Member]:
    try:
        tar = tarfile.open(fileobj=ending, mode="r|")
    except (tarfile.TarError, EOFError) as e:
        yield Member(display, refused=f"not a readable tar archive ({reason(ending.error or e)})")
        return
    count = 0
    names = DisplayNames(display)
    try:
        for info in tar:
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
            yield m
            if stream.cut or m.warnings:
                return   # a damaged stream cannot be followed past the damage
    except (tarfile.TarError, EOFError) as e:
        ending.error = ending.error or e   # a header cut or damaged (EOFError: Ending's padding ran out)
        ending.end = ending.pos if ending.end is None else ending.end
    if ending.end is not None:
        why = _why(ending) or " (it ends without its end-of-archive blocks)"
        yield Member(f"{display}{MEMBER_SEP}(after entry {count})",
                     refused=f"archive cut or damaged after entry {count}{why}; entries before it were read")


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
