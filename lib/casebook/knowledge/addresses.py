"""pc start / current arithmetic and the verdict on whether the core started where the kernel lives.

Addresses carry tag bits above bit 47 (`pc start: 0x1000124080064000` with `current: 0x124080067d2c`), so
both are masked to 48 bits before they are compared. msaicerr's own method (the last 5 hex digits of each)
is computed alongside, since engineers will compare with its output.
"""
from __future__ import annotations

from dataclasses import dataclass

from .messages import Note

ADDRESS_MASK = (1 << 48) - 1
LOW20_MASK = (1 << 20) - 1

CONSISTENT = "consistent"
PC_CURRENT_MISMATCH = "pc_current_mismatch"
PC_START_SUSPECT = "pc_start_suspect"
CURRENT_SUSPECT = "current_suspect"
UNKNOWN = "unknown"
PC_VERDICTS = (CONSISTENT, PC_CURRENT_MISMATCH, PC_START_SUSPECT, CURRENT_SUSPECT, UNKNOWN)

COLLECT_BINSIZE = Note("collect.bin_size")


def mask48(addr: int) -> int:
    """The address without its tag bits."""
    return addr & ADDRESS_MASK


def hexs(value: int | None) -> str | None:
    """Lowercase hex, `-0x..` for negatives, None stays None."""
    if value is None:
        return None
    return f"-{-value:#x}" if value < 0 else f"{value:#x}"


def offset(pc_start: int, current: int) -> int:
    """current − pc start after masking both to 48 bits (may be negative)."""
    return mask48(current) - mask48(pc_start)


def msaicerr_offset(pc_start: int, current: int) -> int:
    """msaicerr's offset: the low 20 bits (last 5 hex digits) of current minus those of pc start."""
    return (current & LOW20_MASK) - (pc_start & LOW20_MASK)


@dataclass(frozen=True)
class KernelRange:
    """Where one kernel's binary is known to lie on one device: [start, start + size)."""

    start: int
    size: int
    source: str  #: the evidence that places it (file:line and what the line says)

    def contains(self, addr: int) -> bool:
        """Half-open range check on masked addresses."""
        return self.start <= mask48(addr) < self.start + self.size


@dataclass(frozen=True)
class PcVerdict:
    """The pc start / current verdict with its reason in words and what to collect next."""

    verdict: str
    reason: Note
    collect: Note | None = None


def judge(pc_start: int | None, current: int | None, bin_size: int | None,
          known: list[KernelRange] = ()) -> PcVerdict:
    """Judge one fault: is the offset inside the kernel binary, and if not, which address is wrong?

    `known` holds other evidence of where this kernel (same name and tiling key) lives on the same
    device: other reports' pc start or a logged load address.
    """
    if pc_start is None or current is None:
        return PcVerdict(UNKNOWN, Note("pcreason.no_registers"), Note("collect.dump"))
    if not bin_size:
        return PcVerdict(UNKNOWN, Note("pcreason.no_bin_size", offset=hexs(offset(pc_start, current))), COLLECT_BINSIZE)
    off = offset(pc_start, current)
    if 0 <= off < bin_size:
        return PcVerdict(CONSISTENT, Note("pcreason.consistent", offset=hexs(off), bin_size=hexs(bin_size)))
    mismatch = (Note("pcreason.before", offset=hexs(off)) if off < 0
                else Note("pcreason.beyond", offset=hexs(off), bin_size=hexs(bin_size)))
    pc_in = [k for k in known if k.contains(pc_start)]
    cur_in = [k for k in known if k.contains(current)]
    if cur_in and not pc_in:
        return PcVerdict(PC_START_SUSPECT, Note("pcreason.pc_start_suspect", mismatch=mismatch, source=cur_in[0].source))
    if pc_in and not cur_in:
        return PcVerdict(CURRENT_SUSPECT, Note("pcreason.current_suspect", mismatch=mismatch, source=pc_in[0].source))
    return PcVerdict(PC_CURRENT_MISMATCH, Note("pcreason.open", mismatch=mismatch), Note("collect.mismatch"))
