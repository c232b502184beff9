"""Each row of knowledge/data/cascade-rules.tsv pinned by a real line (corpus, tests/captures) or, where no
collection holds one, a line in a documented CANN form: the row that wins, the role and the kind it gives. Then
the consequence rule: which kinds are a device's own fault, and the window, at its edges."""
from pathlib import Path

import pytest
from casebook.evidence import cascade
from casebook.evidence.incidents import BURST_GAP_S, CONSEQUENCE_WINDOW_S
from casebook.evidence.registry import extract_evidence
from casebook.reading.plog import read_plog
from conftest import write_log

#: (row of the TSV, line, role, kind); where the line is from, after it
ROWS = [
    (2, "----------------------------------------------------", "decoration", None),   # capture 40, line 2
    # 507899 and 107022 in the runtime's ErrCode form (capture 05's rtKernelLaunch line)
    (8, "[ERROR] RUNTIME(12731,python3.7):2021-02-02-22:23:57.102.311 [api_c.cc:224]12828 rtFree:ErrCode=507899, "
        "desc=[driver error:internal error], InnerCode=0x7020010", "fallout", None),
    (9, "[ERROR] RUNTIME(12731,python3.7):2021-02-02-22:23:57.102.404 [api_c.cc:224]12828 rtStreamDestroy:"
        "ErrCode=107022, desc=[device task abort], InnerCode=0x7150050", "fallout", None),
    # the TBE compiler pool's message when its parent process is gone (capture 051)
    (10, "TBE Subprocess[task_distribute] raise error[], main process disappeared!", "fallout", None),
    (11, "[ERROR] RUNTIME(370,python3):2023-07-13-07:42:40.565.011 [stream.cc:1193]1432 GetError:[EXEC][EXEC]report "
        "error module_type=5, module_name=EZ9999, blockDim=48", "wrapper", None),   # corpus aicore-gatherv2-asys
    (12, "[ERROR] 2026-04-30-03:58:27 (PID:591, Device:5, RankID:-1) ERR00100 PTA call acl api failed",
     "wrapper", None),   # capture 09, line 5
    (13, "RuntimeError: call aclnnCast failed, detail:EZ9999: Inner Error!", "wrapper", None),   # capture 19, line 1
    (14, "EH9999  wait for compute device to finish failed, runtime result = 107020.[FUNC:ReportCallError]"
        "[FILE:log_inner.cpp][LINE:161]", "wrapper", None),   # capture 16, line 10
    (15, "[ERROR] FMK(370,python3):2023-07-13-07:42:43.565.277 [tf_adapter/common/adapter_logger.cc:24][TF_ADAPTER] "
        "[tf_adapter/kernels/geop_npu.cc:1032] GeOp2_0GEOP::::DoRunAsync Failed", "wrapper", None),   # corpus gatherv2
    # torchrun's elastic agent reporting a worker's exit
    (16, "torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 0 (pid: 3412) of "
         "binary: /usr/bin/python3", "fallout", None),
    (4, "       [AIC_INFO] after execute:args print end[FUNC:GetError][FILE:stream.cc][LINE:1183]",
     "decoration", None),   # capture 27, line 5
    (17, "[ERROR] RUNTIME(370,python3):2023-07-13-07:42:40.517.188 [task.cc:1347]1432 PrintErrorInfo:[EXEC][EXEC]"
         "[AIC_INFO] args after execute: 20068234969088, 0, 64, 0", "wrapper", None),   # corpus gatherv2, truncated
    (3, "        TraceBack (most recent call last):", "decoration", None),   # capture 08, line 4
    (5, "Since the operator is called asynchronously, the stacktrace may be inaccurate. If you want to get the "
        "accurate stacktrace, please set the environment variable ASCEND_LAUNCH_BLOCKING=1.", "benign", None),
    # capture 10, line 1, its Ray and vLLM prefixes peeled
    (6, "DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)", "benign", None),   # capture 36
    (7, "RuntimeError: The Inner error is reported as above.", "wrapper", None),   # capture 25, line 19
    (18, "[ERROR] IMU(-1,null):2020-09-09-15:22:38.001.544 3154 (cpuid:3) [LP] aicore temp invalid",
     "fallout", None),   # corpus aicore-old-slog-layout, device-0 line 26890
    (19, "[ERROR] RUNTIME(13694,python3):2020-09-09-15:22:38.230.276 [runtime/feature/src/logger.cc:536]14450 "
         "StreamSynchronize:ret=118816848, the model stream execute failed", "wrapper", None),   # old slog host-0
    (20, "[ERROR] HCCL(26252,python3):2025-01-24-11:24:07.476.809 [comm_base.cc:968][42715]   |  comm error, "
         "device[0] num[1]", "decoration", "link_failure"),   # corpus hccl-event-timeout-2workers
    (21, "[ERROR] DRV(8579,None):2021-02-09-17:47:54.812.725 [dev_mon_api.c:2976][dmp] [dev_mon_api_get_soc_die_id "
         "2976] get  dieid failed:DRV_ERROR_NOT_SUPPORT", "benign", None),   # corpus modelarts-8rank-job
    (22, "[ERROR] RUNTIME(2118,python3):2024-05-06-17:30:12.413.771 [device_error_proc.cc:1132]2240 "
         "ProcessAicpuErrorInfo:aicpu exception, retCode=507018", "generic", None),
    (23, "[W compiler_depend.ts:487] Warning: NPU warning, error code is 507048[Error]: ",
     "cause", "hccl_timeout"),   # capture 01, line 1
    (24, "[ERROR] TSCH(-1,null):2020-09-09-15:22:37.884.851 9693 (cpuid:0) hwts_plat.c:1059 "
         "int_process_hwts_aic_exception: hwts aic exception, bitmap=0x20000000", "cause", "aicore_exception"),
    # the kernel's own [Hardware Error] block is a catalog form (row 23); the runtime's ErrCode form is not
    (25, "[ERROR] RUNTIME(12731,python3.7):2021-02-02-22:23:57.102.311 [api_c.cc:224]12828 rtMemcpy:ErrCode=507053, "
         "desc=[multi bit ecc], InnerCode=0x7020035", "cause", "hardware_error"),
    (26, "[ERROR] TSCH(-1,null):2023-06-10-13:16:11.401.825 74 (dieid:0,cpuid:0) hwts_plat.c:1931 "
         "int_process_hwts_timeout_exception: RTS_HWTS: hwts timeout exception bitmap=0x0", "cause", "hwts_timeout"),
    (27, "[ERROR] RUNTIME(12731,python3.7):2021-02-02-22:23:57.102.311 [api_c.cc:224]12828 rtMalloc:ErrCode=507010, "
         "desc=[device heartbeat lost], InnerCode=0x7020030", "cause", "heartbeat_lost"),
    (28, "[rank0]:        synchronize stream failed, runtime result = 507001[FUNC:ReportCallError]"
         "[FILE:log_inner.cpp][LINE:161]", "cause", "sdma_error"),   # capture 07, line 5
    (29, "[ERROR] RUNTIME(12731,python3.7):2021-02-02-22:23:56.475.717 [api_c.cc:224]12828 rtKernelLaunch:"
         "ErrCode=207001, desc=[module new memory error], InnerCode=0x70a0002", "cause", "out_of_memory"),   # capture 05
    (30, "[ERROR] HCCL(26251,python3):2025-01-24-11:24:07.476.125 [comm_base.cc:967][42715]   "
         "_________________________LINK_ERROR_INFO___________________________", "cause", "link_failure"),
    (31, "[ERROR] HCCL(26252,python3):2025-01-24-11:24:07.491.003 [hccl_impl.cc:1881][26251][Loop][Allreduce]"
         "errNo[0x0000000005000004] op_base hcclComm all reduce error, tag[AllReduce_1698116644394811_1]",
     "cause", "hccl_timeout"),   # corpus hccl-event-timeout-2workers
]


def test_every_row_of_the_table_has_its_line():
    assert sorted(row for row, *_ in ROWS) == [r.row for r in cascade.rules()]


@pytest.mark.parametrize("row,text,role,kind", ROWS, ids=[f"row{r[0]}" for r in ROWS])
def test_the_row_wins_and_gives_its_role_and_kind(row, text, role, kind):
    rule = next(r for r in cascade.rules() if r.row == row)
    got_role, got_kind, why = cascade.classify(text)
    assert (got_role, got_kind) == (role, kind)
    # the winning row is this one (the catalog's row adds the form it found)
    assert why == rule.why if rule.pattern is not None else why.startswith(rule.why + " (")


def test_catalog_forms_come_before_the_kind_rows():
    # capture 38, line 2 (the kernel's [Hardware Error] block) and capture 08, line 6 (the runtime's heartbeat loss)
    for text, kind in (("[ 3981.402215] {4}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 0",
                        "hardware_error"),
                       ("        Device[1] lost heartbeat.[FUNC:SyncTask][FILE:direct_hwts_engine.cc][LINE:407]",
                        "heartbeat_lost")):
        role, got, why = cascade.classify(text)
        catalog = next(r for r in cascade.rules() if r.pattern is None)
        assert (role, got) == ("cause", kind) and why.startswith(catalog.why + " (")


def test_a_wrapper_of_a_catalog_form_passes_its_kind_on():
    # capture 08, line 8: the synchronize wrapper carries the heartbeat loss below it
    text = ("        wait for compute device to finish failed, runtime result = 507010.[FUNC:ReportCallError]"
            "[FILE:log_inner.cpp][LINE:148]")
    assert cascade.classify(text)[:2] == ("wrapper", "heartbeat_lost")


def test_a_line_no_row_names_is_a_cause_of_unknown_kind():
    assert cascade.classify("[ERROR] APP(1,python):2026-01-01-00:00:00.000.000 something odd") == \
        ("cause", None, "no rule marks it as fallout or a wrapper")


def test_the_table_order_puts_fallout_and_wrappers_before_causes():
    roles = [r.role for r in cascade.rules()]
    assert roles.index("cause") == len(roles) - 9 and set(roles[-9:]) == {"cause"}


def test_a_bad_row_is_named_by_its_line(monkeypatch):
    table = "role\tkind\tpattern\twhy\nfallout\t-\t\\b1\\b\tok\nsideways\t-\tx\twhy\n"
    monkeypatch.setattr(cascade.resources, "files", lambda _: _Table(table))
    cascade.rules.cache_clear()
    try:
        with pytest.raises(cascade.RuleError, match=r"data/cascade-rules.tsv:3: unknown role 'sideways'"):
            cascade.rules()
        monkeypatch.setattr(cascade.resources, "files", lambda _: _Table(table.replace("sideways\t-\tx", "wrapper\t-\t(")))
        with pytest.raises(cascade.RuleError, match=r"data/cascade-rules.tsv:3: bad pattern"):
            cascade.rules()
    finally:
        monkeypatch.undo()
        cascade.rules.cache_clear()


class _Table:
    """A stand-in for the package's data folder holding one table."""

    def __init__(self, text):
        self.text = text

    def joinpath(self, _):
        return self

    def read_text(self, encoding):
        return self.text


# --- consequences --------------------------------------------------------------------------------------

HDR = "[ERROR] {mod}({pid},python):2026-03-14-{h:02d}:{m:02d}:{s:02d}.000.000 [x.cc:1]{pid} F:"
FAULT_LINES = {   # one line of each kind that is a device's own fault, on device 0
    "aicore_exception": "Kernel task happen error, device_id=0, retCode=0x26, [aicore exception].",
    "heartbeat_lost": "Device[0] lost heartbeat. device_id=0",
    "hwts_timeout": "hwts timeout exception device_id=0",
    "hardware_error": "[Hardware Error] multi ecc error device_id=0",
    "sdma_error": "sdma error, Memory async copy failed device_id=0",
}
TIMEOUT = "EI0002: The wait execution of the Notify register times out. device_id=1"


def _incidents(tmp_path, fault: str, after_s: int):
    write_log(tmp_path, "plog/plog-100_20260314100000000.log", HDR.format(mod="RUNTIME", pid=100, h=10, m=0, s=0)
              + fault + "\n")
    h, rest = divmod(after_s, 3600)
    write_log(tmp_path, "plog/plog-200_20260314100000000.log",
              HDR.format(mod="HCCL", pid=200, h=10 + h, m=rest // 60, s=rest % 60) + TIMEOUT + "\n")
    return {i.device: i for i in extract_evidence(read_plog(tmp_path)).incidents}


def test_the_device_fault_and_peer_symptom_kinds():
    assert cascade.DEVICE_FAULTS == ("aicore_exception", "aicpu_exception", "hardware_error", "hwts_timeout",
                                     "heartbeat_lost", "device_lost", "sdma_error", "ts_exception",
                                     "driver_exception")
    assert cascade.PEER_SYMPTOMS == ("hccl_timeout", "link_failure")


@pytest.mark.parametrize("kind", sorted(FAULT_LINES))
def test_a_timeout_after_another_devices_fault_is_its_consequence(tmp_path, kind):
    by_dev = _incidents(tmp_path, FAULT_LINES[kind], 300)
    assert (by_dev[0].kind, by_dev[0].role) == (kind, "cause")
    assert (by_dev[1].kind, by_dev[1].role) == ("hccl_timeout", "consequence")
    assert by_dev[1].because.endswith("plog/plog-100_20260314100000000.log:1)") or \
        "plog/plog-100_20260314100000000.log:1" in by_dev[1].because


def test_the_consequence_window_is_2400_seconds_both_ends_included(tmp_path):
    assert CONSEQUENCE_WINDOW_S == 2400
    fault = FAULT_LINES["aicore_exception"]
    assert _incidents(tmp_path / "a", fault, 0)[1].role == "consequence"
    assert _incidents(tmp_path / "b", fault, 2400)[1].role == "consequence"
    assert _incidents(tmp_path / "c", fault, 2401)[1].role == "cause"


def test_a_timeout_before_the_fault_or_on_the_same_device_stays_a_cause(tmp_path):
    write_log(tmp_path / "a", "plog/plog-100_20260314100000000.log",
              HDR.format(mod="RUNTIME", pid=100, h=10, m=5, s=0) + FAULT_LINES["aicore_exception"] + "\n")
    write_log(tmp_path / "a", "plog/plog-200_20260314100000000.log",
              HDR.format(mod="HCCL", pid=200, h=10, m=4, s=59) + TIMEOUT + "\n")
    assert {i.device: i.role for i in extract_evidence(read_plog(tmp_path / "a")).incidents} == \
        {0: "cause", 1: "cause"}
    write_log(tmp_path / "b", "plog/plog-100_20260314100000000.log",
              HDR.format(mod="RUNTIME", pid=100, h=10, m=0, s=0) + FAULT_LINES["aicore_exception"] + "\n")
    write_log(tmp_path / "b", "plog/plog-200_20260314100000000.log",
              HDR.format(mod="HCCL", pid=200, h=10, m=1, s=0) + TIMEOUT.replace("device_id=1", "device_id=0") + "\n")
    assert [(i.kind, i.role) for i in extract_evidence(read_plog(tmp_path / "b")).incidents] == \
        [("aicore_exception", "cause"), ("hccl_timeout", "cause")]


def _one_process(tmp_path, *lines):
    text = "".join(HDR.format(mod="RUNTIME", pid=100, h=10, m=m, s=s) + msg + "\n" for m, s, msg in lines)
    write_log(tmp_path, "plog/plog-100_20260314100000000.log", text)
    return extract_evidence(read_plog(tmp_path)).incidents


def test_a_burst_ends_after_a_gap_of_more_than_60_seconds(tmp_path):
    assert BURST_GAP_S == 60
    fault = "hwts timeout exception device_id=0"
    got = _one_process(tmp_path / "a", (0, 0, fault), (1, 0, fault), (2, 1, fault))
    assert [(i.first.line, i.cascade, i.last_time) for i in got] == [
        (1, 1, "2026-03-14T10:01:00.000000"), (3, 0, "2026-03-14T10:02:01.000000")]


def test_the_first_line_of_a_burst_is_its_best_cause(tmp_path):
    # fallout, a wrapper, a generic code, a cause of unknown kind, then one of a known kind (lines 1-5)
    got = _one_process(tmp_path, (0, 1, "rtFree failed, runtime result = 507899 device_id=0"),
                       (0, 2, "Stream Synchronize failed, stream_id=2 device_id=0"),
                       (0, 3, "aicpu exception, error code is 507018 device_id=0"),
                       (0, 4, "something odd device_id=0"),
                       (0, 5, "hwts timeout exception device_id=0"))
    (inc,) = got
    assert (inc.first.line, inc.kind, inc.cascade) == (5, "hwts_timeout", 4)
    assert inc.roles == {"fallout": 1, "wrapper": 1, "generic": 1, "cause": 1}
    # without a known kind the unknown cause leads, then the generic code, then fallout and wrappers
    (inc,) = _one_process(tmp_path / "b", (0, 1, "rtFree failed, runtime result = 507899 device_id=0"),
                          (0, 3, "aicpu exception, error code is 507018 device_id=0"),
                          (0, 4, "something odd device_id=0"))
    assert (inc.first.line, inc.kind) == (3, "error")
    (inc,) = _one_process(tmp_path / "c", (0, 1, "rtFree failed, runtime result = 507899 device_id=0"),
                          (0, 3, "aicpu exception, error code is 507018 device_id=0"))
    assert (inc.first.line, inc.kind) == (2, "error")
    (inc,) = _one_process(tmp_path / "d", (0, 1, "get dieid failed:DRV_ERROR_NOT_SUPPORT device_id=0"),
                          (0, 2, "rtFree failed, runtime result = 507899 device_id=0"))
    assert (inc.first.line, inc.kind, inc.roles) == (2, "error", {"benign": 1})
    (inc,) = _one_process(tmp_path / "e", (0, 1, "get dieid failed:DRV_ERROR_NOT_SUPPORT device_id=0"))
    assert (inc.first.line, inc.kind, inc.roles) == (1, "benign", {})


def test_skipping_the_rows_whose_literals_a_line_lacks_changes_no_role():
    rows = [r for r in cascade.rules() if r.pattern is not None]
    assert rows and all(r.needs is not None for r in rows)   # every row names what it needs: the shortcut is on
    root = Path(__file__).parents[1]
    logs = [*root.glob("tests/captures/*/capture.txt"), *root.glob("kb/samples/*/*/**/*.log"),
            *root.glob("kb/samples/*/*/**/*.txt")]
    lines = {line for log in logs for line in log.read_text(encoding="utf-8", errors="replace").splitlines()}
    assert len(lines) > 20000
    for line in lines:
        plain = next((r for r in cascade.rules() if r.pattern is not None and r.pattern.search(line)), None)
        assert next((r for r in rows if r.matches(line)), None) is plain, line
