"""Collective-communication samples: notify wait timeout, link setup (socket) timeout, RoCE CQE errors, and
the device-loss near misses between them. Jobs run on two nodes (`worker-0`, `worker-1`), as HCCL failures
across nodes do; HCCL lines follow the `[file:line][tid]` body of the corpus plogs.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from . import aicore
from .job import Job, Proc, failure_exit, files, log_time, pta_line, stop, torchrun
from .lines import rt, slog, stamp, us

NOTIFY = "hccl-notify-wait-timeout"
SOCKET = "hccl-socket-timeout"
ROCE = "roce-cqe-link-error"
HEARTBEAT = "device-heartbeat-lost"
OOM = "npu-out-of-memory"
ILLEGAL = "aicore-illegal-instruction"
TAG = "AllReduce_7305518833746120001_1"


def device_ip(p: Proc) -> str:
    """The device NIC address of a rank (one subnet per node)."""
    return f"192.168.{100 + int((p.node or 'worker-0')[-1])}.{11 + p.device}"


def notify_timeout(p: Proc, t: datetime, remote: int, heartbeat: bool) -> None:
    """What a rank logs when its all-reduce waited HCCL_EXEC_TIMEOUT for `remote`."""
    tid = p.card.cq
    p.debug += [
        slog("ERROR", "HCCL", p.pid, t, f"[task_exception_handler.cc:812][{tid}][TaskExceptionHandler][Callback]"
             f"Task run failed, base information is streamID:[3], taskID[211], tag[{TAG}], AllReduce."),
        slog("ERROR", "HCCL", p.pid, t + us(31), f"[task_exception_handler.cc:850][{tid}]EI0002: The wait execution of "
             f"the Notify register times out. Reason: The Notify register has not received the Notify record from "
             f"remote rank [{remote}]."),
    ]
    if heartbeat:
        p.debug.append(slog("ERROR", "HCCL", p.pid, t + us(77), f"[heartbeat.cc:1204][{tid}][Heartbeat]rank[{remote}] "
                            "ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has exited, "
                            "2. Network Disconnected"))
    p.debug.append(rt("ERROR", p.pid, t + us(402), "api_c.cc:793", p.card.worker, "rtStreamSynchronizeWithTimeout",
                      "ErrCode=507048, desc=[ffts+ task timeout], InnerCode=0x7150048", True))


def notify_screen(p: Proc, t: datetime, remote: int) -> list[str]:
    """torch_npu's warning and the EI0002 block of a waiting rank."""
    return [f"[W compiler_depend.ts:487] Warning: NPU warning, error code is 507048[Error]: The execution of the "
            f"internal task times out. (function npuSynchronizeDevice)",
            pta_line(t + us(900), p.pid, p.device, p.rank, "ERR02200", "DIST call hccl api failed."),
            f"EI0002: [PID: {p.pid}] {stamp(t)} The wait execution of the Notify register times out. Reason: The "
            f"Notify register has not received the Notify record from remote rank [{remote}]. base information: "
            f"[streamID:[3], taskID[211], tag[{TAG}], AllReduce]."]


def two_nodes(seed: int, pid0: int, start: datetime, t: datetime, steps: int = 10) -> Job:
    """Eight ranks on two nodes, training until shortly before t."""
    return torchrun(seed, pid0, start, t - timedelta(seconds=2), nodes=2, cards=4, steps=steps)


def notify_positive() -> dict[str, str]:
    """Rank 5 is killed on worker-1; the ranks of worker-0 wait for it until the HCCL timeout."""
    start = datetime(2026, 5, 2, 8, 0, 4, 551_002)
    t_kill = start + timedelta(minutes=41, seconds=7)
    t = t_kill + timedelta(seconds=1800, microseconds=311_870)
    job = two_nodes(260502, 40211, start, t_kill)
    screen = []
    for p in job.procs:
        if p.node == "worker-0":
            notify_timeout(p, t + us(4_000 * p.device), remote=5, heartbeat=True)
            screen += notify_screen(p, t + us(4_000 * p.device), remote=5)
    job.screen += [f"[{log_time(t_kill)}] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) "
                   f"local_rank: 1 (pid: {job.proc(5).pid}) of binary: /usr/local/python3.10.14/bin/python3.10"] + screen
    stop(job, t)
    return files(job, {"about": """Two nodes, eight ranks. On worker-1 the process of rank 5 is killed (exit code
        -9, the host's OOM killer in the launcher output) and logs nothing in its plog. The four ranks of
        worker-0 wait in an all-reduce until HCCL_EXEC_TIMEOUT and log EI0002 naming remote rank 5, HCCL's
        'Heartbeat Lost Occurred ... Process has exited', and 507048. No rank logged a device, memory or link
        failure: the notify wait timeout is confirmed, and the walk points to rank 5 as the one to look at.""",
        "runs": [{"facts": {}, "diagnosis": NOTIFY, "verdicts": {NOTIFY: "confirmed"}}]})


def notify_negative_device_fault() -> dict[str, str]:
    """The same timeouts, but rank 6 had an AI Core fault first: the waits are fallout."""
    start = datetime(2026, 5, 6, 21, 30, 0, 4_410)
    t_fault = start + timedelta(minutes=17, seconds=52, microseconds=118_000)
    t = t_fault + timedelta(seconds=1800, microseconds=90_215)
    job = two_nodes(260506, 43350, start, t_fault)
    f = aicore.CoreFault("GatherV3_2b7c9e04d1a3f856_high_performance_1", (0x10, 0, 0), "An illegal instruction, "
                         "usually an unaligned UB address.", "0x26", "aicore exception", "507015", 2944, (11,),
                         0x12C0C2200000, (0x1D6C,), 49_152)
    bad = job.proc(6)
    bad.debug += aicore.report(bad, f, t_fault, info=True)
    for p in job.procs:
        if p.node == "worker-0":
            notify_timeout(p, t + us(4_000 * p.device), remote=6, heartbeat=False)
            job.screen += notify_screen(p, t + us(4_000 * p.device), remote=6)
    stop(job, t)
    return files(job, {"about": """Near miss for hccl-notify-wait-timeout: the ranks of worker-0 log EI0002 naming
        remote rank 6 and 507048, exactly as in a peer timeout, but rank 6 (worker-1, device 2) logged an AI Core
        exception 30 minutes earlier: GatherV3 with error code 0x10 = CCU_ILLEGAL_INSTR, retCode 0x26 / 507015.
        The waits are fallout of that fault. The illegal-instruction case is the diagnosis, likely (the bit
        alone does not tell which of its causes made the fault); the notify timeout stays possible.""",
        "runs": [{"facts": {}, "diagnosis": ILLEGAL, "verdicts": {NOTIFY: "possible", ILLEGAL: "likely"}}]})


def link_table(p: Proc, t: datetime, peer_ip: str, peer_rank: int, role: str) -> None:
    """HCCL's LINK_ERROR_INFO table for one unreachable peer, and the failed communicator."""
    tid = p.card.worker + 9
    rows = ["   _________________________LINK_ERROR_INFO___________________________",
            f"   |  comm error, device[{p.device}] num[1]",
            "   |  dest_ip(rank_id)  |  src_ip(rank_id)   |   Role   |   Status   |",
            "   |--------------------|--------------------|----------|------------|",
            f"   |  {peer_ip}({peer_rank})   |   {device_ip(p)}({p.rank})   |  {role}  | no connect |",
            "   ___________________________________________________________________",
            "the connection failure between this device and target device may be due to the following reasons:"]
    for i, row in enumerate(rows):
        p.debug.append(slog("ERROR", "HCCL", p.pid, t + us(13 * i), f"[comm_base.cc:{967 + i}][{tid}]{row}"))
    p.debug += [
        slog("ERROR", "HCCL", p.pid, t + us(2_400), f"[hccl_socket_manager.cc:1410][{tid}][Wait][AllClientSocketEstab]"
             f"errNo[0x000000000500000b] client : device[{p.device}] rank[{p.rank}] get socket timeout, total[1] "
             "remain[1]"),
        slog("ERROR", "HCCL", p.pid, t + us(2_810), f"[hccl_impl.cc:4011][{tid}][Create][InnerComm]tag[{TAG}], "
             "created commHD fail"),
    ]


def socket_positive() -> dict[str, str]:
    """worker-1 cannot reach worker-0's device network: 'no connect' and EI0006 at the first all-reduce."""
    start = datetime(2026, 5, 9, 10, 15, 30, 712_331)
    t = start + timedelta(seconds=152, microseconds=404_118)
    job = two_nodes(260509, 31120, start, start + timedelta(seconds=33), steps=1)
    for p in job.procs:
        p.debug = [x for x in p.debug if "HcclCommInitRootInfo success" not in x[1]]
        peer = job.proc(p.rank - 4 if p.node == "worker-1" else p.rank + 4)
        link_table(p, t + us(1_700 * p.device), device_ip(peer), peer.rank, "client" if p.node == "worker-1"
                   else "server")
    p0 = job.proc(4)
    job.screen += [f"EI0006: [PID: {p0.pid}] {stamp(t)} Getting socket times out. Reason: 1. The remote does not "
                   "initiate a connect request. some NPUs in the cluster are abnormal. 2. The remote does not "
                   "initiate a connect request because the collective communication operator is started too late "
                   f"or is not started by some NPU in the cluster. 3. The communication link is disconnected.",
                   pta_line(t + us(800), p0.pid, p0.device, p0.rank, "ERR02200", "DIST call hccl api failed.")]
    stop(job, t)
    return files(job, {"about": """Two nodes, eight ranks, at start-up. No device of worker-1 can reach its peer on
        worker-0 (the device network between the nodes is misconfigured): every rank prints HCCL's LINK_ERROR_INFO
        table with status 'no connect', 'get socket timeout' and a failed communicator, and the screen shows
        EI0006 'Getting socket times out'. Nothing else failed: link setup timeout, confirmed.""",
        "runs": [{"facts": {}, "diagnosis": SOCKET, "verdicts": {SOCKET: "confirmed"}}]})


def socket_negative_oom() -> dict[str, str]:
    """The peers time out getting sockets because rank 0 died of out-of-memory while loading the model."""
    start = datetime(2026, 5, 11, 13, 2, 0, 66_120)
    t_oom = start + timedelta(seconds=41, microseconds=509_300)
    t = t_oom + timedelta(seconds=120, microseconds=3_010)
    job = two_nodes(260511, 36640, start, start + timedelta(seconds=33), steps=1)
    for p in job.procs:
        p.debug = [x for x in p.debug if "HcclCommInitRootInfo success" not in x[1]]
        if p.rank != 0:
            link_table(p, t + us(1_700 * p.rank), device_ip(job.proc(0)), 0, "client")
    r0 = job.proc(0)
    job.screen += ["Traceback (most recent call last):",
                   '  File "/home/ma-user/work/llm/train_ddp.py", line 118, in <module>',
                   "    model = build_model(args).to(device)",
                   "RuntimeError: NPU out of memory. Tried to allocate 3.91 GiB (NPU 0; 60.96 GiB total capacity; "
                   "58.02 GiB already allocated; 58.02 GiB current active; 0.71 GiB free; 58.40 GiB reserved in "
                   "total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to "
                   "avoid fragmentation."] + failure_exit(job, 0, t_oom + timedelta(seconds=1))
    stop(job, t)
    return files(job, {"about": f"""Near miss for hccl-socket-timeout: ranks 1-7 print the link table with 'no
        connect' towards rank 0 and 'get socket timeout', as in a network problem, but rank 0 (pid {r0.pid}) had
        died two minutes before with 'NPU out of memory. Tried to allocate 3.91 GiB' while moving the model to
        the card. The peers could not connect to a process that was gone: the out-of-memory case leads, likely until
        a leak across steps is ruled out, and the socket timeout stays possible.""",
        "runs": [{"facts": {}, "diagnosis": OOM, "verdicts": {SOCKET: "possible", OOM: "likely"}}]})


def cqe_error(p: Proc, t: datetime, peer_ip: str) -> None:
    """HCCL's error completion on a RoCE link."""
    tid = p.card.cq + 4
    p.debug += [
        slog("ERROR", "HCCL", p.pid, t, f"[heartbeat.cc:987][{tid}][Heartbeat]cqe err status[12], time:"
             f"[{t:%Y-%m-%d %H:%M:%S.%f}], ip:[{peer_ip}]"),
        slog("ERROR", "HCCL", p.pid, t + us(210), f"[task_exception_handler.cc:901][{tid}]EI0013: An error CQE "
             "occurred during operator execution. Transport retry counter exceeded, remote ip "
             f"[{peer_ip}], tag[{TAG}]."),
    ]


def roce_positive() -> dict[str, str]:
    """The link of rank 6 (worker-1, device 2) flaps: CQE errors, then the others time out."""
    start = datetime(2026, 5, 14, 3, 40, 12, 890_004)
    t = start + timedelta(hours=2, minutes=7, seconds=3, microseconds=420_815)
    job = two_nodes(260514, 52210, start, t)
    p6 = job.proc(6)
    p6.device_log.append((t - us(850_000), f"[ERROR] HCCP(2812,hccp_service):{stamp(t - us(850_000))} "
                          f"[rs_link.c:533][rs_link_monitor] port 2 link down, device {p6.device}, "
                          "link flap count 3 in 60 s"))
    cqe_error(p6, t, device_ip(job.proc(2)))
    for p in job.procs:
        if p.node == "worker-0":
            notify_timeout(p, t + timedelta(seconds=1800) + us(4_000 * p.device), remote=6, heartbeat=False)
    stop(job, t + timedelta(seconds=1800))
    return files(job, {"about": """Two nodes, eight ranks, two hours into training. The device port of rank 6
        (worker-1, device 2) goes down and up (a link flap in its device log); rank 6 logs 'cqe err status[12]'
        and EI0013 'An error CQE occurred ... retry counter exceeded' towards rank 2; 30 minutes later the ranks
        of worker-0 time out with EI0002. The notify timeouts are fallout of the link error; RoCE CQE error,
        confirmed.""",
        "runs": [{"facts": {}, "diagnosis": ROCE, "verdicts": {ROCE: "confirmed", NOTIFY: "possible"}}]})


def lost_heartbeat(p: Proc, t: datetime) -> None:
    """What the runtime logs when the device of process p stops answering."""
    w, cq = p.card.worker, p.card.cq
    p.debug += [
        rt("ERROR", p.pid, t, "direct_hwts_engine.cc:407", cq, "SyncTask", f"Device[{p.device}] lost heartbeat.", True),
        slog("ERROR", "DRV", p.pid, t + us(1_220), f"[ascend][curpid: {p.pid}, {cq}][drv][tsdrv][halCqReportRecv 512]"
             f"[drv api] halCqReportRecv failed: device_id={p.device}, ts_id=0, type=2, logic_cq=4, drv_ret_code=33"),
        rt("ERROR", p.pid, t + us(4_051), "error_message_manage.cc:72", w, "FuncErrorReason",
           "rtDeviceSynchronizeWithTimeout execution failed, reason=lost heartbeat", True),
        slog("ERROR", "ASCENDCL", p.pid, t + us(4_090), f"[device.cpp:94]{w} aclrtSynchronizeDeviceWithTimeoutImpl: "
             "wait for compute device to finish failed, runtime result = 507010."),
    ]


def roce_negative_device_lost() -> dict[str, str]:
    """CQE errors towards rank 6 because rank 6's device lost its heartbeat."""
    start = datetime(2026, 5, 16, 17, 2, 9, 33_570)
    t = start + timedelta(minutes=52, seconds=40, microseconds=5_219)
    job = two_nodes(260516, 54480, start, t)
    p6 = job.proc(6)
    lost_heartbeat(p6, t)
    cqe_error(job.proc(2), t + us(2_600_000), device_ip(p6))
    stop(job, t + timedelta(seconds=3))
    return files(job, {"about": """Near miss for roce-cqe-link-error: rank 2 logs 'cqe err status[12]' and EI0013
        towards the device of rank 6, like a broken link, but 2.6 s earlier rank 6's own device stopped answering:
        'Device[2] lost heartbeat', halCqReportRecv drv_ret_code=33, 507010. The peer went silent because its
        device died; lost heartbeat leads, likely until overheating is ruled out, and the link error stays
        possible.""",
        "runs": [{"facts": {}, "diagnosis": HEARTBEAT, "verdicts": {ROCE: "possible", HEARTBEAT: "likely"}}]})


BUILDERS = (
    (NOTIFY, "positive-peer-killed", notify_positive), (NOTIFY, "negative-device-fault-first", notify_negative_device_fault),
    (SOCKET, "positive-no-connect", socket_positive), (SOCKET, "negative-rank0-oom", socket_negative_oom),
    (ROCE, "positive-link-flap", roce_positive), (ROCE, "negative-peer-device-lost", roce_negative_device_lost),
)
