"""The line grammar on the forms domain.md §1 and the corpus hold."""
import pytest
from casebook.reading.grammar import (KIND_BBOX, KIND_BLANK, KIND_BLOCK_HEAD, KIND_BLOCK_LINE, KIND_BLOCK_MSG,
                                      KIND_CONSOLE, KIND_EXCEPTION_PRINT, KIND_PLOG, KIND_PTA, KIND_PYTHON, KIND_TORCH_WARNING,
                                      KIND_UNPARSED, BlockState, parse_line)


def parse(line, state=None):
    return parse_line(line, state or BlockState())


def test_runtime_line_with_tid_func_and_stage():
    f = parse("[ERROR] RUNTIME(2082291,python3):2024-07-04-14:14:25.036.721 [stars_engine.cc:1321]2082291 "
              "ProcLogicCqReport:[INIT][DEFAULT]Task run failed, device_id=0, stream_id=2")
    assert (f.kind, f.level, f.module, f.pid, f.pname) == (KIND_PLOG, "ERROR", "RUNTIME", 2082291, "python3")
    assert f.time == "2024-07-04T14:14:25.036721"
    assert (f.src, f.tid, f.func, f.stage) == ("stars_engine.cc:1321", "2082291", "ProcLogicCqReport", "INIT/DEFAULT")
    assert f.msg == "Task run failed, device_id=0, stream_id=2"


def test_exec_stage_tags_and_path_in_file():
    f = parse("[ERROR] RUNTIME(370,python3):2023-07-13-07:42:40.515.526 [engine.cc:1377]1432 ReportExceptProc:"
              "[EXEC][EXEC]Task exception! device_id=0")
    assert (f.tid, f.func, f.stage, f.msg) == ("1432", "ReportExceptProc", "EXEC/EXEC", "Task exception! device_id=0")
    f = parse("[ERROR] TEFUSION(12940,atc):2021-10-17-05:54:07.599.074 [tensor_engine/te_fusion/pywrapper.cc:33]"
              "InitPyLogger Failed to import te.platform.log_util")
    assert f.src == "tensor_engine/te_fusion/pywrapper.cc:33"
    assert f.msg.endswith("Failed to import te.platform.log_util")


def test_hccl_bracket_tid_and_event_and_numeric_level():
    f = parse("[ERROR] HCCL(59420,python3):2025-01-24-11:24:07.908.572 [comm_base.cc:1018][107626]   |  124.0.0.11(1)"
              "   |   124.0.0.21(0)   |  server  | no connect |")
    assert (f.src, f.tid) == ("comm_base.cc:1018", "107626")
    assert "no connect" in f.msg
    f = parse("[ERROR] HCCL(10972,python3):2023-01-31-03:00:11.356.298 [exchanger_network.cc:237][10972][21499]"
              "[Wait][AllClientSocketEstab]errNo[0x000000000500000b] client : device[2] rank[2] get socket timeout")
    assert f.tid == "21499" and f.msg.startswith("[Wait][AllClientSocketEstab]")
    assert parse("[EVENT] DRV(3536113,python):2023-07-14-20:36:01.130.055 [ascend][curpid: 3536113, 3536113][drv]"
                 "[devmm][_devmm_mem_stats_show 158]DEV_MEM dev1").level == "EVENT"
    assert parse("[5] 17(1,x):2023-07-14-20:36:01.130.055 msg").level == "5"


@pytest.mark.parametrize("line,level,src,func", [
    ("[INFO] TSCH(-1,null):2020-09-09-15:22:34.263.611 9553 (cpuid:1) task_scheduler_engine.c:1094 "
     "alloc_stream_queue: RTS_SCHED: stream_attr=64", "INFO", "task_scheduler_engine.c:1094", "alloc_stream_queue"),
    ("[ERROR] KERNEL(3551,sklogd):2021-10-05-23:07:08.350.128 [klogd.c:242][583733.716899] {1}[Hardware Error]: x",
     "ERROR", "klogd.c:242", None),
    ("[TRACE] GE(13694,python3):2020-09-09-15:22:34.030.284 [status:INIT] [framework/domi/client/ge_api.cc:79]13694 "
     "GEInitialize:GEInitialize start", "TRACE", "framework/domi/client/ge_api.cc:79", "GEInitialize"),
    ("[OPLOG] TDT(8400,tsdaemon):2020-09-09-15:22:33.969.318 [tdt/device/../common/src/log.cpp:150]"
     "[tdt/device/src/tsd/tsd_common.cpp:653:ExecuteStart]38152 [TSDaemon] alloc resource", "OPLOG",
     "tdt/device/../common/src/log.cpp:150", None),
])
def test_corpus_forms(line, level, src, func):
    f = parse(line)
    assert (f.kind, f.level, f.src, f.func) == (KIND_PLOG, level, src, func)


def test_a_device_firmware_header_with_a_space_before_its_time():
    # the device log of a port's firmware (mind-cluster's fault-diagnosis test data): `IMP(-2,IMP): 2024-...`
    f = parse("[EVENT] IMP(-2,IMP): 2024-12-04-08:21:54.994.714 70 (device_id:1 die_id:0) [IMP] present 1, mac_link 1, "
              "pcs_link 1, rf_lf 1, pcs_err_cnt 5, pcs_64_66b 4681")
    assert (f.kind, f.level, f.module, f.pid, f.pname) == (KIND_PLOG, "EVENT", "IMP", -2, "IMP")
    assert f.time == "2024-12-04T08:21:54.994714" and "rf_lf 1" in f.msg


def test_error_manager_block_with_traceback():
    state = BlockState()
    lines = [
        "[ERROR] RecentErrMsg: EZ9999: Inner Error!",
        "EZ9999[PID: 3058434] 2026-08-03-20:55:35.272.841 (EZ9999):  The error from device(chipId:0, dieId:1), "
        "serial number is 2569",
        "        TraceBack (most recent call last):",
        "       The extend info: errcode:(0, 0x8000, 0) errorStr: When the D-cache reads",
        "Epoch 3 done",
    ]
    kinds = [parse_line(x, state) for x in lines]
    assert [k.kind for k in kinds] == [KIND_BLOCK_HEAD, KIND_BLOCK_MSG, KIND_BLOCK_LINE, KIND_BLOCK_LINE, KIND_UNPARSED]
    assert kinds[0].code == "EZ9999" and kinds[1].pid == 3058434 and kinds[1].time == "2026-08-03T20:55:35.272841"
    assert kinds[3].code == "EZ9999" and kinds[3].msg.startswith("The extend info")


def test_block_message_variants():
    f = parse("EZ9999: [PID: 775] 2025-02-16-12:18:25.258.321 Cannot find bin of op Range, integral key 0/1/")
    assert (f.kind, f.code, f.pid, f.msg) == (KIND_BLOCK_MSG, "EZ9999", 775, "Cannot find bin of op Range, integral key 0/1/")
    f = parse("[PID: 389] 2026-05-01-10:59:14.702.326 Device_Absent/Abnormal(EL0001): Device not found or invalid.")
    assert (f.kind, f.code, f.extra["title"]) == (KIND_BLOCK_MSG, "EL0001", "Device_Absent/Abnormal")
    assert parse("EE9999: Internal error!").kind == KIND_BLOCK_HEAD
    # torch_npu's reprint of the message without its time; the Reason printed apart is the message's own
    state = BlockState()
    f = parse_line("[PID: 52716] Communication_Error_Ranktable_Detect(EI0015):", state)
    assert (f.kind, f.code, f.pid, f.time, f.extra["title"]) == (KIND_BLOCK_MSG, "EI0015", 52716, None,
                                                                  "Communication_Error_Ranktable_Detect")
    reason = parse_line("  Reason: No rank in the communicator can connect to the root node within the timeout period.",
                        state)
    solution = parse_line("  Solution: 1. Check whether all ranks in the communicator have delivered the interface.",
                          state)
    assert (reason.kind, reason.level, solution.kind, solution.level) == (KIND_BLOCK_LINE, "ERROR", KIND_BLOCK_LINE, None)


def test_a_level_above_error_is_an_error():
    """MindSpore logs an exception at CRITICAL: the log table names it ERROR, as a paste's logging levels."""
    f = parse("[CRITICAL] DEVICE(29574,ffff7a21c5d0,python):2023-03-07-16:45:12.005.740 [mindspore/ccsrc/plugin/device/"
              "ascend/hal/hardware/ascend_collective_comm_lib.cc:112] Initialize] Ascend collective communication "
              "initialization failed.")
    assert (f.kind, f.level, f.module) == (KIND_PLOG, "ERROR", "DEVICE")
    assert parse("[WARNING] DEVICE(29574,ffff7a21c5d0,python):2023-03-07-16:45:12.005.740 [a.cc:1] F] x").level == "WARNING"


def test_torch_npu_lines_and_python_traceback():
    f = parse("[ERROR] 2024-03-07-01:31:48 (PID:116072, Device:0, RankID:-1) ERR00002 PTA invalid type")
    assert (f.kind, f.code, f.pid, f.extra["device"], f.time) == (KIND_PTA, "ERR00002", 116072, 0, "2024-03-07T01:31:48.000000")
    state = BlockState()
    assert parse_line("Traceback (most recent call last):", state).kind == KIND_PYTHON
    assert parse_line('  File "train.py", line 10, in <module>', state).src == "train.py:10"
    f = parse_line("RuntimeError: npuSynchronizeDevice: NPU function error: AclrtSynchronizeDeviceWithTimeout, "
                   "error code is 507015", state)
    assert (f.kind, f.level, f.extra["exception"]) == (KIND_PYTHON, "ERROR", "RuntimeError")
    f = parse("[W compiler_depend.ts:487] Warning: NPU warning, error code is 507048")
    assert (f.kind, f.level, f.src) == (KIND_TORCH_WARNING, "WARNING", "compiler_depend.ts:487")


def test_device_dump_bbox_blank_and_unparsed():
    assert parse("<exception_print>AIC_ERROR=0x10").kind == KIND_EXCEPTION_PRINT
    f = parse("[2023-07-13-16:20:44.081811] system exception code [0xB4060007]: ModuleName [TS]")
    assert (f.kind, f.time) == (KIND_BBOX, "2023-07-13T16:20:44.081811")
    assert parse("   ").kind == KIND_BLANK
    f = parse('  "isGray": false,')
    assert (f.kind, f.msg) == (KIND_UNPARSED, '  "isGray": false,')


@pytest.mark.parametrize("line,level,msg", [
    # GCC's form, as the captures of a torch_npu extension build and a CANN sample build show it
    ("acl.cpp:1:10: fatal error: acl/acl.h: No such file or directory", "ERROR",
     "fatal error: acl/acl.h: No such file or directory"),
    ("/home/user/app/src/main.cpp:42:5: error: 'aclrtMalloc' was not declared in this scope", "ERROR",
     "error: 'aclrtMalloc' was not declared in this scope"),
    ("kernel.c:7: warning: unused variable 'x'", "WARNING", "warning: unused variable 'x'"),
    ("op.cc:88:1: note: declared here", "INFO", "note: declared here"),
])
def test_a_compilers_diagnostic_is_a_console_line_at_its_severity(line, level, msg):
    f = parse_line(line, BlockState())
    assert (f.kind, f.level, f.msg) == (KIND_CONSOLE, level, msg)
    # the position it names is the compiled code's: the record's source (path and line), as a stack frame's
    assert f.src == ":".join(line.split(":")[:2])


@pytest.mark.parametrize("line", ["2024-01-01 10:00:00: error: not a source position",
                                  "http://host:80: error: a URL is no source file",
                                  "main.cpp:12: errors: not a severity"])
def test_what_only_looks_like_a_diagnostic_is_not_read_as_one(line):
    assert parse_line(line, BlockState()).kind != KIND_CONSOLE


@pytest.mark.parametrize("line", [
    # the compiler's backend and driver, the linker and GCC's crash name no position in the code
    "error: stack frame size (47928) exceeds limit (32768) in function 'TENSOR_nLoop_Unroll1'",
    "fatal error: error in backend: Cannot select: t41: f16 = fp_round t38, TargetConstant:i64<0>",
    "ld.lld: error: undefined symbol: _mlir_ciface_load_gm_to_cbuf_1d",
    "g++: internal compiler error: Segmentation fault signal terminated program cc1plus",
    "/usr/bin/ld: cannot find -lascendcl",
    "collect2: error: ld returned 1 exit status",
])
def test_a_tools_diagnostic_without_a_position_is_an_error_line_read_whole(line):
    f = parse_line(line, BlockState())
    assert (f.kind, f.level, f.msg, f.src) == (KIND_CONSOLE, "ERROR", line, None)


@pytest.mark.parametrize("line", ["error: subprocess-exited-with-error", "/usr/bin/ld: warning: x.o: missing .note",
                                  "terror: not a severity", "Error: a word a tool does not print in lower case"])
def test_what_only_looks_like_a_tools_diagnostic_is_not_read_as_one(line):
    f = parse_line(line, BlockState())
    assert (f.kind, f.level) != (KIND_CONSOLE, "ERROR")


def test_a_traceback_ends_in_its_exception_whatever_the_class_is_called():
    frame = ["Traceback (most recent call last):", '  File "reader.py", line 12, in read', "    table = read()"]
    for exc in ("pyarrow.lib.ArrowInvalid", "socket.gaierror", "StopIteration", "TemplateNotFound"):
        state = BlockState()
        *_, f = (parse_line(x, state) for x in [*frame, f"{exc}: Index not in dictionary bounds"])
        assert (f.kind, f.level, f.extra["exception"]) == (KIND_PYTHON, "ERROR", exc)
    # a level word printed amid the frames, a lower-case word or a bare message is no exception; nor, outside a
    # traceback, a name that does not say it is one
    for line in ("WARNING: The script is not on PATH", "note: see above", "Index not in dictionary bounds"):
        state = BlockState()
        *_, f = (parse_line(x, state) for x in [*frame, line])
        assert f.level is None, line
    assert parse_line("pyarrow.lib.ArrowInvalid: Index not in dictionary bounds", BlockState()).level is None


def test_an_exception_raised_without_a_message_ends_its_traceback_by_name_alone():
    state = BlockState()
    lines = ["Traceback (most recent call last):", '  File "runner.py", line 3347, in get_kv_cache_spec',
             "    raise NotImplementedError", "NotImplementedError", "NotImplementedError"]
    got = [(f.kind, f.level) for f in (parse_line(x, state) for x in lines)]
    # the name alone is the exception only where it ends a traceback: the same word after it is no error line
    assert got[3] == (KIND_PYTHON, "ERROR") and got[4] == (KIND_UNPARSED, None)
    assert parse_line("RuntimeError", BlockState()).kind == KIND_UNPARSED


@pytest.mark.parametrize("line,exc", [
    ("""TypeError("CheckpointConfig.__init__() got an unexpected keyword argument 'strict'")""", "TypeError"),
    ("""ImportError(''save_model' requires h5py.')""", "ImportError"),
])
def test_an_exception_logged_as_its_repr_is_an_error_line(line, exc):
    f = parse_line(line, BlockState())
    assert (f.kind, f.level, f.extra["exception"]) == (KIND_PYTHON, "ERROR", exc)


@pytest.mark.parametrize("line", ["MyError(x)", "RuntimeError('unclosed", "configure(ValueError('x'))"])
def test_what_only_looks_like_an_exceptions_repr_is_not_one(line):
    assert parse_line(line, BlockState()).level is None


def test_the_rules_by_first_character_are_kept_for_a_bounded_number_of_characters(monkeypatch):
    """A file of many scripts must not grow the table without end: past the bound, the rules are found anew."""
    from casebook.reading import grammar
    monkeypatch.setattr(grammar, "_BY_FIRST", {})
    for code in range(0x4E00, 0x4E00 + grammar._KEPT_FIRSTS + 5):
        assert parse_line(chr(code) + " 训练开始", BlockState()).kind == KIND_UNPARSED
    assert len(grammar._BY_FIRST) == grammar._KEPT_FIRSTS


def test_a_body_read_again_gives_the_same_fields_and_keeps_the_thread_its_header_named():
    from casebook.reading.grammar import _kept_body, forget_bodies
    forget_bodies()
    body = "[kernel_runtime.cc:208] DumpTaskExceptionInfo] Task fail infos task_id: 7"
    first = parse(f"[ERROR] ME(3187425,ffff8a7fd1e0,python):2024-03-01-10:00:00.000.001 {body}")
    again = parse(f"[ERROR] ME(3187426,ffff8a7fd1e1,python):2024-03-01-10:00:00.000.002 {body}")
    assert _kept_body.cache_info().hits == 1
    # the body names no thread: each line keeps the one its header named
    assert (first.tid, again.tid) == ("ffff8a7fd1e0", "ffff8a7fd1e1")
    assert (first.src, first.func, first.msg) == (again.src, again.func, again.msg) == (
        "kernel_runtime.cc:208", "DumpTaskExceptionInfo", "Task fail infos task_id: 7")
    first.extra["mark"] = 1   # a line's extra fields are its own, not the kept body's
    assert "mark" not in parse(f"[ERROR] ME(1,ffff8a7fd1e2,python):2024-03-01-10:00:00.000.003 {body}").extra
    forget_bodies()
    assert _kept_body.cache_info().currsize == 0
