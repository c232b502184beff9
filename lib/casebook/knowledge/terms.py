"""Named word lists shared by the code and every knowledge-base document: a package or namespace list that a
statement of the evidence layer and several cases' regexes all name is written here once. A document's regex names
one as `<<name>>`, as it names its own `terms`."""
from __future__ import annotations

import re

TERMS: dict[str, tuple[str, ...]] = {
    # the Python packages a CANN toolkit installs (pip names): pip's resolver naming one of them as the one that lacks a
    # module is CANN's dependencies, not the job's
    "cann_python_packages": (
        "te", "tbe", "opc-tool", "op-compile-tool", "auto-tune", "schedule-search", "dataflow", "hccl", "hccl-parser",
        "llm-datadist", "op-gen", "msobjdump", "show-kernel-debug-data"),
    # pip and module names of packages built for CUDA GPUs only: a job that needs one took a path written for CUDA, and
    # installing it is no fix (both spellings: pip's with hyphens, the module's with underscores)
    "cuda_only_packages": (
        "flash_attn", "flash-attn", "xformers", "flashinfer", "mamba_ssm", "mamba-ssm", "causal_conv1d", "causal-conv1d",
        "deep_gemm", "deep-gemm", "cupy", "pynvml", "transformer_engine", "transformer-engine"),
    # the op libraries of CUDA kernels that serving frameworks build (vLLM's, its flash-attention builds, sglang's):
    # none is built on an Ascend install, whose plugins register their ops under names of their own (_C_ascend)
    "cuda_kernel_libraries": ("_C", "_moe_C", "_C_cache_ops", "_C_custom_ar", "_vllm_fa2_C", "_vllm_fa3_C", "sgl_kernel"),
    # the import names of frameworks, plugins and libraries jobs on Ascend run: a frame in a folder of one of these
    # names is that package's code, installed or run from a source checkout, not the job's own script
    "framework_packages": (
        "vllm_ascend", "vllm", "vllm_omni", "sglang", "sgl_kernel_npu", "torch", "torch_npu", "torchair", "mindspeed",
        "mindspeed_llm", "mindspeed_mm", "mindspeed_rl", "megatron", "transformers", "accelerate", "peft", "trl",
        "deepspeed", "verl", "swift", "llamafactory", "xtuner", "mmengine", "diffusers", "lmdeploy", "dlinfer", "ray",
        "mindspore", "mindformers", "mindone", "msmodelslim", "msprobe", "paddle", "paddlenlp", "tensorflow", "triton",
        "tilelang", "xllm", "tensor_cast"),
    # the endings of the names frameworks give a model's dimensions that parallelism splits: an assertion that divides
    # one of them by a parallel size is the job's configuration, any other divisibility assertion the code's own count
    "model_dimension_names": ("heads", "layers", "experts", "vocab_size", "hidden_size", "query_groups"),
    # the op namespaces of CUDA serving and kernel libraries beside those: a custom op of theirs has no NPU kernel
    "cuda_op_namespaces": (
        "vllm", "sglang", "flash_attn", "xformers", "flashinfer", "mamba_ssm", "causal_conv1d", "deep_gemm",
        "lmdeploy"),
}


def alternatives(*names: str) -> str:
    """A regex group matching any word of the named lists (escaped)."""
    return "(?:" + "|".join(re.escape(w) for name in names for w in TERMS[name]) + ")"
