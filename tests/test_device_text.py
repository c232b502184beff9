"""Device, hardware and shell text (reading/device_text.py, reading/shell.py) and the console form of old slog
records, each on a real line; the source is cited beside it (the captures' SOURCE.md files give their URLs)."""
from casebook.reading.grammar import (KIND_CONSOLE, KIND_KERNEL, KIND_PASTE, KIND_PLOG, KIND_REPORT, KIND_UNPARSED,
                                      BlockState, opens_line, parse_line)


def read(*lines: str) -> list:
    """The fields of consecutive lines of one capture."""
    state = BlockState()
    return [parse_line(line, state) for line in lines]


def test_kernel_ring_buffer_lines_and_apei_records():
    # corpus modelarts-8rank-job, the KERNEL slog line quoting the ring buffer: the same record as dmesg prints it
    record, severity = read("[583733.716899] {1}[Hardware Error]: Hardware error from APEI Generic Hardware Error "
                            "Source: 0", "[583733.716904] {1}[Hardware Error]: event severity: recoverable")
    assert (record.kind, record.level, record.extra["uptime"]) == (KIND_KERNEL, "ERROR", "583733.716899")
    assert record.msg.startswith("{1}[Hardware Error]: Hardware error from APEI")
    assert severity.level == "ERROR"
    # corpus aicore-old-slog-layout, a device-os KERNEL line: a ring-buffer line that states no hardware error
    (f,) = read("[17959.105237]  [devdrv] [devdrv_manager_get_cpu_info 1824] <dmp_daemon:8380> aicpu_num=14, "
                "ccpu_num=1")
    assert (f.kind, f.level) == (KIND_KERNEL, None)


def test_the_task_schedulers_exception_stream():
    # LlamaFactory#3670 (310P console): the stream, the exception it names, its error code
    lines = read("DEVICE[0] PID[358]: ", "EXCEPTION STREAM:",
                 "  Exception info:TGID=196191, model id=65535, stream id=3, stream phase=3",
                 "  Message info[0]:RTS_HWTS: aicore exception, slot_id=31, stream_id=3",
                 "    Other info[0]:time=2024-05-10-10:44:52.267.860, function=int_process_hwts_task_exception, "
                 "line=296, error code=0x26")
    assert {f.kind for f in lines} == {KIND_REPORT}
    assert [f.level for f in lines] == [None, None, None, "ERROR", "ERROR"]
    assert (lines[0].pid, lines[0].extra["device"]) == (358, 0)


def test_msaicerr_info_dump():
    # CANN 5.0.4 AI Core Error Analyzer guide (2020), rebuilt with new values: fields only inside the report
    lines = read("***********************1. Basic information********************", "device id : 0",
                 "***********************2. AICERROR code***********************", "code : 0x10",
                 "ccu_err_addr bit[22:8]=000011110100000 meaning:CCU Error Address [17:3] approximate:0x3d00",
                 "***********************3. Instructions************************", "current pc : 0x1010001852a8",
                 "related instructions (error occured before the mark *):", "298: <not available>",
                 "* 2a8: <not available>", "/home/train/aic_result/kernel_meta/te_transdata_3a91c07d.cce:41")
    assert {f.kind for f in lines} == {KIND_REPORT}
    assert [f.msg for f in lines if f.level == "ERROR"] == ["code : 0x10"]
    assert lines[0].extra["section"] == "Basic information" and lines[6].extra["current pc"] == "0x1010001852a8"
    assert read("device id : 0")[0].kind == KIND_UNPARSED, "a key : value line outside the report is prose"


def test_driver_and_dcmi_failure_lines():
    # vllm-ascend#2698 (npu-smi in a container)
    lines = read("DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)", "dcmi module initialize failed. ret is -8005")
    assert [(f.kind, f.level) for f in lines] == [(KIND_CONSOLE, "ERROR")] * 2
    assert lines[0].func == "DrvMngGetConsoleLogLevel"
    # later drivers give the reason, as Ascend's note on a card held by another container quotes it
    line = read("dcmi model initialized failed, because the device is used. ret is -8020")[0]
    assert (line.kind, line.level, line.func) == (KIND_CONSOLE, "ERROR", "dcmi model initialized")
    assert read("dcmi model initialized failed, because the device is used")[0].kind != KIND_CONSOLE


def test_shell_listings_banners_and_a_killed_job():
    # LlamaFactory#5189 (Chinese locale) and 34-rebuilt-bbox-history-heartbeat-zh: `ls -l`
    lines = read("总用量 64", "lrwxrwxrwx  1 root root    18  8月 15 14:20 acllib -> ../8.0.RC2/runtime",
                 "-r-xr-x---  1 root root 31988  8月 15 14:25 remove_latest_softlink.sh",
                 "drwxr-x--- 3 root root 4096  8月 14 03:12 bbox", "total 16")
    assert [(f.kind, f.level) for f in lines] == [(KIND_PASTE, None)] * 5
    # Ascend/pytorch#7: the interpreter's banner, and the shell's word on the abort
    lines = read("Python 3.8.18 (default, Sep 11 2023, 13:19:25)", "[GCC 11.2.0] :: Anaconda, Inc. on linux",
                 'Type "help", "copyright", "credits" or "license" for more information.', "Aborted (core dumped)")
    assert [f.kind for f in lines] == [KIND_PASTE] * 4
    assert (lines[3].level, lines[3].extra["signal"]) == ("ERROR", "Aborted")
    assert read("Aborted the run after 3 epochs")[0].kind == KIND_UNPARSED


def test_old_console_and_slog_forms():
    # Ascend/pytorch porting guide FAQ (2021): a runtime record printed to the console, no process name, no time
    (f,) = read("[ERROR] RUNTIME(160809)kernel task happen error, retCode=0x28, [aicpu timeout].")
    assert (f.kind, f.level, f.module, f.pid, f.msg) == (KIND_CONSOLE, "ERROR", "RUNTIME", 160809,
                                                          "kernel task happen error, retCode=0x28, [aicpu timeout].")
    # the same guide (2021): a GE slog line whose file is a relative path, then thread and function
    (f,) = read("[ERROR] GE(24836,python3.7):2021-01-27-18:27:51.562.111 [../../../../../../graphengine/ge/"
                "engine_manager/dnnengine_manager.cc:266]25155 GetDNNEngineName: ErrorNo: 1343242282(assign engine "
                "failed) GetDNNEngineName:Op type SigmoidCrossEntropyWithLogitsV2 of ops kernel AIcoreEngine is "
                "unsupported")
    assert (f.kind, f.pid, f.time, f.tid, f.func) == (KIND_PLOG, 24836, "2021-01-27T18:27:51.562111", "25155",
                                                       "GetDNNEngineName")
    assert f.src == "../../../../../../graphengine/ge/engine_manager/dnnengine_manager.cc:266"
    assert f.msg.startswith("ErrorNo: 1343242282")
    # corpus aicore-old-slog-layout, a device-os DRV line of 2020
    (f,) = read("[WARNING] DRV(8868,ascend_monitor):2020-09-09-15:22:30.276.556 [hardware/build/../dev_core/devdrv/"
                "devdrv_time.c:154][devdrv] [devdrv_is_localtime_exist 154] unable to open /home/HwHiAiUser/hdcd/"
                "device0/etc/localtime.")
    assert (f.kind, f.level, f.src) == (KIND_PLOG, "WARNING", "hardware/build/../dev_core/devdrv/devdrv_time.c:154")
    assert opens_line("[ERROR] RUNTIME(160809)kernel task happen error") and not opens_line("[ERROR] RUNTIME x")


def test_npu_smi_tables_in_a_capture_and_dmesg_wall_times():
    # vllm-ascend#12980: `npu-smi info` pasted among other text: its table rows are attachment lines
    lines = read("+" + "-" * 40 + "+", "| npu-smi 26.0.rc2                            Version: 26.0.rc2          |",
                 "+---------------------------+---------------+----------------------+",
                 "| 0     Ascend910           | OK            | 162.6                34 |", "NPU:")
    assert [f.kind for f in lines] == ["attachment"] * 4 + [KIND_UNPARSED]
    assert read("| 0     Ascend910           | OK            |")[0].kind == KIND_UNPARSED, "a row needs its table"
    # `dmesg -T`: the ring-buffer record with the wall time in place of the uptime (the APEI record as above)
    (f,) = read("[Thu Nov 28 11:56:34 2024] {1}[Hardware Error]: event severity: recoverable")
    assert (f.kind, f.level, f.extra["wall_time"]) == (KIND_KERNEL, "ERROR", "Thu Nov 28 11:56:34 2024")


def test_the_oom_killers_account_of_a_kill_is_an_error_line():
    # the Linux kernel's mm/oom_kill.c: the kill is reported after the line that invoked the killer
    invoked, constraint, killed = read(
        "[812044.317205] python3.10 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
        "oom_score_adj=0",
        "[812044.317260] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-3,global_oom,"
        "task_memcg=/user.slice,task=python3.10,pid=52111,uid=0",
        "[812044.317300] Out of memory: Killed process 52111 (python3.10) total-vm:198437612kB, anon-rss:151220480kB, "
        "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:301420kB oom_score_adj:0")
    assert [f.level for f in (invoked, constraint, killed)] == [None, None, "ERROR"]
    (cgroup,) = read("[Wed Sep  3 14:06:52 2025] Memory cgroup out of memory: Killed process 7301 (python3) "
                     "total-vm:9184012kB, anon-rss:7512300kB, file-rss:0kB, shmem-rss:1048576kB")
    assert (cgroup.kind, cgroup.level) == (KIND_KERNEL, "ERROR")


def test_the_kernel_watchdogs_lockups_are_error_lines_and_what_follows_them_is_not():
    # the Linux kernel's lockup detectors (kernel/watchdog.c, watchdog_perf.c) and RCU stall detector, in the forms
    # of older (NMI watchdog:) and newer (watchdog:) kernels; the lines after each report (the CPU, the task) are its
    # context
    hard, soft, old_soft, rcu, cpu, newer = read(
        "[  812.447120] NMI watchdog: Watchdog detected hard LOCKUP on cpu 7",
        "[ 9911.014420] watchdog: BUG: soft lockup - CPU#30 stuck for 23s! [python3:51277]",
        "[ 9911.014422] BUG: soft lockup - CPU#2 stuck for 67s! [insmod:4410]",
        "[ 9990.120001] rcu: INFO: rcu_preempt self-detected stall on CPU",
        "[ 9911.014501] CPU: 30 PID: 51277 Comm: python3 Kdump: loaded Tainted: G           OE",
        "[ 9912.000000] watchdog: CPU7: Watchdog detected hard LOCKUP on cpu 7")
    assert [f.level for f in (hard, soft, old_soft, rcu)] == ["ERROR"] * 4
    assert cpu.level is None
    assert newer.level == "ERROR"   # a newer kernel's prefix, read like the older one
    (stalls,) = read("[ 9990.200000] INFO: rcu_sched detected stalls on CPUs/tasks:")
    assert stalls.level == "ERROR"
    (unrelated,) = read("[ 9990.300000] watchdog: enabled on all CPUs, permanently consumes one hw-PMU counter.")
    assert unrelated.level is None


def test_the_kernels_lines_as_syslog_keeps_them():
    # Ascend/mind-cluster's fault-diagnosis test data (the host's messages file): the NPU driver's kernel line; and the
    # OOM killer's line in the same form
    heartbeat, killed, other = read(
        "Aug  1 08:38:31 localhost kernel: [ 1197.584409] [ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] "
        "<kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; new_count=1104; lost_count=4)",
        "May  8 10:00:01 node7 kernel: [812044.317300] Out of memory: Killed process 52111 (python3.10) "
        "total-vm:198437612kB, anon-rss:151220480kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:301420kB",
        "May  8 10:00:02 node7 systemd[1]: Finished Rotate log files.")
    assert (heartbeat.kind, heartbeat.level, heartbeat.extra["uptime"], heartbeat.extra["host"]) == \
           (KIND_KERNEL, "ERROR", "1197.584409", "localhost")   # the driver's own [ERROR]
    assert heartbeat.msg.startswith("[ascend] [ERROR] [drv_soft_fault]")
    assert (killed.kind, killed.level, killed.extra["syslog_time"]) == (KIND_KERNEL, "ERROR", "May  8 10:00:01")
    assert other.kind != KIND_KERNEL


def test_the_npu_drivers_own_level_on_its_kernel_lines():
    # hicann/oam-tools msaicerr test data (capture 3754, an asys collection of 2025): the host log agent's file
    # host/driver/host_kernel.log, its date and then the driver's prefix with its level after the module; the device
    # OS's messages, written by a syslog that keeps the facility and priority, from a kernel that names the printing
    # task after the time (CONFIG_PRINTK_CALLER)
    info, warned, apei = read(
        "[2025-05-07-19:54:27.400625] [ascend] [drv_pcie] [INFO] [devdrv_init_dev_num 2253] <systemd-udevd:694:694> "
        "Findout device. (index=0; device=d100; dev_num=0)",
        "May  8 17:24:32 (none) kern.warn kernel: [48596.522791][T10066] [ascend] [icm] [icm_ipc_msg_send_sync 560] "
        "<kworker/0:0:10066> wait response time too long.(time=218(ms)",
        "May  8 17:48:37 (none) kern.err kernel: [50041.360862][  T613] {8}[Hardware Error]: Hardware error from APEI "
        "Generic Hardware Error Source: 0")
    assert (info.kind, info.level, info.time) == (KIND_KERNEL, "INFO", "2025-05-07T19:54:27.400625")
    assert info.msg.startswith("[ascend] [drv_pcie] [INFO] [devdrv_init_dev_num 2253]")
    # no level in the driver's prefix, and a warning priority: nothing states an error
    assert (warned.kind, warned.level, warned.extra["caller"], warned.extra["host"]) == \
           (KIND_KERNEL, None, "T10066", "(none)")
    assert warned.msg.startswith("[ascend] [icm]")
    # the caller's field no longer hides APEI's record, and the priority says err as well
    assert (apei.kind, apei.level, apei.extra["uptime"]) == (KIND_KERNEL, "ERROR", "50041.360862")
    assert apei.msg.startswith("{8}[Hardware Error]: Hardware error from APEI")
    (dmesg_apei,) = read("[50041.360862][  T613] {8}[Hardware Error]: Hardware error from APEI Generic Hardware Error "
                         "Source: 0")
    assert (dmesg_apei.level, dmesg_apei.extra["caller"]) == ("ERROR", "T613")
    # the driver's ring buffer as its log agent writes it in later drivers (hicann/driver, pbl/log_host/
    # log_drv_agent.c: the date, the time since boot, then dmc_log.h's drv_err prefix, the level before the module)
    (ring,) = read("[2026-03-02-10:11:12.123456] [812.004512] [ascend] [ERROR] [devmm] [devmm_ioctl_alloc 512] "
                   "<python3:5040:5041> Alloc failed. (devid=3)")
    assert (ring.kind, ring.level, ring.time, ring.extra["uptime"]) == \
           (KIND_KERNEL, "ERROR", "2026-03-02T10:11:12.123456", "812.004512")
    assert ring.msg.startswith("[ascend] [ERROR] [devmm]")
    # a bbox history line behind the same kind of date is no driver line
    (history,) = read("[2021-10-05-23:07:08.350128] system exception code [0xA8028802]")
    assert (history.kind, history.level) == ("bbox", None)
