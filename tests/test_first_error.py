"""The first error of a case: a log file by time and cascade, a paste as printed; the error records of a paste."""
from pathlib import Path

import pytest

from casebook.evidence import errors
from casebook.evidence.errors import code_sightings as codes
from casebook.evidence.cascade import BENIGN, DECORATION, WRAPPER, classify
from casebook.evidence.first_error import extract, extract_all, ordered
from casebook.reading.plog import read_plog
from conftest import write_log

CAPTURES = Path(__file__).resolve().parent / "captures"
# A plog excerpt of a thread that never set its device (tests/captures/30, without grep's prefixes)
PLOG = """\
[ERROR] RUNTIME(51377,python3):2024-06-11-09:31:42.318.604 [api_impl.cc:1038]51377 GetMaxStreamAndTask:[FINAL][FINAL]report error module_type=3, module_name=EE8888
[ERROR] RUNTIME(51377,python3):2024-06-11-09:31:42.318.609 [api_impl.cc:1038]51377 GetMaxStreamAndTask:[FINAL][FINAL]ctx is NULL!
[ERROR] RUNTIME(51377,python3):2024-06-11-09:31:42.318.747 [api_c.cc:850]51377 rtGetMaxStreamAndTask:[FINAL][FINAL]ErrCode=107002, desc=[context pointer null], InnerCode=0x7070001
"""


def capture(name: str):
    return read_plog(next(CAPTURES.glob(f"{name}-*")) / "capture.txt")


def test_a_log_file_starts_at_its_earliest_cause_and_a_paste_at_its_first_error_line(tmp_path):
    plog = read_plog(write_log(tmp_path / "a", "plog/plog-51377_20240611093015224.log", PLOG))
    assert (extract(plog).line, extract(plog).text) == (2, "ctx is NULL!")   # the report line files it
    pasted = capture("30")     # the same lines as `grep -rn` printed them, under the shell prompt
    assert errors.is_paste(pasted, pasted.files[0].path)
    assert extract(pasted).line == 2 and extract(pasted).text.endswith("report error module_type=3, module_name=EE8888")


def test_a_paste_is_in_printed_order_even_where_a_reprinted_block_runs_back_in_time():
    log = capture("08")
    first = extract(log)
    # line 13's block is 23 s older, printed again below the newer one
    assert (first.line, first.time, first.code) == (1, "2026-05-01T10:59:14.702326", "EL0001")
    lines = [e.line for e in ordered(log)]
    assert lines == sorted(lines) and lines[0] == 1 and 13 in lines and 16 not in lines   # 16 is a TraceBack heading


def test_a_wrapper_on_top_of_the_report_is_where_a_paste_starts():
    assert extract(capture("02")).line == 10          # RuntimeError: call aclnnArange failed, detail:EZ9999
    assert extract(capture("03")).line == 7           # the RuntimeError above `ERR00100 PTA call acl api failed`
    assert extract(capture("17")).line == 13


def test_hints_and_layout_are_never_the_first_error():
    assert extract(capture("10")).line == 3           # under two lines of torch_npu's asynchronous-launch hint
    assert classify("Since the operator is called asynchronously, the stacktrace may be inaccurate.")[0] == BENIGN
    assert classify("DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)")[0] == BENIGN
    assert classify("        TraceBack (most recent call last):")[0] == DECORATION
    assert classify("[AIC_INFO] after execute:args print end[FUNC:GetError][FILE:stream.cc][LINE:1183]")[0] == DECORATION
    assert classify("call acl api failed")[0] == WRAPPER
    assert classify("RuntimeError: The Inner error is reported as above.")[0] == WRAPPER


def test_a_pastes_coded_lines_without_a_level_are_error_lines():
    warning = capture("16")
    assert (extract(warning).line, extract(warning).text) == (1, "Warning: NPU warning, error code is 107020[Error]: .")
    assert {("107020", 1), ("107020", 7)} <= {(c.code, c.line) for c in codes(warning)}   # the two warnings
    history = capture("34")
    assert (extract(history).line, [c.code for c in codes(history)]) == (3, ["0x68020002"])
    dcmi = capture("36")
    assert (extract(dcmi).line, [c.code for c in codes(dcmi)]) == (3, ["-8005"])
    assert extract(capture("38")).line == 2           # the kernel's APEI report, first of its block
    assert extract(capture("43")).line == 12          # msaicerr's `code : 0x10`
    hwts = capture("25")
    assert extract(hwts).line == 4 and {c.code for c in codes(hwts)} == {"0x26"}


def test_a_paste_with_no_error_line_has_the_lines_that_say_it_failed(tmp_path):
    """A line or two copied out of a console has no level and no block: its failure is said in words."""
    oom = capture("369")   # "NPU out of memory. Tried to allocate ..." and the allocator's totals under it
    assert (extract(oom).line, extract(oom).text) == (1, "NPU out of memory. Tried to allocate 258.00 MiB")
    assert extract(capture("443")).text == "unknown type name bfloat16_t"
    said = tmp_path / "said.txt"
    said.write_text("loading the model\nwarmup done\nshape of x is not equal to the batch size (20 vs 21)\n")
    assert [e.line for e in ordered(read_plog(said))] == [3]
    # a paste that has an error line of its own keeps to its error lines
    leveled = tmp_path / "leveled.txt"
    leveled.write_text("the cache cannot grow\n[ERROR] RUNTIME(1,python):2024-06-11-09:31:42.318.604 "
                       "[api_impl.cc:1]1 Run: ctx is NULL!\n")
    assert [e.line for e in ordered(read_plog(leveled))] == [2]
    quiet = tmp_path / "quiet.txt"   # and one that says nothing failed has no error line
    quiet.write_text("epoch 1 loss 0.31\nepoch 2 loss 0.28\n")
    assert extract(read_plog(quiet)) is None


@pytest.mark.parametrize("line", [
    "Input widthStride(500) is not right, it should be 16 aligned!",
    "crop width 640 cannot be greater than input width 416",
    "resize width (320) is greater than output width (256)",
    "buffer size(153600) is smaller than need buffer size(230400) when format is 1",
    "device 0, chn 5 has already been created!",
    "this channel doesn't have taskID 3172!, Channel id 2",
    "the socversion Ascend910B1 of bin package does not match the current device socverison Ascend310P3.",
    "bareDataAddr(0xaaaab3f41a20), bareDataBufferSize(6220800) should be allocated by acldvppMalloc!",
    "no module named 'transformers.models.qwen2_vl'",    # Python's import error, its exception name cut off
    "not support bf16 type cast",
    "can not find the element factory : mxpi_objectpostprocessor",
    "torch_npu detected, but NPU device is not available or visible",
    "max_tokens is too large: 32768. This model's maximum context length is 32768 tokens",
    "TorchCodec is required for decoding video",
    "undefined reference to mindspore::GlobalContext::SetGlobalDeviceTarget(std::string const&)",
    "Cann软件与Ascend驱动版本不匹配",
    "The CANN versions are inconsistent",
    "opType: 7, Cast, errno:361001, aicore exception (507015)",
    "libruntime_common.so: undefined symbol: _ZN12ErrorManager11GetInstanceEv",
    "*** SIGSEGV (@0x12c0417c3e00) received by PID 4242 (TID 0x7f2a) from PID 0; stack trace: ***",
    "pyarrow.lib.ArrowInvalid: Index not in dictionary bounds",
    "Operator MoeTokenPermute does not contain parallel layout infer func.",
    "The address for fixpipe to read L0C, read/write L1, and read/write FBUF is not aligned",
    "The conflict is caused by:",   # pip's resolver giving up, its pins on the lines under it
    # the captures' one-line reports whose words were read no failure before: a compiler's redefinition with its
    # prefix cut, Python's parser, ATC's parser registry, a scheduler and a media library
    "redefinition of 'launch_stage'",
    "EOL while scanning string literal",
    "No parser is registered for Op [/Conv_0, optype [ai.onnx::22::Conv]].",
    "0/3 nodes are available: 3 No suitable workers.",
    "all nodes are unavailable: 1 node annotations(7) not same node idle(8)",
    "acl and himpi mode is incompatible, please check! used channel-num: 6",
    "'DeepSpeedEngine' obiect has no attribute \"save checkpoint\"",   # an OCR'd screenshot: the class name is misread
    # a rule stated as what is allowed or required, a symbol a library lacks, and a tool's advice that stands alone
    "simt_vf function can only call simt_callee function",
    "inlinable function call in a function with debug info must have a !dbg location",
    "'aclnnAddRmsNormBias or aclnnAddRmsNormBiasGetWorkspaceSize not in libopapi.so, or libopapi.sonot found.'",
    "Please check the rtspUrl of the video is correct or the video exists",
    "larger than current process default size 32768. Please modify aclInit json, and reboot process.",
])
def test_an_argument_check_worded_as_the_rule_it_breaks_is_the_pastes_error(tmp_path, line):
    """An API's own check of an argument says the rule, not "error": it is the failure of a paste that has no other."""
    said = tmp_path / "said.txt"
    said.write_text(f"decoding frame 12\n{line}\n")
    assert [e.line for e in ordered(read_plog(said))] == [2]


def test_a_pasted_line_that_says_it_failed_with_a_code_is_an_error_beside_the_others(tmp_path):
    """A paste with an error line of its own still has the runtime's report that names its code in words."""
    paste = tmp_path / "paste.txt"
    paste.write_text("EZ9999: Inner Error!\nThe MPU address access is invalid.\n"
                     "Kernel task happen error, retCode=0x26, [aicore exception].\n"
                     "Call aclrtSetDevice failed, ret[107001]. Got device count[8] and device id[9]\n")
    log = read_plog(paste)
    assert [e.line for e in ordered(log)] == [1, 3, 4]
    assert {c.code for c in codes(log)} >= {"0x26", "107001"}
    # a line that only says it failed, with no code, stays out when the paste has its own error lines
    assert 2 not in [e.line for e in ordered(log)]


def test_the_words_above_an_exception_that_says_nothing_are_where_the_paste_starts(tmp_path):
    """torch_npu prints the op layer's words, then a bare `RuntimeError:`: the words are the failure it reports."""
    paste = tmp_path / "paste.txt"
    paste.write_text("OpName:[aclnnRecurrentGatedDeltaRule_1_RecurrentGatedDeltaRule]\n"
                     "Cannot find bin of op RecurrentGatedDeltaRule, integral key\n"
                     "RuntimeError:\n"
                     "aclnnRecurrentGatedDeltaRuleGetWorkspaceSize failed with aclnnStatus=561103.\n")
    log = read_plog(paste)
    assert [e.line for e in ordered(log)][:2] == [2, 3]
    assert "561103" in {c.code for c in codes(log)}
    # an exception that says what failed keeps the words above it out: they are the console's context, not its start
    paste.write_text("loading the op library failed, retrying\nRuntimeError: call aclnnAdd failed\n")
    assert [e.line for e in ordered(read_plog(paste))] == [2]


def test_a_console_that_repeats_a_coded_failure_adds_only_its_first_ones(tmp_path):
    """A console that prints such a line at every step does not make each of its lines an error to place."""
    paste = tmp_path / "train.log"
    paste.write_text("EZ9999: Inner Error!\n" + "".join(f"step {i}: allreduce retry failed, error code is 507048\n"
                                                       for i in range(200)))
    lines = [e.line for e in ordered(read_plog(paste))]
    assert lines[:3] == [1, 2, 3] and len(lines) == 1 + errors.TOLD_PER_FILE


def test_a_paste_without_error_lines_makes_its_first_failures_errors_up_to_a_bound(tmp_path):
    """A console that says it failed at every step has its first STATED_PER_FILE such lines as errors; every line
    is still read and parsed."""
    paste = tmp_path / "retries.txt"
    n = errors.STATED_PER_FILE + 500
    paste.write_text("".join(f"step {i}: Call aclrtSetDevice failed, ret[107001]\n" for i in range(n)))
    log = read_plog(paste)
    lines = [e.line for e in ordered(log)]
    assert lines[:2] == [1, 2] and len(lines) == errors.STATED_PER_FILE and log.lines == n


def test_every_line_of_the_captures_that_says_it_failed_holds_a_literal_of_the_wordings():
    # a paste's lines are searched for the wordings' literals before the regex runs on them: no line the regex
    # finds may be passed over
    need = errors._STATES_NEED
    assert need is not None
    lines = [line for p in sorted(CAPTURES.glob("*/capture.txt")) for line in p.read_text(errors="replace").splitlines()]
    said = [line for line in lines if errors._STATES.search(line)]
    assert len(said) > 1000 and all(need.may_match(line) for line in said)


def test_an_argument_rule_in_a_routine_line_is_no_error_when_the_paste_has_its_own(tmp_path):
    leveled = tmp_path / "leveled.txt"
    leveled.write_text("the batch size must be a multiple of 8, using 16\n[ERROR] RUNTIME(1,python):2024-06-11-09:31:42."
                       "318.604 [api_impl.cc:1]1 Run: ctx is NULL!\n")
    assert [e.line for e in ordered(read_plog(leveled))] == [2]


def test_the_same_history_line_in_a_device_log_folder_is_no_error_line(tmp_path):
    line = ("[2024-08-14-03:12:51.640218] system exception code [0x68020002]: ModuleName [DRIVER], ExceptionReason "
            "[DEVICE_HBL_EXCEPTION], TimeStamp [20240814031247-120538906].\n")
    write_log(tmp_path, "hisi_logs/device-2/history.log", line)
    bundle = read_plog(tmp_path)
    assert bundle.files[0].role == "bbox"
    assert extract(bundle) is None and codes(bundle) == []


def test_files_merge_by_time_and_a_pasted_line_without_time_takes_the_time_above(tmp_path):
    write_log(tmp_path, "plog/plog-51377_20240611093015224.log", PLOG)
    write_log(tmp_path, "console.txt", "EH9999: Inner Error!\n"
              "EH9999: [PID: 51377] 2024-06-11-09:31:42.318.700 synchronize stream failed, runtime result = 507035\n")
    log = read_plog(tmp_path)
    order = [(Path(e.file).name, e.line) for e in ordered(log)]
    # the paste's untimed head goes with its block, after the plog's lines of .318.609
    assert order == [("plog-51377_20240611093015224.log", 1), ("plog-51377_20240611093015224.log", 2),
                     ("console.txt", 1), ("console.txt", 2), ("plog-51377_20240611093015224.log", 3)]
    assert (Path(extract(log).file).name, extract(log).line) == ("plog-51377_20240611093015224.log", 2)
    assert [(Path(e.file).name, e.line) for e in extract_all(log)] == [("plog-51377_20240611093015224.log", 1)]


def test_a_borrowed_time_keeps_the_precision_of_the_line_it_comes_from(tmp_path):
    write_log(tmp_path, "plog/plog-51377_20240611093015224.log", PLOG)
    write_log(tmp_path, "train_stdout.log", "RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:627 "
              "NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507015\n"
              "[ERROR] 2024-06-11-09:31:42 (PID:51377, Device:3, RankID:-1) ERR00100 PTA call acl api failed\n")
    log = read_plog(tmp_path)
    # the RuntimeError is known to the second only, as the torch_npu line under it: after the plog's µs lines
    assert [(Path(e.file).name, e.line) for e in ordered(log)][3:] == [("train_stdout.log", 1), ("train_stdout.log", 2)]
    assert (Path(extract(log).file).name, extract(log).line) == ("plog-51377_20240611093015224.log", 2)


def test_pips_account_of_a_conflict_is_a_pastes_error_and_its_pins_are_read_with_it(tmp_path):
    """Three lines copied from pip (flagos-ai/FlagTree issue 537, with a release of our own): the account of the
    conflict is the error, and the pin to a local build under it names the index the install lacks."""
    from casebook.judging.triage import triage
    from casebook.knowledge.kb import load_kb
    paste = tmp_path / "pip.txt"
    paste.write_text("The conflict is caused by:\n    The user requested torch==2.7.1\n"
                     "    torch-npu 2.7.1 depends on torch==2.7.1+cpu\n")
    assert [e.line for e in ordered(read_plog(paste))] == [1]
    t = triage(paste, kb=load_kb())
    assert t.diagnosis is not None and t.diagnosis.case.id == "pip-finds-no-matching-distribution"
    assert any("+cpu" in i.text for i in t.diagnosis.for_)


@pytest.mark.parametrize("lines,first", [
    # torch_npu's summary of a failed ACL call, printed above the op's complaint (vllm-ascend and ops-nn threads)
    (["call acl api failed.", "AclNN_Parameter_Error(EZ1001): Tensor x2Scale shape [1,128] should be [1,4096]"], 2),
    # the C++ runtime's notice of an uncaught exception, printed above the exception's text
    (["terminate called after throwing an instance of 'c10::Error'",
      "  what():  Could not compute stream ID for 0xffff8b21c6a0 on device -1 (something has gone horribly wrong!)"], 2),
    # a wrapper with nothing under it stays the first error
    (["call acl api failed.", "INFO: shutting down"], 1),
])
def test_a_pastes_leading_wrapper_gives_way_to_the_error_it_wraps(tmp_path, lines, first):
    said = tmp_path / "said.txt"
    said.write_text("\n".join(lines) + "\n")
    assert extract(read_plog(said)).line == first


def test_the_oom_killers_line_pasted_without_its_prefix_is_an_error_beside_the_others(tmp_path):
    # the kernel's account of a kill (Linux mm/oom_kill.c), pasted under the job's own traceback without dmesg's time
    said = tmp_path / "said.txt"
    said.write_text("RuntimeError: DataLoader timed out after 600 seconds\n"
                    "Out of memory: Killed process 52111 (python3.10) total-vm:198437612kB, anon-rss:151220480kB\n")
    assert [r.line for r in errors.records(read_plog(said))] == [1, 2]


def test_the_words_above_a_bare_crash_are_where_the_paste_starts(tmp_path):
    """The shell's `Segmentation fault (core dumped)` says nothing of its cause: the failure printed just above it is
    its start, as for a bare exception, and its words are read (the thread creation refused with EPERM)."""
    paste = tmp_path / "paste.txt"
    paste.write_text("OpenBLAS blas_thread_init: pthread_create failed for thread 3 of 96: Operation not permitted\n"
                     "OpenBLAS blas_thread_init: RLIMIT_NPROC -1 current, -1 max\n"
                     "Segmentation fault (core dumped)\n")
    assert [e.line for e in ordered(read_plog(paste))] == [1, 3]
    # farther above than LEAD lines, a failure is the console's context, not the crash's start
    paste.write_text("loading the tokenizer failed, retrying\nstep 1\nstep 2\nSegmentation fault (core dumped)\n")
    assert [e.line for e in ordered(read_plog(paste))] == [4]


def test_the_assert_a_traceback_echoes_above_a_bare_assertion_error_is_its_start(tmp_path):
    """A bare `AssertionError` prints no message: the condition that failed is the `assert` statement the traceback
    echoes above it, wherever the exception falls in the paste (here after an error line of its own)."""
    paste = tmp_path / "paste.txt"
    paste.write_text("ERROR 11-03 17:40:12 [core.py:700] EngineCore encountered a fatal error.\n"
                     '  File "/usr/lib/python3.11/site-packages/vllm/distributed/communicator.py", line 230, in rs\n'
                     "    assert input_tensor.shape[0] % world_size == 0\n"
                     "AssertionError\n")
    assert [e.line for e in ordered(read_plog(paste))] == [1, 3, 4]
    # an assert statement above an exception that says what failed is code the traceback quotes, not a failure
    paste.write_text('  File "/home/dev/train.py", line 9, in main\n'
                     "    assert cfg.steps > 0\n"
                     "AssertionError: steps must be positive\n")
    assert [e.line for e in ordered(read_plog(paste))] == [3]


def test_the_driver_installers_prompt_for_a_kernel_path_is_a_report(tmp_path):
    """The NPU driver installer prints no level when it finds no module for the running kernel and asks where that
    kernel's source is: the prompt is the failure of the paste."""
    paste = tmp_path / "paste.txt"
    paste.write_text("./Ascend-hdk-910b-npu-driver_24.1.0_linux-aarch64.run --upgrade\n"
                     "Do you want to try build driver after input kernel absolute path?\n")
    assert [e.line for e in ordered(read_plog(paste))] == [2]
