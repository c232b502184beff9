"""Memory samples: the torch_npu allocator's out-of-memory, the driver's allocation failure, SDMA copy
exceptions, and their near misses (corrupted sizes, poisoned memory, a device that stopped answering)."""
from __future__ import annotations

from datetime import datetime, timedelta

from .comm import lost_heartbeat
from .job import Job, Proc, failure_exit, files, pta_line, stop, torchrun, traceback
from .lines import rt, slog, stamp, us

OOM = "npu-out-of-memory"
DRIVER = "driver-memory-allocation-failure"
SDMA = "sdma-unmapped-address"
HBM = "hbm-ecc-hardware-fault"
HEARTBEAT = "device-heartbeat-lost"
SCRIPT = "/home/ma-user/work/llm/train_ddp.py"
TORCH = "/usr/local/python3.10.14/lib/python3.10/site-packages/torch"


def job_failing(seed: int, pid0: int, start: datetime, minutes: int) -> tuple[Job, datetime]:
    """A 4-card job that fails `minutes` into training."""
    t = start + timedelta(minutes=minutes, seconds=seed % 47, microseconds=seed * 37 % 999_983)
    return torchrun(seed, pid0, start, t - timedelta(seconds=1)), t


def forward_frames() -> list[tuple[str, int, str, str]]:
    """The frames of an allocation in the forward pass."""
    return [(SCRIPT, 233, "<module>", "main()"), (SCRIPT, 188, "main", "loss = model(batch).loss"),
            (f"{TORCH}/nn/modules/module.py", 1553, "_call_impl", "return forward_call(*args, **kwargs)"),
            ("/home/ma-user/work/llm/modeling.py", 412, "forward", "scores = torch.matmul(q, k.transpose(-1, -2))")]


def oom_positive() -> dict[str, str]:
    """Rank 3 runs out of device memory on a long batch."""
    job, t = job_failing(260601, 61210, datetime(2026, 6, 1, 7, 20, 11, 302_118), 23)
    p = job.proc(3)
    job.screen += traceback(forward_frames(), "RuntimeError: NPU out of memory. Tried to allocate 5.03 GiB (NPU 3; "
                            "60.96 GiB total capacity; 49.47 GiB already allocated; 49.47 GiB current active; 1.32 GiB "
                            "free; 57.55 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory "
                            "try setting max_split_size_mb to avoid fragmentation.")
    job.screen += failure_exit(job, 3, t + timedelta(seconds=1))
    p.debug.append(slog("WARNING", "APP", p.pid, t - us(3_100), f"[npu_caching_allocator.cpp:1046]{p.pid} "
                        "malloc: device 3 free 1.32 GiB, requested 5.03 GiB, freeing cached blocks and retrying"))
    stop(job, t)
    return files(job, {"about": """Four ranks at INFO level. In the forward pass of a long batch, rank 3 asks
        for 5.03 GiB and torch_npu's caching allocator gives up: 'NPU out of memory. Tried to allocate 5.03 GiB
        (NPU 3; 60.96 GiB total capacity; 49.47 GiB already allocated; ...)'. The request is plausible and the
        card is full: out of memory, likely until a leak across steps is ruled out.""",
        "runs": [{"facts": {}, "diagnosis": OOM, "verdicts": {OOM: "likely"}}]})


def oom_negative_corrupted_size() -> dict[str, str]:
    """The same message for an exabyte request: the size was corrupted, more memory would not help."""
    job, t = job_failing(260603, 62420, datetime(2026, 6, 3, 15, 4, 59, 812_640), 11)
    job.screen += traceback(forward_frames()[:3] + [("/home/ma-user/work/llm/modeling.py", 377, "forward",
                                                     "out = torch.empty(n_tokens * hidden, device=x.device)")],
                            "RuntimeError: NPU out of memory. Tried to allocate more than 1EB memory.")
    job.screen += failure_exit(job, 1, t + timedelta(seconds=1))
    stop(job, t)
    return files(job, {"about": """Near miss for npu-out-of-memory: rank 1 fails with 'NPU out of memory. Tried
        to allocate more than 1EB memory.' No tensor is an exabyte: the size was computed from a corrupted value,
        so the memory case is contradicted (possible) and no case of the knowledge base explains the corruption:
        no diagnosis.""",
        "runs": [{"facts": {}, "diagnosis": None, "verdicts": {OOM: "possible"}}]})


def driver_failure(p: Proc, t: datetime, size: int) -> None:
    """The driver and runtime lines of a refused device allocation."""
    w = p.card.worker
    p.debug += [
        slog("ERROR", "DRV", p.pid, t, f"[ascend][curpid: {p.pid}, {w}][drv][devmm][devmm_alloc_phy_mem 903]"
             f"alloc phy mem failed, no enough memory. (devid={p.device}; size={size}; module=APP)"),
        rt("ERROR", p.pid, t + us(61), "npu_driver.cc:1312", w, "DevMemAlloc", f"[drv api] halMemAlloc failed: "
           f"size={size}, type=2, moduleId=3, drvRetCode=6, device_id={p.device}", True),
        rt("ERROR", p.pid, t + us(90), "api_c.cc:1204", w, "rtMalloc", "ErrCode=207001, desc=[memory allocation failed], "
           "InnerCode=0x7020016", True),
        slog("ERROR", "ASCENDCL", p.pid, t + us(121), f"[memory.cpp:80]{w} aclrtMallocImpl: alloc device memory failed, "
             "runtime result = 207001"),
    ]


def driver_screen(job: Job, p: Proc, t: datetime) -> None:
    """The EL0004 block and the torch_npu lines of the failing rank."""
    job.screen += [f"EL0004: [PID: {p.pid}] {stamp(t)} Failed to allocate memory.",
                   "        Possible Cause: Available memory is insufficient.",
                   "        Solution: Close applications not in use.",
                   "        TraceBack (most recent call last):",
                   f"        alloc device memory failed, runtime result = 207001[FUNC:ReportCallError]"
                   "[FILE:log_inner.cpp][LINE:161]",
                   pta_line(t + us(300), p.pid, p.device, p.rank, "ERR00100", "PTA call acl api failed")]
    job.screen += failure_exit(job, p.rank, t + timedelta(seconds=1))


def driver_positive() -> dict[str, str]:
    """Another process still holds the memory of card 0: the driver refuses a 2 GiB allocation."""
    start = datetime(2026, 6, 5, 9, 0, 27, 118_330)
    job = torchrun(260605, 63380, start, start + timedelta(seconds=36), steps=1)
    p = job.proc(0)
    t = start + timedelta(seconds=38, microseconds=7_701)
    driver_failure(p, t, 2_147_483_648)
    driver_screen(job, p, t)
    stop(job, t)
    return files(job, {"about": """Four ranks at start-up. Rank 0 asks the driver for 2 GiB of device memory and
        is refused: the driver logs 'alloc phy mem failed, no enough memory', the runtime 207001 and the screen
        EL0004 'Failed to allocate memory' (a previous job still held card 0). A plausible size and no other
        failure: driver allocation failure, confirmed.""",
        "runs": [{"facts": {}, "diagnosis": DRIVER, "verdicts": {DRIVER: "confirmed"}}]})


def driver_negative_corrupted_size() -> dict[str, str]:
    """The same EL0004 / 207001 for a size that is a negative number read as unsigned."""
    start = datetime(2026, 6, 7, 22, 13, 5, 9_071)
    job, t = job_failing(260607, 64460, start, 8)
    p = job.proc(2)
    driver_failure(p, t, 18_446_744_073_709_549_568)
    driver_screen(job, p, t)
    stop(job, t)
    return files(job, {"about": """Near miss for driver-memory-allocation-failure: EL0004 and 207001 as before, but
        the requested size is 18446744073709549568 bytes, a negative length read as unsigned. The memory was not
        exhausted; the size was corrupted, which no case of the knowledge base explains: the driver case is
        possible and there is no diagnosis.""",
        "runs": [{"facts": {}, "diagnosis": None, "verdicts": {DRIVER: "possible"}}]})


def sdma_failure(p: Proc, t: datetime, status: str) -> None:
    """The device report and host lines of a failed SDMA copy."""
    r, w = p.card.cq, p.card.worker
    p.debug += [
        rt("ERROR", p.pid, t, "device_error_proc.cc:1530", r, "ProcessStarsSdmaErrorInfo",
           f"The error from device(chipId:{p.device}, dieId:0), serial number is 9. there is a sdma error, sdma channel "
           f"is 2, the channel exist the following problems: {status} the value of CQE status is 0x3."
           "[FUNC:ProcessStarsSdmaErrorInfo][FILE:device_error_proc.cc][LINE:1530]", True),
        rt("ERROR", p.pid, t + us(88), "memcpy_async_task.cc:418", r, "PrintErrorInfo",
           f"Memory async copy failed, device_id={p.device}, stream_id=5, task_id=17983, flip_num=0, copy_type=2, "
           "memcpy_type=0, copy_data_type=0, length=8388608", True),
        rt("ERROR", p.pid, t + us(1_140), "stream.cc:1475", w, "GetError", "Stream Synchronize failed, retCode=0x7.",
           True),
        slog("ERROR", "ASCENDCL", p.pid, t + us(1_201), f"[stream.cpp:122]{w} aclrtSynchronizeStreamImpl: "
             "synchronize stream failed, runtime result = 507001"),
    ]


def sdma_positive() -> dict[str, str]:
    """A copy from a tensor another stream already freed: the SMMU rejects the translation."""
    job, t = job_failing(260610, 65520, datetime(2026, 6, 10, 4, 44, 0, 250_661), 31)
    p = job.proc(1)
    sdma_failure(p, t, "The SMMU returns a Terminate error during page table translation.")
    job.screen += traceback(forward_frames()[:2], "RuntimeError: synchronize stream failed, error code is 507001")
    job.screen += failure_exit(job, 1, t + timedelta(seconds=1))
    stop(job, t)
    return files(job, {"about": """Four ranks at INFO level. On device 1 an SDMA copy fails: 'there is a sdma
        error, sdma channel is 2' with an SMMU page-table translation error, then 'Memory async copy failed ...
        copy_type=2 ... length=8388608' and 507001. The copy's address was not mapped for the device (a buffer
        freed early by another stream); no memory fault, no device loss: an unmapped copy address, likely until the
        expandable-segments allocator is ruled out.""",
        "runs": [{"facts": {}, "diagnosis": SDMA, "verdicts": {SDMA: "likely"}}]})


def sdma_negative_poison() -> dict[str, str]:
    """The same failed copy reading poisoned HBM: the runtime reports a device memory error."""
    job, t = job_failing(260612, 66640, datetime(2026, 6, 12, 12, 1, 42, 80_552), 19)
    p = job.proc(3)
    sdma_failure(p, t, "sdma poison, the data read from HBM is poisoned.")
    p.debug.append(rt("ERROR", p.pid, t + us(1_170), "api_c.cc:793", p.card.worker, "rtStreamSynchronizeWithTimeout",
                      "ErrCode=507053, desc=[device mem error], InnerCode=0x7150058", True))
    p.device_log.append((t - us(31_000), f"[ERROR] DRV(1893,dmp_daemon):{stamp(t - us(31_000))} [ras][hbm_ras_proc 412]"
                         f"device {p.device} ras event 0x80F38008 HBMA Multi Bit Ecc, module HBMA, addr 0x1f0c2e380"))
    stop(job, t)
    return files(job, {"about": """Near miss for sdma-unmapped-address: the same 'there is a sdma error' and
        'Memory async copy failed' on device 3, but the channel reports sdma poison, the device log a RAS event
        'HBMA Multi Bit Ecc', and the runtime 507053. The copy read failing HBM: the hardware case leads, likely
        until the card's isolation record is known, and the copy exception stays possible.""",
        "runs": [{"facts": {}, "diagnosis": HBM, "verdicts": {SDMA: "possible", HBM: "likely"}}]})


def sdma_negative_device_lost() -> dict[str, str]:
    """A copy in flight when the device stopped answering: the SDMA error follows the lost heartbeat."""
    job, t = job_failing(260614, 67760, datetime(2026, 6, 14, 21, 17, 5, 903_114), 44)
    p = job.proc(2)
    lost_heartbeat(p, t)
    sdma_failure(p, t + us(2_600), "The SMMU returns a Terminate error during page table translation.")
    job.screen += [f"[PID: {p.pid}] {stamp(t + us(5_000))} Device_Absent/Abnormal(EL0001): Device not found or invalid."]
    job.screen += failure_exit(job, 2, t + timedelta(seconds=1))
    stop(job, t)
    return files(job, {"about": """Near miss for sdma-unmapped-address: device 2 reports 'there is a sdma error'
        with a translation error and 'Memory async copy failed', but 2.6 ms after 'Device[2] lost heartbeat',
        drv_ret_code=33 and 507010, and the screen says EL0001 'Device not found or invalid'. The copy failed
        because the device went away: lost heartbeat leads, likely until overheating is ruled out, and both SDMA
        copy cases stay possible.""",
        "runs": [{"facts": {}, "diagnosis": HEARTBEAT, "verdicts": {SDMA: "possible", HEARTBEAT: "likely"}}]})


BUILDERS = (
    (OOM, "positive-long-batch", oom_positive), (OOM, "negative-exabyte-request", oom_negative_corrupted_size),
    (DRIVER, "positive-card-held", driver_positive), (DRIVER, "negative-corrupted-size", driver_negative_corrupted_size),
    (SDMA, "positive-smmu-translation", sdma_positive), (SDMA, "negative-hbm-poison", sdma_negative_poison),
    (SDMA, "negative-device-lost", sdma_negative_device_lost),
)
