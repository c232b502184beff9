"""AI Core fault samples: out-of-range access, trap/timeout, illegal instruction, HBM ECC, and an unknown
numeric fault. Each fault is one report in the newer STARS wording (domain.md §1.5, §6): the runtime's
`Task run failed` line, per core the dump info and extend info, the retCode and kernel lines, the binSize
lines at INFO level, then the synchronize failure and the torch_npu screen output.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..knowledge.errcode import decode_triple
from .job import Job, Proc, ecode_block, failure_exit, files, pta_line, stop, sync_frames, torchrun, traceback
from .lines import launch, rt, slog, stamp, us

TRAILER = "[FUNC:PrintCoreInfo][FILE:device_error_core_proc.cc][LINE:645]"


@dataclass
class CoreFault:
    """One AI Core fault and every number its report carries."""

    kernel: str
    errcode: tuple[int, int, int]
    error_str: str
    ret: str                  #: task-scheduler retCode, e.g. 0x26
    ret_text: str             #: its bracketed text, e.g. aicore exception
    host_code: str            #: what the host sees, e.g. 507015
    serial: int
    cores: tuple[int, ...]
    pc_start: int
    offsets: tuple[int, ...]  #: current - pc start for each core
    bin_size: int
    wording: str = "fftsplus aicore error"
    head: str = "AICORE"      #: GetError prefix: AICORE or AIV


def report(p: Proc, f: CoreFault, t: datetime, info: bool) -> list:
    """The runtime's lines for the fault on the card of process p."""
    pid, d, r, s = p.pid, p.device, p.card.cq, p.card.worker
    out = launch(random.Random(f.serial), pid, p.card, t - us(19_311), f.kernel, 128, completes=False) if info else []
    task = p.card.task_id
    out.append(rt("ERROR", pid, t, "stars_engine.cc:1321", r, "ProcLogicCqReport", f"Task run failed, device_id={d}, "
                  f"stream_id=2, task_id={task}, sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0", True))
    tc = t + us(282)
    for i, core in enumerate(f.cores):
        out += [rt("ERROR", pid, tc, "device_error_core_proc.cc:645", r, "PrintCoreInfo", dump_text(p, f, i), True),
                rt("ERROR", pid, tc + us(46), "device_error_core_proc.cc:645", r, "PrintCoreInfo",
                   extend_text(f, i), True)]
        tc += us(97)
    out.append(rt("ERROR", pid, tc + us(12), "davinci_kernel_task.cc:1729", r, "PreCheckTaskErr",
                  f"Kernel task happen error, retCode={f.ret}, [{f.ret_text}].", True))
    if not f.wording.startswith("hccl"):   # a collective's task has no kernel of its own to name
        out.append(rt("ERROR", pid, tc + us(71), "davinci_kernel_task.cc:950", r, "PrintErrorInfoForDavinciTask",
                      f"Aicore kernel execute failed, device_id={d}, stream_id=2, report_stream_id=2, task_id={task}, "
                      f"flip_num=0, fault kernel_name={f.kernel}, fault kernel info ext=none, program id=17, "
                      f"hash={f.serial * 7_919_113}.", True))
    if info:
        out.append(rt("INFO", pid, tc + us(104), "task_manager.cc:532", r, "GetBinAndKernelNameExceptionArgs",
                      f"kernel_name={f.kernel}, kernelNameSize={len(f.kernel)}, binSize={f.bin_size}."))
    ts = t + us(1_133)
    out += [rt("ERROR", pid, ts, "stream.cc:1475", s, "GetError", f"{f.head} Kernel task happen error, retCode={f.ret}.",
               True),
            rt("ERROR", pid, ts + us(17), "api_c.cc:793", s, "rtStreamSynchronizeWithTimeout",
               f"ErrCode={f.host_code}, desc=[{f.ret_text}], InnerCode=0x71500{f.ret[2:]}", True),
            slog("ERROR", "ASCENDCL", pid, ts + us(58), f"[device.cpp:94]{s} aclrtSynchronizeDeviceWithTimeoutImpl: "
                 f"wait for compute device to finish failed, runtime result = {f.host_code}.")]
    return out


def dump_text(p: Proc, f: CoreFault, i: int) -> str:
    """The dump-info text of core i."""
    return (f"The error from device(chipId:{p.device}, dieId:0), serial number is {f.serial}, there is an exception of "
            f"{f.wording}, core id is {f.cores[i]}, error code = 0, dump info: pc start: {f.pc_start:#x}, "
            f"current: {f.pc_start + f.offsets[i]:#x}, vec error info: 0, mte error info: 0x3d0000a1, "
            "ifu error info: 0, ccu error info: 0, cube error info: 0, biu error info: 0, aic error mask: "
            f"0x6500020bd00028c, para base: {0x12C100000080 + 0x100 * p.device:#x}.")


def extend_text(f: CoreFault, i: int) -> str:
    """The extend-info text of core i."""
    a, b, c = (f"{x:#x}" if x else "0" for x in f.errcode)
    return (f"The extend info: errcode:({a}, {b}, {c}) errorStr: {f.error_str} fixp_error0 info: 0x30000e0, "
            f"fixp_error1 info: 0xbd, fsmId:1, tslot:2, thread:0, ctxid:0, blk:{i}, sublk:0, subErrType:4.")


def screen_error(job: Job, p: Proc, f: CoreFault, t: datetime) -> list[str]:
    """The failing rank's traceback, torch_npu line and error-manager block."""
    err = (f"RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:627 NPU function error: "
           f"AclrtSynchronizeDeviceWithTimeout, error code is {f.host_code}")
    return (traceback(sync_frames(), err)
            + [pta_line(t + us(1_200), p.pid, p.device, p.rank, "ERR00100", "PTA call acl api failed")]
            + ecode_block("EZ9999", p.pid, t + us(282), dump_text(p, f, 0) + TRAILER,
                          [extend_text(f, 0) + TRAILER, f"Kernel task happen error, retCode={f.ret}, [{f.ret_text}]."
                           "[FUNC:PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1729]"])
            + failure_exit(job, p.rank, t + timedelta(seconds=2)))


def fault_job(seed: int, pid0: int, start: datetime, rank: int, f: CoreFault, info: bool = True,
              extra=None) -> tuple[Job, Proc, datetime]:
    """A 4-card job whose rank `rank` hits the fault 9-10 minutes in; `extra(job, proc, t)` adds lines."""
    t = start + timedelta(minutes=9, seconds=seed % 50, microseconds=seed % 999_983)
    job = torchrun(seed, pid0, start, t - timedelta(seconds=2), cards=4, info=info)
    p = job.proc(rank)
    p.debug += report(p, f, t, info)
    if extra:
        extra(job, p, t)
    job.screen += screen_error(job, p, f, t)
    stop(job, t, info)
    return job, p, t


def expectation(f: CoreFault, p: Proc) -> dict:
    """The `aicore` expectation of a fault."""
    return {"error_bits": [b.name for b in decode_triple(*f.errcode)], "device": p.device, "cores": list(f.cores)}


def ras_event(p: Proc, t: datetime) -> list:
    """The device-side RAS line of an HBM multi-bit ECC event."""
    return [(t - us(48_000), f"[ERROR] DRV(1893,dmp_daemon):{stamp(t - us(48_000))} [ras][hbm_ras_proc 412]"
             f"device {p.device} ras event 0x80F38008 HBMA Multi Bit Ecc, module HBMA, addr 0x2c3a9e140, handled=0")]


# --- the samples --------------------------------------------------------------------------------

OOR = "aicore-out-of-range-access"
TRAP = "aicore-kernel-execution-timeout"
ILLEGAL = "aicore-illegal-instruction"
HBM = "hbm-ecc-hardware-fault"
ICACHE = "aicore-icache-data-corruption"
NOTIFY = "hccl-notify-wait-timeout"
INDEX_PUT = "IndexPutV2_3c5e91d07ab24f18_high_performance_20000"
ROPE = "RotaryPosEmbCustom_c81d02e5f4a7b936_mix_aiv"
MATMUL = "MatMulV3_5d1e09c3a7b24f68_high_performance_10000"
SOFTMAX = "SoftmaxV2_0e4c7a91b3d5f268_high_performance_1"


def oor_positive() -> dict[str, str]:
    """IndexPutV2 writes past its output buffer on rank 2: MTE_GDMA_WRITE_OVERFLOW, pc consistent."""
    f = CoreFault(INDEX_PUT, (0x200000000, 0, 0), "The MTE write to an on-chip buffer went past its end.", "0x26",
                  "aicore exception", "507015", 4411, (7, 8), 0x12C0C2080000, (0x5E14, 0x5F3C), 61_440)
    job, p, _ = fault_job(260401, 71022, datetime(2026, 4, 1, 9, 12, 3, 118_402), 2, f)
    return files(job, {"about": """Four ranks, one card each, INFO level. IndexPutV2 on rank 2 (device 2) fails
        with errcode (0x200000000, 0, 0) = MTE_GDMA_WRITE_OVERFLOW, retCode 0x26 / 507015, reported by cores 7
        and 8; current - pc start lies inside the binary (binSize 61440). The kernel wrote past an on-chip
        buffer: an out-of-range access, likely from the logs alone, since the bit says what the core met and not
        which caller or kernel bug made the address. The walk asks whether a single-op replay fails: yes
        confirms it, no (the op runs clean alone) rules it out.""",
        "runs": [{"facts": {}, "diagnosis": OOR, "verdicts": {OOR: "likely"}, "pc_verdict": "consistent",
                  "missing": ["single_op_replay_fails"], "aicore": expectation(f, p)},
                 {"facts": {"single_op_replay_fails": True}, "diagnosis": OOR, "verdicts": {OOR: "confirmed"}},
                 {"facts": {"single_op_replay_fails": False}, "diagnosis": None, "verdicts": {OOR: "ruled_out"}}]})


def oor_negative_hbm() -> dict[str, str]:
    """The same kind of MTE bus error, but the runtime tied it to an HBM multi-bit ECC event (0x58, 507053)."""
    f = CoreFault(MATMUL, (0x800000, 0, 0), "The MTE access to GM got an error response; the RAS record shows a "
                  "memory fault, see the RAS alarm handling.", "0x58", "aicore mem error", "507053", 5120, (3,),
                  0x12C0C6010000, (0x2A38,), 90_112)
    job, p, _ = fault_job(260403, 72140, datetime(2026, 4, 3, 16, 40, 51, 604_117), 1, f,
                          extra=lambda job, p, t: p.device_log.extend(ras_event(p, t)))
    return files(job, {"about": """Near miss for aicore-out-of-range-access: MatMulV3 on device 1 reports
        MTE_BIU_RDWR_RESP (an MTE access to an invalid GM address, one of the out-of-range bits), but the
        runtime matched it to memory: retCode 0x58 (aicore mem error), 507053, and the device log holds a RAS
        event 'HBMA Multi Bit Ecc'. The kernel is a victim of failing HBM, so the out-of-range case stays
        possible and the hardware case leads, likely until the card's isolation record is known.""",
        "runs": [{"facts": {}, "diagnosis": HBM, "verdicts": {OOR: "possible", HBM: "likely"},
                  "aicore": expectation(f, p)}]})


def trap_positive() -> dict[str, str]:
    """SoftmaxV2 never finishes on rank 3: errcode (0, 0, 0), timeout or trap error, retCode 0x25."""
    f = CoreFault(SOFTMAX, (0, 0, 0), "timeout or trap error.", "0x25", "aicore timeout", "507014", 6218, (12,),
                  0x12C0C4020000, (0x1B70,), 24_576)

    def slot(job: Job, p: Proc, t: datetime) -> None:
        p.debug.append(rt("ERROR", p.pid, t + us(150), "device_error_core_proc.cc:1412", p.card.cq, "PrintTimeoutSlot",
                          f"aicore task timeout dfx, show slot info, slot_id=3, kernel_name={SOFTMAX}, "
                          f"pc_start={f.pc_start:#x}, task_id={p.card.task_id}", True))
    job, p, _ = fault_job(260407, 73310, datetime(2026, 4, 7, 2, 3, 44, 40_981), 3, f, extra=slot)
    return files(job, {"about": """Four ranks at INFO level. SoftmaxV2 on device 3 runs past the AI Core task
        timeout: the extend info is errcode (0, 0, 0) with errorStr 'timeout or trap error.', retCode 0x25
        (aicore timeout) / 507014, and the runtime prints the timeout slot of the kernel. No hardware bit, no
        HCCL wait, no device loss: an operator timeout, likely until a cross-core sync wait is ruled out.""",
        "runs": [{"facts": {}, "diagnosis": TRAP, "verdicts": {TRAP: "likely"}, "aicore": expectation(f, p)}]})


def trap_negative_hccl() -> dict[str, str]:
    """A collective's FFTS+ task times out with no bit set: HCCL waited for a peer (EI0002)."""
    f = CoreFault("HcomAllReduce_48210937561123_0", (0, 0, 0), "timeout or trap error.", "0x25", "aicore timeout",
                  "507048", 6811, (0,), 0x12C0C8000000, (0x40,), 4_096, wording="hccl fftsplus timeout")

    def hccl(job: Job, p: Proc, t: datetime) -> None:
        for q in job.procs:
            if q.rank == 1:
                continue   # rank 1 was stuck in its data loader and never reached the all-reduce
            tq = t - us(30_000 * q.rank)
            q.debug.append(slog("ERROR", "HCCL", q.pid, tq, f"[task_exception_handler.cc:812][{q.card.cq}]"
                           "[TaskExceptionHandler][Callback]Task run failed, base information is streamID:[3], "
                           "taskID[57], tag[HcomAllReduce_48210937561123_0], AllReduce."))
            q.debug.append(slog("ERROR", "HCCL", q.pid, tq + us(40), f"[task_exception_handler.cc:850][{q.card.cq}]"
                           "EI0002: The wait execution of the Notify register times out. Reason: The Notify "
                           "register has not received the Notify record from remote rank [1]."))
    job, p, _ = fault_job(260409, 74020, datetime(2026, 4, 9, 11, 27, 5, 330_660), 0, f, extra=hccl)
    return files(job, {"about": """Near miss for aicore-kernel-execution-timeout: device 0 reports an exception of 'hccl
        fftsplus timeout' with errcode (0, 0, 0) and 'timeout or trap error.', like an operator timeout, but the
        task is an HCCL all-reduce, and ranks 0, 2 and 3 log EI0002 naming remote rank 1, which never arrived
        (stuck in its data loader, no error of its own). The collective wait is the failure: the notify wait
        timeout is confirmed and the kernel-timeout case stays possible.""",
        "runs": [{"facts": {}, "diagnosis": NOTIFY, "verdicts": {TRAP: "possible", NOTIFY: "confirmed"}}]})


def illegal_positive() -> dict[str, str]:
    """A custom vector kernel built for another CANN version: VEC_INSTR_UNDEF, retCode 0x31."""
    f = CoreFault(ROPE, (0, 0x2000, 0), "A vector instruction could not be decoded or broke its constraints.",
                  "0x31", "vector core exception", "507035", 3392, (33, 34), 0x12C0C2400000, (0x0C18, 0x0C18), 20_480,
                  wording="fftsplus aivector error", head="AIV")
    job, p, _ = fault_job(260412, 75544, datetime(2026, 4, 12, 14, 0, 12, 905_310), 0, f)
    return files(job, {"about": """Four ranks at INFO level. The custom vector kernel RotaryPosEmbCustom fails on
        device 0 with errcode (0, 0x2000, 0) = VEC_INSTR_UNDEF, retCode 0x31 / 507035, on cores 33 and 34 at the
        same offset: the core met an instruction it cannot decode. The bit names the kind of fault, not its cause,
        so from the logs alone the case is likely and the walk asks about the binaries. The engineer finds the
        custom op was built with an older CANN than the one installed: illegal instruction, confirmed. A single-op
        replay that fails with the installed binary confirms it as well.""",
        "runs": [{"facts": {}, "diagnosis": ILLEGAL, "verdicts": {ILLEGAL: "likely"}, "pc_verdict": "consistent",
                  "missing": ["op_binaries_mismatch", "single_op_replay_fails"], "aicore": expectation(f, p)},
                 {"facts": {"op_binaries_mismatch": True}, "diagnosis": ILLEGAL, "verdicts": {ILLEGAL: "confirmed"}},
                 {"facts": {"single_op_replay_fails": True}, "diagnosis": ILLEGAL,
                  "verdicts": {ILLEGAL: "confirmed"}}]})


def illegal_negative_wrap() -> dict[str, str]:
    """The same vector-core exception codes, but the bit is VEC_UB_WRAP_AROUND: an out-of-range access."""
    f = CoreFault(ROPE, (0x4000000000000000, 0, 0), "A vector instruction's UB address ran past the end of UB.",
                  "0x31", "vector core exception", "507035", 3710, (40,), 0x12C0C2400000, (0x1F04,), 20_480,
                  wording="fftsplus aivector error", head="AIV")
    job, p, _ = fault_job(260414, 76102, datetime(2026, 4, 14, 8, 45, 30, 11_870), 3, f)
    return files(job, {"about": """Near miss for aicore-illegal-instruction: the same custom kernel, the same
        retCode 0x31 / 507035 on a vector core, but errcode (0x4000000000000000, 0, 0) = VEC_UB_WRAP_AROUND and a
        consistent pc: the instruction was fine, its UB address ran off the end. Out-of-range access is the
        diagnosis (likely: the bit alone, no replay yet); the illegal-instruction case stays possible.""",
        "runs": [{"facts": {}, "diagnosis": OOR, "verdicts": {ILLEGAL: "possible", OOR: "likely"},
                  "aicore": expectation(f, p)}]})


def illegal_negative_icache() -> dict[str, str]:
    """VEC_INSTR_UNDEF again, but the task scheduler's dump finds the instruction cache differing from memory."""
    f = CoreFault(ROPE, (0, 0x2000, 0), "A vector instruction could not be decoded or broke its constraints.",
                  "0x31", "vector core exception", "507035", 3871, (37,), 0x12C0C2400000, (0x0C18,), 20_480,
                  wording="fftsplus aivector error", head="AIV")
    job, p, t = fault_job(260416, 76930, datetime(2026, 4, 16, 21, 7, 55, 460_112), 1, f)
    dump = t - us(2_100)
    out = files(job, {"about": """Near miss for aicore-illegal-instruction: the same custom vector kernel stops with
        errcode (0, 0x2000, 0) = VEC_INSTR_UNDEF, retCode 0x31 / 507035, but the device's exception log holds the
        task scheduler's dump of core 37: of 32 instructions read from the instruction cache and from memory, 5
        differ (compare_fail_num=5). The kernel binary is sound; the cache handed the core other code.
        Instruction cache corruption is confirmed; the illegal-instruction case stays possible.""",
        "runs": [{"facts": {}, "diagnosis": ICACHE, "verdicts": {ILLEGAL: "possible", ICACHE: "confirmed"}}]})
    folder = f"hisi_logs/device-{p.device}/{dump.strftime('%Y%m%d%H%M%S')}-{dump.microsecond * 1000:09d}/log"
    out[f"{folder}/ts.log"] = (f"[ERROR] TSCH(-1,null):{stamp(dump)} 21877 (dieid:0,cpuid:0) aicore.c:767 "
                               "stars_print_error_pc_icache_and_hbm_info: stat for dump pc start, aiv_id=37, "
                               "icache_miss_num=5127, hbm_miss_num=0, compare_num=32, compare_fail_num=5\n")
    return out


def hbm_positive() -> dict[str, str]:
    """A multi-bit ECC in the scalar data cache and an HBM RAS event: retCode 0x58, 507054."""
    f = CoreFault(MATMUL, (0, 0x80000000, 0), "Multi-bit ECC error in the data cache, see the RAS alarm handling.",
                  "0x58", "aicore mem error", "507054", 8804, (21,), 0x12C0C6010000, (0x3B00,), 90_112)
    job, p, _ = fault_job(260418, 77710, datetime(2026, 4, 18, 23, 5, 9, 477_001), 2, f,
                          extra=lambda job, p, t: p.device_log.extend(ras_event(p, t)))
    return files(job, {"about": """Four ranks at INFO level. MatMulV3 on device 2 fails with errcode (0,
        0x80000000, 0) = CCU_DC_DATA_ECC, retCode 0x58 (aicore mem error), host code 507054, and the device log
        holds the RAS event 'HBMA Multi Bit Ecc'. Failing device memory, likely until the card's isolation record is
        known: isolate the card. If the engineer says the job fails the same way on other cards, one card's memory
        cannot explain it: ruled out.""",
        "runs": [{"facts": {}, "diagnosis": HBM, "verdicts": {HBM: "likely"}, "missing": ["fails_on_other_cards"],
                  "aicore": expectation(f, p)},
                 {"facts": {"fails_on_other_cards": True}, "diagnosis": None, "verdicts": {HBM: "ruled_out"}}]})


def hbm_negative_software() -> dict[str, str]:
    """MTE_BIU_RDWR_RESP with retCode 0x26 and no RAS event: the kernel's own bad GM address."""
    f = CoreFault(INDEX_PUT, (0x800000, 0, 0), "The MTE access to GM got an error response from the bus.", "0x26",
                  "aicore exception", "507015", 9051, (5,), 0x12C0C2080000, (0x4C10,), 61_440)
    job, p, _ = fault_job(260420, 78320, datetime(2026, 4, 20, 6, 30, 0, 650_233), 1, f)
    return files(job, {"about": """Near miss for hbm-ecc-hardware-fault: device 1 reports MTE_BIU_RDWR_RESP, the
        bit the runtime checks against HBM RAS events, but there is no RAS event, the retCode is 0x26 (not 0x58)
        and the pc is consistent: IndexPutV2 addressed invalid GM by itself. Out-of-range access is the
        diagnosis (likely until a single-op replay fails), the hardware case stays possible.""",
        "runs": [{"facts": {}, "diagnosis": OOR, "verdicts": {HBM: "possible", OOR: "likely"},
                  "aicore": expectation(f, p)}]})


def unknown_divide_by_zero() -> dict[str, str]:
    """A vector division by zero: an AI Core exception no case of the knowledge base explains."""
    f = CoreFault("DivV2_7a0c3e5b91d2f468_high_performance_3", (0x10000000000000, 0, 0),
                  "A vector instruction divided by zero.", "0x26", "aicore exception", "507015", 1207, (2,),
                  0x12C0C3000000, (0x0A94,), 16_384)
    job, p, _ = fault_job(260423, 79900, datetime(2026, 4, 23, 19, 11, 48, 1_920), 0, f)
    return files(job, {"about": """A failure no case covers: DivV2 on device 0 stops with errcode
        (0x10000000000000, 0, 0) = VEC_DIV0 (a numeric fault), retCode 0x26 / 507015, pc consistent. The AI Core
        cases match the fault and its codes but not their key bits, so none may be more than possible and there
        is no diagnosis.""",
        "runs": [{"facts": {}, "diagnosis": None, "verdicts": {OOR: "possible", ILLEGAL: "possible"},
                  "aicore": expectation(f, p)}]})


BUILDERS = (
    (OOR, "positive-mte-write-overflow", oor_positive), (OOR, "negative-hbm-bus-error", oor_negative_hbm),
    (TRAP, "positive-softmax-timeout", trap_positive), (TRAP, "negative-hccl-task-timeout", trap_negative_hccl),
    (ILLEGAL, "positive-custom-op-undef", illegal_positive), (ILLEGAL, "negative-ub-wrap-around", illegal_negative_wrap),
    (ILLEGAL, "negative-icache-mismatch", illegal_negative_icache),
    (HBM, "positive-dcache-ecc", hbm_positive), (HBM, "negative-bus-error-no-ras", hbm_negative_software),
    ("_unknown", "vector-divide-by-zero", unknown_divide_by_zero),
)
