"""A training job as customers run it (torchrun: one process per card, on one or more nodes), with the
ordinary lines every process writes; the failure of each sample is added on top by the family modules.

A `Job` turns into the files of a bundle: `[<node>/]ascend/log/{debug,run}/plog/plog-<pid>_<ts>.log`,
device logs under `debug/device-<id>/`, and the launcher's terminal output `train_stdout.log`.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import yaml

from .lines import (Card, Line, background, card_start, card_step, card_stop, file_stamp, process_start,
                    prof_set_device, run_events, run_start, run_stop, stamp, us)

SCRIPT = "/home/ma-user/work/llm/train_ddp.py"
LIB = "/usr/local/python3.10.14/lib/python3.10"


@dataclass
class Proc:
    """One training process: its card, its rank and the lines of its plogs."""

    pid: int
    card: Card
    node: str | None
    begin: datetime
    debug: list[Line] = field(default_factory=list)
    run: list[Line] = field(default_factory=list)
    device_log: list[Line] = field(default_factory=list)

    @property
    def device(self) -> int:
        """The card this process drives."""
        return self.card.device

    @property
    def rank(self) -> int:
        """The global rank."""
        return self.card.rank


@dataclass
class Job:
    """All processes of the job and the launcher's terminal output."""

    procs: list[Proc]
    screen: list[str] = field(default_factory=list)

    def proc(self, rank: int) -> Proc:
        """The process of a global rank."""
        return next(p for p in self.procs if p.rank == rank)


def torchrun(seed: int, pid0: int, start: datetime, end: datetime, nodes: int = 1, cards: int = 4,
             steps: int = 10, info: bool = True) -> Job:
    """A job of `nodes` x `cards` processes, one card each, training from `start` until `end`."""
    rng = random.Random(seed)
    world = nodes * cards
    procs = []
    for n in range(nodes):
        node = f"worker-{n}" if nodes > 1 else None
        for d in range(cards):
            rank = n * cards + d
            pid = pid0 + 1000 * n + 73 * d
            begin = start + us(120_000 * d + rng.randint(0, 50_000))
            card = Card(d, pid, pid + 163, pid + 171, rank=rank)
            p = Proc(pid, card, node, begin)
            p.run = run_start(pid, begin + us(2_100_000)) + [prof_set_device(pid, card, begin + us(1_190_000))]
            if info:
                p.debug = process_start(rng, pid, begin) + card_start(rng, pid, card, begin + us(1_180_000), world)
                t0 = begin + timedelta(seconds=30)
                period = (end - t0) / steps
                for k in range(steps):
                    t = t0 + period * k + us(rng.randint(0, 200_000))
                    p.debug += card_step(rng, pid, card, t)
                    if rng.random() < 0.6:
                        p.debug += background(rng, pid, t + us(rng.randint(0, 900_000)), card)
            p.run += run_events(rng, pid, [pid], begin + timedelta(seconds=3), end, 14)
            procs.append(p)
    return Job(procs, screen=launcher_banner(start) + progress(rng, start + timedelta(seconds=40), end, steps))


def stop(job: Job, at: datetime, info: bool = True) -> None:
    """Every process resets its card and shuts down after `at`."""
    for p in job.procs:
        if info:
            p.debug += card_stop(p.pid, p.card, at + us(300_000 + 19_000 * p.device))
        p.run += run_stop(p.pid, at + us(1_400_000 + 9_000 * p.device))


def log_time(t: datetime) -> str:
    """Python `logging` time: `2026-03-14 10:02:09,611`."""
    return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"


def launcher_banner(t: datetime) -> list[str]:
    """What torchrun prints first."""
    warn = f"[{log_time(t - us(2_310_000))}] torch.distributed.run: [WARNING] "
    return [warn, warn + "*" * 49, warn + "Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
            "default, to avoid your system being overloaded, please further tune the variable for optimal performance "
            "in your application as needed. ", warn + "*" * 49]


def progress(rng: random.Random, t0: datetime, t1: datetime, steps: int) -> list[str]:
    """Rank 0's progress lines."""
    period = (t1 - t0) / max(steps, 1)
    return [f"{log_time(t0 + period * k)} - INFO - [rank 0] step {k * 10}: loss {7.9 - 0.05 * k + rng.random() / 20:.4f}"
            f" grad_norm {1.1 + rng.random():.3f} step_time {period.total_seconds() / 10:.2f}s"
            for k in range(1, steps)]


def traceback(frames: list[tuple[str, int, str, str]], error: str) -> list[str]:
    """A Python traceback ending in `error`."""
    out = ["Traceback (most recent call last):"]
    for path, line, func, code in frames:
        out += [f'  File "{path}", line {line}, in {func}', f"    {code}"]
    return out + [error]


def sync_frames() -> list[tuple[str, int, str, str]]:
    """The frames of a failing `torch.npu.synchronize()` in the training loop."""
    return [(SCRIPT, 233, "<module>", "main()"), (SCRIPT, 201, "main", "torch.npu.synchronize()"),
            (f"{LIB}/site-packages/torch_npu/npu/utils.py", 71, "synchronize", "return torch_npu._C._npu_synchronize()")]


def pta_line(t: datetime, pid: int, device: int, rank: int, code: str, text: str) -> str:
    """torch_npu's `[ERROR] date (PID:n, Device:d, RankID:r) ERRxxxxx ...` line."""
    return f"[ERROR] {t:%Y-%m-%d-%H:%M:%S} (PID:{pid}, Device:{device}, RankID:{rank}) {code} {text}"


def ecode_block(code: str, pid: int, t: datetime, first: str, trace: list[str], inner: bool = True) -> list[str]:
    """The error manager's block: `CODE: Inner Error!` or the non-inner title form, then the TraceBack."""
    head = [f"{code}: Inner Error!", f"{code}[PID: {pid}] {stamp(t)} ({code}):  {first}"] if inner else [
        f"{code}: [PID: {pid}] {stamp(t)} {first}"]
    return head + ["        TraceBack (most recent call last):", *(f"       {x}" for x in trace)]


def failure_exit(job: Job, rank: int, t: datetime) -> list[str]:
    """torchrun stopping the other ranks after one failed."""
    api = "torch.distributed.elastic.multiprocessing.api"
    failed = job.proc(rank)
    out = [f"[{log_time(t + us(1_000 * p.rank))}] {api}: [WARNING] Sending process {p.pid} closing signal SIGTERM"
           for p in job.procs if p is not failed and p.node == failed.node]
    return out + [f"[{log_time(t + timedelta(seconds=1))}] {api}: [ERROR] failed (exitcode: 1) local_rank: "
                  f"{failed.device} (pid: {failed.pid}) of binary: /usr/local/python3.10.14/bin/python3.10"]


def render(lines: list[Line]) -> str:
    """The lines in time order (stable for equal times), one per `\\n`."""
    return "".join(text + "\n" for _, text in sorted(lines, key=lambda line: line[0]))


def files(job: Job, expect: dict) -> dict[str, str]:
    """The bundle's files and its expect.yaml."""
    out: dict[str, str] = {}
    for p in job.procs:
        base = f"{p.node}/" if p.node else ""
        if p.debug:
            out[f"{base}ascend/log/debug/plog/plog-{p.pid}_{file_stamp(p.begin - us(2_904))}.log"] = render(p.debug)
        if p.run:
            out[f"{base}ascend/log/run/plog/plog-{p.pid}_{file_stamp(p.begin + us(2_100_733))}.log"] = render(p.run)
        if p.device_log:
            out[f"{base}ascend/log/debug/device-{p.device}/device-{p.pid}_"
                f"{file_stamp(p.begin + us(1_400_512))}.log"] = render(p.device_log)
    if job.screen:
        out["train_stdout.log"] = "\n".join(job.screen) + "\n"
    out["expect.yaml"] = expect_text(**expect)
    return out


def expect_text(about: str, runs: list[dict]) -> str:
    """`expect.yaml` in the shape the test harness reads."""
    return yaml.safe_dump({"about": " ".join(about.split()), "runs": runs}, sort_keys=False,
                          default_flow_style=None, width=110, allow_unicode=True)

