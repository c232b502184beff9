"""What a kernel's logged name says: the operator type inside compiler-generated names."""
from __future__ import annotations

import re

# mixed AI Core / vector kernels carry a suffix naming the core type; it is not part of the op name
_DROP_SUFFIX = re.compile(r"_mix_ai[cv]$")


def op_of(kernel: str) -> str | None:
    """The operator type in a kernel name: `2_0_11_GatherV2` -> GatherV2, `FlashAttentionScoreGrad_<hash>_...` ->
    FlashAttentionScoreGrad, `16805736118314619649-1_0_1_Add_35` -> Add."""
    for token in _DROP_SUFFIX.sub("", kernel).split("_"):
        if token[:1].isalpha() and not token.startswith("te"):
            return token
    return None
