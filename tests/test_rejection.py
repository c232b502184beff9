"""The op's own complaint: each wording the op layer prints, read into op, aspect, parameter, value and allowed
values, and the cause it points to. Lines follow the public forms (vllm-project/vllm-ascend issues 1736, 2925 and
6490; the op API checks of hicann/opbase) with new pids and times."""
import pytest
from casebook.evidence.rejection import extract, read_line
from casebook.judging.triage import triage
from casebook.knowledge.kb import load_kb
from casebook.reading.plog import read_plog
from conftest import write_log

KB = load_kb()

#: (line, aspect, param, value, allowed)
FORMS = [
    ("AclNN_Parameter_Error(EZ1001): Tensor self not implemented for DT_INT8, should be in dtype support list "
     "[DT_INT32,DT_FLOAT16,DT_FLOAT,DT_INT64,DT_BOOL,DT_BFLOAT16,].",
     "dtype", "self", "DT_INT8", ("DT_INT32", "DT_FLOAT16", "DT_FLOAT", "DT_INT64", "DT_BOOL", "DT_BFLOAT16")),
    ("EZ1001: [PID: 4410] 2026-03-02-10:11:12.101.202 promote dtype DT_BFLOAT16 should be in dtype support list "
     "[DT_FLOAT16,DT_FLOAT,].", "dtype", "promote", "DT_BFLOAT16", ("DT_FLOAT16", "DT_FLOAT")),
    ("call aclnnQuantMatmulWeightNz failed, detail:EZ1001: [PID: 5121] 2026-03-02-10:11:12.101.202 When scale dtype "
     "is bfloat16, out dtype should also be bfloat16 but it is DT_INT32", "dtype", "out", "DT_INT32", ("bfloat16",)),
    ("AclNN_Parameter_Error(EZ1001): Io input dtype or format is not supported, get io input info is x(DT_BFLOAT16, "
     "ND) gamma(DT_BFLOAT16, ND) yOut(DT_BFLOAT16, ND) rstdOut(DT_FLOAT, ND) but supported list is:",
     "dtype_or_format", None, "x(DT_BFLOAT16, ND) gamma(DT_BFLOAT16, ND) yOut(DT_BFLOAT16, ND) rstdOut(DT_FLOAT, ND)",
     ()),
    ("EZ1001: Expected dtype of query to be float16 or bfloat16, but got float32.", "dtype", "query", "float32",
     ("float16", "bfloat16")),
    ("## nn.upsample_trilinear3d is not implemented for DT_BFLOAT16", "dtype", "nn.upsample_trilinear3d", "DT_BFLOAT16",
     ()),
    # the op API base's checks that every aclnn op shares: one dtype required, a result cast to its output
    ("[PID: 18973] 2026-07-22-09:27:34.971.824 AclNN_Parameter_Error(EZ1001): Tensor selfRef expected dtype is DT_FLOAT "
     "but found DT_BFLOAT16", "dtype", "selfRef", "DT_BFLOAT16", ("DT_FLOAT",)),
    ("AclNN_Parameter_Error(EZ1001): Result type DT_FLOAT can't be cast to the desired output type DT_INT32.", "dtype",
     None, "DT_FLOAT", ("DT_INT32",)),
    ("E89999: [PID: 7312] 2026-03-02-10:11:12.101.202 op[QuantBatchMatmulV3], this platform only support output "
     "transpose_x1 false and transpose_x2 true, actual [false, false][FUNC:AnalyzeAttrs][FILE:quant_batch_matmul_v3_"
     "tiling.cc][LINE:403]", "platform", None, "false, false", ("output transpose_x1 false", "transpose_x2 true")),
    ("actualSeqQLen must not be null when input_layout is TND.[FUNC:CheckInputLayout][FILE:fa_tiling.cpp][LINE:742]",
     "layout", "actualSeqQLen", "TND", ("not be null",)),
    ("EZ9999: [PID: 881] 2026-03-02-10:11:12.101.202 get unsupported atten_mask shape, the shape is [16, 1, 1, 1500]",
     "shape", "atten_mask", "the shape is [16, 1, 1, 1500]", ()),
    ("EZ1001: head dim 512 is not support, only support 64, 128, 192 and 256.", "shape", "head dim", "512",
     ("64", "128", "192", "256")),
    ("E89999: input x format NZ is not supported", "format", "x", "NZ", ()),
    ("AclNN_Parameter_Error(EZ1001): Input tensor's shape[[1]] should be same with output's shape[[3950, 512]].",
     "shape", "tensor", "[1]", ("be same with output's shape[[3950, 512]]",)),
    ("call aclnnCat failed, detail:EZ1001: 2026-03-02-10:11:12.101.202 dimnum of tensor 5 is [1], should be equal to "
     "tensor 0 [2].", "shape", "dimnum", "1", ("equal to tensor 0 [2]",)),
    ("EZ1001: renorm is 1, but should be 0 when normType is softmax.", "attribute", "renorm", "1",
     ("0 when normType is softmax",)),
    # the TBE ops' error manager (E80000, E70002, E70003 and their kin), as MindSpore prints it
    ("RuntimeError: ({'errCode': 'E80000', 'op_name': 'strided_slice_grad_d', 'param_name': 'strides[0]', "
     "'excepted_value': '1', 'real_value': '2'}, 'In op[strided_slice_grad_d], the parameter[strides[0]] should be , "
     "but actually is [2].')", "attribute", "strides[0]", "2", ()),
    ("In op[conv2d], the dtype of input[x] should be one of [float16, float32], but actually is [int8].", "dtype", "x",
     "int8", ("float16", "float32")),
    ("In op[roi_align], the parameter[rois]'s dtype should be one of [float16, float32], but actually is [int32].",
     "dtype", "rois", "int32", ("float16", "float32")),
    ("In op[avg_pool], the format of input[x] should be one of [NCHW, NHWC], but actually is [ND].", "format", "x", "ND",
     ("NCHW", "NHWC")),
    ("In op[max_pool], the num of dimensions of input[ksize] should be in the range of [4, 4], but actually is [3].",
     "shape", "ksize", "3", ("in the range of [4, 4]",)),
    ("AclNN_Parameter_Error(EZ1001): The formats of self and mat1 should be ND and ND, but the actual formats are "
     "[FRACTAL_NZ] and [FRACTAL_NZ]", "format", "self and mat1", "FRACTAL_NZ and FRACTAL_NZ", ("ND", "ND")),
    ("aclnnMoeGatingTopK failed: renorm is: 1, but currently only support 0", "attribute", "renorm", "1", ("0",)),
    ("NotImplementedError: (Unimplemented) npu npu only support mode=constant right now,but received mode is reflect .",
     "attribute", "mode", "reflect", ("constant",)),
    ('[Hint: Expected axis == 0, but received axis:2 != 0:0.] (at /opt/backends/npu/kernels/concat_kernel.cc:88)',
     "attribute", "axis", "2", ("0",)),
    # the E80012 form without the op's name, on an input or output
    ("RuntimeError: ({'errCode': 'E80012', 'op_name': 'reduce_sum_d', 'param_name': 'x', 'min_value': 0, 'max_value': "
     "8, 'real_value': 9}, 'In op, the num of dimensions of input/output[x] should be in the range of [0, 8], but "
     "actually is [9].')", "shape", "x", "9", ("in the range of [0, 8]",)),
    # the layout as the condition of a size check: the sizes are what is refused
    ("E89999: When layout is TND, queryD(96), keyD(96) and valueD(96) must be same equal 192/128/64."
     "[FUNC:CheckInputShapeWhenLayoutIsTND][FILE:prompt_flash_attention_tiling.cpp][LINE:3650]", "shape",
     "queryD(96), keyD(96) and valueD(96)", None, ("be same equal 192", "128", "64")),
    # a dtype refused by its name, as frameworks and the newer aclnn checks print it
    ("ValueError: ChunkGatedDeltaRuleFunction does not support float32", "dtype", "ChunkGatedDeltaRuleFunction",
     "float32", ()),
    ("AclNN_Parameter_Error(EZ1001): Invalid x1 or x2 dtype. When x1Scale and x2Scale are FLOAT8_E8M0, the dtype of x1 "
     "and x2 must be FLOAT4_E2M1 or FLOAT8. Actual x1 dtype: FLOAT8_E4M3, x2 dtype: FLOAT4_E2M1.", "dtype", "x1 or x2",
     "FLOAT8_E4M3", ()),
    # a size given as a tuple is the size itself; a list of allowed values may hold a range of its own
    ("AclNN_Parameter_Error(EZ1001): x's shape (8,16,3) is invalid, should be 2D.", "shape", "x", "8,16,3",
     ("should be 2D",)),
    ("EZ1001: groupNum is 3, but should be in [1, 2], 4 or 8.", "attribute", "groupNum", "3", ("in [1, 2]", "4", "8")),
    # an ATB operation's parameter check (capture 454) and the runtime's check of a launch parameter (capture 321)
    ("RopeOperation_0 Wrong rotaryCoeff: 128", "attribute", "rotaryCoeff", "128", ()),
    ("KernelLaunch failed because value 74688 for parameter coreDim is invalid. Expected value: less than or equal to "
     "65535.", "attribute", "coreDim", "74688", ("less than or equal to 65535",)),
    # the chip's refusal of what the op was asked to do, read before any shape form (capture 1212)
    ("EZ3002: Optype [Conv2D] of Ops kernel [AIcoreEngine] is unsupported. Reason: Dynamic shape is not supported on "
     "this chip!.", "platform", None, None, ()),
    ("RuntimeError: \"lerp_kernel_scalar\" not implemented for 'Half'", "dtype", None, "Half", ()),
    ("RuntimeError: \"addmm_impl_cpu_\" not implemented for 'BFloat16'", "dtype", None, "BFloat16", ()),
    ("Wrong number of arguments", None, None, None, ()),
    ("RuntimeError: Backend not supported!", None, None, None, ()),
    ("Tiling failed", "call", None, None, ()),
    ("launch failed for FlashAttentionScore, errno:561103.", None, None, None, ()),
    # a parameter's allowed values under the values of others (vllm-project/vllm-ascend issue 3588)
    ("AclNN_Parameter_Error(EZ1001): when weight's dtype is [int4], weight's format is [FRACTAL_NZ], "
     "antiquantGroupSize should be 128 or 64,", "attribute", "antiquantGroupSize", None, ("128", "64")),
    # an optional input another parameter makes required (capture 1718, rtp-llm's notes on the fused attention)
    ("When sparse_mode is 3, it not 0, atten_mask should not be null", "attribute", "atten_mask", "null", ()),
    # MindSpore's check of two inputs whose shapes must broadcast (mindspore-ai/models, Transformer's FAQ)
    ("For 'Add', x.shape and y.shape need to broadcast.", "shape", "x.shape and y.shape", None, ()),
    # ops-nn's check of one parameter (hicann/ops-nn, BatchNormV3), torch_npu's refusal of a dtype by torch's name
    # (EasyR1's NPU notes) and a size from a set the op names (vllm-ascend's FAQ)
    ("Parameter x of has incorrect format ND. It should be NCHW or NCDHW.", "format", "x", "ND", ("NCHW", "NCDHW")),
    ("Parameter x of BatchNormV3 has incorrect dtype DT_INT8. It should be DT_FLOAT16 or DT_FLOAT.", "dtype", "x",
     "DT_INT8", ("DT_FLOAT16", "DT_FLOAT")),
    ("RuntimeError: Float8_e4m3fn has not been supported", "dtype", None, "Float8_e4m3fn", ()),
    ("EZ9999: numHeads / numKvHeads = 8, MLA only support {32, 64, 128}.[FUNC:CheckMlaAttrs]", "shape",
     "numHeads / numKvHeads", "8", ("32", "64", "128")),
    # the graph engine that cannot convert a private format to the one an op takes (PaddleCustomDevice PR 380)
    ("[GraphOpt][Trans][InsertTransByConcec] We do not support trans from NC1HWC0 to ND between Transpose_in_0 and "
     "Transpose.", "format", None, "NC1HWC0", ("ND",)),
    # a bound an op states for one input, with the value it got where it prints it (flash-linear-attention-npu's
    # wrapper; vllm-ascend's sgmv_expand)
    ("RuntimeError: npu_chunk_gated_delta_rule_bwd_dhu: h0 must be [B,Hv,chunk_num,K,V]; h0=[7, 1, 128, 20] "
     "chunk_num=1", "bound", "h0", "7, 1, 128, 20", ("B", "Hv", "chunk_num", "K", "V")),
    ("RuntimeError: hidden in should be smaller than hidden out", "bound", "hidden in", None,
     ("smaller than hidden out",)),
    # an aclnn check that lists the values it takes (hicann/ops-math's KlDiv reduction check)
    ("[aclnn_kl_div.cpp:119][NNOP][CheckReduction][2915530] errno[161002] OpName:[aclnnKlDiv_7] Invalid reduction "
     "value: 100. Allowed values are 0 (None), 1 (Mean), 2 (Sum), 3 (Batchmean).", "attribute", "reduction", "100",
     ("0 (None)", "1 (Mean)", "2 (Sum)", "3 (Batchmean)")),
    # the tiling's refusal in the launcher's words and in the tiling's own (hicann/ops-nn, Softsign and
    # INTrainingReduceV2 on Ascend 950)
    ("Failed to execute operator Softsign_0. Reason: Failed to execute tiling function.", "call", None, None, ()),
    ("EZ9999: sub-R tiling requires N, C, R and N*C to fit in uint32: N=1 C=1 R=4294967296.", "call", None, None, ()),
    # a collective's entry point that names the types it refuses after its own name (torch_npu's HCCL process group)
    ("RuntimeError: HCCL AllReduce & Reduce: Unsupported data type at::kByte/at::kBool", "dtype",
     "HCCL AllReduce & Reduce", "at::kByte/at::kBool", ()),
    # the graph engine's check of a node's input against the op's shape inference (E50002, hicann/cannbot-skills'
    # fusion-pass notes)
    ("Not_Supported_Format(E50002): The format of input [x] of [Conv2D_2] op needs to be [NCHW or NHWC], but incoming "
     "format is [ND]", "format", "x", "ND", ("NCHW", "NHWC")),
    ("The dtype of input [x] of [Cast_3] op needs to be [DT_FLOAT16], but incoming dtype is [DT_INT64]", "dtype", "x",
     "DT_INT64", ("DT_FLOAT16",)),
    # ... and a generator's refusal of a combination, which names no type: not an op's complaint
    ("validation failed before codegen: unsupported dtype combination:", None, None, None, ()),
]


@pytest.mark.parametrize("text,aspect,param,value,allowed", FORMS, ids=[f[0][:40] for f in FORMS])
def test_each_wording_is_read_into_its_parts(text, aspect, param, value, allowed):
    found = read_line(text)
    if aspect is None:
        assert found is None
        return
    got, m = found
    groups = m.groupdict()
    from casebook.evidence.rejection import _allowed, _aspect, _clean
    assert (_aspect(got, groups), _clean(groups.get("param")), _clean(groups.get("value")), _allowed(groups.get("allowed"))) == \
           (aspect, param, value, allowed)


def test_the_op_comes_from_the_call_line_before_the_complaint(tmp_path):
    path = write_log(tmp_path, "console.log", "\n".join([
        "Traceback (most recent call last):",
        "RuntimeError: call aclnnRmsNorm failed, detail:EZ1001: [PID: 301] 2026-03-02-10:11:12.101.202",
        "AclNN_Parameter_Error(EZ1001): Io input dtype or format is not supported, get io input info is "
        "x(DT_BFLOAT16, ND) but supported list is:",
    ]) + "\n")
    (r,) = extract(read_plog(path))
    assert (r.op, r.aspect, r.line) == ("aclnnRmsNorm", "dtype_or_format", 3)
    assert r.said() == "aclnnRmsNorm rejects dtype or format x(DT_BFLOAT16, ND)"


def test_a_complaint_under_its_error_managers_title_is_read_across_the_lines_of_the_message(tmp_path):
    # torch_npu's reprint puts the message on the lines under `AclNN_Parameter_Error(EZ1001):` (pytorch/pytorch, an
    # aclnnIndexPutImpl call refused for DT_COMPLEX64): the complaint is the message's two lines, its op the call's
    path = write_log(tmp_path, "console.log", "\n".join([
        "RuntimeError: _index_put_impl_:IndexPutKernelNpuOpApi.cpp:82",
        "    call aclnnIndexPutImpl failed, error code is 161002",
        "AclNN_Parameter_Error(EZ1001):",
        "    Tensor self not implemented for DT_COMPLEX64,",
        "    should be in dtype support list [DT_FLOAT, DT_INT32, DT_INT64, ...]",
    ]) + "\n")
    call, r = extract(read_plog(path))
    assert (call.aspect, call.line) == ("call", 2)   # the call's own 161002: a parameter error that names nothing yet
    assert (r.op, r.aspect, r.param, r.value, r.line) == ("aclnnIndexPutImpl", "dtype", "self", "DT_COMPLEX64", 4)
    assert r.allowed == ("DT_FLOAT", "DT_INT32", "DT_INT64")


def test_the_op_is_named_by_the_failing_calls_lines_not_by_another_ops_info_line(tmp_path):
    # an op's INFO tiling report stands just before the complaint; the call that failed is named under it, as the op
    # API prints `aclnnXGetWorkspaceSize call failed` (the forms of the RmsNorm sample of op-rejects-dtype)
    hdr = "[{lvl}] OP(61193,python):2026-08-01-09:13:{s:02d}.040.757 [op_api_common.cpp:521][OP][61356]"
    path = write_log(tmp_path, "plog-61193_20260801091240367.log", "".join([
        hdr.format(lvl="INFO", s=28) + 'OpName:[FlashAttentionScoreGrad] "tiling key is 10000000000220130, blockDim is '
                                       '24"\n',
        hdr.format(lvl="ERROR", s=47) + "AclNN_Parameter_Error(EZ1001): Io input dtype or format is not supported, get "
                                        "io input info is x(DT_BFLOAT16, ND) but supported list is:\n",
        hdr.format(lvl="ERROR", s=47) + "aclnnRmsNormGetWorkspaceSize call failed, please check.\n"]))
    from casebook.evidence.registry import KEEP
    for log in (read_plog(path), read_plog(path, keep=KEEP)):   # every line a record, or the lines a triage keeps
        (r,) = [r for r in extract(log) if r.aspect != "call"]
        assert (r.op, r.aspect, r.line) == ("aclnnRmsNorm", "dtype_or_format", 2)


def test_a_line_that_only_sounds_like_a_complaint_does_not_hide_the_complaint_after_it(tmp_path):
    head = "[ERROR] ASCENDCL(91,python):2026-03-02-10:11:12.101.202 [x.cpp:1]91 F:"
    path = write_log(tmp_path, "plog-91_20260302101112000.log",
                     f"{head}RuntimeError: Backend not supported!\n"
                     f"{head}EZ1001: Tensor self not implemented for DT_BFLOAT16, should be in dtype support list "
                     "[DT_FLOAT16,DT_FLOAT,].\n")
    (r,) = extract(read_plog(path))
    assert (r.aspect, r.param, r.value, r.allowed, r.line) == ("dtype", "self", "DT_BFLOAT16", ("DT_FLOAT16", "DT_FLOAT"), 2)


def test_a_device_plugins_kernel_file_names_the_op_and_marks_the_op_layer(tmp_path):
    path = write_log(tmp_path, "console.log", "NotImplementedError: (Unimplemented) npu npu only support "
                     "mode=constant right now,but received mode is replicate . [Hint: Expected mode == \"constant\", "
                     "but received mode:replicate != \"constant\":constant.] (at /paddle/backends/npu/kernels/"
                     "pad3d_kernel.cc:43)\n")
    (r,) = extract(read_plog(path))
    assert (r.op, r.aspect, r.param, r.value, r.allowed) == ("pad3d", "attribute", "mode", "replicate", ("constant",))
    # the same wording outside an op's check (no kernel file, no op layer's code) is no op's complaint
    plain = write_log(tmp_path / "b", "console.log", "ValueError: this tool only support format=csv for now, but "
                      "received format is xml\n")
    assert extract(read_plog(plain)) == []


def test_the_graph_engines_op_store_and_a_missing_binary_are_not_an_ops_check():
    assert read_line("The dtype, format or shape of input in op desc is not supported in op store, check it.") is None
    assert read_line("EZ1001: Get path and read binary_info_config.json failed, please check if the opp_kernel "
                     "package is installed! not support") is None


@pytest.mark.parametrize("line,case", [
    ("RuntimeError: call aclnnCast failed, detail:EZ1001: [PID: 91] 2026-03-02-10:11:12.101.202 Tensor self not "
     "implemented for DT_BFLOAT16, should be in dtype support list [DT_FLOAT16,DT_FLOAT,].", "op-rejects-dtype"),
    ("RuntimeError: call aclnnFlashAttentionScore failed, detail:EZ1001: [PID: 91] 2026-03-02-10:11:12.101.202 "
     "actualSeqQLen must not be null when input_layout is TND.", "op-rejects-format-or-layout"),
    ("RuntimeError: call aclnnQuantMatmulWeightNz failed, detail:E89999: [PID: 91] 2026-03-02-10:11:12.101.202 "
     "op[QuantBatchMatmulV3], this platform only support output transpose_x1 false and transpose_x2 true, actual "
     "[false, false]", "op-unsupported-on-this-chip"),
    ("RuntimeError: call aclnnFlashAttentionScore failed, detail:EZ1001: [PID: 91] 2026-03-02-10:11:12.101.202 head "
     "dim 512 is not support, only support 64, 128, 192 and 256.", "aclnn-tiling-unsupported-shape"),
])
def test_a_pasted_complaint_names_its_cause_and_says_it_in_words(tmp_path, line, case):
    t = triage(write_log(tmp_path, "paste.txt", line + "\n"), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == case
    said = [i.text for i in t.diagnosis.for_ if i.id.startswith("rejects_")]
    assert said and " rejects " in said[0] and said[0].startswith("aclnn")


def test_a_generic_wording_is_an_ops_complaint_only_beside_the_op_layer(tmp_path):
    engine = write_log(tmp_path, "engine.log", "NotImplementedError: VLLM_USE_V1=1 is not supported with "
                                               "--guided-decoding-backend=guidance:disable-any-whitespace.\n")
    assert extract(read_plog(engine)) == []
    op = write_log(tmp_path / "op", "op.log", "RuntimeError: call aclnnMoeGatingTopK failed, detail:EZ1001: renorm is "
                                              "1, but should be 0 when normType is softmax.\n")
    (r,) = extract(read_plog(op))
    assert (r.aspect, r.op, r.param, r.value) == ("attribute", "aclnnMoeGatingTopK", "renorm", "1")


@pytest.mark.parametrize("text,op", [
    ("FAILED pytest_executor.py::test_atk_case[atk-0] - RuntimeError: npu_chunk_gated_delta_rule_bwd_dhu: h0 must be "
     "[B,Hv,chunk_num,K,V]; h0=[7, 1, 128, 20] chunk_num=1", "npu_chunk_gated_delta_rule_bwd_dhu"),
    ("torch.ops.higher_order.auto_functionalized_v2(torch.ops._C_ascend.sgmv_expand.default,\n"
     "    slice_offset = 0, slice_size = 8, _x_size = (arg1_1, 32), ...)\n"
     "RuntimeError: hidden in should be smaller than hidden out", "sgmv_expand"),
])
def test_a_bound_a_named_op_states_is_its_complaint_and_likely_not_confirmed(tmp_path, text, op):
    path = write_log(tmp_path, "paste.txt", text + "\n")
    (r,) = extract(read_plog(path))
    assert (r.op, r.aspect) == (op, "bound")
    # the bound may be the op's own check gone stale (a wrapper that still checks an old layout): the call is likely
    # outside it, not proven so
    t = triage(path, kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "op-rejects-parameter-value"
    assert t.diagnosis.verdict == "likely"
    assert t.family is not None and t.family.family.id == "op-not-supported"


def test_a_bound_without_an_op_beside_it_is_not_an_ops_complaint(tmp_path):
    path = write_log(tmp_path, "paste.txt", "AssertionError: max_num_seqs should be smaller than max_model_len\n")
    assert extract(read_plog(path)) == []


@pytest.mark.parametrize("text,case", [
    # each size on its own is one the op takes; the op says one must equal another
    ("E89999: When layout is TND, keyT(40) and valueT(40) must be equal to the last element of actualSeqLengthsKv(32)"
     "[FUNC:CheckInputShapeWhenLayoutIsTND][FILE:prompt_flash_attention_tiling.cpp][LINE:3618]",
     "op-call-inputs-disagree"),
    ("EZ1001: The size(6) of actualSeqLengthsKv is not equal to the batchSize(7)", "op-call-inputs-disagree"),
    # aclnn's own code for a failed tiling step, as torch_npu prints the call
    ("RuntimeError: npu_rotary_mul:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:62 NPU function error: call "
     "aclnnRotaryPositionEmbedding failed, error code is 561002", "aclnn-tiling-unsupported-shape"),
    # MindSpore prints the TBE error manager's E80012 with 'In op,' and no op name: a shape the op refuses
    ("RuntimeError: ({'errCode': 'E80012', 'op_name': 'reduce_sum_d', 'param_name': 'x', 'min_value': 0, "
     "'max_value': 8, 'real_value': 9}, 'In op, the num of dimensions of input/output[x] should be in the range of "
     "[0, 8], but actually is [9].')", "aclnn-tiling-unsupported-shape"),
    # the launcher's words for a failed tiling, under the op's own error line (hicann/ops-nn, Softsign)
    ("[ERROR] errno[476409922] OpName:[Softsign_0]\nFailed to execute operator Softsign_0. Reason: Failed to execute "
     "tiling function.", "aclnn-tiling-unsupported-shape"),
])
def test_pasted_refusals_of_sizes_and_shapes_name_their_cause_and_family(tmp_path, text, case):
    t = triage(write_log(tmp_path, "paste.txt", text + "\n"), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == case
    assert t.family is not None and t.family.family.id == "op-not-supported"



@pytest.mark.parametrize("text,case", [
    # sizes named in words, one input against another (rtp-llm's fused attention notes)
    ("block_table's first dimension(1) should be equal to batch size(2)", "op-call-inputs-disagree"),
    ("the key/value's actual sequence lengths(4) is 69, it should be in range [0, KV_S(64)]", "op-call-inputs-disagree"),
])
def test_inputs_that_disagree_are_read_without_the_op_named(tmp_path, text, case):
    t = triage(write_log(tmp_path, "paste.txt", text + "\n"), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == case


def test_a_shape_refused_for_the_same_sizes_in_another_order_is_a_layout(tmp_path):
    """The same sizes in another order mean the axes are ordered another way, not sized wrong."""
    permuted = write_log(tmp_path, "permuted.txt", "key layout is BnNBsD, shape [8142,64,8,128] should be equal to "
                                                   "[8142,8,64,128]\n")
    (r,) = extract(read_plog(permuted))
    assert (r.aspect, r.param, r.value) == ("layout", "key", "8142,64,8,128")
    assert triage(permuted, kb=KB).diagnosis.case.id == "op-rejects-format-or-layout"
    # other sizes are a shape, read as an op's complaint only beside the op layer
    sized = write_log(tmp_path / "sized", "sized.txt", "key layout is BnNBsD, shape [8142,8,64,64] should be equal to "
                                                       "[8142,8,64,128]\n")
    assert extract(read_plog(sized)) == []
    coded = write_log(tmp_path / "coded", "coded.txt", "EZ1001: key layout is BnNBsD, shape [8142,8,64,64] should be "
                                                       "equal to [8142,8,64,128]\n")
    assert [r.aspect for r in extract(read_plog(coded))] == ["shape"]


def test_an_op_plugins_verify_step_reads_one_axis_against_the_values_it_takes(tmp_path):
    log = write_log(tmp_path, "paste.txt", "RuntimeError: CrossShapeVerify failed, shape N of query must be one of the "
                                           "{64, 128}, but the value of query[2] is (32)\n")
    (r,) = extract(read_plog(log))
    assert (r.aspect, r.param, r.value, r.allowed) == ("shape", "N of query", "32", ("64", "128"))
    assert triage(log, kb=KB).diagnosis.case.id == "aclnn-tiling-unsupported-shape"


def test_an_atb_operation_and_a_kernel_launch_name_the_op_of_their_complaint(tmp_path):
    # captures 454 and 321: the ATB node names its operation; the launch's complaint, continuing the exception that
    # names its kernel, is read once, at the exception's line
    path = write_log(tmp_path, "console.log", "RopeOperation_0 Wrong rotaryCoeff: 128\n"
                     "RuntimeError: operator name is token_bin_counts_and_mask_kernel.\n"
                     "KernelLaunch failed because value 74688 for parameter coreDim is invalid.\n"
                     "Expected value: less than or equal to 65535.\n")
    rope, launch = extract(read_plog(path))
    assert (rope.op, rope.aspect, rope.param, rope.value, rope.line) == ("RopeOperation", "attribute", "rotaryCoeff",
                                                                         "128", 1)
    assert (launch.op, launch.param, launch.value, launch.allowed, launch.line) == (
        "token_bin_counts_and_mask_kernel", "coreDim", "74688", ("less than or equal to 65535",), 2)
    # without an op named near it, "Wrong <name>: <value>" is not read as an op's complaint
    other = write_log(tmp_path, "other.log", "Wrong password: hunter2\n")
    assert extract(read_plog(other)) == []


def test_a_kernel_the_framework_cannot_dispatch_for_a_dtype_is_the_op_refusing_it(tmp_path):
    """PyTorch's dispatch names the kernel in quotes and the type it has no implementation for (capture 1336)."""
    t = triage(write_log(tmp_path, "paste.txt", "    exp_avg.lerp_(grad, 1 - beta1)\n"
                         "RuntimeError: \"lerp_kernel_scalar\" not implemented for 'Half'\n"), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "op-rejects-dtype"
    assert "lerp_kernel_scalar rejects dtype Half" in [i.text for i in t.diagnosis.for_]


@pytest.mark.parametrize("line,op,param,value,allowed", [
    ("[F  2/ 7 10:11:12.345 ...adapter/nnadapter/src/driver/huawei_ascend_npu/converter/pad.cc:33 ConvertPad] Check "
     "failed: (std::abs(value) < 1e-6): 3!<1e-06 HuaweiAscendNPU only support constant_values=0 right now, but received",
     "pad", "constant_values", "3", ("0",)),
    ("[F  2/ 7 10:11:13.001 ...s/nnadapter/converter/lookup_table_v2.cc:49 ConvertLookupTableV2] Check failed: "
     "(op->GetAttr<int64_t>(\"padding_idx\") == -1L): 1!==-1 Only support padding_idx = -1",
     "lookup_table_v2", "padding_idx", "1", ("-1",)),
    ("cv2.error: OpenCV(4.9.0) /src/opencv/modules/dnn/src/layers/resize_layer.cpp:410: error: (-215:Assertion failed) "
     "alignCorners == false in function 'initCann'", "resize", "alignCorners", None, ("false",)),
])
def test_a_backends_converter_refusing_a_layers_setting_places_the_family_not_an_ops_cause(tmp_path, line, op, param,
                                                                                           value, allowed):
    """What a release's converter to the NPU takes (Paddle Lite's NNAdapter, OpenCV's CANN backend) is not what the op
    supports: the family is placed, and no op case is confirmed on it."""
    (r,) = extract(read_plog(write_log(tmp_path, "console.log", line + "\n")))
    assert (r.aspect, r.op, r.param, r.value, r.allowed) == ("converter", op, param, value, allowed)
    t = triage(tmp_path / "console.log", kb=KB)
    assert t.family is not None and t.family.family.id == "op-not-supported"
    assert not [h for h in t.candidates if h.verdict == "confirmed"]


def test_a_format_the_ops_tiling_refuses_is_likely_not_confirmed_and_its_parameter_check_confirms(tmp_path):
    # hicann/ops-nn's BatchNormV3 tiling refused ND, a format the op registers (fixed in the op); a paste puts the
    # tiling's source position on the line above the message, a plog puts it after the message
    above = "[batch_norm_v3_tiling_welford_arch35.cpp][GetShapeAttrsInfo]\n" \
            "Parameter x of has incorrect format ND. It should be NCHW or NCDHW.\n"
    after = "E89999: input x format NZ is not supported[FUNC:GetShapeAttrsInfo][FILE:foo_tiling.cpp][LINE:91]\n"
    check = "E89999: input x format NZ is not supported\n"
    for name, text, stage, verdict in (("above.txt", above, "tiling", "likely"), ("after.txt", after, "tiling", "likely"),
                                       ("check.txt", check, None, "confirmed")):
        t = triage(write_log(tmp_path, name, text), kb=KB)
        assert [r.stage for r in t.evidence.rejections] == [stage], name
        assert (t.diagnosis.case.id, t.diagnosis.verdict) == ("op-rejects-format-or-layout", verdict), name
        assert t.family.family.id == "op-not-supported"


def test_a_layout_the_tiling_checks_is_the_ops_rule_and_confirms(tmp_path):
    line = ("RuntimeError: call aclnnFlashAttentionScore failed, detail:EZ1001: actualSeqQLen must not be null when "
            "input_layout is TND.[FUNC:CheckInputLayout][FILE:fa_tiling.cpp][LINE:742]\n")
    t = triage(write_log(tmp_path, "paste.txt", line), kb=KB)
    assert t.evidence.rejections[0].stage == "tiling"
    assert (t.diagnosis.case.id, t.diagnosis.verdict) == ("op-rejects-format-or-layout", "confirmed")


def test_the_graph_engines_format_check_names_the_op_type_not_the_node(tmp_path):
    # hicann/cannbot-skills' note on a fusion pass that left a Conv2D's input in ND: the node is Conv2D_2, its op Conv2D
    path = write_log(tmp_path, "paste.txt", "Not_Supported_Format(E50002): The format of input [x] of [Conv2D_2] op "
                     "needs to be [NCHW or NHWC], but incoming format is [ND]\nCall InferShapeAndType for node:Conv2D_2 "
                     "failed\n")
    (r,) = extract(read_plog(path))
    assert (r.op, r.aspect, r.param, r.value, r.allowed) == ("Conv2D", "format", "x", "ND", ("NCHW", "NHWC"))
    t = triage(path, kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "op-rejects-format-or-layout"


@pytest.mark.parametrize("line,op,value", [
    # the converter's pre-check (E19010), with the node's name and without it, and the ONNX parser's own (E16002)
    ("E19010: No parser is registered for Op [/backbone/stem/conv/Conv, optype [ai.onnx::18::Conv]].", "Conv", "18"),
    ("No parser is registered for Op [ai.onnx::21::Gelu]", "Gelu", "21"),
    ("E16002: No ONNX parser is registered for optype [ai.onnx::18::Col2Im].", "Col2Im", "18"),
])
def test_a_node_type_without_a_parser_names_the_op_and_the_opset_it_is_keyed_by(tmp_path, line, op, value):
    """Ascend/parser keys an ONNX node's type as domain::opset::type: the opset is what the converter did not parse,
    not the op alone, and the answer says both."""
    (r,) = extract(read_plog(write_log(tmp_path, "atc.log", line + "\n")))
    assert (r.op, r.aspect, r.param, r.value) == (op, "opset", "ai.onnx", value)
    t = triage(tmp_path / "atc.log", kb=KB)
    assert (t.diagnosis.case.id, t.diagnosis.verdict) == ("onnx-opset-outside-converter-parsers", "likely")
    assert f"{op} rejects the model's opset {value} (ai.onnx)" in [i.text for i in t.diagnosis.for_]
    # a type the converter knows nothing of, at no opset (a plugin's own name), is not read as an opset refusal
    other = write_log(tmp_path, "plain.log", "E16002: No ONNX parser is registered for optype CustomOp.\n")
    assert extract(read_plog(other)) == []


@pytest.mark.parametrize("message,aspect", [
    # the wordings of aclnn parameter checks that no form reads: the aspect is what their words name
    ("Not support x2 n = 1 when foramt is FRACTAL_NZ, x2: [1024, 1]", "format"),
    ("The batch of query should match the batch of key, but got 4 and 8", "shape"),
    ("The data type of scale is not consistent with x", "dtype"),
    ("Check the inputs of the op, please.", "call"),
])
def test_a_parameter_checks_message_is_read_by_its_words_where_no_form_reads_it(tmp_path, message, aspect):
    text = f"[PID: 3310] 2026-05-04-09:12:40.118.302 AclNN_Parameter_Error(EZ1001): {message}\n"
    (r,) = extract(read_plog(write_log(tmp_path, "paste.txt", text)))
    assert (r.aspect, r.line) == (aspect, 1)


def test_the_code_of_a_parameter_check_places_a_generic_wording_in_the_op_layer(tmp_path):
    # the error manager keeps the title's code apart from the message: the code places the op layer by itself
    text = ("[PID: 3311] 2026-05-04-09:12:41.220.118 AclNN_Parameter_Error(EZ1001): The y2 shape must be [8, 64, 1], "
            "which are [8, 1, 64]\n        TraceBack (most recent call last):\n")
    (r,) = extract(read_plog(write_log(tmp_path, "paste.txt", text)))
    assert (r.aspect, r.param) == ("shape", "y2")


def test_a_parameter_of_the_fused_attention_ops_places_a_bare_complaint_in_the_op_layer(tmp_path):
    op = write_log(tmp_path, "op.txt", "when sparse_mode is 4, it not 0, atten_mask should not be null\n")
    (r,) = extract(read_plog(op))
    assert (r.aspect, r.param, r.value) == ("attribute", "atten_mask", "null")
    t = triage(op, kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "op-rejects-parameter-value"
    other = write_log(tmp_path / "other", "other.txt", "when streaming is on, callback should not be null\n")
    assert extract(read_plog(other)) == []


def test_two_tensors_an_op_concatenates_that_disagree_in_one_dimension(tmp_path):
    line = ("RuntimeError: call aclnnCat failed, detail:EZ1001: 2026-05-04-09:12:42.001.515 dim 2 of tensor 3 is [5], "
            "should be equal to tensor 0 [9].\n")
    t = triage(write_log(tmp_path, "paste.txt", line), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "op-call-inputs-disagree"
