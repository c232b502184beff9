"""An Ascend C kernel's own assert, printed as it stops the core (`[ASSERT] <file>:<line>: Assertion ...`), is the
kernel trapping on purpose; the same form from CANN's own API headers is the API refusing how the kernel calls it.
Forms as the Ascend C guide prints them (NPU-domain assert) and as capture 1350 shows the Matmul API's check."""
import pytest
from casebook.judging.triage import triage
from casebook.knowledge.kb import load_kb
from conftest import write_log

KB = load_kb()


@pytest.mark.parametrize("line", [
    "[ASSERT] /home/dev/ops/add_custom/op_kernel/add_custom.cpp:44: Assertion `tileNum != 0' tileNum is 0.",
    "[ASSERT] .../ggml-cann/kernels/gather_v3/gather_v3_base.h:137:",
])
def test_a_kernels_own_assert_is_its_trap(tmp_path, line):
    t = triage(write_log(tmp_path, "paste.txt", line + "\n"), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "aicore-kernel-trap"
    assert "kernel_assert" in [i.id for i in t.diagnosis.for_]


def test_an_assert_in_canns_api_headers_is_not_a_trap_of_the_kernel(tmp_path):
    line = ("[ASSERT] /usr/local/Ascend/ascend-toolkit/latest/x86_64-linux/ascendc/include/highlevel_api/lib/matmul/"
            "matmul_client.h:268: Assertion `isTransposeB <= B_TYPE::isTrans && \"It is not allowed to do B transpose "
            "when matmul B transpose is not defined.\"'")
    t = triage(write_log(tmp_path, "paste.txt", line + "\n"), kb=KB)
    assert all(c.case.id != "aicore-kernel-trap" or c.verdict not in ("confirmed", "likely") for c in t.candidates)
