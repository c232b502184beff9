"""A large, realistic bundle for the benchmark: many nodes, processes and devices, rotated plogs, INFO noise.

Lines follow the slog grammar of the real corpus in the proportions of an INFO-level training run (mostly
RUNTIME launch / finish lines, some OP tiling, GE, HCCL, DRV, a few WARNING and EVENT lines, rare ERROR
lines). The knowledge base's own sample bundles are copied in under `planted/`, so the failures a triage
must find are genuine sample logs, not noise: at 1 GB every sample, below it a share in proportion to the size
(the same mix of noise and failure per byte, at least one sample), the families taking turns so that a
small bundle's few failures are of different kinds.
"""
from __future__ import annotations

import random
import re
import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

ROTATE_BYTES = 20 * 1024 * 1024   #: CANN rotates a plog at 20 MiB
FULL_PLANTING = 1 << 30           #: from this bundle size on, every sample bundle is planted
#: What a sample folder holds beside its logs (its expectations, where its lines come from): not planted.
SAMPLE_METADATA = ("expect.yaml", "SOURCE.md")
_START = datetime(2026, 5, 4, 9, 0, 0)

_OPS = ("MatMulV3", "FlashAttentionScore", "FlashAttentionScoreGrad", "SwiGlu", "RmsNorm", "Add", "Cast",
        "Transpose", "ReduceSum", "GatherV2")
#: (level, weight, template); {h} is the header, fields in braces are filled per line.
_TEMPLATES = (
    ("INFO", 30, "{h} [context.cc:713]{tid} LaunchKernel:stream_id={stream}, task_id={task}, kernelType=0, "
                 "kernel_name={op}_{hash}_high_performance_{key}, arg_size={args}"),
    ("INFO", 30, "{h} [logger.cc:2057]{tid} TaskFinished:device_id={dev}, stream_id={stream}, task_id={task}, "
                 "task_type=0 (KERNEL_AICORE), task_finish_num={task}"),
    ("INFO", 20, "{h} [npu_driver.cc:453]{tid} CommandSend:device_id={dev}, ts_id=0, sq_id={sq}, reportCount=1, "
                 "cmdCount=1."),
    ("INFO", 8, "{h} [op_tiling.cpp:1033][OP_TILING][DoOpTiling][{tid}] OpName:[{op}] \"tiling key is {key}, "
                "blockDim is {block}\""),
    ("DEBUG", 12, "{h} [mem_pool.cc:218]{tid} Malloc:device_id={dev}, size={size}, addr=0x{addr:x}, ret=0"),
    ("WARNING", 6, "{h} [ascend][curpid: {pid}, {tid}][drv][tsdrv][TsDrvLogicCqIrqWait 438]wait_logic_cq abnormal "
                   "result show: err_code=16 devId={dev} tsId=0"),
    ("INFO", 3, "{h} [hcom_ops_kernel_info_store.cc:214][{tid}]GenerateOpTag: graph[{stream}] opType[HcomAllReduce], "
                "group[hccl_world_group], generated op tag[AllReduce_{hash}_{task}]"),
    ("EVENT", 2, "{h} [msprofiler_impl.cpp:139] >>> (tid:{tid}) ProfNotifySetDevice called, is open: 0, devId: {dev}"),
    ("WARNING", 2, "{h} [ge_local_context.cc:57]{tid} GetOption:Can not get option ge.exec.{key}, use default value"),
    ("ERROR", 0.002, "{h} [tsd_client.cc:903]{tid} CloseAicpuSd:query aicpu sd status timeout, device_id={dev}"),
)
_MODULES = {"LaunchKernel": "RUNTIME", "TaskFinished": "RUNTIME", "CommandSend": "RUNTIME", "OpName": "OP",
            "Malloc": "RUNTIME", "wait_logic_cq": "DRV", "GenerateOpTag": "HCCL", "ProfNotify": "PROFILING",
            "GetOption": "GE", "CloseAicpuSd": "TDT"}


_UNITS = {"": 1, "B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30}


def parse_size(text: str) -> int:
    """`1GB`, `200MB`, `512KiB` or a plain byte count as bytes (binary units)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", text)
    if not m or m[2].upper() not in _UNITS:
        raise ValueError(f"not a size: {text!r} (use e.g. 200MB or 1GB)")
    return int(float(m[1]) * _UNITS[m[2].upper()])


@dataclass(frozen=True)
class WorkloadSummary:
    """What was written."""

    root: Path
    files: int
    bytes: int
    lines: int


def _module(template: str) -> str:
    return next(m for key, m in _MODULES.items() if key in template)


def _stamp(t: datetime) -> str:
    return f"{t:%Y-%m-%d-%H:%M:%S}.{t.microsecond // 1000:03d}.{t.microsecond % 1000:03d}"


def _write_process(out: Path, rng: random.Random, pid: int, devices: list[int], budget: int) -> tuple[int, int, int]:
    """Rotated debug plogs of one process until `budget` bytes; returns (files, bytes, lines)."""
    tids = {d: pid + 150 + d for d in devices}
    levels, weights, templates = zip(*_TEMPLATES)
    modules = [_module(t) for t in templates]
    t = _START + timedelta(seconds=rng.randint(0, 60))
    written = files = lines = 0
    while written < budget:
        name = out / f"plog-{pid}_{t:%Y%m%d%H%M%S}{t.microsecond // 1000:03d}.log"
        size = 0
        chunk: list[str] = []
        with open(name, "w", encoding="utf-8") as fh:
            while size < ROTATE_BYTES and written + size < budget:
                i = rng.choices(range(len(templates)), weights)[0]
                dev = rng.choice(devices)
                t += timedelta(microseconds=rng.randint(5, 400))
                head = f"[{levels[i]}] {modules[i]}({pid},python):{_stamp(t)}"
                line = templates[i].format(h=head, tid=tids[dev], dev=dev, pid=pid, stream=rng.randint(2, 9),
                                           task=rng.randint(1, 60000), op=rng.choice(_OPS),
                                           hash=f"{rng.getrandbits(64):016x}", key=rng.randint(0, 10 ** 6),
                                           args=rng.randint(40, 400), sq=rng.randint(1, 32),
                                           block=rng.randint(1, 48), size=rng.randint(512, 1 << 26),
                                           addr=rng.getrandbits(44)) + "\n"
                chunk.append(line)
                size += len(line)
                if len(chunk) >= 4096:
                    fh.write("".join(chunk))
                    chunk.clear()
                    lines += 4096
            fh.write("".join(chunk))
            lines += len(chunk)
        written += size
        files += 1
        t += timedelta(milliseconds=1)
    return files, written, lines


def write_workload(out: Path, size_bytes: int, nodes: int = 8, processes_per_node: int = 8, seed: int = 7,
                   samples: Path | None = None) -> WorkloadSummary:
    """Write a bundle of about `size_bytes` under `out` (replaced if present), with KB samples planted."""
    if out.exists():
        shutil.rmtree(out)
    rng = random.Random(seed)
    per_process = max(1, size_bytes // (nodes * processes_per_node))
    files = written = lines = 0
    for n in range(nodes):
        for p in range(processes_per_node):
            pid = 20000 + 97 * (n * processes_per_node + p)
            plog = out / f"node-{n}" / "ascend" / "log" / "debug" / "plog"
            plog.mkdir(parents=True, exist_ok=True)
            f, b, ln = _write_process(plog, rng, pid, [p], per_process)
            files, written, lines = files + f, written + b, lines + ln
    if samples is not None and samples.is_dir():
        for sample in planted_samples(samples, size_bytes):
            shutil.copytree(sample, out / "planted" / sample.parent.name / sample.name,
                            ignore=shutil.ignore_patterns(*SAMPLE_METADATA))
    return WorkloadSummary(out, files, written, lines)


def planted_samples(samples: Path, size_bytes: int) -> list[Path]:
    """The sample bundles a bundle of `size_bytes` plants, at least one: families take turns, the one with the
    most root causes first (a positive sample of each family's next root cause), then the rest in name order,
    until their bytes are the bundle's share of all samples (every sample at FULL_PLANTING and above)."""
    from ..knowledge.kb import load_kb
    every = [s for s in sorted(samples.glob("*/*")) if s.is_dir() and not s.parent.name.startswith("_")]
    family_of = {c.id: c.family for c in load_kb(samples.parent).cases.values()}
    turns: dict[str, list[Path]] = {}
    for s in every:
        if s.name.startswith("positive") and family_of.get(s.parent.name):
            queue = turns.setdefault(family_of[s.parent.name], [])
            if not queue or queue[-1].parent != s.parent:   # one positive sample per root cause
                queue.append(s)
    queues = sorted(turns.values(), key=len, reverse=True)   # the family with the most causes goes first
    first = [q[i] for i in range(len(queues[0]) if queues else 0) for q in queues if i < len(q)]
    taken = set(first)
    ordered = first + [s for s in every if s not in taken]
    sizes = {s: sum(f.stat().st_size for f in s.rglob("*") if f.is_file() and f.name not in SAMPLE_METADATA)
             for s in ordered}
    share = sum(sizes.values()) * min(1.0, size_bytes / FULL_PLANTING)
    chosen, planted = [], 0
    for s in ordered:
        if chosen and planted >= share:
            break
        chosen.append(s)
        planted += sizes[s]
    return chosen
