"""Samples of failures seen mostly from the host: AI CPU task failures, missing operator binaries, tiling
rejections, device visibility settings, a lost device heartbeat, and an error no case covers."""
from __future__ import annotations

from datetime import datetime, timedelta

from .aicore import CoreFault, fault_job
from .comm import lost_heartbeat
from .job import Job, Proc, failure_exit, files, pta_line, stop, sync_frames, torchrun, traceback
from .lines import rt, slog, stamp, us

AICPU = "aicpu-kernel-rejects-input"
HEARTBEAT = "device-heartbeat-lost"
NOTIFY = "hccl-notify-wait-timeout"
BINARY = "op-binary-not-found"
TILING = "aclnn-tiling-unsupported-shape"
VISIBLE = "visible-devices-misconfigured"
TIMEOUT = "aicore-kernel-execution-timeout"
MC2 = "mc2-kernel-waits-for-absent-peer"
SCRIPT = "/home/ma-user/work/llm/train_ddp.py"
TORCH_NPU = "/usr/local/python3.10.14/lib/python3.10/site-packages/torch_npu"


def job_failing(seed: int, pid0: int, start: datetime, minutes: int, steps: int = 10) -> tuple[Job, datetime]:
    """A 4-card job that fails `minutes` into training."""
    t = start + timedelta(minutes=minutes, seconds=seed % 43, microseconds=seed * 53 % 999_979)
    return torchrun(seed, pid0, start, t - timedelta(seconds=1), steps=steps), t


def aicpu_failure(p: Proc, t: datetime, op_line: bool) -> None:
    """The runtime's lines of a failed AI CPU task (with the op named when `op_line`)."""
    r, w = p.card.cq, p.card.worker
    p.debug.append(rt("ERROR", p.pid, t, "davinci_kernel_task.cc:1729", r, "PreCheckTaskErr",
                      "Kernel task happen error, retCode=0x2a, [aicpu exception].", True))
    if op_line:
        p.debug.append(rt("ERROR", p.pid, t + us(40), "aicpu_task.cc:688", r, "PrintErrorInfo",
                          f"Aicpu kernel execute failed, device_id={p.device}, stream_id=2, task_id=4127, "
                          "fault op_name=Unique, fault so_name=libcpu_kernels.so, fault kernel_name=RunCpuKernel", True))
    p.debug += [rt("ERROR", p.pid, t + us(1_050), "api_c.cc:793", w, "rtStreamSynchronizeWithTimeout",
                   "ErrCode=507018, desc=[aicpu exception], InnerCode=0x715002a", True),
                slog("ERROR", "ASCENDCL", p.pid, t + us(1_090), f"[device.cpp:94]{w} "
                     "aclrtSynchronizeDeviceWithTimeoutImpl: wait for compute device to finish failed, runtime "
                     "result = 507018.")]


def aicpu_positive() -> dict[str, str]:
    """The AI CPU kernel of Unique rejects an input larger than its index range."""
    job, t = job_failing(260701, 81120, datetime(2026, 7, 1, 10, 2, 30, 604_002), 14)
    p = job.proc(2)
    p.device_log.append((t - us(2_300), f"[ERROR] AICPU(2211,aicpu_scheduler):{stamp(t - us(2_300))} "
                         "[unique_kernels.cc:142][Unique][tid:2245] input x has 2147483904 elements, more than the "
                         "int32 index range supports."))
    aicpu_failure(p, t, op_line=True)
    job.screen += traceback(sync_frames(), "RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:"
                            "627 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507018")
    job.screen += [pta_line(t + us(1_200), p.pid, p.device, p.rank, "ERR00100", "PTA call acl api failed")]
    job.screen += failure_exit(job, 2, t + timedelta(seconds=1))
    stop(job, t)
    return files(job, {"about": """Four ranks at INFO level. On device 2 the AI CPU kernel of Unique refuses an
        input of 2147483904 elements (its device log says so), the runtime logs retCode 0x2a [aicpu exception]
        and 'Aicpu kernel execute failed ... fault op_name=Unique', and the host gets 507018. The failing AI CPU
        op is named and nothing failed before it: the kernel rejected its input, confirmed.""",
        "runs": [{"facts": {}, "diagnosis": AICPU, "verdicts": {AICPU: "confirmed"}}]})


def aicpu_negative_device_lost() -> dict[str, str]:
    """retCode 0x2a / 507018 after the device stopped answering."""
    job, t = job_failing(260703, 82240, datetime(2026, 7, 3, 18, 40, 2, 11_901), 26)
    p = job.proc(1)
    lost_heartbeat(p, t)
    aicpu_failure(p, t + us(3_000), op_line=False)
    job.screen += [f"[PID: {p.pid}] {stamp(t + us(5_000))} Device_Absent/Abnormal(EL0001): Device not found or invalid."]
    job.screen += failure_exit(job, 1, t + timedelta(seconds=1))
    stop(job, t)
    return files(job, {"about": """Near miss for aicpu-kernel-rejects-input: device 1 reports retCode 0x2a [aicpu exception]
        and 507018, but 3 ms after 'Device[1] lost heartbeat', drv_ret_code=33 and 507010, and the screen says
        EL0001 'Device not found or invalid'. The AI CPU task failed because the device went away: lost heartbeat
        leads, likely until overheating is ruled out, and the AI CPU case stays possible (507018 alone is
        generic).""",
        "runs": [{"facts": {}, "diagnosis": HEARTBEAT, "verdicts": {AICPU: "possible", HEARTBEAT: "likely"}}]})


def heartbeat_positive() -> dict[str, str]:
    """Device 1 hangs and loses its heartbeat mid-training; its tasks are aborted."""
    job, t = job_failing(260705, 83360, datetime(2026, 7, 5, 1, 12, 44, 908_117), 37)
    p = job.proc(1)
    lost_heartbeat(p, t)
    p.debug.append(rt("ERROR", p.pid, t + us(6_020), "api_c.cc:793", p.card.worker, "rtStreamSynchronizeWithTimeout",
                      "ErrCode=107022, desc=[device task abort], InnerCode=0x7010016", True))
    job.screen += traceback(sync_frames(), "RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:"
                            "627 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507010")
    job.screen += [f"[PID: {p.pid}] {stamp(t + us(5_000))} Device_Absent/Abnormal(EL0001): Device not found or invalid."]
    job.screen += failure_exit(job, 1, t + timedelta(seconds=1))
    stop(job, t)
    return files(job, {"about": """Four ranks at INFO level. 37 minutes in, the runtime loses the heartbeat of
        device 1: 'Device[1] lost heartbeat', halCqReportRecv drv_ret_code=33, 'reason=lost heartbeat', 507010,
        then the task abort 107022 and EL0001 on the screen. Device heartbeat lost, likely until overheating is
        ruled out: a hardware or firmware matter.""",
        "runs": [{"facts": {}, "diagnosis": HEARTBEAT, "verdicts": {HEARTBEAT: "likely"}}]})


def timeout_negative_device_lost() -> dict[str, str]:
    """An MC2 kernel's vector core timeout reported after its device stopped answering."""
    f = CoreFault("MoeDistributeDispatchV2_3d5a9e71c0f84b26_high_performance_1000", (0, 0, 0), "timeout or trap error.",
                  "0x30", "vector core timeout", "507034", 2718, (41,), 0x12C0C6060000, (0x2C40,), 73_728,
                  wording="fftsplus aivector error", head="AIV")

    def lost(job: Job, p: Proc, t: datetime) -> None:
        lost_heartbeat(p, t - us(2_800))
        job.screen.append(f"[PID: {p.pid}] {stamp(t + us(5_000))} Device_Absent/Abnormal(EL0001): Device not found "
                          "or invalid.")
    job, p, _ = fault_job(260709, 85600, datetime(2026, 7, 9, 6, 20, 41, 772_305), 1, f, extra=lost)
    return files(job, {"about": """Near miss for aicore-kernel-execution-timeout: MoeDistributeDispatchV2 on device 1
        reports a vector core timeout (errcode (0, 0, 0), 'timeout or trap error.', retCode 0x30, 507034), but 2.8
        ms after 'Device[1] lost heartbeat', drv_ret_code=33 and 507010, and the screen says EL0001 'Device not
        found or invalid'. The kernel did not hang by itself and waited for no absent peer: its device went away.
        Lost heartbeat leads, likely until overheating is ruled out; the timeout cases stay possible.""",
        "runs": [{"facts": {}, "diagnosis": HEARTBEAT, "verdicts": {TIMEOUT: "possible", MC2: "possible",
                                                                    HEARTBEAT: "likely"}}]})


def heartbeat_negative_hccl() -> dict[str, str]:
    """HCCL's own 'Heartbeat Lost Occurred' (a peer process exited) and a task abort, with no device loss."""
    job, t = job_failing(260707, 84480, datetime(2026, 7, 7, 14, 55, 0, 412_550), 12)
    for p in job.procs:
        if p.rank == 3:
            continue   # the process of rank 3 was stopped by the user's script
        tq = t + us(2_000 * p.rank)
        p.debug += [
            slog("ERROR", "HCCL", p.pid, tq, f"[heartbeat.cc:1204][{p.card.cq}][Heartbeat]rank[3] ExceptionType:"
                 "[Heartbeat Lost Occurred], Possible Reason:1. Process has exited, 2. Network Disconnected"),
            slog("ERROR", "HCCL", p.pid, tq + us(40), f"[task_exception_handler.cc:850][{p.card.cq}]EI0002: The wait "
                 "execution of the Notify register times out. Reason: The Notify register has not received the "
                 "Notify record from remote rank [3]."),
            rt("ERROR", p.pid, tq + us(410), "api_c.cc:793", p.card.worker, "rtStreamSynchronizeWithTimeout",
               "ErrCode=107022, desc=[device task abort], InnerCode=0x7010016", True),
        ]
    stop(job, t)
    return files(job, {"about": """Near miss for device-heartbeat-lost: ranks 0-2 log 'Heartbeat Lost Occurred'
        and a task abort (107022), but this is HCCL's heartbeat between processes: rank 3's process exited (no
        error of its own), no device lost its heartbeat, no 507010, no EL0001. The others timed out waiting for
        rank 3 (EI0002): the notify wait timeout is confirmed, the device case stays possible.""",
        "runs": [{"facts": {}, "diagnosis": NOTIFY, "verdicts": {HEARTBEAT: "possible", NOTIFY: "confirmed"}}]})


def aclnn_failure(job: Job, p: Proc, t: datetime, api: str, first: str, extra: list[str]) -> None:
    """An aclnn call refused on the host: the plog's OP lines and the screen's EZ9999 block."""
    p.debug += [slog("ERROR", "OP", p.pid, t, f"[op_api_common.cpp:521][OP][{p.card.acl}]{first}")]
    p.debug += [slog("ERROR", "OP", p.pid, t + us(30 * (i + 1)), f"[op_api_common.cpp:{540 + i}][OP][{p.card.acl}]{x}")
                for i, x in enumerate(extra)]
    job.screen += traceback([(SCRIPT, 201, "main", "loss = model(batch).loss"),
                             (f"{TORCH_NPU}/utils/_error_code.py", 43, "wrapper", "return func(*args, **kwargs)")],
                            f"RuntimeError: call {api} failed, detail:EZ9999: Inner Error!")
    job.screen += [f"EZ9999: [PID: {p.pid}] {stamp(t)} {first}",
                   "        TraceBack (most recent call last):", *(f"       {x}" for x in extra),
                   pta_line(t + us(700), p.pid, p.device, p.rank, "ERR01100", "OPS call acl api failed")]
    job.screen += failure_exit(job, p.rank, t + timedelta(seconds=1))


def binary_positive() -> dict[str, str]:
    """torch.arange on int64 finds no Range kernel: the ops package does not match the toolkit."""
    start = datetime(2026, 7, 9, 9, 30, 0, 73_004)
    job, t = job_failing(260709, 85520, start, 1, steps=2)
    aclnn_failure(job, job.proc(0), t, "aclnnArange", "Cannot find bin of op Range, integral key 0/1/|int64/ND/int64/ND/"
                  "int64/ND/int64/ND/.", ["Kernel GetWorkspace failed. opType: 9",
                                           "aclnnArangeGetWorkspaceSize call failed, please check."])
    stop(job, t)
    return files(job, {"about": """Four ranks, one minute in. aclnnArange fails on the host: 'Cannot find bin of op
        Range, integral key 0/1/|int64/ND/...', 'Kernel GetWorkspace failed', ERR01100 (the kernels package
        installed does not match the toolkit). Nothing reached the device: operator binary not found,
        confirmed.""",
        "runs": [{"facts": {}, "diagnosis": BINARY, "verdicts": {BINARY: "confirmed"}}]})


def binary_negative_tiling() -> dict[str, str]:
    """The same EZ9999 and GetWorkspace failure, but the tiling rejected the group list shape."""
    job, t = job_failing(260711, 86640, datetime(2026, 7, 11, 20, 8, 16, 500_311), 4, steps=4)
    aclnn_failure(job, job.proc(1), t, "aclnnGroupedMatmul", "get unsupported group_list shape, the shape is [1, 64], "
                  "expected a 1-D tensor.[FUNC:CheckGroupList][FILE:grouped_matmul_tiling.cpp][LINE:388]",
                  ["Tiling failed", "Kernel GetWorkspace failed. opType: 233",
                   "launch failed for GroupedMatmul, errno:561103."])
    stop(job, t)
    return files(job, {"about": """Near miss for op-binary-not-found: the same EZ9999 block, 'Kernel GetWorkspace
        failed' and ERR01100 from an aclnn call, but the text says the tiling of GroupedMatmul rejected the
        group_list shape ('Tiling failed', errno 561103): the binary exists, the input does not fit. Tiling
        rejection is confirmed; the missing-binary case stays possible.""",
        "runs": [{"facts": {}, "diagnosis": TILING, "verdicts": {BINARY: "possible", TILING: "confirmed"}}]})


def tiling_positive() -> dict[str, str]:
    """FlashAttentionScore rejects an attention mask of shape [16, 1, 1, 1500]."""
    job, t = job_failing(260713, 87760, datetime(2026, 7, 13, 6, 21, 9, 900_417), 2, steps=3)
    aclnn_failure(job, job.proc(0), t, "aclnnFlashAttentionScore", "get unsupported atten_mask shape, the shape is "
                  "[16, 1, 1, 1500], B is 16, N is 32, S1 is 1500, S2 is 1500.[FUNC:AnalyzeOptionalInput]"
                  "[FILE:flash_attention_score_tiling_general.cpp][LINE:1606]",
                  ["Tiling failed", "launch failed for FlashAttentionScore, errno:561103."])
    stop(job, t)
    return files(job, {"about": """Four ranks, two minutes in. FlashAttentionScore's tiling rejects the attention
        mask: 'get unsupported atten_mask shape, the shape is [16, 1, 1, 1500]', 'Tiling failed', errno 561103,
        inside an EZ9999 block. The inputs must be reshaped: tiling rejection, confirmed.""",
        "runs": [{"facts": {}, "diagnosis": TILING, "verdicts": {TILING: "confirmed"}}]})


def tiling_negative_dtype() -> dict[str, str]:
    """EZ1001: the op's parameter check refuses the dtype; no tiling ran."""
    job, t = job_failing(260715, 88880, datetime(2026, 7, 15, 11, 47, 33, 61_220), 2, steps=3)
    p = job.proc(2)
    p.debug.append(slog("ERROR", "OP", p.pid, t, f"[op_api_common.cpp:498][OP][{p.card.acl}]EZ1001: Expected dtype "
                        "of query to be float16 or bfloat16, but got float32."))
    job.screen += traceback([(SCRIPT, 201, "main", "loss = model(batch).loss")],
                            "RuntimeError: call aclnnFlashAttentionScore failed, detail:EZ1001: [PID: "
                            f"{p.pid}] {stamp(t)} Expected dtype of query to be float16 or bfloat16, but got float32.")
    job.screen += [pta_line(t + us(700), p.pid, p.device, p.rank, "ERR01100", "OPS call acl api failed")]
    job.screen += failure_exit(job, 2, t + timedelta(seconds=1))
    stop(job, t)
    return files(job, {"about": """Near miss for aclnn-tiling-unsupported-shape: FlashAttentionScore fails before
        launch with EZ1001 (AclNN_Parameter_Error), as tiling failures often end, but the reason is the query
        dtype (float32), refused by the parameter check; no tiling ran, no 561103. The op rejects the dtype,
        confirmed; the tiling case is possible.""",
        "runs": [{"facts": {}, "diagnosis": "op-rejects-dtype",
                  "verdicts": {TILING: "possible", "op-rejects-dtype": "confirmed"}}]})


def tiling_negative_binary() -> dict[str, str]:
    """errno 561103 from a launch whose kernel binary is missing: no tiling ran."""
    job, t = job_failing(260717, 89930, datetime(2026, 7, 17, 15, 2, 48, 377_095), 1, steps=2)
    aclnn_failure(job, job.proc(3), t, "aclnnArange", "Cannot find bin of op Range, integral key 0/1/|int64/ND/int64/ND/"
                  "int64/ND/int64/ND/.", ["Cannot find binary for op Range.", "Kernel GetWorkspace failed. opType: 9",
                                           "launch failed for Range, errno:561103."])
    stop(job, t)
    return files(job, {"about": """Near miss for aclnn-tiling-unsupported-shape: aclnnArange ends with 'launch
        failed for Range, errno:561103', the aclnn error of a refused launch that tiling failures end with too,
        but the first line says 'Cannot find bin of op Range': no kernel binary, so no tiling ran. Operator
        binary not found is confirmed; the tiling case stays possible with the missing binary against it.""",
        "runs": [{"facts": {}, "diagnosis": BINARY, "verdicts": {TILING: "possible", BINARY: "confirmed"}}]})


def visible_failure(job: Job, t: datetime, reason: str, count_failed: bool) -> None:
    """Every process fails at device setup with EE1001 and this reason."""
    for p in job.procs:
        tp = t + us(90_000 * p.rank)
        p.debug.append(rt("ERROR", p.pid, tp, "runtime.cc:2211", p.pid, "InitVisibleDevices",
                          f"The argument is invalid.Reason: {reason}", True))
        if count_failed:
            p.debug.append(slog("ERROR", "ASCENDCL", p.pid, tp + us(60), f"[device.cpp:311]{p.pid} "
                                "aclrtGetDeviceCountImpl: get device count failed, runtime result = 207004."))
    p = job.proc(0)
    job.screen += [f"EE1001: [PID: {p.pid}] {stamp(t)} The argument is invalid.Reason: {reason}",
                   "        Solution: 1.Check the input parameter range of the function. 2.Check the function "
                   "invocation relationship."]
    job.screen += traceback([(SCRIPT, 64, "main", "torch.npu.set_device(local_rank)")],
                            "RuntimeError: Initialize:torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl.cpp:253 NPU "
                            "error, error code is 207004" if count_failed else
                            "RuntimeError: set_device:torch_npu/csrc/npu/Module.cpp:188 NPU error, error code is 107001")


def startup_job(seed: int, pid0: int, start: datetime) -> Job:
    """Four processes that fail while setting their device: only their start-up lines."""
    job = torchrun(seed, pid0, start, start + timedelta(seconds=20), steps=1, info=True)
    for p in job.procs:
        p.debug = [x for x in p.debug if "SetDevice" not in x[1] and "device_id=" not in x[1]][:14]
    return job


def visible_positive() -> dict[str, str]:
    """The launcher writes ASCEND_RT_VISIBLE_DEVICES in rank order, not ascending."""
    start = datetime(2026, 7, 17, 8, 6, 50, 118_604)
    job = startup_job(260717, 89940, start)
    t = start + timedelta(seconds=3, microseconds=177_766)
    visible_failure(job, t, "set ASCEND_RT_VISIBLE_DEVICES:0,2,4,6,1,3,5,7 error, it must be configured in "
                            "ascending order", count_failed=True)
    stop(job, t, info=False)
    return files(job, {"about": """Four processes fail at device setup: EE1001 'The argument is invalid.Reason: set
        ASCEND_RT_VISIBLE_DEVICES:0,2,4,6,1,3,5,7 error, it must be configured in ascending order', then the device
        count query fails with 207004. Visible devices misconfigured, confirmed.""",
        "runs": [{"facts": {}, "diagnosis": VISIBLE, "verdicts": {VISIBLE: "confirmed"}}]})


def visible_negative_device_id() -> dict[str, str]:
    """EE1001 for a device id beyond the visible range: a rank-to-device mapping bug, not the variable."""
    start = datetime(2026, 7, 19, 16, 30, 2, 5_551)
    job = startup_job(260719, 90110, start)
    t = start + timedelta(seconds=3, microseconds=401_020)
    visible_failure(job, t, "device id 8 is out of the range of visible devices [0, 3], check the device id "
                            "passed to set_device", count_failed=False)
    stop(job, t, info=False)
    return files(job, {"about": """Near miss for visible-devices-misconfigured: EE1001 at device setup again, but
        the reason is a device id (8) outside the visible range: the script passes the global rank where the local
        rank belongs. ASCEND_RT_VISIBLE_DEVICES itself is fine: the visibility case is possible, and the device id
        beyond the visible devices is the cause, confirmed.""",
        "runs": [{"facts": {}, "diagnosis": "device-id-beyond-visible-devices",
                  "verdicts": {VISIBLE: "possible", "device-id-beyond-visible-devices": "confirmed"}}]})


def unknown_scatter_list_size() -> dict[str, str]:
    """A usage error in the script that no case of the knowledge base covers."""
    job, t = job_failing(260721, 91230, datetime(2026, 7, 21, 12, 0, 0, 310_777), 6)
    job.screen += traceback([(SCRIPT, 210, "main", "dist.reduce_scatter(shard, parts)")],
                            "RuntimeError: Tensor list input to scatter/gather must match number of collective "
                            "participants")
    job.screen += failure_exit(job, 0, t + timedelta(seconds=1))
    stop(job, t)
    return files(job, {"about": """A failure no case covers: rank 0 hands reduce_scatter a list of three tensors on a
        group of four ranks, and the collective's entry check refuses the call. No case matches: no candidate above
        possible and no diagnosis.""",
        "runs": [{"facts": {}, "diagnosis": None, "verdicts": {}}]})


BUILDERS = (
    (AICPU, "positive-unique-input", aicpu_positive), (AICPU, "negative-device-lost", aicpu_negative_device_lost),
    (HEARTBEAT, "positive-device-hang", heartbeat_positive), (HEARTBEAT, "negative-hccl-heartbeat", heartbeat_negative_hccl),
    (TIMEOUT, "negative-device-lost", timeout_negative_device_lost),
    (BINARY, "positive-range-int64", binary_positive), (BINARY, "negative-tiling-rejected", binary_negative_tiling),
    (TILING, "positive-atten-mask-shape", tiling_positive), (TILING, "negative-dtype-check", tiling_negative_dtype),
    (TILING, "negative-binary-missing", tiling_negative_binary),
    (VISIBLE, "positive-not-ascending", visible_positive), (VISIBLE, "negative-device-id", visible_negative_device_id),
    ("_unknown", "scatter-list-size", unknown_scatter_list_size),
)
