"""pc start / current arithmetic pinned by exact values: the 48-bit mask (tag bits 48-63), half-open ranges at
their edges, msaicerr's 20-bit offset and each branch of the verdict."""
import pytest
from casebook.knowledge import addresses as a
from casebook.knowledge.addresses import KernelRange, hexs, judge, mask48, msaicerr_offset, offset
from casebook.knowledge.messages import Note

BASE = 0x124080064000


@pytest.mark.parametrize("bit", range(48, 64))
def test_every_tag_bit_48_to_63_is_dropped_and_bit_47_is_kept(bit):
    assert mask48(BASE | (1 << bit)) == BASE
    assert mask48(1 << bit) == 0
    assert offset(BASE | (1 << bit), BASE + 0x10) == 0x10
    assert KernelRange(BASE, 0x100, "s").contains((1 << bit) | (BASE + 0xff))


def test_the_mask_is_48_bits_exactly():
    assert a.ADDRESS_MASK == 0xFFFF_FFFF_FFFF
    assert mask48(0xFFFF_FFFF_FFFF_FFFF) == 0xFFFF_FFFF_FFFF
    assert mask48(1 << 47) == 1 << 47
    assert mask48(0x1000124080064000) == 0x124080064000   # the tagged pc start of the gatherv2 collection


def test_hex_spelling():
    assert hexs(None) is None
    assert hexs(0) == "0x0"
    assert hexs(0x3D2C) == "0x3d2c"
    assert hexs(-0x10) == "-0x10"
    assert hexs(-1) == "-0x1"


def test_offsets_masked_and_msaicerrs_low_20_bits():
    assert offset(0x1000124080064000, 0x124080067D2C) == 0x3D2C
    assert offset(BASE + 0x20, BASE) == -0x20
    assert a.LOW20_MASK == 0xFFFFF
    assert msaicerr_offset(0x124080064000, 0x124080067D2C) == 0x3D2C
    # msaicerr reads only the last five hex digits: a carry into the sixth is lost
    assert msaicerr_offset(0x1240800FFFF0, 0x124080100010) == 0x10 - 0xFFFF0
    assert msaicerr_offset(0xAB00000, 0xCD00001) == 1


def test_a_range_is_half_open():
    r = KernelRange(0x1000, 0x100, "x")
    assert not r.contains(0xFFF)
    assert r.contains(0x1000)
    assert r.contains(0x10FF)
    assert not r.contains(0x1100)
    assert not KernelRange(0x1000, 0, "x").contains(0x1000)


def test_without_registers_or_size_the_verdict_is_unknown_with_what_to_collect():
    assert judge(None, BASE, 0x100) == a.PcVerdict(a.UNKNOWN, Note("pcreason.no_registers"), Note("collect.dump"))
    assert judge(BASE, None, 0x100).verdict == a.UNKNOWN
    for size in (None, 0):
        assert judge(BASE, BASE + 0x3D2C, size) == a.PcVerdict(
            a.UNKNOWN, Note("pcreason.no_bin_size", offset="0x3d2c"), a.COLLECT_BINSIZE)
    assert a.COLLECT_BINSIZE == Note("collect.bin_size")


def test_consistent_exactly_inside_the_binary():
    assert judge(BASE, BASE, 0x100) == a.PcVerdict(
        a.CONSISTENT, Note("pcreason.consistent", offset="0x0", bin_size="0x100"))
    assert judge(BASE, BASE + 0xFF, 0x100).verdict == a.CONSISTENT
    # one past the end, and one before the start, are outside
    assert judge(BASE, BASE + 0x100, 0x100) == a.PcVerdict(
        a.PC_CURRENT_MISMATCH, Note("pcreason.open", mismatch=Note("pcreason.beyond", offset="0x100",
                                                                   bin_size="0x100")), Note("collect.mismatch"))
    assert judge(BASE, BASE - 1, 0x100) == a.PcVerdict(
        a.PC_CURRENT_MISMATCH, Note("pcreason.open", mismatch=Note("pcreason.before", offset="-0x1")),
        Note("collect.mismatch"))


def test_known_ranges_say_which_address_is_wrong():
    pc, cur = BASE, BASE + 0x5000
    here = KernelRange(BASE + 0x4000, 0x2000, "plog:7 load address")
    there = KernelRange(BASE, 0x100, "plog:9 other report")
    beyond = Note("pcreason.beyond", offset="0x5000", bin_size="0x100")
    assert judge(pc, cur, 0x100, [here]) == a.PcVerdict(
        a.PC_START_SUSPECT, Note("pcreason.pc_start_suspect", mismatch=beyond, source="plog:7 load address"))
    assert judge(pc, cur, 0x100, [there]) == a.PcVerdict(
        a.CURRENT_SUSPECT, Note("pcreason.current_suspect", mismatch=beyond, source="plog:9 other report"))
    # both in a known range, or neither: the evidence does not say which one is wrong
    for known in ([here, there], [], [KernelRange(0, 0x10, "far")]):
        assert judge(pc, cur, 0x100, known).verdict == a.PC_CURRENT_MISMATCH
    # the first range that holds the address is the one cited
    other = KernelRange(BASE + 0x5000, 0x10, "plog:8")
    assert judge(pc, cur, 0x100, [here, other]).reason.values["source"] == "plog:7 load address"
    assert judge(pc, cur, 0x100, [there, KernelRange(BASE, 0x10, "plog:3")]).reason.values["source"] == \
        "plog:9 other report"
    # a tagged current still lands in its range
    assert judge(pc, cur | (0xF << 60), 0x100, [here]).verdict == a.PC_START_SUSPECT


def test_verdict_names():
    assert a.PC_VERDICTS == ("consistent", "pc_current_mismatch", "pc_start_suspect", "current_suspect", "unknown")
