"""Line builders for the synthetic sample bundles: one small function per line family.

Every builder returns `(time, text)` pairs. Times are `datetime`s; the text follows the slog grammar
of real CANN plogs (domain.md §1.1): `[LEVEL] MODULE(PID,PNAME):YYYY-MM-DD-hh:mm:ss.mmm.uuu body`,
with RUNTIME bodies as `[file.cc:LINE]TID Func:msg`. The ordinary lines copy the shapes of the real
plogs in `tests/corpus`; the fault block copies the newer STARS wording (domain.md §1.5, §6).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

Line = tuple[datetime, str]

PNAME = "python"
FA_GRAD = "FlashAttentionScoreGrad_8ac1e3b7d5f0a2c4_high_performance_10000000000220130"
FA_GRAD_HASH = "12887136471239871205"
FA_GRAD_TILING_KEY = "10000000000220130"
#: Other kernels of a transformer training step: (kernel name, arg_size).
STEP_KERNELS = (
    ("MatMulV3_5d1e09c3a7b24f68_high_performance_10000", 112),
    ("FlashAttentionScore_3f6b9e0d1c2a7584_high_performance_10000000000220130", 256),
    ("RmsNorm_9c04e7a1b5d3f268_high_performance_1", 88),
    ("RmsNormGrad_41a7c2e90fd36b85_high_performance_1", 104),
    ("SwiGlu_e2d58b0c7a4f1936_high_performance_0", 72),
    ("Add_ee98c6628030785f_high_performance_210000000", 64),
    ("Cast_07b3f5a9e1c4d268_high_performance_1", 56),
    ("ApplyAdamWV2_b96e2f0d4a17c385_high_performance_4", 168),
)
EXTEND_STR = ("The scalar instruction accesses an invalid GM address or the cross-device memory access "
              "times out.")
TRAILER_CORE = "[FUNC:PrintCoreInfo][FILE:device_error_core_proc.cc][LINE:645]"


def us(n: int) -> timedelta:
    """A duration of n microseconds."""
    return timedelta(microseconds=n)


def stamp(t: datetime) -> str:
    """slog time: `2026-03-14-10:02:11.104.233` (ms.µs)."""
    return t.strftime("%Y-%m-%d-%H:%M:%S.") + f"{t.microsecond // 1000:03d}.{t.microsecond % 1000:03d}"


def file_stamp(t: datetime) -> str:
    """plog file-name time: `20260314100211104` (to the millisecond)."""
    return t.strftime("%Y%m%d%H%M%S") + f"{t.microsecond // 1000:03d}"


def slog(level: str, module: str, pid: int, t: datetime, body: str) -> Line:
    """One slog header line with the given body."""
    return t, f"[{level}] {module}({pid},{PNAME}):{stamp(t)} {body}"


def rt(level: str, pid: int, t: datetime, src: str, tid: int, func: str, msg: str, stage: bool = False) -> Line:
    """A RUNTIME line, `[src]TID Func:[INIT][DEFAULT]msg` (stage tags on error lines)."""
    return slog(level, "RUNTIME", pid, t, f"[{src}]{tid} {func}:{'[INIT][DEFAULT]' if stage else ''}{msg}")


def drv(pid: int, tid: int, t: datetime, sub: str, where: str, msg: str, level: str = "INFO") -> Line:
    """A driver line, whose body has its own bracket layout."""
    return slog(level, "DRV", pid, t, f"[ascend][curpid: {pid}, {tid}][drv][{sub}][{where}]{msg}")


@dataclass
class Card:
    """One NPU as seen from its process: the device id and the threads that work for it."""

    device: int
    worker: int        #: the Python thread that set the device and calls into torch_npu
    acl: int           #: the task-queue consumer thread that launches the kernels
    cq: int            #: the runtime thread that reads the completion queue
    task_id: int = 0
    rank: int = -1


# --- ordinary lines -----------------------------------------------------------------------------

def process_start(rng: random.Random, pid: int, t: datetime) -> list[Line]:
    """What a torch_npu process logs while CANN initialises, before any device is set."""
    out = [slog("INFO", "GE", pid, t, f"[operator_factory_impl.cc:227]{pid} RegisterInferShapeV2Func:"
                                      "operator infer shape v2 funcs init"),
           slog("INFO", "GE", pid, t + us(14), f"[operator_factory_impl.cc:241]{pid} RegisterInferShapeRangeFunc:"
                                               "operator infer shape range funcs init")]
    for i in range(6):
        out.append(slog("INFO", "GE", pid, t + us(41_000 + 4 * i),
                        f"[ffts_plus_sub_task_factory.cc:48]{pid} RegisterCreator:Register creator done."))
    t2 = t + us(180_000 + rng.randint(0, 9_000))
    out += [
        slog("INFO", "PROFILING", pid, t2, f"[command_handle.cpp:38] >>> (tid:{pid}) Module[7] register callback "
                                           "of ctrl handle."),
        drv(pid, pid, t2 + us(512), "hdc", "drvHdcServerCreate 283", "Create server success. (listen_device=0)"),
        rt("INFO", pid, t2 + us(3_870), "runtime.cc:1179", pid, "Init", "Runtime init:new Bitmap(1024) ok, "
                                                                        "Runtime_alloc_size 72"),
        rt("WARNING", pid, t2 + us(4_122), "config.cc:707", pid, "ReadHeterogenousModeFromConfigIni",
           "read ASCEND_LATEST_INSTALL_PATH failed! isHeterogenou=0."),
        slog("INFO", "HCCL", pid, t2 + us(9_904), f"[plugin_manager.cc:25][{pid}][{pid}]hcom ops plugin init start."),
        slog("WARNING", "HCCL", pid, t2 + us(10_311), f"[hcom_plugin.cc:291][{pid}][{pid}]ParserHcclExecTimeOut: "
             "key[ge.exec.hcclExecuteTimeOut] has no value, use default setting"),
        slog("INFO", "TBE", pid, t2 + us(61_250), "[../../../../../../latest/python/site-packages/te_fusion/"
             f"parallel_compilation.py:982][init_multi_process_env] pid_timestamp: {file_stamp(t2)[:8]}_"
             f"{file_stamp(t2)[8:]}_pid{pid}, tbe_debug_level: [0]"),
    ]
    return out


def set_device(pid: int, tid: int, device: int, t: datetime) -> list[Line]:
    """The two runtime lines a thread writes when it sets its device."""
    return [rt("INFO", pid, t, "logger.cc:748", tid, "SetDevice", f"set device, device_id={device}"),
            rt("INFO", pid, t + us(84), "api_impl.cc:1017", tid, "SetDevice", "SetDevice success.")]


def card_start(rng: random.Random, pid: int, card: Card, t: datetime, rank_num: int) -> list[Line]:
    """A card coming up: device set from its worker and its queue thread, streams, HCCL communicator."""
    d, w = card.device, card.worker
    out = set_device(pid, w, d, t)
    out += [
        drv(pid, w, t + us(1_306), "devmm", "devmm_setup_device 77", f"DrvMemDeviceOpen. (devid={d})"),
        rt("INFO", pid, t + us(7_211), "api_impl.cc:1729", w, "NewDevice",
           f"New device success, user_device_id={d}, die_num=1."),
        slog("INFO", "PROFILING", pid, t + us(7_902), f"[msprofiler_impl.cpp:142] >>> (tid:{w}) "
                                                     "ProfNotifySetDevice, not on cmd mode"),
        drv(pid, card.cq, t + us(9_544), "tsdrv", "TsDrvLogicCqAlloc 293", f"logic_cq=3, flag 0 devid={d} tsid=0"),
        rt("INFO", pid, t + us(10_117), "engine.cc:2283", card.cq, "ProcLogicReport",
           f"get tsch version, tschVersion=15, device_id={d}, ts_id=0"),
        rt("INFO", pid, t + us(12_880), "logger.cc:381", w, "StreamCreate",
           f"Succ, device_id={d}, flag=0, stream_id=2"),
        rt("INFO", pid, t + us(13_304), "stream.cc:862", w, "Setup", f"stream setup end, stream_id=2, IsTaskSink=0, "
           f"sqId={8 + d}, cqId={3 + d}, deviceId={d} streamResId=4294967295"),
    ]
    ta = t + us(40_000 + rng.randint(0, 20_000))
    out += set_device(pid, card.acl, d, ta)
    out.append(rt("INFO", pid, ta + us(311), "logger.cc:934", card.acl, "ContextSetCurrent", "set context flag=0."))
    th = t + us(900_000 + rng.randint(0, 300_000))
    rank = card.rank if card.rank >= 0 else d
    out += [
        slog("INFO", "HCCL", pid, th, f"[topoinfo_detect.cc:221][{w}][HCCL_TRACE]SetupAgent rankNum[{rank_num}], "
             f"rank[{rank}], rootInfo identifier[hccl_world_group], server[10.30.4.17%enp189s0f0], "
             f"logicDevId[{d}], phydevId[{d}], deviceIp[192.168.100.{101 + d}]"),
        slog("INFO", "HCCL", pid, th + us(61_042), f"[op_base.cc:1062][{w}]HcclCommInitRootInfo success, take time "
             f"[{rng.randint(600_000, 900_000)}]us, rankNum[{rank_num}], rank[{rank}], deviceLogicId[{d}]"),
    ]
    return out


def load_kernel(pid: int, tid: int, device: int, t: datetime, addr: int, bin_size: int) -> list[Line]:
    """Where the runtime placed the FlashAttentionScoreGrad binary on this device."""
    return [rt("INFO", pid, t, "program.cc:402", tid, "LoadKernel", f"device_id={device}, kernel_name={FA_GRAD}, "
               f"kernel addr={addr:#x}, binSize={bin_size}.")]


def launch(rng: random.Random, pid: int, card: Card, t: datetime, kernel: str, arg_size: int,
           completes: bool = True) -> list[Line]:
    """One kernel launch from the queue thread and, for some, its completion on the report thread."""
    card.task_id += 1
    out = []
    if kernel == FA_GRAD:
        out.append(slog("INFO", "OP", pid, t - us(182), "[flash_attention_score_grad_tiling.cpp:1033][OP_TILING]"
                        f"[DoOpTiling][{card.acl}] OpName:[FlashAttentionScoreGrad] \"tiling key is "
                        f"{FA_GRAD_TILING_KEY}, blockDim is 24\""))
    out += [
        rt("INFO", pid, t, "context.cc:713", card.acl, "LaunchKernel", f"stream_id=2, task_id={card.task_id}, "
           f"kernelType=0, kernel_name={kernel}, arg_size={arg_size}"),
        rt("INFO", pid, t + us(37), "npu_driver.cc:453", card.acl, "CommandSend",
           f"device_id={card.device}, ts_id=0, sq_id={8 + card.device}, reportCount=1, cmdCount=1."),
    ]
    if completes and rng.random() < 0.5:
        out.append(rt("INFO", pid, t + us(rng.randint(300, 9_000)), "logger.cc:2057", card.cq, "TaskFinished",
                      f"device_id={card.device}, stream_id=2, task_id={card.task_id}, task_type=0 (KERNEL_AICORE), "
                      f"task_finish_num={card.task_id}"))
    return out


def card_step(rng: random.Random, pid: int, card: Card, t: datetime, fa_grad: bool = True) -> list[Line]:
    """A sampled training step on one card: a few launches, FlashAttentionScoreGrad among them."""
    out: list[Line] = []
    for kernel, size in rng.sample(STEP_KERNELS, 2):
        t += us(rng.randint(800, 40_000))
        out += launch(rng, pid, card, t, kernel, size)
    if fa_grad:
        out += launch(rng, pid, card, t + us(rng.randint(50_000, 90_000)), FA_GRAD, 336)
    if rng.random() < 0.3:
        size = rng.choice((2, 4, 8, 32)) * 1_048_576
        out += [slog("INFO", "ASCENDCL", pid, t, f"[memory.cpp:62]{card.worker} aclrtMallocImpl: start to execute "
                     f"aclrtMalloc, size = {size}"),
                rt("INFO", pid, t + us(96), "logger.cc:547", card.worker, "DevMalloc", f"Succ, size={size}, type=2, "
                   f"moduleId=3, ptr={0x12c140000000 + card.device * 0x8000000 + rng.randrange(0, 1 << 26, 512)}")]
    return out


def background(rng: random.Random, pid: int, t: datetime, card: Card) -> list[Line]:
    """An occasional line that belongs to no launch: profiling, driver waits, memory bookkeeping."""
    pick = rng.randrange(4)
    if pick == 0:
        return [drv(pid, card.cq, t, "tsdrv", "TsDrvLogicCqIrqWait 438", "wait_logic_cq abnormal result show: "
                    f"err_code=16 devId={card.device} tsId=0", level="WARNING")]
    if pick == 1:
        return [slog("INFO", "PROFILING", pid, t, f"[prof_acl_mgr.cpp:1929] >>> (tid:{pid}) Profiling does not "
                                                  "work on cmd mode")]
    if pick == 2:
        return [slog("INFO", "GE", pid, t, f"[cache_policy.cc:54]{pid} Create:[CachePolicy] Create CachePolicy with "
                                           "match_policy: 0, aging_policy: 0 success;")]
    return [rt("INFO", pid, t, "pool.cc:198", pid, "BufferAllocator", "alloc success, Runtime_alloc_size 104")]


def card_stop(pid: int, card: Card, t: datetime) -> list[Line]:
    """A card being reset when the process shuts down."""
    return [rt("INFO", pid, t, "logger.cc:817", card.worker, "DeviceReset", f"reset device, device_id={card.device}."),
            rt("INFO", pid, t + us(641_000), "api_impl.cc:2089", card.worker, "DeviceReset",
               f"Succ, userDeviceId={card.device}.")]


# --- run log (EVENT lines) ----------------------------------------------------------------------

_EVENTS = (
    ("GE", "[graph_manager.cc:818]{tid} PreRunOptimizeOriginalGraph:[GEPERFTRACE] The time cost of "
           "GraphManager::stages.optimizer.OptimizeGraphInit is [{n}] micro second."),
    ("GE", "[task_generator.cc:554]{tid} GenerateTask:[GEPERFTRACE] The time cost of GraphBuild::GenerateTask is "
           "[{n}] micro second, call num is 2"),
    ("FE", "[fe_graph_optimizer.cc:307]{tid} OptimizeOriginalGraph:\"[FE_PERFORMANCE]The time cost of "
           "FEGraphOptimizer::OptimizeQuantGraph is [{n}] micro second.\""),
    ("FE", "[graph_fusion.cc:145]{tid} RunGraphFusionPassByType:\"[FE_PERFORMANCE]The time cost of "
           "GraphFusion::RunGraphFusionPassByType is [{n}] micro second.\""),
    ("GE", "[block_mem_assigner.cc:3500]{tid} AssignMemoryWithReuse:Reuse memory open memory_priority_mode is false."),
)


def run_start(pid: int, t: datetime) -> list[Line]:
    """The EVENT lines every process writes to its run log at start."""
    return [slog("EVENT", "TDT", pid, t, f"[version_verify.cpp:34][SetVersionInfo][tid:{pid}] VersionVerify: send "
                                         "client version to server"),
            slog("EVENT", "TDT", pid, t + us(1_057), f"[hdc_client.cpp:268][CheckHdcConnection][tid:{pid}] "
                                                     "Service[2] create hdc success"),
            slog("EVENT", "TEFUSION", pid, t + us(5_272_000), f"[fusion_op.cc:604]{pid} TbeInit [FE_PERFORMANCE]"
                 "The time cost of CannKB::Initialize is [5271833] micro second."),
            slog("EVENT", "FFTS", pid, t + us(7_553_000), f"[engine_manager.cc:65]{pid} Initialize:"
                 "\"[FFTS_PERFORMANCE]The time cost of EngineManager::Initialize is [1403] micro second.\"")]


def run_events(rng: random.Random, pid: int, tids: list[int], t0: datetime, t1: datetime, n: int) -> list[Line]:
    """n compile-time EVENT lines between t0 and t1, denser at the start (ops compiled on first use)."""
    span = (t1 - t0).total_seconds() * 1e6
    out = []
    for _ in range(n):
        module, body = rng.choice(_EVENTS)
        t = t0 + us(int(span * rng.random() ** 2))
        out.append(slog("EVENT", module, pid, t, body.format(tid=rng.choice(tids), n=rng.randint(10, 20_000))))
    return out


def prof_set_device(pid: int, card: Card, t: datetime) -> Line:
    """The run-log EVENT line profiling writes when a thread sets a device."""
    return slog("EVENT", "PROFILING", pid, t, f"[msprofiler_impl.cpp:139] >>> (tid:{card.worker}) ProfNotifySetDevice "
                                              f"called, is open: 1, devId: {card.device}")


def run_stop(pid: int, t: datetime) -> list[Line]:
    """The EVENT lines of a process shutting down."""
    return [slog("EVENT", "FFTS", pid, t, f"[engine_manager.cc:90]{pid} Finalize:\"[FFTS_PERFORMANCE]The time cost "
                                          "of EngineManager::Finalize is [138] micro second.\""),
            slog("EVENT", "TUNE", pid, t + us(36_153), f"[cann_kb_pyfunc_mgr.cpp:138][CANNKB][Tid:{pid}]"
                 "\"CannKbPyfuncMgr: PyObjectDeinit function end successfully!\"")]


# --- the fault ----------------------------------------------------------------------------------

@dataclass
class Fault:
    """One AI Core exception in FlashAttentionScoreGrad and the numbers its report carries."""

    pid: int
    device: int
    sync_tid: int                 #: the thread waiting in aclrtSynchronizeDeviceWithTimeout
    report_tid: int               #: the runtime thread that reads the error report of the device
    time: datetime                #: when the completion queue reported the failed task
    serial: int
    cores: tuple[int, int]
    pc_start: int
    currents: tuple[int, int]
    para_base: int
    bin_size: int
    task_id: int = 0

    @property
    def core_time(self) -> datetime:
        """Time of the first core's report: the time the error manager shows on screen."""
        return self.time + us(282)

    @property
    def sync_time(self) -> datetime:
        """Time the waiting thread learns of the failure."""
        return self.time + us(1_133)


def core_messages(f: Fault, i: int) -> tuple[str, str]:
    """The dump-info and extend-info texts of core i of the fault."""
    dump = (f"The error from device(chipId:{f.device}, dieId:0), serial number is {f.serial}, there is an exception "
            f"of fftsplus aicore error, core id is {f.cores[i]}, error code = 0, dump info: pc start: {f.pc_start:#x}, "
            f"current: {f.currents[i]:#x}, vec error info: 0, mte error info: 0xbd030000e0, ifu error info: "
            "0x1000000000000, ccu error info: 0, cube error info: 0, biu error info: 0, aic error mask: "
            f"0x6500020bd00028c, para base: {f.para_base:#x}.")
    extend = (f"The extend info: errcode:(0, 0x8000, 0) errorStr: {EXTEND_STR} fixp_error0 info: 0x30000e0, "
              f"fixp_error1 info: 0xbd, fsmId:1, tslot:6, thread:0, ctxid:0, blk:{i}, sublk:0, subErrType:4.")
    return dump, extend


def fault_block(f: Fault, info: bool) -> list[Line]:
    """The runtime's report of the fault; at INFO level with the binSize / args lines as well."""
    p, d, r, s = f.pid, f.device, f.report_tid, f.sync_tid
    out = [rt("ERROR", p, f.time, "stars_engine.cc:1321", r, "ProcLogicCqReport", f"Task run failed, device_id={d}, "
              f"stream_id=2, task_id={f.task_id}, sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0", True)]
    t = f.core_time
    for i in range(2):
        dump, extend = core_messages(f, i)
        out += [rt("ERROR", p, t, "device_error_core_proc.cc:645", r, "PrintCoreInfo", dump, True),
                rt("ERROR", p, t + us(46), "device_error_core_proc.cc:645", r, "PrintCoreInfo", extend, True)]
        t += us(97)
    out += [
        rt("ERROR", p, t + us(12), "davinci_kernel_task.cc:1729", r, "PreCheckTaskErr",
           "Kernel task happen error, retCode=0x26, [aicore exception].", True),
        rt("ERROR", p, t + us(71), "davinci_kernel_task.cc:950", r, "PrintErrorInfoForDavinciTask",
           f"Aicore kernel execute failed, device_id={d}, stream_id=2, report_stream_id=2, task_id={f.task_id}, "
           f"flip_num=0, fault kernel_name={FA_GRAD}, fault kernel info ext=none, program id=41, "
           f"hash={FA_GRAD_HASH}.", True),
    ]
    if info:
        out += [
            rt("INFO", p, t + us(104), "task_manager.cc:532", r, "GetBinAndKernelNameExceptionArgs",
               f"kernel_name={FA_GRAD}, kernelNameSize={len(FA_GRAD)}, binSize={f.bin_size}."),
            rt("INFO", p, t + us(117), "task_manager.cc:541", r, "GetBinAndKernelNameExceptionArgs",
               f"dfxSize=1536, dfxAddr={0xaaab3c2f1e40 + 0x1000 * f.device:#x}, elfDataFlag=1."),
            rt("INFO", p, t + us(126), "task_manager.cc:556", r, "GetExceptionArgs",
               f"GetExceptionArgs argAddr={f.para_base:#x}, argsize=368."),
        ]
    t = f.sync_time
    out += [
        rt("ERROR", p, t, "stream.cc:1475", s, "GetError", "AICORE Kernel task happen error, retCode=0x26.", True),
        rt("ERROR", p, t + us(17), "api_c.cc:793", s, "rtStreamSynchronizeWithTimeout",
           "ErrCode=507015, desc=[aicore exception], InnerCode=0x7150026", True),
        rt("ERROR", p, t + us(35), "error_message_manage.cc:72", s, "FuncErrorReason",
           "rtDeviceSynchronizeWithTimeout execution failed, reason=aicore exception", True),
        slog("ERROR", "ASCENDCL", p, t + us(58), f"[device.cpp:94]{s} aclrtSynchronizeDeviceWithTimeoutImpl: "
             "wait for compute device to finish failed, runtime result = 507015."),
    ]
    return out


def torch_npu_error(f: Fault, rank: int) -> list[str]:
    """What torch_npu prints when the synchronize call fails: exception text, PTA line, error-manager block."""
    trace = [core_messages(f, 0)[1], *core_messages(f, 1)]
    return [
        "RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:627 NPU function error: "
        "AclrtSynchronizeDeviceWithTimeout, error code is 507015",
        f"[ERROR] {f.sync_time:%Y-%m-%d-%H:%M:%S} (PID:{f.pid}, Device:{f.device}, RankID:{rank}) ERR00100 PTA call "
        "acl api failed",
        "[Error]: The aicore execution is abnormal. ",
        "        Rectify the fault based on the error information in the ascend log.",
        "EZ9999: Inner Error!",
        f"EZ9999[PID: {f.pid}] {stamp(f.core_time)} (EZ9999):  {core_messages(f, 0)[0]}{TRAILER_CORE}",
        "        TraceBack (most recent call last):",
        *(f"       {text}{TRAILER_CORE}" for text in trace),
        "       Kernel task happen error, retCode=0x26, [aicore exception].[FUNC:PreCheckTaskErr]"
        "[FILE:davinci_kernel_task.cc][LINE:1729]",
        "       AICORE Kernel task happen error, retCode=0x26.[FUNC:GetError][FILE:stream.cc][LINE:1475]",
        "       rtDeviceSynchronizeWithTimeout execution failed, reason=aicore exception[FUNC:FuncErrorReason]"
        "[FILE:error_message_manage.cc][LINE:72]",
        "",
    ]
