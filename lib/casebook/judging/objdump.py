"""The faulting instruction: map a fault's offset into the `objdump -d` text of the kernel object.

Input is the text `llvm-objdump -d` / `cce-objdump -d` prints for the kernel's `.o` (with or without
`--line-numbers`): symbol headers `0000000000000000 <name>:` and instruction lines `  3d2c: <bytes> <mnemonic>`.
The offset (current − pc start) is counted from the kernel's symbol when the object holds it, else from
the first instruction. The instruction whose address range holds the offset is marked, with its neighbours.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..evidence.items import AicoreFault
from ..knowledge.addresses import hexs, offset
from ..knowledge.messages import Note

_SYMBOL = re.compile(r"^(?P<addr>[0-9a-fA-F]+) <(?P<name>[^>]+)>:\s*$")
_INSN = re.compile(r"^\s*(?P<addr>[0-9a-fA-F]+):\s+(?P<rest>\S.*)$")
_BYTES = re.compile(r"^(?:[0-9a-fA-F]{2}\s)+\s*")


class ObjdumpError(ValueError):
    """Text that holds no disassembly; the message names the file."""


@dataclass(frozen=True)
class Instruction:
    """One disassembled instruction."""

    address: int
    text: str       #: mnemonic and operands, without the encoding bytes
    line: int       #: line in the objdump text
    symbol: str | None


@dataclass
class Disassembly:
    """The instructions of one objdump text, and where each symbol starts."""

    source: str
    instructions: list[Instruction]
    symbols: dict[str, int]

    def symbol_for(self, *names: str | None) -> str | None:
        """The first symbol whose name contains one of the names (kernel or op name)."""
        for name in filter(None, names):
            for sym in self.symbols:
                if name in sym:
                    return sym
        return None

    def around(self, off: int, symbol: str | None = None, context: int = 3) -> list[str]:
        """The instruction holding `off` (from the symbol's start, or the first instruction) and its neighbours,
        the faulting one marked with `>>`; empty when the offset falls outside the disassembly."""
        base = self.symbols[symbol] if symbol else (self.instructions[0].address if self.instructions else 0)
        target = base + off
        insns = [i for i in self.instructions if symbol is None or i.symbol == symbol]
        hit = None
        for k, ins in enumerate(insns):
            end = insns[k + 1].address if k + 1 < len(insns) else ins.address + 1
            if ins.address <= target < end:
                hit = k
                break
        if hit is None:
            return []
        lo, hi = max(0, hit - context), min(len(insns), hit + context + 1)
        return [f"{'>>' if k == hit else '  '} {insns[k].address:#x}: {insns[k].text}  ({self.source}:{insns[k].line})"
                for k in range(lo, hi)]


def parse(text: str, source: str = "<objdump>") -> Disassembly:
    """The instructions and symbols of an objdump -d text; ObjdumpError if it has none."""
    insns: list[Instruction] = []
    symbols: dict[str, int] = {}
    symbol = None
    for no, line in enumerate(text.splitlines(), start=1):
        if m := _SYMBOL.match(line):
            symbol = m["name"]
            symbols[symbol] = int(m["addr"], 16)
        elif m := _INSN.match(line):
            insns.append(Instruction(int(m["addr"], 16), _BYTES.sub("", m["rest"]).strip(), no, symbol))
    if not insns:
        raise ObjdumpError(f"{source}: no disassembled instructions (expected the output of `objdump -d`)")
    return Disassembly(source, insns, symbols)


def read(path: str | Path) -> Disassembly:
    """Parse an objdump text file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise ObjdumpError(f"{p}: cannot read: {e.strerror}") from e
    return parse(text, p.name)


def annotate(faults: list[AicoreFault], dis: Disassembly) -> None:
    """Fill each fault's `instructions` from the disassembly, matched by kernel or op name when it can be."""
    for n, fault in enumerate(faults):
        if fault.pc_start_raw is None or fault.current_raw is None:
            continue
        symbol = dis.symbol_for(fault.kernel, fault.op)
        if symbol is None and n > 0:
            continue   # without a matching symbol, the object is taken to be the first fault's kernel only
        off = offset(fault.pc_start_raw, fault.current_raw)
        fault.instructions = dis.around(off, symbol)
        where = Note("pcnote.symbol", symbol=symbol) if symbol else Note("pcnote.first_instruction")
        fault.notes.append(Note("pcnote.objdump_marked" if fault.instructions else "pcnote.objdump_outside",
                                offset=hexs(off), where=where, source=dis.source))
