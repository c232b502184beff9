"""Facts as the engineer answers them, and operator names read from kernel names, by exact values."""
import pytest
from casebook.knowledge.kernels import op_of
from casebook.knowledge.vocabulary import FACTS, FactError, normalize, parse_assignments


@pytest.mark.parametrize("kernel,op", [
    ("2_0_11_GatherV2", "GatherV2"), ("FlashAttentionScoreGrad_8ac1e3b7d5f0a2c4_high_performance_1", "FlashAttentionScoreGrad"),
    ("16805736118314619649-1_0_1_Add_35", "Add"), ("MatMulV3_mix_aic", "MatMulV3"), ("te_fused_Mul_3", "fused"),
    ("Cast_mix_aiv_mix_aiv", "Cast"), ("12_34", None), ("", None), ("tensor_Relu", "Relu")])
def test_the_operator_inside_a_kernel_name(kernel, op):
    assert op_of(kernel) == op


@pytest.mark.parametrize("raw,value", [(True, True), (False, False), (" Yes ", True), ("y", True), ("1", True),
                                       ("是", True), ("对", True), ("NO", False), ("n", False), ("0", False),
                                       ("否", False), ("不是", False)])
def test_yes_and_no_in_both_languages(raw, value):
    assert normalize("single_process_multi_device", raw) is value


def test_choices_are_checked_and_unset_is_spelled_one_way():
    assert normalize("TASK_QUEUE_ENABLE", " 2 ") == "2"
    assert normalize("TASK_QUEUE_ENABLE", "UNSET") == "unset"
    with pytest.raises(FactError, match=r"TASK_QUEUE_ENABLE takes one of 0, 1, 2, unset, not '3'"):
        normalize("TASK_QUEUE_ENABLE", "3")
    with pytest.raises(FactError, match=r"single_process_multi_device takes yes/no, not 'maybe'"):
        normalize("single_process_multi_device", "maybe")
    with pytest.raises(FactError) as unknown:
        normalize("NOPE", "1")
    assert str(unknown.value) == f"unknown fact 'NOPE'; known: {', '.join(FACTS)}"


def test_command_line_assignments():
    assert parse_assignments([" TASK_QUEUE_ENABLE = 1", "single_process_multi_device=yes"]) == {
        "TASK_QUEUE_ENABLE": "1", "single_process_multi_device": True}
    assert parse_assignments([]) == {}
    with pytest.raises(FactError, match=r"--fact takes NAME=VALUE, not 'TASK_QUEUE_ENABLE'"):
        parse_assignments(["TASK_QUEUE_ENABLE"])


def test_free_text_values_keep_their_case_and_may_hold_an_equals_sign():
    assert normalize("torch_npu_version", " 2.1.0RC1 ") == "2.1.0RC1"
    assert parse_assignments(["torch_npu_version=2.1=post1"]) == {"torch_npu_version": "2.1=post1"}
    assert op_of("A1_Add") == "A1"   # a token that starts with a letter is the op, whatever follows
