"""Sample bundles for the case `task-queue-shared-cache-race`, generated here and never edited by hand.

Each sample is a folder holding what a customer would send (an `ascend/log/{debug,run}/plog` tree and
the terminal output `train_stdout.log`) and the `expect.yaml` the test harness checks the walk against:

* `positive-info`: one process drives 8 cards from 8 threads, INFO level. The fault on card 3 reports a
  `pc start` outside the FlashAttentionScoreGrad binary the runtime loaded on that card, while `current`
  lies inside it: the host handed the core a wrong start address.
* `positive-error-level`: the same job at the default ERROR level: no set-device lines, no binSize, so the
  topology and the pc check stay open and the walk must ask.
* `negative-process-per-card`: the same fault lines, but one process per card and a consistent pc: a
  kernel-side fault, not the race.

The output depends only on the seeds below (`random.Random`; no clock, no environment), so generating
twice gives the same bytes. `casebook.synth.write_samples(Path("kb/samples"))` rewrites them.
"""
from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timedelta

import yaml

from .lines import (FA_GRAD, Card, Fault, Line, background, card_start, card_step, card_stop, fault_block,
                    file_stamp, launch, load_kernel, process_start, prof_set_device, run_events, run_start, run_stop,
                    torch_npu_error, us)

CASE = "task-queue-shared-cache-race"
BIN_SIZE = 187392        #: size of the FlashAttentionScoreGrad binary (0x2dc00)
STEPS = 55               #: sampled training steps before the fault
ARGS_SIZE = 336


def render(lines: list[Line]) -> str:
    """The lines in time order (stable for equal times), one per `\\n`."""
    return "".join(text + "\n" for _, text in sorted(lines, key=lambda line: line[0]))


def plog_files(sort: str, pid: int, created: datetime, lines: list[Line]) -> dict[str, str]:
    """`ascend/log/<sort>/plog/plog-<pid>_<ts>.log` for these lines."""
    return {f"ascend/log/{sort}/plog/plog-{pid}_{file_stamp(created)}.log": render(lines)}


def log_time(t: datetime) -> str:
    """Python `logging` time: `2026-03-14 10:02:09,611`."""
    return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"


def training(rng: random.Random, pid: int, cards: list[Card], t0: datetime, t1: datetime,
             fault_card: Card | None, kernel_addr: int | None) -> list[Line]:
    """Ordinary lines of the training steps between t0 and t1 on each card of one process."""
    out: list[Line] = []
    period = (t1 - t0) / STEPS
    for k in range(STEPS):
        for card in cards:
            t = t0 + period * k + us(rng.randint(0, 200_000))
            if card is fault_card and k == 0 and kernel_addr is not None:
                out += load_kernel(pid, card.acl, card.device, t + us(1_000), kernel_addr, BIN_SIZE)
            out += card_step(rng, pid, card, t)
        if rng.random() < 0.7:
            out += background(rng, pid, t0 + period * k + us(rng.randint(0, 900_000)), rng.choice(cards))
    return out


def fail(rng: random.Random, fault: Fault, card: Card, info: bool) -> list[Line]:
    """The faulting launch on the card, then the runtime's report of it."""
    out = launch(rng, fault.pid, card, fault.time - us(23_417), FA_GRAD, ARGS_SIZE, completes=False) if info else []
    fault.task_id = card.task_id
    return out + fault_block(fault, info)


def cards_of(devices: range, worker0: int, acl0: int, cq0: int) -> list[Card]:
    """The cards of one process, with thread ids numbered from the given bases."""
    return [Card(d, worker0 + i, acl0 + i, cq0 + i) for i, d in enumerate(devices)]


# --- the samples --------------------------------------------------------------------------------

def single_process(seed: int, pid: int, start: datetime, fault: Fault, kernel_addr: int | None,
                   info: bool) -> dict[str, str]:
    """One process, 8 threads, 8 cards; the fault on `fault.device`; INFO or ERROR level."""
    rng = random.Random(seed)
    fault = replace(fault)          # the task id is filled in below; keep the module constant untouched
    cards = cards_of(range(8), fault.sync_tid - fault.device, pid + 189, fault.report_tid - fault.device)
    fcard = cards[fault.device]
    if not info:
        fcard.task_id = rng.randint(20_000, 60_000)   # the launches before the fault are not logged
    t_train = start + timedelta(seconds=31)
    debug: list[Line] = []
    run = run_start(pid, start + us(2_094_117))
    if info:
        debug += process_start(rng, pid, start)
        for i, card in enumerate(cards):
            t = start + us(1_210_000 + 37_000 * i + rng.randint(0, 9_000))
            debug += card_start(rng, pid, card, t, rank_num=8)
            run.append(prof_set_device(pid, card, t + us(7_600)))
        debug += training(rng, pid, cards, t_train, fault.time - timedelta(seconds=2), fcard, kernel_addr)
        for card in cards:
            if card is not fcard:
                debug += card_step(rng, pid, card, fault.time - us(rng.randint(100_000, 400_000)))
                debug += card_step(rng, pid, card, fault.time + us(rng.randint(150_000, 400_000)), fa_grad=False)
            debug += card_stop(pid, card, fault.time + us(820_000 + 23_000 * card.device))
    debug += fail(rng, fault, fcard, info)
    run += run_events(rng, pid, [pid, *(c.worker for c in cards)], start + timedelta(seconds=3), fault.time,
                      36 if info else 330)
    run += run_stop(pid, fault.time + us(1_530_000))
    files = plog_files("debug", pid, start - us(3_117), debug)
    files.update(plog_files("run", pid, start + us(2_093_801), run))
    files["train_stdout.log"] = screen_threads(rng, fault, start, t_train, spell_out_threads=info)
    return files


def screen_threads(rng: random.Random, fault: Fault, start: datetime, t_train: datetime,
                   spell_out_threads: bool) -> str:
    """Terminal output of the threaded trainer: progress lines, then the failing thread's traceback."""
    script = "/home/ma-user/work/llm/train_mt.py"
    lib = "/usr/local/python3.10.14/lib/python3.10"
    out = [f"{log_time(start - us(1_402_000))} - INFO - train_mt.py:58 - model llama-13b, seq len 8192, "
           "global batch 64, bf16"]
    if spell_out_threads:
        out.append(f"{log_time(start - us(1_389_000))} - INFO - train_mt.py:74 - one worker thread per device: "
                   "npu:0 .. npu:7")
    period = (fault.time - t_train) / STEPS
    for k in range(10, STEPS, 10):
        t = t_train + period * (k + 1)
        out.append(f"{log_time(t)} - INFO - train_mt.py:151 - step {k}: loss {7.9 - 0.06 * k + rng.random() / 20:.4f}"
                   f" grad_norm {1.2 + rng.random():.3f} lr {3e-4 * k / STEPS:.2e}"
                   f" step_time {period.total_seconds():.2f}s")
    thread = f"npu-{fault.device}" if spell_out_threads else f"Thread-{fault.device + 1} (worker)"
    out += [f"Exception in thread {thread}:",
            "Traceback (most recent call last):",
            f'  File "{lib}/threading.py", line 1016, in _bootstrap_inner',
            "    self.run()",
            f'  File "{lib}/threading.py", line 953, in run',
            "    self._target(*self._args, **self._kwargs)",
            f'  File "{script}", line 139, in worker',
            "    torch.npu.synchronize()",
            f'  File "{lib}/site-packages/torch_npu/npu/utils.py", line 71, in synchronize',
            "    return torch_npu._C._npu_synchronize()"]
    out += torch_npu_error(fault, rank=-1)
    out.append(f"{log_time(fault.time + us(596_000))} - ERROR - train_mt.py:92 - worker {thread} failed; "
               "stopping the other workers")
    return "\n".join(out) + "\n"


def process_per_card(seed: int, pid0: int, start: datetime, fault: Fault, kernel_addr: int) -> dict[str, str]:
    """Eight processes, one card each (torchrun); the fault in the process of `fault.device`."""
    rng = random.Random(seed)
    fault = replace(fault)
    files: dict[str, str] = {}
    t_train = start + timedelta(seconds=34)
    for d in range(8):
        pid = fault.pid if d == fault.device else pid0 + 77 * d
        begin = start + us(130_000 * d + rng.randint(0, 60_000))
        card = Card(d, pid, pid + 163, pid + 171, rank=d)
        debug = process_start(rng, pid, begin) + card_start(rng, pid, card, begin + us(1_180_000), rank_num=8)
        run = run_start(pid, begin + us(2_101_000)) + [prof_set_device(pid, card, begin + us(1_187_600))]
        faulty = d == fault.device
        debug += training(rng, pid, [card], t_train, fault.time - timedelta(seconds=2), card if faulty else None,
                          kernel_addr if faulty else None)
        debug += card_step(rng, pid, card, fault.time - us(rng.randint(100_000, 400_000)), fa_grad=not faulty)
        if faulty:
            debug += fail(rng, fault, card, info=True) + card_stop(pid, card, fault.time + us(910_000))
            run += run_stop(pid, fault.time + us(1_530_000))
        run += run_events(rng, pid, [pid], begin + timedelta(seconds=3), fault.time, 18)
        files.update(plog_files("debug", pid, begin - us(2_904), debug))
        files.update(plog_files("run", pid, begin + us(2_100_733), run))
    files["train_stdout.log"] = screen_torchrun(rng, fault, pid0, start, t_train)
    return files


def screen_torchrun(rng: random.Random, fault: Fault, pid0: int, start: datetime, t_train: datetime) -> str:
    """Terminal output of torchrun with 8 ranks: rank 0 progress, then the failing rank's traceback."""
    script = "/home/ma-user/work/llm/train_ddp.py"
    lib = "/usr/local/python3.10.14/lib/python3.10"
    warn = f"[{log_time(start - us(2_310_000))}] torch.distributed.run: [WARNING] "
    out = [warn, warn + "*" * 49, warn + "Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
           "default, to avoid your system being overloaded, please further tune the variable for optimal performance "
           "in your application as needed. ", warn + "*" * 49]
    period = (fault.time - t_train) / STEPS
    for k in range(10, STEPS, 10):
        t = t_train + period * (k + 1)
        out.append(f"{log_time(t)} - INFO - [rank 0] step {k}: loss {7.9 - 0.06 * k + rng.random() / 20:.4f} "
                   f"grad_norm {1.2 + rng.random():.3f} step_time {period.total_seconds():.2f}s")
    out += ["Traceback (most recent call last):",
            f'  File "{script}", line 233, in <module>',
            "    main()",
            f'  File "{script}", line 201, in main',
            "    torch.npu.synchronize()",
            f'  File "{lib}/site-packages/torch_npu/npu/utils.py", line 71, in synchronize',
            "    return torch_npu._C._npu_synchronize()"]
    out += torch_npu_error(fault, rank=fault.device)
    api = "torch.distributed.elastic.multiprocessing.api"
    t = fault.time + timedelta(seconds=2)
    for d in range(8):
        if d != fault.device:
            out.append(f"[{log_time(t + us(1_000 * d))}] {api}: [WARNING] Sending process {pid0 + 77 * d} closing "
                       "signal SIGTERM")
    out.append(f"[{log_time(t + timedelta(seconds=1))}] {api}: [ERROR] failed (exitcode: 1) local_rank: "
               f"{fault.device} (pid: {fault.pid}) of binary: /usr/local/python3.10.14/bin/python3.10")
    return "\n".join(out) + "\n"


# --- expectations -------------------------------------------------------------------------------

def aicore(fault: Fault) -> dict:
    """The `aicore` expectation of a fault."""
    return {"op": "FlashAttentionScoreGrad", "error_bits": ["CCU_BUS_ERR"], "cores": list(fault.cores),
            "device": fault.device}


def expect_text(about: str, runs: list[dict]) -> str:
    """`expect.yaml` in the shape the test harness reads."""
    return yaml.safe_dump({"about": " ".join(about.split()), "runs": runs}, sort_keys=False,
                          default_flow_style=None, width=110, allow_unicode=True)


def verdict(v: str) -> dict:
    """The verdicts map for this case."""
    return {CASE: v}


POSITIVE_INFO = Fault(pid=48213, device=3, sync_tid=48390, report_tid=48418,
                      time=datetime(2026, 3, 14, 10, 7, 42, 117_322), serial=2569, cores=(18, 19),
                      pc_start=0x12C0FF812000, currents=(0x12C1000A3F8C, 0x12C1000A41C4),
                      para_base=0x12C100000080, bin_size=BIN_SIZE)
POSITIVE_INFO_KERNEL = 0x12C1000A0000
POSITIVE_ERROR = Fault(pid=51877, device=3, sync_tid=52054, report_tid=52082,
                       time=datetime(2026, 3, 17, 21, 14, 9, 608_215), serial=3107, cores=(18, 19),
                       pc_start=0x12C0FE3C6000, currents=(0x12C1000B17A4, 0x12C1000B1A30),
                       para_base=0x12C100000100, bin_size=BIN_SIZE)
NEGATIVE = Fault(pid=60696, device=5, sync_tid=60696, report_tid=60696 + 171,
                 time=datetime(2026, 3, 20, 14, 36, 5, 402_611), serial=1877, cores=(21, 22),
                 pc_start=0x12C0C0040000, currents=(0x12C0C0049E54, 0x12C0C004A1F0),
                 para_base=0x12C0C8000080, bin_size=BIN_SIZE)
NEGATIVE_KERNEL = 0x12C0C0040000


def positive_info() -> dict[str, str]:
    """The founding case at INFO level, with the loaded kernel address that convicts pc start."""
    files = single_process(20260314, POSITIVE_INFO.pid, datetime(2026, 3, 14, 10, 2, 9, 831_406), POSITIVE_INFO,
                           POSITIVE_INFO_KERNEL, info=True)
    files["expect.yaml"] = expect_text(
        """One python process drives NPUs 0-7 from eight threads (each thread sets its own device), with plogs
        at INFO level. FlashAttentionScoreGrad fails on device 3 with errcode (0, 0x8000, 0) = CCU_BUS_ERR,
        reported by cores 18 and 19. The runtime logged where it loaded that kernel on device 3
        (0x12c1000a0000, binSize 187392): current lies inside that binary, pc start (0x12c0ff812000) does not,
        so the start address handed to the core was wrong (pc_start_suspect). Errcode family, topology and
        pc agree with the race; only TASK_QUEUE_ENABLE is unknown, so the case is likely until the engineer
        says the queue was on (1 or unset), which confirms it.""",
        [{"facts": {}, "diagnosis": CASE, "verdicts": verdict("likely"), "missing": ["TASK_QUEUE_ENABLE"],
          "pc_verdict": "pc_start_suspect", "aicore": aicore(POSITIVE_INFO)},
         {"facts": {"TASK_QUEUE_ENABLE": "1"}, "diagnosis": CASE, "verdicts": verdict("confirmed")}])
    return files


def positive_error_level() -> dict[str, str]:
    """The same job at the default ERROR level: topology and binSize are not in the logs."""
    files = single_process(20260317, POSITIVE_ERROR.pid, datetime(2026, 3, 17, 21, 8, 40, 12_774), POSITIVE_ERROR,
                           None, info=False)
    files["expect.yaml"] = expect_text(
        """The same kind of job as positive-info, logged at the default level (ASCEND_GLOBAL_LOG_LEVEL=3):
        the debug plog holds only the ERROR lines of the fault and the run plog only EVENT lines. The
        FlashAttentionScoreGrad fault on device 3 (CCU_BUS_ERR, cores 18 and 19) matches the case, but
        without set-device lines nothing shows how many cards the process drives, and without binSize the
        pc check is unknown. So the case is likely and the walk must ask for the topology and
        TASK_QUEUE_ENABLE; both answered (one process for all cards, queue on) confirm it, while the queue
        forced off by ASCEND_LAUNCH_BLOCKING=1 rules it out.""",
        [{"facts": {}, "diagnosis": CASE, "verdicts": verdict("likely"),
          "missing": ["single_process_multi_device", "TASK_QUEUE_ENABLE"], "pc_verdict": "unknown",
          "aicore": aicore(POSITIVE_ERROR)},
         {"facts": {"TASK_QUEUE_ENABLE": "1", "single_process_multi_device": True}, "diagnosis": CASE,
          "verdicts": verdict("confirmed")},
         {"facts": {"TASK_QUEUE_ENABLE": "unset", "ASCEND_LAUNCH_BLOCKING": "1"}, "diagnosis": None,
          "verdicts": verdict("ruled_out")}])
    return files


def negative_process_per_card() -> dict[str, str]:
    """The near miss: the same fault text, one process per card, a consistent pc."""
    files = process_per_card(20260320, 60311, datetime(2026, 3, 20, 14, 30, 3, 507_932), NEGATIVE, NEGATIVE_KERNEL)
    files["expect.yaml"] = expect_text(
        """A torchrun job with eight processes, one per card, at INFO level: each process sets exactly one
        device. FlashAttentionScoreGrad fails on device 5 with the same lines as the founding case (EZ9999,
        errcode (0, 0x8000, 0), retCode 0x26, 507015), but current - pc start = 0x9e54 lies inside the
        binary (binSize 187392) and pc start is where the runtime loaded the kernel: the pc is consistent and
        the fault is inside the kernel. With one process per card there is no shared cache between threads,
        so the race is ruled out whatever TASK_QUEUE_ENABLE was.""",
        [{"facts": {}, "diagnosis": None, "verdicts": verdict("ruled_out"), "missing": [],
          "pc_verdict": "consistent", "aicore": aicore(NEGATIVE)},
         {"facts": {"TASK_QUEUE_ENABLE": "1"}, "diagnosis": None, "verdicts": verdict("ruled_out")}])
    return files


SAMPLES = (("positive-info", positive_info), ("positive-error-level", positive_error_level),
           ("negative-process-per-card", negative_process_per_card))


#: (case, sample name, builder) of the founding case's samples.
BUILDERS = tuple((CASE, name, build) for name, build in SAMPLES)
