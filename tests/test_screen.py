"""Screen-capture forms (reading/screen.py), each on a real line; the source is cited beside it (the captures'
SOURCE.md files give their URLs and licences)."""
from casebook.reading.grammar import (KIND_BLOCK_HEAD, KIND_BLOCK_LINE, KIND_BLOCK_MSG, KIND_CONSOLE, KIND_NPU_MESSAGE,
                                      KIND_PYTHON, KIND_REPORT, KIND_STACK, KIND_TORCH_WARNING, KIND_UNPARSED,
                                      BlockState, parse_line)


def read(*lines: str) -> list:
    """The fields of consecutive lines of one capture."""
    state = BlockState()
    return [parse_line(line, state) for line in lines]


def test_a_block_message_without_pid_and_one_with_its_code_repeated():
    # Open-Sora-Plan#360 (CANN of mid 2024): "CODE: time  msg"
    (f,) = read("EZ9999: 2024-07-27-05:01:55.672.958  get unsupported atten_mask shape, the shape is [2, 1, 28800, "
                "28800][FUNC:AnalyzeOptionalInput][FILE:flash_attention_score_tiling_general.cpp][LINE:1179]")
    assert (f.kind, f.level, f.code, f.time) == (KIND_BLOCK_MSG, "ERROR", "EZ9999", "2024-07-27T05:01:55.672958")
    # LlamaFactory#5347 (CANN 8): "CODE  msg" after the block's head, then its TraceBack
    head, msg, marker = read("EH9999: Inner Error!",
                             "EH9999  wait for compute device to finish failed, runtime result = 107020.[FUNC:"
                             "ReportCallError][FILE:log_inner.cpp][LINE:161]",
                             "        TraceBack (most recent call last):")
    assert (head.kind, msg.kind, msg.code, msg.level) == (KIND_BLOCK_HEAD, KIND_BLOCK_MSG, "EH9999", "ERROR")
    assert msg.msg.startswith("wait for compute device to finish failed")
    assert (marker.kind, marker.level, marker.code) == (KIND_BLOCK_LINE, None, "EH9999")


def test_a_message_under_its_title_and_code_without_pid_or_time_opens_a_block():
    # hicann/runtime's FAQ on EE1023 (CANN 8): the runtime's message as it prints it, with its Solution and TraceBack
    msg, solution, marker, first = read(
        "Resource_Error(EE1023): Alloc Stream resource failed. Reason: Too many streams are created.",
        "        Solution: For details about the troubleshooting method, search for the keyword \"EE1023\".",
        "TraceBack (most recent call last):",
        "        rtStreamCreateWithFlags execution failed, reason=driver error:resource alloc fail[FUNC:FuncErrorReason]"
        "[FILE:error_message_manage.cc][LINE:69]")
    assert (msg.kind, msg.level, msg.code, msg.extra["title"], msg.time) == (
        KIND_BLOCK_MSG, "ERROR", "EE1023", "Resource_Error", None)
    assert msg.msg == "Alloc Stream resource failed. Reason: Too many streams are created."
    assert (solution.extra["advice"], marker.code, first.code, first.level) == ("Solution", "EE1023", "EE1023", "ERROR")
    (slashed,) = read("Device_Absent/Abnormal(EL0001): Device not found or invalid.")
    assert (slashed.kind, slashed.extra["title"]) == (KIND_BLOCK_MSG, "Device_Absent/Abnormal")
    # a word without the catalog's underscore or slash before a code is prose, not a title
    assert read("Hello(EZ1001): x")[0].kind == KIND_UNPARSED
    # torch_npu's reprint of a message puts it on the lines under its title: the title opens the block, and those
    # lines are its message (pytorch/pytorch, an aclnnIndexPutImpl call refused for DT_COMPLEX64)
    title, said, allowed = read("AclNN_Parameter_Error(EZ1001):", "    Tensor self not implemented for DT_COMPLEX64,",
                                "    should be in dtype support list [DT_FLOAT, DT_INT32, DT_INT64, ...]")
    assert (title.kind, title.level, title.code, title.msg) == (KIND_BLOCK_MSG, "ERROR", "EZ1001", "")
    assert [(f.kind, f.code) for f in (said, allowed)] == [(KIND_BLOCK_LINE, "EZ1001")] * 2
    # a paste that kept the title alone, without its colon (a disaggregated deployment's HCCL link failure)
    (bare,) = read("Communication_Error_Get_Socket(EI0006)")
    assert (bare.kind, bare.level, bare.code, bare.extra["title"], bare.msg) == (
        KIND_BLOCK_MSG, "ERROR", "EI0006", "Communication_Error_Get_Socket", "")
    assert read("Communication_Error_Get_Socket(EI0006) and more")[0].kind == KIND_UNPARSED


def test_a_block_the_paste_began_inside_reads_from_its_call_sites():
    # vllm-ascend#8186: the paste starts at the block's second line, no head, no TraceBack
    first, second, plain = read(
        "        rtDeviceSynchronizeWithTimeout execution failed, reason=lost heartbeat[FUNC:FuncErrorReason]"
        "[FILE:error_message_manage.cc][LINE:65]",
        "        wait for compute device to finish failed, runtime result = 507010.[FUNC:ReportCallError]"
        "[FILE:log_inner.cpp][LINE:148]",
        "        Device not found or invalid.")
    assert (first.kind, first.level, first.src, first.func) == (KIND_BLOCK_LINE, "ERROR", "error_message_manage.cc:65",
                                                                "FuncErrorReason")
    assert first.msg.endswith("[LINE:65]"), "the message keeps its call site"
    assert (second.kind, plain.kind, plain.level) == (KIND_BLOCK_LINE, KIND_BLOCK_LINE, "ERROR")
    # MindAct#1752 (CANN 8, MindSpore): a [THREAD:n] after the call site
    (f,) = read("        AICPU Kernel task happen error, retCode=0x2a.[FUNC:GetError][FILE:stream.cc][LINE:1512]"
                "[THREAD:88417]")
    assert (f.kind, f.src) == (KIND_BLOCK_LINE, "stream.cc:1512")
    # a bracket pair that is not the call site is no block line
    assert read("see [FUNC:x] in the docs")[0].kind == KIND_UNPARSED
    # ait's benchmark FAQ (a screen capture read by OCR): the `][` between function and file is lost
    (f,) = read("Task index:0 init failed, ret:-1.[FUNC:InitTaskInfo  FILE:davinci model.cc][LINE:3593] ")
    assert (f.kind, f.level, f.src, f.func) == (KIND_BLOCK_LINE, "ERROR", "davinci model.cc:3593", "InitTaskInfo")


def test_a_traceback_marker_at_column_zero_opens_a_block():
    # vllm-ascend#16667: the marker unindented, the report line under it indented, its extend info unindented
    marker, report, extend = read(
        "TraceBack (most recent call last):",
        "        The error from device(chipId:3, dieId:0), serial number is 45, there is an exception of fftsplus "
        "aivector error, core id is 10, error code = 0, dump info: pc start: 0x125603df147c",
        "The extend info: errcode:(0, 0x1000, 0) errorStr: The VEC instruction parameter is invalid.")
    assert (marker.kind, marker.level) == (KIND_BLOCK_LINE, None)
    assert (report.kind, report.level) == (extend.kind, extend.level) == (KIND_BLOCK_LINE, "ERROR")


def test_advice_lines_and_hccl_cluster_lines_belong_to_the_block():
    # vllm-ascend#8186: EL0001 with its Possible Cause and Solution
    msg, cause, solution = read(
        "[PID: 1070] 2026-04-30-23:39:01.135.160 Device_Absent/Abnormal(EL0001): Device not found or invalid.",
        "        Possible Cause: Device does not exist or is abnormal.",
        "        Solution: Check the error messages in the log.")
    assert (cause.kind, cause.level, cause.code, cause.extra["advice"]) == (KIND_BLOCK_LINE, None, "EL0001",
                                                                            "Possible Cause")
    assert (solution.extra["advice"], solution.time) == ("Solution", msg.time)
    # Ascend/pytorch docs, HCCL_timeout.md: EI0002's heartbeat report goes on over lines of its own
    lines = read("EI0002: [PID: 7277] 2024-11-28-11:59:30.645.648 The wait execution of the Notify register times out.",
                 "there are(is) 1 abnormal device(s):",
                 "    Cluster Exception Location[IP/ID]:[90.90.92.240/1], Arrival Time:[Thu Nov 28 11:56:34 2024], "
                 "Discoverer:[90.90.92.240/0], ExceptionType:[Heartbeat Lost Occurred]")
    assert [f.kind for f in lines] == [KIND_BLOCK_MSG, KIND_BLOCK_LINE, KIND_BLOCK_LINE]
    assert {f.code for f in lines} == {"EI0002"}
    # an advice line outside a block, at column zero, is prose
    assert read("Solution: reinstall")[0].kind == KIND_UNPARSED


def test_c10_prefixes_of_torch_2_4_on():
    # vllm-ascend#8186 and vllm-ascend#6573: month and day, time of day, then the call site
    (w,) = read("[W430 23:39:01.305254567 NPUStream.cpp:577] Warning: NPU warning, error code is 507010[Error]: ")
    assert (w.kind, w.level, w.src, w.time, w.extra["time_of_day"]) == (
        KIND_TORCH_WARNING, "WARNING", "NPUStream.cpp:577", None, "23:39:01.305254567")
    (e,) = read("[E205 11:47:24.695215771 compiler_depend.ts:444] operator():build/CMakeFiles/torch_npu.dir/"
                "compiler_depend.ts:1130 NPU function error: call aclnnFlashAttentionScore failed, error code is "
                "561103")
    assert (e.kind, e.level, e.src) == (KIND_TORCH_WARNING, "ERROR", "compiler_depend.ts:444")


def test_torch_npu_logger_and_code_explanation():
    # vllm-ascend#8818: ProcessGroupHCCL's logger
    (f,) = read("[591] [2026-04-30 03:58:27:937] torch.distributed: [ERROR] [692] Find exception when "
                "finishedNPUExecutionInternal, query:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:61 NPU function "
                "error: acl::AclQueryEventRecordedStatus(event_, &currStatus), error code is 507011")
    assert (f.kind, f.level, f.module, f.pid, f.tid, f.time) == (
        KIND_CONSOLE, "ERROR", "torch.distributed", 591, "692", "2026-04-30T03:58:27.937000")
    assert f.msg.startswith("Find exception when finishedNPUExecutionInternal")
    # vllm-ascend#8186: the explanation torch_npu prints after a code, and the function a warning came from
    function, error, advice = read(" (function npuSynchronizeUsedDevices)",
                                   "[Error]: The task scheduler loses the heartbeat. ",
                                   "        Rectify the fault based on the error information in the ascend log.")
    assert (function.kind, function.func, function.level, function.msg) == (
        KIND_NPU_MESSAGE, "npuSynchronizeUsedDevices", None, "(function npuSynchronizeUsedDevices)")
    assert (error.kind, error.level) == (KIND_NPU_MESSAGE, "ERROR")
    assert error.msg == "The task scheduler loses the heartbeat."
    assert (advice.kind, advice.level, advice.extra["advice"]) == (KIND_NPU_MESSAGE, None, True)
    # the advice is read only under its [Error]: line
    assert read("        Rectify the fault based on the error information in the ascend log.")[0].kind == KIND_UNPARSED


def test_python_tracebacks_as_pasted():
    # Ascend/pytorch docs, initialization_error.md: frames without the Traceback line, one-space source lines
    frame, source = read('File "/home/HwHiAiUser/anaconda3/envs/PyTorch-2.1.0/lib/python3.9/site-packages/torch/'
                         'serialization.py", line 359, in _privateuse1_deserialize',
                         " return getattr(obj, backend_name)(device_index)")
    assert (frame.kind, frame.func, frame.level) == (KIND_PYTHON, "_privateuse1_deserialize", None)
    assert (source.kind, source.level) == (KIND_PYTHON, None)
    # vllm-ascend#6611: Python 3.11's markers under a source line
    assert read("                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^")[0].kind == KIND_PYTHON
    # Ascend/pytorch porting guide (2021): the exception Python reports at exit
    assert read("Error in atexit._run_exitfuncs:")[0].kind == KIND_PYTHON
    # threading's report of an exception a thread raised (kb sample task-queue-shared-cache-race, as Python prints it)
    assert read("Exception in thread npu-3:")[0].kind == KIND_PYTHON
    # Python's own lines between chained tracebacks
    assert read("During handling of the above exception, another exception occurred:")[0].kind == KIND_PYTHON
    assert read("The above exception was the direct cause of the following exception:")[0].kind == KIND_PYTHON
    # vllm-ascend's release notes (capture 3553): a traceback quoted with one more space on every line, its exception
    # bare at the end; a one-space source line under a frame stays source
    *_, source, bare = read('   File "/vllm-workspace/vllm/vllm/v1/cudagraph_dispatcher.py", line 140, in '
                            '_create_padded_batch_descriptor',
                            "     assert num_tokens_padded % uniform_decode_query_len == 0",
                            " return getattr(obj, backend_name)(device_index)", " AssertionError")
    assert (source.kind, source.level, bare.kind, bare.level, bare.extra["exception"]) == (
        KIND_PYTHON, None, KIND_PYTHON, "ERROR", "AssertionError")
    # gpustack#3284: an exception class named with a suffix after "Error"
    (f,) = read("gpustack_runtime.detector.pydcmi.DCMIError_LibraryNotFound: Library Not Found")
    assert (f.kind, f.level, f.extra["exception"]) == (KIND_PYTHON, "ERROR",
                                                       "gpustack_runtime.detector.pydcmi.DCMIError_LibraryNotFound")


def test_native_call_stacks():
    # vllm-ascend#6573: c10::Error's stack
    raised, frame = read("Exception raised from operator() at build/CMakeFiles/torch_npu.dir/compiler_depend.ts:1130 "
                         "(most recent call first):",
                         "frame #0: c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, "
                         "std::char_traits<char>, std::allocator<char> >) + 0xb0 (0xffffad6bc700 in /usr/local/lib/"
                         "python3.11/site-packages/torch/lib/libc10.so)")
    assert (raised.kind, raised.func) == (KIND_STACK, "operator()")
    assert raised.src == "build/CMakeFiles/torch_npu.dir/compiler_depend.ts:1130"
    assert (frame.kind, frame.extra["frame"], frame.level) == (KIND_STACK, 0, None)
    # mindocr#615 (MindSpore 2.2): the Python call stack of a graph node
    title, where = read("The function call stack:",
                        "In file /home/ma-user/anaconda3/envs/MindSpore/lib/python3.7/site-packages/mindspore/train/"
                        "dataset_helper.py:106/        outputs = self.get_next()/")
    assert (title.kind, where.kind, where.src) == (
        KIND_STACK, KIND_STACK, "/home/ma-user/anaconda3/envs/MindSpore/lib/python3.7/site-packages/mindspore/train/"
                                "dataset_helper.py:106")


def test_mindspore_error_report():
    # MindAct#1752 (MindSpore 2.3): a kernel error, then the Ascend error message, each section between rules
    lines = read("Kernel error:", "-" * 52, "Launch kernel failed: Bprop/gradDense/Reshape-op415", "",
                 "-" * 52, "- Ascend Error Message:", "-" * 52, "E39999: Inner Error!")
    assert [f.kind for f in lines] == [KIND_REPORT, KIND_REPORT, KIND_REPORT, "blank", KIND_REPORT, KIND_REPORT,
                                       KIND_REPORT, KIND_BLOCK_HEAD]
    assert [f.level for f in lines[:3]] == [None, None, "ERROR"]
    assert lines[2].msg == "Launch kernel failed: Bprop/gradDense/Reshape-op415"
    assert lines[5].extra["section"] == "Ascend Error Message"
    # mindyolo#186 (MindSpore 2.x): the C++ call stack section
    title, rule, frame = read("- C++ Call Stack: (For framework developers)", "-" * 52,
                              "mindspore/ccsrc/runtime/device/kernel_runtime.cc:108 LockRuntime")
    assert (title.extra["section"], frame.kind, frame.src, frame.func) == (
        "C++ Call Stack", KIND_STACK, "mindspore/ccsrc/runtime/device/kernel_runtime.cc:108", "LockRuntime")
    # a line under no error title is no error
    assert read("Launch kernel failed: Bprop/gradDense/Reshape-op415")[0].kind == KIND_UNPARSED


def test_torchrun_failure_summary_and_banner():
    # the summary torchrun writes under ChildFailedError (torch 2.x elastic launcher), as published in
    # verl-project/verl and LLaMA issue threads
    text = ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60,
            "verl.trainer.fsdp_sft_trainer FAILED", "-" * 60, "Failures:", "  <NO_OTHER_FAILURES>", "-" * 60,
            "Root Cause (first observed failure):", "[0]:", "  time      : 2025-07-31_10:50:07",
            "  rank      : 1 (local_rank: 1)", "  exitcode  : 1 (pid: 3248030)", "  error_file: <N/A>",
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html", "=" * 60)
    lines = read(*text)
    assert lines[0].kind == KIND_PYTHON and {f.kind for f in lines[1:]} == {KIND_REPORT}
    assert [f.msg for f in lines[1:]] == [t.strip() for t in text[1:]]
    # inside the summary, an indented line that is no field of it is no part of it either
    assert read("Failures:", "  something else entirely")[1].kind == KIND_UNPARSED
    assert [f.msg for f in lines if f.level == "ERROR"] == [lines[0].msg, "verl.trainer.fsdp_sft_trainer FAILED"]
    assert (lines[10].extra["rank"], lines[11].extra["exitcode"]) == (1, "1 (pid: 3248030)")
    assert read("  rank      : 1 (local_rank: 1)")[0].kind == KIND_UNPARSED, "a field outside the summary is prose"
    omp = ("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system "
           "being overloaded, please further tune the variable for optimal performance in your application as needed. ")
    banner, warning = read("*" * 41 + " ", omp)
    assert (banner.kind, warning.kind, warning.level) == (KIND_REPORT, KIND_CONSOLE, "WARNING")
    assert (banner.msg, warning.msg) == ("*" * 41, omp.strip())


def test_mindspore_slog_lines_name_thread_and_function():
    # mindocr#615 (MindSpore 2.2): (pid,thread,pname) and `[file:line] Function] message`
    (f,) = read("[ERROR] DEVICE(3187425,ffff8a7fd1e0,python):2023-12-06-09:41:17.553.208 [mindspore/ccsrc/plugin/"
                "device/ascend/hal/device/ascend_kernel_runtime.cc:761] DumpTaskExceptionInfo] Task fail infos "
                "task_id: 2, stream_id: 51")
    assert (f.pid, f.pname, f.tid, f.func, f.msg) == (3187425, "python", "ffff8a7fd1e0", "DumpTaskExceptionInfo",
                                                      "Task fail infos task_id: 2, stream_id: 51")


def test_torch_npu_hints_and_an_uncaught_cpp_exception():
    # vllm-ascend#1383 (torch_npu 2.5): the hints after an asynchronous error, without the logger's prefix
    lines = read("Since the operator is called asynchronously, the stacktrace may be inaccurate. If you want to get "
                 "the accurate stacktrace, pleace set the environment variable ASCEND_LAUNCH_BLOCKING=1.",
                 "Note: ASCEND_LAUNCH_BLOCKING=1 will force ops to run in synchronous mode, resulting in performance "
                 "degradation. Please unset ASCEND_LAUNCH_BLOCKING in time after debugging.")
    assert [(f.kind, f.level) for f in lines] == [(KIND_NPU_MESSAGE, None)] * 2
    # libstdc++'s report of an uncaught c10 error, as a torch 2.8 crash printed it (a public issue thread's log;
    # the form is libstdc++'s, whatever the device)
    terminate, what = read("terminate called after throwing an instance of 'c10::AcceleratorError'",
                           "  what():  CUDA error: misaligned address")
    assert (terminate.kind, terminate.level, terminate.extra["exception"]) == (KIND_STACK, "ERROR",
                                                                              "c10::AcceleratorError")
    assert (what.kind, what.level, what.msg) == (KIND_STACK, "ERROR", "CUDA error: misaligned address")
    assert read("  what():  x")[0].kind == KIND_UNPARSED, "what() belongs to the terminate line above it"


def test_cann_6_forms_in_a_mindspore_error_report():
    # MindSpore's error-analysis guide (2022-2023 logs, CANN 6): the head's longer wording, HCCL's per-device line of
    # that release and the bracket that closes the message, the report's closing pointer
    head, msg = read("EE9999: Inner Error, Please contact support engineer!",
                     "EE9999  Task execute failed, base info: device_id=0, stream_id=2, task_id=3, flip_num=0, "
                     "task_type=3.[FUNC:GetError][FILE:stream.cc][LINE:1044]")
    assert (head.kind, head.code, msg.kind, msg.code) == (KIND_BLOCK_HEAD, "EE9999", KIND_BLOCK_MSG, "EE9999")
    lines = read("EI0002: [PID: 162844] 2022-12-01-00:26:58.399.787 The wait execution of the Notify register times "
                 "out.",
                 "there are(is) 1 abnormal device(s):",
                 "        serverId[10.*.*.*], deviceId[0], Heartbeat Lost Occurred, Possible Reason: 1. Process has "
                 "exited, 2. Network Disconnected",
                 "]",
                 "        Possible Cause: 1. An exception occurs during the execution on some NPUs in the cluster.")
    assert [f.kind for f in lines] == [KIND_BLOCK_MSG] + [KIND_BLOCK_LINE] * 4
    assert [f.level for f in lines[1:]] == ["ERROR", "ERROR", None, None]
    assert read("]")[0].kind == KIND_UNPARSED, "a lone bracket closes only HCCL's device list"
    (f,) = read('(Please search "Ascend Error Message" at https://www.mindspore.cn for error code description)')
    assert f.kind == KIND_REPORT
    # glibc's abort on a corrupted heap, printed after that report
    (f,) = read("malloc_consolidate(): invalid chunk size")
    assert (f.kind, f.level) == (KIND_STACK, "ERROR")
    # also as glibc 2.17 prints it, without the blank before the parenthesis
    assert [(f.kind, f.level) for f in read("double free or corruption(!prev)")] == [(KIND_STACK, "ERROR")]


def test_an_exception_that_names_an_error_block_opens_it_as_its_head():
    # capture 02 (the PyTorch adapter's FAQ), lines 1 and 9-11: in a traceback, the exception that names the code
    # its block then repeats is the block's head (tried before the exception rule), its exception kept as the prefix
    _, frame, exc, msg = read("Traceback (most recent call last):",
                              '    model_kwargs["cache_position"] = torch.arange(cur_len, device=input_ids.device)',
                              "RuntimeError: call aclnnArange failed, detail:EZ9999: Inner Error!",
                              "EZ9999: [PID: 775] 2025-02-16-12:18:25.258.321 Cannot find bin of op Range, integral "
                              "key 0/1/|int64/ND/int64/ND/int64/ND/int64/ND/.")
    assert (frame.kind, exc.kind, exc.level, exc.code) == (KIND_PYTHON, KIND_BLOCK_HEAD, "ERROR", "EZ9999")
    assert exc.extra == {"prefix": "RuntimeError: call aclnnArange failed, detail:"}
    assert (msg.kind, msg.code, msg.pid) == (KIND_BLOCK_MSG, "EZ9999", 775)


def test_a_level_in_brackets_with_tags_or_a_tools_capitalised_word_is_a_report():
    # capture 989 (AMCT's FAQ): the quantisation kernel's function and line in brackets after the level
    (f,) = read("[ERROR][ProcessScale][64] Not support scale greater than 1 / FLT_EPSILON. currentScale: "
                "1387260395520.000000")
    assert (f.kind, f.level) == (KIND_REPORT, "ERROR")
    assert f.msg.startswith("Not support scale greater than 1 / FLT_EPSILON")
    # capture 051 (vllm-ascend#1706): the TBE compiler pool's line, a capitalised word that is no plog module
    (f,) = read("[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!")
    assert (f.kind, f.level, f.msg) == (KIND_REPORT, "ERROR",
                                        "TBE Subprocess[task_distribute] raise error[], main process disappeared!")
    # a header names its module in capitals, then its fields in parentheses (or, in the 2020 OMG form, a colon): the
    # rule of such headers reads it, not the bare level's (captures 137 and 1771)
    amct, omg = read("[ERROR] AMCT(22309,atc.bin):2023-06-21-09:47:05[weight_algorithm.cpp:137]layer arq weight fake "
                     "quant failed!",
                     '[ERROR] FMK:2020-04-11-09:37:12.321.298 main:framework/domi/omg_main/main.cpp:815:"OMG Generate '
                     'execute failed!!"')
    assert [(f.kind, f.level, f.module) for f in (amct, omg)] == [(KIND_CONSOLE, "ERROR", "AMCT"),
                                                                  (KIND_CONSOLE, "ERROR", "FMK")]
    assert (omg.func, omg.src, omg.time, omg.msg) == ("main", "framework/domi/omg_main/main.cpp:815",
                                                      "2020-04-11T09:37:12.321298", "OMG Generate execute failed!!")
    # the same colon form of the 2020 runtime (capture 1772, its pid, position and function) and of AKG in 2021
    # (capture 3100, the position in brackets)
    runtime, akg = read("[ERROR] RUNTIME:2020-05-19-16:08:41.695.353 41826 runtime/feature/src/logger.cc:240 "
                        "DevMalloc:dev memory alloc error, errno = 2",
                        "[ERROR] AKG:2021-05-06-09:14:52.118.407 [cce_module.cc:232] [cce] Check failed: e == "
                        "RT_ERROR_NONE: Cce runtime error: errno=145, info=Unknow cce error code")
    assert (runtime.level, runtime.module, runtime.pid, runtime.func, runtime.src) == (
        "ERROR", "RUNTIME", 41826, "DevMalloc", "runtime/feature/src/logger.cc:240")
    assert runtime.msg == "dev memory alloc error, errno = 2"
    assert (akg.level, akg.module, akg.src, akg.time) == (
        "ERROR", "AKG", "cce_module.cc:232", "2021-05-06T09:14:52.118407")


def test_the_indented_details_of_an_exception_that_ends_with_a_colon_are_its_message():
    # torch's load_state_dict joins its errors with a newline and a tab under the exception's first line
    exc, size, other, end, after = read(
        "RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:",
        "\tsize mismatch for lm_head.weight: copying a param with shape torch.Size([32006, 4096]) from checkpoint, the "
        "shape in current model is torch.Size([32000, 4096]).",
        "        Unexpected key(s) in state_dict: \"module.conv1.weight\".",
        "saving the merged model to /work/out",
        "\tan indented line after the details ended")
    assert [(f.kind, f.level) for f in (exc, size, other)] == [(KIND_PYTHON, "ERROR")] * 3
    assert size.msg.startswith("size mismatch for lm_head.weight") and other.msg.startswith("Unexpected key(s)")
    assert (end.kind, after.level) == (KIND_UNPARSED, None)
    # an exception whose message does not end with a colon has no details: an indented line after it is not its
    _, indented = read("ValueError: bad value", "\tsize mismatch for x")
    assert indented.level is None


def test_mindies_log_lines_with_component_level_position_and_code():
    # hiascend forum captures 546 and 630 (MindIE 2.0 server and LLM backend) and 544 (MindIE 1.0 LLM): the time with
    # milliseconds and a zone, or microseconds; pid, thread, component; level and source position; the code after `: `
    server, llm, banner, shm = read(
        "[2025-06-16 10:12:44.234+08:00] [2874] [2875] [mindie-server] [ERROR] [infer_backend_manager.cpp:236] : "
        "[MIE04E06011C] [infer_backend_manager] Failed to init engine: mindieservice_llm_engine",
        "[2025-04-07 14:21:42.736702] [3141] [281470338523328] [llm] [ERROR] [llm_infer_model_instance.cpp:47] "
        "[MIE05E030001] Initialize modelBackends_ failed, export MINDIE_LLM_PYTHON_LOG_TO_STDOUT=1",
        "[2025-06-16 10:12:44.211+08:00] [2874] [2875] [mindie-server] ===init log===",
        "[2025-06-17 14:08:52.316+08:00] [5127] [5128] [mindie-server] [ERROR] [share_memory.cpp:172] : "
        "[MIE04E120407] [model_backend] Shared memory available is not enough on the filesystem.")
    assert (server.kind, server.level, server.module, server.pid, server.tid, server.src, server.time) == (
        KIND_CONSOLE, "ERROR", "mindie-server", 2874, "2875", "infer_backend_manager.cpp:236",
        "2025-06-16T10:12:44.234000")
    assert server.msg.startswith("[MIE04E06011C] [infer_backend_manager] Failed to init engine")
    assert (llm.level, llm.module, llm.time) == ("ERROR", "llm", "2025-04-07T14:21:42.736702")
    assert llm.msg.startswith("[MIE05E030001] Initialize modelBackends_ failed")
    assert (banner.kind, banner.level, banner.msg) == (KIND_CONSOLE, None, "===init log===")
    assert shm.msg.startswith("[MIE04E120407]")
    # the batch scheduler's Python log writes the same form, its level WARN and CRITICAL named as the table names them
    warn, critical = read(
        "[2025-09-18 09:12:44.236+0800] [2764] [281466205618272] [batchscheduler] [WARN] [model.py:58] : [Model] slow",
        "[2025-09-18 09:12:44.236+0800] [2764] [281466205618272] [batchscheduler] [CRITICAL] [model.py:61] : [Model] x")
    assert (warn.level, critical.level, critical.time) == ("WARNING", "ERROR", "2025-09-18T09:12:44.236000")
    # the operation log's line names a host where the thread goes: not this form
    (other,) = read("[2025-06-16 10:12:44.234+08:00] [2874] [kas-job-51207] [system] [server] [start engine("
                    "mindieservice_llm_engine)] [fail]")
    assert other.module != "system"


def test_the_own_headers_of_mindspores_python_side_mindspore_lite_and_amct():
    # capture 599 (MindFormers on MindSpore 2.2): pid and thread joined by a colon; capture 1193 (MindSpore Lite 2.2):
    # a space before the colon, the function after the position; capture 134 (AMCT in ATC): seconds only, no space
    critical, lite, amct = read(
        "[CRITICAL] ME(171532:281473529845792,MainProcess):2023-12-14-09:06:51.402.117 [mindspore/train/"
        "serialization.py:121] Failed to combine the net and the parameters for param "
        "transformer.layers.0.feed_forward.w1.weight.",
        "[WARNING] ME(15411,7f07f56be100, python) : 2023-10-16-00:51:42.509.780 [mindspore/lite/src/extendrt/cxx_api/"
        "dlutils.h:124] DLSopen] dlopen failed",
        "[ERROR] AMCT(30562,atc.bin):2023-06-02-10:18:44[utils_acl.cpp:133]input image size[1579014] is not equal to "
        "model input size[3158028]")
    assert (critical.kind, critical.level, critical.module, critical.pid, critical.tid, critical.pname) == (
        KIND_CONSOLE, "ERROR", "ME", 171532, "281473529845792", "MainProcess")
    assert (critical.time, critical.src) == ("2023-12-14T09:06:51.402117", "mindspore/train/serialization.py:121")
    assert critical.msg.startswith("Failed to combine the net")
    assert (lite.level, lite.tid, lite.pname, lite.func, lite.msg) == ("WARNING", "7f07f56be100", "python", "DLSopen",
                                                                      "dlopen failed")
    assert (amct.level, amct.module, amct.pname, amct.time, amct.src) == (
        "ERROR", "AMCT", "atc.bin", "2023-06-02T10:18:44.000000", "utils_acl.cpp:133")
    assert amct.msg.startswith("input image size[1579014]")


def test_the_probes_flood_of_own_header_lines_is_read_as_error_records(tmp_path):
    from casebook.bench import bombs
    from casebook.reading.plog import read_plog
    data = bombs.own_header_lines(size=40_000)
    (path := tmp_path / "capture.txt").write_bytes(data)
    log = read_plog(path)
    assert len(log.error_positions()) == data.count(b"\n")
    assert set(log.column("module")) >= {"mindie-server", "ME", "FMK"}
