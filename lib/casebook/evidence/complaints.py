"""The wordings of an op's complaint, as data the complaint reader (rejection.py) reads with: the forms a refusal of
a dtype, a format, a layout, a shape, an attribute, a platform or a call is worded in, the literals that find their
lines, the names of the op a complaint is about, and the words and codes that place a generic wording in the op layer.
"""
from __future__ import annotations

import re

_DT = r"DT_[A-Z0-9_]+"
#: A type as a framework or the op layer spells it with its prefix: ATen's `at::kByte`, `torch.bfloat16`, `DT_FLOAT16`.
_TYPED = r"(?:at::k[A-Z]\w*|torch\.\w+|" + _DT + ")"
#: The TBE ops' error manager (E70002, E70003, E80000 and their kin): "In op[X], the <what> of input[p] should be
#: [...], but actually is [v]."; the parameter may hold brackets of its own (`strides[0]`).
_TBE = r"In op(?:\[[\w.]+\])?,?\s*the "
_TBE_SAID = r"\s*should be\s*(?:one of\s*)?(?P<allowed>.*?),?\s*but actually is\s*\[?(?P<value>[^\]]*)"
_TBE_PARAM = r"(?:input/output|input|output|parameter)\[(?P<param>.+?)\]"


def _form(pattern: str, flags: int = 0) -> tuple[str, int]:
    """A form's regex and flags, compiled with the others when a line is first read (rejection.py's `_starts`)."""
    return pattern, flags


#: (aspect, (regex, flags)) in order: the first that matches a line names its aspect; groups are optional:
#: `param`, `value`, `allowed`, `op`. Compiled when a line is first read for a complaint (rejection.py): most bundles
#: hold none, and compiling them all costs a command-line triage ~8 ms.
FORMS: tuple[tuple[str, tuple[str, int]], ...] = (
    ("dtype", _form(_TBE + r"dtype of " + _TBE_PARAM + _TBE_SAID)),
    ("dtype", _form(_TBE + _TBE_PARAM + r"'s dtype" + _TBE_SAID)),
    ("format", _form(_TBE + r"format of " + _TBE_PARAM + _TBE_SAID)),
    ("format", _form(_TBE + _TBE_PARAM + r"'s format" + _TBE_SAID)),
    ("shape", _form(_TBE + r"(?:num of )?(?:dimensions|shape|rank) of " + _TBE_PARAM + _TBE_SAID)),
    ("attribute", _form(_TBE + r"(?:value of )?" + _TBE_PARAM + _TBE_SAID)),
    # the support list may be left out where the complaint is quoted ("nn.upsample_trilinear3d is not implemented for
    # DT_BFLOAT16"); a comma after the dtype says the list follows, on the paste's next line
    ("dtype", _form(r"(?:Tensor\s+)?(?P<param>[\w.\[\]]+)\s+(?:is\s+)?not implemented for\s+(?P<value>" + _DT
                    + r")(?:[,.]?\s*should be in dtype support list\s*\[?(?P<allowed>[^\]]*)|(?![\w,]|\s+,))")),
    # the framework's dispatch of a kernel that has no implementation for the tensors' type (PyTorch's
    # `"lerp_kernel_scalar" not implemented for 'Half'`): the quoted name is the kernel, the type its value
    ("dtype", _form(r"\"\w+\" not implemented for '(?P<value>\w+)'")),
    ("dtype", _form(r"(?P<param>[\w.]+)\s+dtype\s+(?P<value>" + _DT + r")\s+should be in dtype support list"
                    r"\s*\[?(?P<allowed>[^\]]*)")),
    ("dtype", _form(r"(?P<param>[\w ]{1,60}?)\s+after promote is\s+(?P<value>" + _DT
                    + r"),? which should be in dtype support list\s*\[?(?P<allowed>[^\]]*)")),
    ("dtype", _form(r"When\s+(?P<cond>.{1,200}?),\s*(?P<param>[\w ]{1,60}?)\s+(?:dtype\s+)?should (?:also )?be\s+"
                    r"(?P<allowed>\w+)\s+but it is\s+(?P<value>\w+)")),
    ("dtype", _form(r"Expected dtype of (?P<param>[\w.]+) to be (?P<allowed>.+?),? but got (?P<value>\w+)")),
    # the op API base's own checks, shared by every aclnn op: one tensor against the one dtype it must have ("Tensor
    # selfRef expected dtype is DT_FLOAT but found DT_BFLOAT16"), a result against the output it is written to
    ("dtype", _form(r"(?:Tensor\s+)?(?P<param>[\w.\[\]]+) expected dtype is (?P<allowed>" + _DT + r") but found (?P<value>"
                    + _DT + r")")),
    ("dtype", _form(r"Result type (?P<value>" + _DT + r") can't be cast to the desired output type (?P<allowed>"
                    + _DT + r")")),
    ("dtype", _form(r"(?P<param>[\w.]+)\s+(?:data ?type|dtype)\s+(?:is\s+|\[)?(?P<value>" + _DT
                    + r")\]?,?\s*(?:is\s+)?(?:not support|unsupported|invalid)", re.I)),
    ("dtype", _form(r"dtype(?: of (?P<param>[\w.]+))?\s+(?:must|should) be (?:one of\s*)?\[?(?P<allowed>"
                    + _DT + r"(?:\s*[,|/]\s*" + _DT + r")*)", re.I)),
    # a dtype named the way frameworks and ops print it, refused by name: "ChunkGatedDeltaRuleFunction does not
    # support float32", "Invalid x1 or x2 dtype. ... Actual x1 dtype: FLOAT4_E2M1"
    ("dtype", _form(r"(?P<param>[A-Za-z_][\w.]*) (?:does not|doesn't|do not|can ?not) support (?:the )?(?:dtype |data ?type )?"
                    r"(?P<value>(?:torch\.)?(?:b?float\d*|half|double|u?int\d+|bool|complex\d+|DT_[A-Z0-9_]+|"
                    r"FLOAT\d*(?:_E\d+M\d+)?|HIFLOAT\d+))\b")),
    ("dtype", _form(r"Invalid (?P<param>[\w ]{1,40}?) dtype\b(?:.*?Actual (?:\w+ )?dtype:? (?P<value>[\w.]+))?")),
    # a collective or kernel entry point that names the type it refuses after its own name: "HCCL AllReduce & Reduce:
    # Unsupported data type at::kByte/at::kBool"
    ("dtype", _form(r"(?:\b[A-Z]\w*Error:\s*)?(?P<param>[A-Za-z][\w.&: ]{0,60}?):\s*[Uu]nsupported (?:data ?type|dtype)"
                    r"[:\s]+\[?(?P<value>(?:" + _TYPED + r"|(?:b?float|half|double|u?int|bool|complex)\d*)"
                    r"(?:/" + _TYPED + r")*)\b")),
    ("dtype_or_format", _form(r"Io input dtype or format is not supported, get io input info is\s*"
                              r"(?P<value>.*?)\s*but supported list is:?(?P<allowed>.*)")),
    ("layout", _form(r"(?P<param>[\w.\[\] ]{1,60}?)\s+(?:must|should|only support)\b(?P<allowed>.*?)\s*when\s+"
                     r"(?:input_?)?layout is\s+(?P<value>\w+)", re.I)),
    # the layout as a condition of a shape check: "When layout is TND, queryD(256), keyD(256) and valueD(256) must
    # be same equal 192/128/64": the layout is accepted, the sizes under it are not
    ("shape", _form(r"\bWhen (?P<cond>(?:input_?)?layout is [A-Z]{2,6}\b[^,]{0,80}),\s*"
                    r"(?P<param>[\w.()\[\], ]{1,80}?)\s+(?:must|should|only support)\b(?P<allowed>.*)", re.I)),
    ("layout", _form(r"(?:input_?)?layout\s+(?:is\s+)?\[?(?P<value>[A-Z]{2,6})\]?,?\s*(?:is\s+)?"
                     r"(?:not support|unsupported|invalid)", re.I)),
    ("format", _form(r"(?P<param>[\w.]+)\s+format\s+(?:is\s+)?\[?(?P<value>[A-Z][A-Z0-9_]+)\]?,?\s*"
                     r"(?:is\s+)?(?:not support|unsupported|invalid)", re.I)),
    ("format", _form(r"(?P<param>[\w.]+)\s+format\s+(?:must|should) be\s+(?P<allowed>[A-Z][\w, ]+)", re.I)),
    # aclnn's check of several tensors at once: "The formats of self and mat1 should be ND and ND, but the actual
    # formats are [FRACTAL_NZ] and [FRACTAL_NZ]"
    ("format", _form(r"\bformats? of (?P<param>[\w.]+(?:(?:,| and) [\w.]+)*) (?:must|should) be (?P<allowed>.+?),?"
                     r"\s*but (?:the )?actual formats? (?:are|is) (?P<value>.+)", re.I)),
    # the graph engine's check of a node's input against what the op's shape inference takes (E50002: "The format of
    # input [x] of [Conv2D_2] op needs to be [NCHW or NHWC], but incoming format is [ND]"); its dtype twin likewise
    ("format", _form(r"\b(?P<what>format|d(?:ata ?)?type) of (?:input|output) \[?(?P<param>[\w.]+)\]? of \[?[\w.]+\]? op "
                     r"needs to be \[?(?P<allowed>[^\]]+?)\]?,?\s*but (?:incoming|actual|current|the input) "
                     r"(?:format|d(?:ata ?)?type) is \[?(?P<value>[\w.]+)")),
    # the graph engine that cannot put a conversion between two formats in front of an op: the tensor reaches the op
    # in a private format the op does not take ("We do not support trans from NC1HWC0 to ND between X and Y")
    ("format", _form(r"\b[Ww]e do not support trans from (?P<value>[A-Z][A-Z0-9_]+) "
                     r"to (?P<allowed>[A-Z][A-Z0-9_]+)\b")),
    # the chip's own refusal first: "Dynamic shape is not supported on this chip" names what the chip lacks, not a
    # shape the op rejects
    ("platform", _form(r"this (?:platform|soc|chip)\s+(?:only support|does not support|not support)\s*"
                       r"(?P<allowed>.*?)(?:,\s*actual\s*(?P<value>.*))?$", re.I)),
    ("platform", _form(r"(?:not support(?:ed)?|unsupported) (?:on|in) (?:this |current )?(?:platform|soc|chip)\b"
                       r"[\s:,]*(?P<value>\w.*)?", re.I)),
    ("shape", _form(r"\b(?P<param>head[ _]?(?:dim|size|num)\w*|headDim|headSize|D)\b\s*(?:\(|=|is|:)?\s*"
                    r"\[?(?P<value>\d+)?\]?\)?,?\s*(?:is\s+)?(?:not support|unsupported|invalid|must|should|"
                    r"only support)(?:,?\s*(?:only support|should be|must be)\s*)?(?P<allowed>.*)", re.I)),
    ("shape", _form(r"(?:get unsupported|unsupported|invalid|not support(?:ed)?)\s+(?P<param>[\w ]{0,40}?)"
                    r"\s*shape\b(?P<value>.*)", re.I)),
    ("shape", _form(r"(?P<param>[A-Za-z_][\w.]*)(?:'s)?\s+(?:shape|dim(?:ension)?s?|rank)\s*(?:is\s*)?"
                    r"(?P<value>\[\[?[^\]]*\]\]?|\(\S*\)|\d+)?,?\s*(?:must|should|is not support|not support|is invalid|"
                    r"invalid|mismatch)(?P<allowed>.*)", re.I)),
    # a parameter's allowed values under the other parameters' values: "when weight's dtype is [int4], weight's format
    # is [FRACTAL_NZ], antiquantGroupSize should be 128 or 64"
    ("attribute", _form(r"\b[Ww]hen (?P<cond>[^;]{1,200}?),\s*(?P<param>[A-Za-z_]\w*) (?:should|must) be "
                        r"(?P<allowed>-?\w+(?:(?:,| or) -?\w+)+)")),
    # an optional input the other parameters make required: "when sparse_mode is 3, it not 0, atten_mask should not
    # be null" (the op's words for a null pointer; Python's None is a program's, not an op's)
    ("attribute", _form(r"\b[Ww]hen (?P<cond>[^;]{1,200}?),\s*(?:it not \w+,\s*)?(?P<param>[A-Za-z_]\w*) "
                        r"(?:should|must|can) ?not be (?P<value>null(?:ptr)?|nullptr|empty)\b")),
    ("attribute", _form(r"(?P<param>[\w.]+)\s*(?:=|\s+is)\s*\[?(?P<value>-?[\w.]+)\]?,?\s*(?:is\s+)?(?:invalid|"
                        r"not support|unsupported|out of range)(?P<allowed>.*)", re.I)),
    # the op's check of one parameter, worded as what it has and what it should have: "Parameter x of has incorrect
    # format ND. It should be NCHW or NCDHW." (the op's name, when printed, stands between "of" and "has"; its dtype
    # twin is read by the same form, see _aspect)
    ("format", _form(r"\b[Pp]arameter (?P<param>\w+) of (?:[\w.]+ )?has (?:an )?incorrect "
                     r"(?P<what>format|d(?:ata ?)?type) \[?(?P<value>\w+)\]?\.?\s*It should be (?P<allowed>[^.]+)")),
    # a dtype the framework's NPU path does not take, named as torch prints it: "Float8_e4m3fn has not been supported"
    ("dtype", _form(r"\b(?P<value>Float8_e4m3fn\w*|Float8_e5m2\w*|BFloat16|ComplexFloat|ComplexDouble|ComplexHalf|"
                    r"UInt(?:16|32|64)) (?:has not been|is not|isn't) supported\b")),
    # a size the op takes from a set it names: "numHeads / numKvHeads = 8, MLA only support {32, 64, 128}."
    ("shape", _form(r"(?P<param>[A-Za-z_]\w*(?: / [A-Za-z_]\w*)?) = (?P<value>-?\d+), (?:[\w ]{0,40}?)?only "
                    r"supports? (?P<allowed>\{[^}]*\}|\[[^\]]*\])")),
    # MindSpore's check of two inputs whose shapes must broadcast: "For 'Add', x.shape and y.shape need to broadcast."
    ("shape", _form(r"\bFor '\w+', (?P<param>[\w.]+ and [\w.]+) need to broadcast")),
    # a tensor's shape against the one the op wants: "key layout is BnNBsD, shape [8142,64,8,128] should be equal to
    # [8142,8,64,128]" (the same sizes in another order are a layout, see _aspect)
    ("shape", _form(r"\b(?:(?P<param>[A-Za-z_][\w.]*) layout is (?P<cond>\w+), )?shape (?P<value>\[[\d, ]+\]) "
                    r"(?:should|must) be (?:equal to )?(?P<allowed>\[[\d, ]+\])")),
    # an op plugin's check of one axis: "CrossShapeVerify failed, shape N of query must be one of the {64, 128}, but
    # the value of query[2] is (32)"
    ("shape", _form(r"\bshape (?P<param>\w+ of [\w.]+) (?:must|should) be one of (?:the )?(?P<allowed>\{[^}]*\}),?"
                    r"\s*but (?:the value of [\w.\[\]]+ is|got) \(?(?P<value>-?\d+)\)?")),
    ("shape", _form(r"\b(?P<param>dim ?num|rank|dims?|shape size) of (?P<what>[\w ]+?) is \[?(?P<value>[\d, ]+)\]?,?"
                    r"\s*(?:but )?(?:should|must) be (?P<allowed>.+)", re.I)),
    ("attribute", _form(r"\b(?P<param>[A-Za-z_][\w.]*) (?:is|=):? \[?(?P<value>[^\s\],;]+)\]?,?\s*(?:but )?(?:(?:should|must) "
                        r"(?:be|not be)|(?:currently )?only supports?) (?P<allowed>.+)")),
    # a backend's converter of a model's layer to the NPU refusing the layer's setting: a glog CHECK that says what it
    # supports (Paddle Lite's NNAdapter: "Check failed: (op->GetAttr<int64_t>("padding_idx") == -1L): 0!==-1 Only
    # support padding_idx = -1"), OpenCV's CANN backend asserting in its converter ("(-215:Assertion failed)
    # sliceSteps.size() == 1 in function 'initCann'"); what the release's converter takes, not what the op does
    ("converter", _form(r"Check failed: \(.*?\): (?P<value>[^!\s]+)![=<>!]=?\S* (?:.*?\s)?[Oo]nly supports? "
                        r"(?P<param>[A-Za-z_]\w*) ?==? ?(?P<allowed>-?[\w.\"']+)")),
    ("converter", _form(r"\(-215:Assertion failed\) (?P<param>[\w.()\[\]>-]+) ?(?:==|!=|<=|>=|<|>) ?(?P<allowed>\S+) "
                        r"in function 'initCann'")),
    # a device plugin's kernel check (PaddleCustomDevice: "npu only support mode=constant right now, but received mode
    # is replicate", and the framework's enforce hint "Expected mode == "constant", but received mode:replicate")
    ("attribute", _form(r"only supports? (?P<param>[A-Za-z_]\w*) ?= ?(?P<allowed>[\w.\"']+)[^,]{0,40},\s*but received "
                        r"(?:(?P=param) is )?(?P<value>[\w.\"']+)")),
    ("attribute", _form(r"Expected (?P<param>[A-Za-z_][\w.]*) (?:==|!=|<=|>=|<|>) (?P<allowed>\S+?), but received "
                        r"(?P=param):(?P<value>\S+?) (?:==|!=|<=|>=|<|>)")),
    # an ATB operation's parameter check: "RopeOperation_0 Wrong rotaryCoeff: 128"
    ("attribute", _form(r"\bWrong (?P<param>[A-Za-z_]\w*) ?[:=] ?(?P<value>[^\s,;]+)")),
    # the runtime's check of a launch parameter: "KernelLaunch failed because value 74688 for parameter coreDim is
    # invalid. Expected value: less than or equal to 65535."
    ("attribute", _form(r"\bvalue (?P<value>\S+) for parameter (?P<param>\w+) is invalid\.?"
                        r"(?:\s*Expected (?:value|range)s?:? (?P<allowed>.+))?")),
    # a bound the op states for one input, the value after it where the op prints it: "h0 must be [B,Hv,chunk_num,K,V];
    # h0=[7, 1, 128, 20]", "hidden in should be smaller than hidden out"
    ("bound", _form(r"\b(?P<param>[A-Za-z_][\w.]*(?: [a-z]+)?) (?:should|must) (?:be )?(?P<allowed>(?:smaller|larger|"
                    r"less|greater|bigger) than(?: or equal to)? [\w.]+(?: [a-z]+\b)?|[<>]=?\s*\d+|\[[^\]]*\])"
                    r"(?:[;,]\s*(?P=param)\s*=\s*(?P<value>\[[^\]]*\]|[^\s;,]+))?")),
    # an aclnn check that names the values it takes: "Invalid reduction value: 100. Allowed values are 0 (None), 1
    # (Mean), 2 (Sum), 3 (Batchmean)."
    ("attribute", _form(r"\bInvalid (?P<param>[A-Za-z_][\w ]{0,30}?) value:? (?P<value>[^\s,;]+?)\.?\s*(?:Allowed|"
                        r"Supported|Valid) values? (?:are|is):? (?P<allowed>.+)")),
    # the tiling's refusal, in the launcher's words ("Failed to execute tiling function") or the tiling's own ("sub-R
    # tiling requires N, C, R and N*C to fit in uint32")
    ("call", _form(r"[Tt]iling (?:failed|Failed|func failed)|do tiling failed|TilingFunc failed|"
                   r"[Ff]ailed to execute tiling function|\btiling requires\b")),
    ("call", _form(r"AclNN_Parameter_Error|ACLNN_ERR_PARAM_INVALID|error code is 161002")),
    # a model converter's parser that has none for a node's type at the model's opset (E19010: "No parser is
    # registered for Op [/head/Div_3, optype [ai.onnx::23::Div]]"): the ONNX parser keys each node's type by its
    # domain and the model's opset version, so the type that fails is the op at that opset, not the op alone
    ("opset", _form(r"No parser is registered for Op \[(?:[^\[\]]*?,\s*optype \[)?(?P<param>[\w.]+)::(?P<value>\d+)::"
                    r"(?P<op>\w+)\]")),
    # its op-plugin twin (E16002, E76002: "No ONNX parser is registered for optype [ai.onnx::18::Col2Im]")
    ("opset", _form(r"No ONNX parser is registered for optype \[?(?P<param>[\w.]+)::(?P<value>\d+)::(?P<op>\w+)")),
)
#: Lines this family reads.
READS = ("not implemented for", "support list", "supported list", "when layout", "layout is", "not support",
         "unsupported", "Tiling", "tiling", "AclNN_Parameter_Error", "ACLNN_ERR_PARAM", "161002", "should be",
         "must be", "but it is", "only support", "but got", "but received", "Wrong ", "for parameter",
         "need to broadcast", "incorrect format", "incorrect dtype", "incorrect data", "has not been supported",
         "Only support", "initCann", "but found", "desired output type", "alues are", "llowed value",
         "Unsupported data type", "Unsupported dtype", "needs to be", "parser is registered", "not be null",
         "not be empty")
#: Of those, the lines the reader keeps in big files. An op complains in an ERROR line, which the reader keeps anyway,
#: or in a line without a header; a line that merely names a tiling is kept when the tiling failed: an op's INFO lines
#: report their tiling data by the thousand, and none of them is a complaint.
KEEP = tuple(k for k in READS if k not in ("Tiling", "tiling")) + (
    "iling failed", "iling Failed", "iling func failed", "TilingFunc failed", "execute tiling", "tiling requires")
#: A torch_npu or plugin op by its Python name ("npu_chunk_gated_delta_rule_bwd_dhu: h0 must be ...",
#: "torch.ops._C_ascend.sgmv_expand.default"): it names the op, and marks the op layer as its other names do
_NPU_OP = r"\b(?P<npu>npu_[a-z]\w*):\s|\btorch\.ops\.(?:npu|_C_ascend|npu_inference|atb)\.(?P<torchop>\w+)"
OP = re.compile(r"\b(aclnn[A-Z]\w+?)(?:GetWorkspaceSize)?\b|\bop\[(?P<bracket>\w+)\]|\b[Oo]p(?:[Tt]ype|[Nn]ame)?\s*[:=]?\s*"
                 r"[\[(](?P<named>[A-Z]\w+)[\])]|/kernels/(?P<kernel>\w+?)_kernel\.cc\b|\b(?P<atb>[A-Z]\w*?Operation)_\d+\b|"
                 r"\boperator name is (?P<operator>\w+)|\"(?P<dispatch>\w+)\" not implemented for |"
                 r"\bFor '(?P<mindspore>[A-Z]\w+)', |/converter/(?P<converter>\w+)\.cc\b|"
                 r"/layers/(?P<opencv>\w+?)_layer\.cpp\b|\bof \[(?P<node>[A-Z][A-Za-z0-9]*?)(?:_\d+)?\] op\b|" + _NPU_OP)
#: Aspects whose wordings are common outside the op layer too ("VLLM_USE_V1=1 is not supported", "x's shape
#: mismatch"): read as an op's complaint only where an op or the op layer's codes stand on the lines around it.
GENERIC = ("attribute", "shape", "bound")
#: The parameters of the fused attention ops (FlashAttentionScore, FusedInferAttentionScore, PromptFlashAttention,
#: IncreFlashAttention), the ops whose complaints fill the tickets: a check that names one is the op's, whatever else
#: the paste kept ("when sparse_mode is 3, it not 0, atten_mask should not be null")
_ATTENTION_PARAMS = (r"\b(?:sparse_?[Mm]ode|atten_?[Mm]ask|actual_seq_(?:q|kv)?len\w*|actualSeqLength\w*|"
                     r"input_?[Ll]ayout|num_key_value_heads|pre_?[Tt]okens|next_?[Tt]okens|inner_?[Pp]recise|"
                     r"block_?[Tt]able)\b")
OP_LAYER = re.compile(r"EZ1001|E89999|EZ9999|E69999|161002|5610\d\d|Parameter_Error|[Tt]iling|\baclnn|\bop\[|\bIn op\b|"
                       r"OP_TILING|/kernels/\w+_kernel\.cc|\b\w+Verify failed\b|/converter/\w+\.cc|\bnnadapter\b|"
                       r"'initCann'|" + _NPU_OP + "|" + _ATTENTION_PARAMS)
#: The error-manager code of aclnn's parameter check (AclNN_Parameter_Error): the message it titles is the op's
#: complaint whatever its words, and it places the op layer around a complaint whose words alone would not.
PARAMETER_ERROR = "EZ1001"
#: What a parameter check refuses, read from its words where no form reads the sentence ("Not support mat2 n = 1 or
#: k = 1 when foramt is FRACTAL_NZ", "The batch_size of k should match the valid batch size, but got 1 and 1024"):
#: the first aspect whose words the message holds, in this order (a format named beside a size is what is refused).
WORDED = (("dtype", re.compile(r"\bd(?:ata ?)?types?\b|\bDT_[A-Z0-9]", re.I)),
          ("layout", re.compile(r"\blayouts?\b|\b(?:BSND|BNSD|BSH|SBH|TND|NTD|BNSD_BSND)\b", re.I)),
          ("format", re.compile(r"\bfor(?:mat|amt)s?\b|\bFRACTAL_\w+|\bNC1HWC0\b", re.I)),
          ("shape", re.compile(r"\bshapes?\b|\bdim(?:ension)?s?\b|\brank\b|\w*_?size\b|\blength\b|\bbatch\w*|"
                               r"\[\d+(?:, ?\d+)+\]", re.I)))

#: Wordings of other failures that share a form's words: the graph engine's op store (op-unsupported-input-dtype)
#: and a missing kernel binary (op-binary-not-found) are not an op's check of its call.
NOT_A_CHECK = re.compile(r"op store|Cannot find bin of op|binary_info_config")
