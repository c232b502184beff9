"""AI Core error-bit decoding pinned by exact values: words, masks, the 950 bit lists, numbers and meanings."""
from casebook.knowledge import errcode
from casebook.knowledge.errcode import (decode_bit_list, decode_error_code, decode_triple, meaning, parse_bit_list,
                                        parse_int)


def test_numbers_in_hex_or_decimal_any_case_of_prefix():
    assert parse_int("0x8000") == 0x8000
    assert parse_int("0X10") == 16
    assert parse_int(" 0x1f ") == 31
    assert parse_int("16") == 16
    assert parse_int("010") == 10


def test_the_single_register_is_the_a_word():
    assert [(b.index, b.word, b.bit, b.mask, b.name) for b in decode_error_code(0x8010)] == [
        (4, "a", 4, 0x10, "CCU_ILLEGAL_INSTR"), (15, "a", 15, 0x8000, "CUBE_L0B_WRAP_AROUND")]
    assert decode_error_code(0) == []


def test_each_word_of_the_triple_has_its_own_bits():
    assert [(b.index, b.name) for b in decode_triple(0, 1, 1)] == [(64, "CCU_SBUF_ECC"), (128, "MTE_TIMEOUT")]
    assert [b.index for b in decode_triple(0x10, 0x10, 0)] == [4, 68]
    table = errcode.bit_table()
    assert len(table) == 176 and [b.index for b in table] == list(range(176))
    assert (table[-1].word, table[-1].bit, table[-1].mask) == ("c", 62, 1 << 62)


def test_950_bit_lists():
    assert parse_bit_list("3, 79") == [3, 79]
    assert parse_bit_list("3 79") == [3, 79]
    assert parse_bit_list("1" * 18 + " 5") == [int("1" * 18), 5]
    assert parse_bit_list("1" * 19 + " 5") == [5]
    assert decode_bit_list([3, 79, 9999]) == [(3, None), (79, "MTE_ATM_ADD_ADDR_MISALIGN"), (9999, None)]


def test_meanings_from_our_sentences_or_spelled_from_unit_and_condition():
    assert meaning("CCU_ILLEGAL_INSTR").startswith("The scalar unit met an instruction it cannot execute;")
    assert meaning("VEC_DIV_BY_ZERO_X") == "vector unit: division by zero."
    assert meaning("CCU_FOO_DIV0") == "scalar unit (CCU): division by zero."
    assert meaning("ZZZ_NOTHING") == "AI Core error (ZZZ_NOTHING)."
    assert decode_error_code(0x10)[0].meaning == meaning("CCU_ILLEGAL_INSTR")


def test_the_tables_are_read_again_after_their_cache_is_cleared():
    # the loaders are cached per process: cleared here, the first call reads the packaged tables again
    for loader in (errcode.bit_table, errcode.david_table, errcode._meanings, errcode._parts):
        loader.cache_clear()
    assert (errcode.bit_table()[79].index, errcode.bit_table()[79].name) == (79, "CCU_BUS_ERR")
    assert errcode.david_table()[79] == "MTE_ATM_ADD_ADDR_MISALIGN"
    assert meaning("VEC_DIV_BY_ZERO_X") == "vector unit: division by zero."
    assert errcode._read_tsv("data/no-such-table.tsv") == []
