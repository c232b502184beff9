"""A C or C++ compiler's diagnostic on the source it builds, in GCC's words as in Clang's: the source does not build
(kernel-source-does-not-build), each on a real line; a header of CANN that is not found is the build's include path."""
import pytest
from casebook.judging.triage import triage
from casebook.knowledge.kb import load_kb
from conftest import write_log

KB = load_kb()


@pytest.mark.parametrize("line", [
    # GCC's words (the captures' sources: the ATB demo on x86, llama.cpp's CANN backend, ops-cv's unit tests under
    # GCC 15, an op project's unit tests, ONNX Runtime's CANN execution provider)
    "mlapa_ds_demo.cpp:31:73: error: ‘__fp16’ was not declared in this scope",
    "/llama.cpp/ggml/src/ggml-cann/aclnn_ops.cpp:1786:49: error: 'float16_t' was not declared in this scope; did you "
    "mean 'float_t'?",
    "file_io.h:30:55: error: 'uint32_t' has not been declared",
    "csv_case_load_utils.h:98:46: error: 'testing' does not name a type",
    "ggml-cann.cpp:1183:5: error: 'ggml_backend_buffer_i' has no member named 'get_name'",
    "cann_execution_provider.cc:1450:7: error: ‘cann_device’ was not declared in this scope",
    # the other wordings GCC and Clang use for a line the language rejects
    "acl_demo.c:41:9: error: 'aclrtContext' undeclared (first use in this function)",
    "kernel_main.cpp:88:20: error: no match for 'operator+' (operand types are 'LocalTensor<half>' and 'int')",
    "tiling.cpp:17:35: error: cannot convert 'const char*' to 'int64_t' {aka 'long int'} in initialization",
    "op_host/add_custom.cpp:52:1: error: expected ';' before '}' token",
    "op_host/add_custom.cpp:60:12: error: call of overloaded 'SetBlockDim(long unsigned int)' is ambiguous",
    "main.cpp:23:10: error: no type named 'DataType' in namespace 'ge'",
])
def test_a_compilers_rejection_of_a_line_is_the_source_that_does_not_build(tmp_path, line):
    t = triage(write_log(tmp_path, "build.log", line + "\nmake[2]: *** [CMakeFiles/demo.dir/build.make:76] Error 1\n"),
               kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "kernel-source-does-not-build"
    assert t.family is not None and t.family.family.id == "op-binary-compile"


@pytest.mark.parametrize("line,case", [
    # a header of CANN's own folders that no include path holds: the build's paths, not the source
    ("sample_process.cpp:10:10: fatal error: acl/acl.h: No such file or directory",
     "build-cannot-find-cann-headers-or-libraries"),
    # Python's own words, which share a compiler's: no source is built
    ("ValueError: cannot convert float NaN to integer", None),
])
def test_what_shares_a_compilers_words_is_not_a_source_that_does_not_build(tmp_path, line, case):
    t = triage(write_log(tmp_path, "build.log", line + "\n"), kb=KB)
    got = t.diagnosis.case.id if t.diagnosis is not None else None
    assert got != "kernel-source-does-not-build"
    if case is not None:
        assert got == case


@pytest.mark.parametrize("line", [
    # MindSpore's FAQ on an Ascend 310 inference application linked against MindSpore's C++ library
    "undefined reference to mindspore::GlobalContext::SetGlobalDeviceTarget(std::__cxx11::basic_string<char, "
    "std::char_traits<char>, std::allocator<char>> const &)",
    # the same at link time against libtorch: a function returning a std::string of the new ABI
    "main.cpp:(.text+0x1f4): undefined reference to `c10::Device::str[abi:cxx11]() const'",
])
def test_a_link_that_misses_a_new_abi_string_is_the_other_cxx11_abi(tmp_path, line):
    t = triage(write_log(tmp_path, "build.log", line + "\ncollect2: error: ld returned 1 exit status\n"), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "cxx11-abi-mismatch-extension"
