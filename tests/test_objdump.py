"""The faulting instruction from `objdump -d` text, and `casebook triage --objdump`."""
import json

import pytest
from casebook.cli import main
from casebook.evidence.items import AicoreFault
from casebook.judging import objdump

DUMP = """
gather.o:     file format elf64-hiipu

Disassembly of section .text:

0000000000000000 <te_gatherv2d_1a2b__kernel0>:
       0: 00 00 00 01   MOV X0, #0
    3d24: 00 00 00 02   LD X1, [X2]
    3d28: 00 00 00 03   ADD X1, X1, #4
    3d2c: 00 00 00 04   ST X1, [X3]
    3d30: 00 00 00 05   RET
"""


def test_the_instruction_at_the_offset_is_marked_with_neighbours():
    dis = objdump.parse(DUMP, "gather.txt")
    sym = dis.symbol_for("2_0_11_GatherV2", "gatherv2d")
    assert sym == "te_gatherv2d_1a2b__kernel0"
    got = dis.around(0x3D2C, sym, context=1)
    assert got == ["   0x3d28: ADD X1, X1, #4  (gather.txt:9)", ">> 0x3d2c: ST X1, [X3]  (gather.txt:10)",
                   "   0x3d30: RET  (gather.txt:11)"]
    assert dis.around(0x3D2E, sym, context=0) == [">> 0x3d2c: ST X1, [X3]  (gather.txt:10)"]
    assert dis.around(0x9000, sym) == []


def test_annotate_fills_the_fault():
    f = AicoreFault(file="p", line=1, time=None, node=None, pid=1, device=0, serial=1, cores=[0], wording="x",
                    pc_start_raw=0x1000124080064000, current_raw=0x124080067D2C, error_code=0x10, op="GatherV2")
    objdump.annotate([f], objdump.parse(DUMP, "gather.txt"))
    assert f.instructions[3].startswith(">> 0x3d2c") and "first instruction" in f.notes[0]


def test_text_without_instructions_is_refused_with_its_name():
    with pytest.raises(objdump.ObjdumpError, match="notes.txt: no disassembled instructions"):
        objdump.parse("hello\n", "notes.txt")


def test_cli_objdump_option(corpus, tmp_path, capsys):
    path = tmp_path / "gather.txt"
    path.write_text(DUMP, encoding="utf-8")
    assert main(["triage", str(corpus / "aicore-gatherv2-asys"), "--json", "--objdump", str(path)]) == 0
    (fault,) = json.loads(capsys.readouterr().out)["aicore_faults"]
    assert any(i.startswith(">> 0x3d2c: ST X1, [X3]") for i in fault["instructions"])
    bad = tmp_path / "bad.txt"
    bad.write_text("nothing here\n", encoding="utf-8")
    assert main(["triage", str(corpus / "aicore-gatherv2-asys"), "--objdump", str(bad)]) == 2
    assert "bad.txt: no disassembled instructions" in capsys.readouterr().err


def fault(**values) -> AicoreFault:
    base = dict(file="p", line=1, time=None, node=None, pid=1, device=0, serial=1, cores=[0], wording="x",
                pc_start_raw=0x1000124080064000, current_raw=0x124080067D2C, error_code=0x10)
    return AicoreFault(**{**base, **values})


def test_annotate_by_symbol_skips_what_it_cannot_place():
    dis = objdump.parse(DUMP, "gather.txt")
    named, other, bare, far = (fault(kernel="te_gatherv2d_1a2b", op="GatherV2"), fault(op="Other"),
                               fault(current_raw=None), fault(kernel="gatherv2d", current_raw=0x124080069000))
    objdump.annotate([named, other, bare, far], dis)
    assert named.instructions == [
        "   0x0: MOV X0, #0  (gather.txt:7)", "   0x3d24: LD X1, [X2]  (gather.txt:8)",
        "   0x3d28: ADD X1, X1, #4  (gather.txt:9)", ">> 0x3d2c: ST X1, [X3]  (gather.txt:10)",
        "   0x3d30: RET  (gather.txt:11)"]
    assert named.notes == ["Offset 0x3d2c from symbol te_gatherv2d_1a2b__kernel0 in gather.txt: the faulting "
                           "instruction is marked."]
    # a later fault with no matching symbol, and a fault without registers, are left alone
    assert (other.instructions, other.notes, bare.instructions, bare.notes) == ([], [], [], [])
    assert far.instructions == [] and far.notes == [
        "Offset 0x5000 from symbol te_gatherv2d_1a2b__kernel0 falls outside gather.txt: this object may not be the "
        "faulting kernel's."]
    first = fault(op="Other")
    objdump.annotate([first], dis)
    assert first.instructions == named.instructions and first.notes == [
        "Offset 0x3d2c from the first instruction (no symbol matches the kernel name) in gather.txt: the faulting "
        "instruction is marked."]


def test_symbols_and_instructions_are_read_with_their_lines(tmp_path):
    dis = objdump.parse(DUMP + "\n0000000000004000 <other_kernel>:\n    4000: 00 00 00 06   NOP\n", "g.txt")
    assert dis.symbols == {"te_gatherv2d_1a2b__kernel0": 0, "other_kernel": 0x4000}
    assert [(i.address, i.text, i.line, i.symbol) for i in dis.instructions][-2:] == [
        (0x3D30, "RET", 11, "te_gatherv2d_1a2b__kernel0"), (0x4000, "NOP", 14, "other_kernel")]
    assert dis.symbol_for(None, "", "other") == "other_kernel" and dis.symbol_for("nothing") is None
    assert dis.around(0, "other_kernel", context=5) == [">> 0x4000: NOP  (g.txt:14)"]
    assert dis.around(1, "other_kernel") == []
    path = tmp_path / "g.txt"
    path.write_bytes(DUMP.encode() + b"\xff\n")
    assert objdump.read(path).source == "g.txt" and len(objdump.read(path).instructions) == 5
    with pytest.raises(objdump.ObjdumpError, match=r"missing.txt: cannot read: No such file or directory"):
        objdump.read(tmp_path / "missing.txt")


def test_the_default_context_the_base_without_a_symbol_and_instructions_before_any_symbol():
    dis = objdump.parse(DUMP, "gather.txt")
    sym = "te_gatherv2d_1a2b__kernel0"
    assert [line[:9] for line in dis.around(0, sym)] == [">> 0x0: M", "   0x3d24", "   0x3d28", "   0x3d2c"]
    # no symbol header: the offset counts from the first instruction, wherever it lies
    loose = objdump.parse("    4000: 00 00 00 06   NOP\n    4004: 00 00 00 07   RET\n")
    assert [i.symbol for i in loose.instructions] == [None, None] and loose.symbols == {}
    assert loose.around(4) == ["   0x4000: NOP  (<objdump>:1)", ">> 0x4004: RET  (<objdump>:2)"]
    assert objdump.Disassembly("made", [], {}).around(0) == []
    with pytest.raises(objdump.ObjdumpError, match="^<objdump>: no disassembled instructions"):
        objdump.parse("hello\n")


def test_annotate_places_a_fault_by_its_op_and_counts_from_that_symbol():
    dis = objdump.parse(DUMP + "\n0000000000004000 <other_kernel>:\n    4000: 00 00 00 06   NOP\n", "g.txt")
    first, no_start = fault(op="GatherV2"), fault(pc_start_raw=None)
    by_op = fault(kernel="nowhere", op="other_kernel", current_raw=0x124080064000)
    objdump.annotate([first, by_op, no_start], dis)
    # the second fault is placed by its op alone; its offset 0 is the other kernel's first instruction
    assert by_op.instructions == [">> 0x4000: NOP  (g.txt:14)"]
    assert (no_start.instructions, no_start.notes) == ([], [])
