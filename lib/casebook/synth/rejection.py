"""Samples of ops refusing their call before launch, each saying what it refuses: a dtype, a layout, the chip, a
value, or two inputs that disagree with each other."""
from __future__ import annotations

from datetime import datetime

from .host import aclnn_failure, job_failing
from .job import Job, files, stop

DTYPE = "op-rejects-dtype"
LAYOUT = "op-rejects-format-or-layout"
CHIP = "op-unsupported-on-this-chip"
VALUE = "op-rejects-parameter-value"
TILING = "aclnn-tiling-unsupported-shape"
DISAGREE = "op-call-inputs-disagree"


def dtype_positive() -> dict[str, str]:
    """RmsNorm on a card without bfloat16 kernels is handed bfloat16 tensors."""
    job, t = job_failing(260801, 61120, datetime(2026, 8, 1, 9, 12, 40, 218_031), 1, steps=2)
    aclnn_failure(job, job.proc(1), t, "aclnnRmsNorm",
                  "AclNN_Parameter_Error(EZ1001): Io input dtype or format is not supported, get io input info is "
                  "x(DT_BFLOAT16, ND) gamma(DT_BFLOAT16, ND) yOut(DT_BFLOAT16, ND) rstdOut(DT_FLOAT, ND) but supported "
                  "list is:", ["SupportInfo[0] x(DT_FLOAT16, ND) gamma(DT_FLOAT16, ND) yOut(DT_FLOAT16, ND) "
                               "rstdOut(DT_FLOAT, ND)", "aclnnRmsNormGetWorkspaceSize call failed, please check."])
    return _files(job, t, """Four ranks, a minute in. aclnnRmsNorm refuses its call: 'Io input dtype or format is not
        supported, get io input info is x(DT_BFLOAT16, ND) ...', and the only supported row is float16. The model
        was loaded in bfloat16 on a card whose kernel takes float16: the op rejects the dtype, confirmed.""",
                  DTYPE, {DTYPE: "confirmed"})


def dtype_negative_missing_binary() -> dict[str, str]:
    """EZ1001 again, but the op's kernel description file is missing: a package problem, not a dtype."""
    job, t = job_failing(260803, 62240, datetime(2026, 8, 3, 14, 2, 11, 40_115), 1, steps=2)
    aclnn_failure(job, job.proc(0), t, "aclnnSwiGlu",
                  "EZ1001: Get path and read binary_info_config.json failed, please check if the opp_kernel package "
                  "is installed!", ["aclnnSwiGluGetWorkspaceSize call failed, please check."])
    return _files(job, t, """Near miss for op-rejects-dtype: aclnnSwiGlu fails before launch with EZ1001, but its
        words say the kernels package's binary_info_config.json could not be read: nothing about a dtype. The
        dtype case is possible at most.""", None, {DTYPE: "possible"})


def layout_positive() -> dict[str, str]:
    """FlashAttentionScore under layout TND is called without the per-sequence lengths it needs."""
    job, t = job_failing(260805, 63360, datetime(2026, 8, 5, 7, 41, 2, 77_412), 3, steps=3)
    aclnn_failure(job, job.proc(2), t, "aclnnFlashAttentionScore",
                  "actualSeqQLen must not be null when input_layout is TND.[FUNC:CheckInputLayout]"
                  "[FILE:flash_attention_score_tiling.cpp][LINE:742]",
                  ["aclnnFlashAttentionScoreGetWorkspaceSize call failed, please check."])
    return _files(job, t, """Four ranks, three minutes in. FlashAttentionScore refuses its call: 'actualSeqQLen must not
        be null when input_layout is TND'. The caller chose the packed layout without the sequence lengths it
        needs: the op rejects the layout, confirmed.""", LAYOUT, {LAYOUT: "confirmed"})


def layout_negative_dtype() -> dict[str, str]:
    """The same op refuses the dtype of its query: a dtype rejection, not a layout one."""
    job, t = job_failing(260807, 64480, datetime(2026, 8, 7, 18, 20, 55, 901_344), 2, steps=3)
    aclnn_failure(job, job.proc(3), t, "aclnnFlashAttentionScore",
                  "AclNN_Parameter_Error(EZ1001): Tensor query not implemented for DT_FLOAT, should be in dtype support "
                  "list [DT_FLOAT16,DT_BFLOAT16,].", ["aclnnFlashAttentionScoreGetWorkspaceSize call failed, please "
                                                      "check."])
    return _files(job, t, """Near miss for op-rejects-format-or-layout: FlashAttentionScore, EZ1001, a call refused
        before launch, but the op's words name the query's dtype (DT_FLOAT, where it takes float16 or bfloat16),
        not its layout. The dtype case is confirmed; the layout case possible at most.""",
                  DTYPE, {DTYPE: "confirmed", LAYOUT: "possible"})


def chip_positive() -> dict[str, str]:
    """A w8a8 matmul asks for a transpose combination the 300I Duo's kernel does not have."""
    job, t = job_failing(260809, 65600, datetime(2026, 8, 9, 11, 5, 30, 12_906), 1, steps=2)
    aclnn_failure(job, job.proc(0), t, "aclnnQuantMatmulWeightNz",
                  "op[QuantBatchMatmulV3], this platform only support output transpose_x1 false and transpose_x2 true, "
                  "actual [false, false][FUNC:AnalyzeAttrs][FILE:quant_batch_matmul_v3_tiling.cc][LINE:403]",
                  ["op[QuantBatchMatmulV3], fail to analyze context info[FUNC:GetShapeAttrsInfo]"
                   "[FILE:quant_batch_matmul_v3_tiling.cc][LINE:332]"])
    return _files(job, t, """Four ranks, a minute in. QuantBatchMatmulV3 refuses the call: 'this platform only support
        output transpose_x1 false and transpose_x2 true, actual [false, false]'. The quantized path asks this chip
        for a kernel variant it does not have: unsupported on this chip, confirmed.""", CHIP, {CHIP: "confirmed"})


def chip_positive_platform() -> dict[str, str]:
    """A 3-D max pooling with indices on a chip its kernels do not cover: the op names the platform."""
    job, t = job_failing(260817, 69120, datetime(2026, 8, 17, 8, 52, 19, 330_418), 1, steps=2)
    aclnn_failure(job, job.proc(0), t, "aclnnMaxPool3dWithArgmax",
                  "AclNN_Parameter_Error(EZ1001): aclnnMaxPool3dWithArgmax is not supported on this platform",
                  ["aclnnMaxPool3dWithArgmaxGetWorkspaceSize call failed, please check."])
    return _files(job, t, """Four ranks, a minute in. aclnnMaxPool3dWithArgmax refuses the call with its platform
        check: 'aclnnMaxPool3dWithArgmax is not supported on this platform'. The op has no kernel for this chip's
        architecture, whatever its inputs: unsupported on this chip, confirmed.""", CHIP, {CHIP: "confirmed"})


def chip_negative_dtype() -> dict[str, str]:
    """The chip's kernel list refuses bfloat16: a dtype the caller can change, said as a dtype."""
    job, t = job_failing(260811, 66720, datetime(2026, 8, 11, 16, 44, 8, 503_777), 2, steps=2)
    aclnn_failure(job, job.proc(1), t, "aclnnAdd",
                  "AclNN_Parameter_Error(EZ1001): promote dtype DT_BFLOAT16 should be in dtype support list "
                  "[DT_FLOAT16,DT_FLOAT,DT_INT32,DT_INT8,DT_UINT8,].", ["aclnnAddGetWorkspaceSize call failed, "
                                                                       "please check."])
    return _files(job, t, """Near miss for op-unsupported-on-this-chip: on a card without bfloat16 kernels aclnnAdd
        refuses DT_BFLOAT16. The chip is why, but the op's words name a dtype the caller can change: the dtype case
        is confirmed and the chip case possible at most.""", DTYPE, {DTYPE: "confirmed", CHIP: "possible"})


def value_positive() -> dict[str, str]:
    """A MoE gating op is called with renorm on under the softmax norm it cannot combine it with."""
    job, t = job_failing(260813, 67840, datetime(2026, 8, 13, 10, 31, 2, 411_906), 2, steps=3)
    aclnn_failure(job, job.proc(2), t, "aclnnMoeGatingTopK",
                  "AclNN_Parameter_Error(EZ1001): renorm is 1, but should be 0 when normType is softmax.",
                  ["aclnnMoeGatingTopKGetWorkspaceSize call failed, please check."])
    return _files(job, t, """Four ranks, two minutes in. MoeGatingTopK refuses its call: 'renorm is 1, but should be 0
        when normType is softmax'. The framework passes an attribute the op does not take with that norm: the op
        rejects the parameter's value, confirmed.""", VALUE, {VALUE: "confirmed"})


def value_negative_shape() -> dict[str, str]:
    """The same op refuses the shape of its input: a shape, said as a shape."""
    job, t = job_failing(260815, 68960, datetime(2026, 8, 15, 13, 4, 52, 77_310), 2, steps=3)
    aclnn_failure(job, job.proc(1), t, "aclnnMoeGatingTopK",
                  "AclNN_Parameter_Error(EZ1001): dimnum of x is [3], should be 2.",
                  ["aclnnMoeGatingTopKGetWorkspaceSize call failed, please check."])
    return _files(job, t, """Near miss for op-rejects-parameter-value: the same op refuses its call, but its words name
        the number of dimensions of x: a shape rejection, which the shape case covers; the value case is possible
        at most.""", TILING, {TILING: "confirmed", VALUE: "possible"})


def disagree_positive() -> dict[str, str]:
    """An attention op is handed key lengths that do not add up to the sequence lengths it is given with them."""
    job, t = job_failing(260817, 70412, datetime(2026, 8, 17, 15, 22, 9, 640_118), 2, steps=4)
    aclnn_failure(job, job.proc(0), t, "aclnnFusedInferAttentionScoreV3",
                  "E89999: When layout is TND, keyT(136) and valueT(136) must be equal to the last element of "
                  "actualSeqLengthsKv(128)[FUNC:CheckInputShapeWhenLayoutIsTND]"
                  "[FILE:prompt_flash_attention_tiling.cpp]",
                  ["aclnnFusedInferAttentionScoreV3GetWorkspaceSize call failed, please check."])
    return _files(job, t, """Four ranks, four steps in. The attention op refuses its call: 'keyT(136) and valueT(136)
        must be equal to the last element of actualSeqLengthsKv(128)'. Both sizes are ones the op takes; they
        disagree with each other, so the caller computed one of them out of step with the other: the inputs
        disagree, confirmed.""",
                  DISAGREE, {DISAGREE: "confirmed"})


def disagree_negative_unsupported() -> dict[str, str]:
    """The same op refuses a head size it does not take under that layout: one value outside the specification."""
    job, t = job_failing(260818, 71530, datetime(2026, 8, 18, 8, 5, 40, 12_557), 2, steps=4)
    aclnn_failure(job, job.proc(0), t, "aclnnFusedInferAttentionScoreV3",
                  "E89999: When layout is TND, queryD(256), keyD(256) and valueD(256) must be same equal 192/128/64."
                  "[FUNC:CheckInputShapeWhenLayoutIsTND][FILE:prompt_flash_attention_tiling.cpp]",
                  ["aclnnFusedInferAttentionScoreV3GetWorkspaceSize call failed, please check."])
    return _files(job, t, """Near miss for op-call-inputs-disagree: the same op and check, but the sentence compares the
        head sizes with a list of sizes the op supports, not with another input: a shape the op does not take, which
        the shape case covers.""", TILING, {TILING: "confirmed"})


def _files(job: Job, t: datetime, about: str, diagnosis: str | None, verdicts: dict[str, str]) -> dict[str, str]:
    """The bundle of a job that stops at `t`, with the expectation of its one run."""
    stop(job, t)
    return files(job, {"about": about, "runs": [{"facts": {}, "diagnosis": diagnosis, "verdicts": verdicts}]})


BUILDERS = (
    (DTYPE, "positive-rmsnorm-bf16-io-list", dtype_positive),
    (DTYPE, "negative-kernel-config-missing", dtype_negative_missing_binary),
    (LAYOUT, "positive-tnd-without-seqlens", layout_positive),
    (LAYOUT, "negative-query-dtype", layout_negative_dtype),
    (CHIP, "positive-quant-matmul-transpose", chip_positive),
    (CHIP, "negative-bf16-promote", chip_negative_dtype),
    (CHIP, "positive-pool3d-platform-check", chip_positive_platform),
    (VALUE, "positive-renorm-under-softmax", value_positive),
    (VALUE, "negative-dimnum", value_negative_shape),
    (DISAGREE, "positive-kv-lengths-out-of-step", disagree_positive),
    (DISAGREE, "negative-head-size-unsupported", disagree_negative_unsupported),
)
