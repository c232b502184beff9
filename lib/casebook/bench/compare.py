"""`casebook bench --compare SIZE`: `casebook diff` on two generated bundles of SIZE, timed and measured.

The good run is the benchmark's generated bundle of that size (workload.py); the bad run a copy of it with two
things planted: a CANN version line at the top of one process's plog, and an ERROR line no generated line
resembles a thousand lines into another's. `casebook diff GOOD BAD --json` runs as a child process, in rounds
after one that warms the page cache; the seconds are the median of the rounds, the memory the child's peak
resident set (getrusage of the children waited for: the diff is one process). Each round checks that both plants
were found at their lines.
"""
from __future__ import annotations

import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .benchmark import MIB, default_bundle

#: The line planted as the bad run's first departure, and where (halfway into a plog shorter than twice that).
PLANTED_LINE = 1000
PLANT = ("[ERROR] HCCL({pid},python):2026-05-04-09:00:30.000.000 [transport.cc:88][{pid}] link to the peer lost: "
         "retry 3 of 3, the send queue stayed full")
VERSION = "[INFO] ASCENDCL({pid},python):2026-05-04-09:00:00.000.000 [acl.cpp:120]{pid} CANN version: 8.0.RC3"
#: The targets: a comparison of two bundles of 50 MB within these.
TARGET_S, TARGET_MIB = 10.0, 300


@dataclass(frozen=True)
class CompareResult:
    """The figures of one `bench --compare` run."""

    bundle: str
    files: int               #: of each bundle
    bytes: int
    lines: int
    seconds: float           #: median of the rounds, `casebook diff --json` as a child process
    peak_rss_mb: float       #: the child's peak resident set, the largest of the rounds
    runs: int
    found: bool              #: the planted version and departure were named at their lines in every round
    departure: str           #: where the diff says the bad run first departs (`file:line`)


def planted(size: int, cache: Path) -> tuple[Path, Path, str, int, str]:
    """The good bundle, the bad copy (written on first use; a changed good bundle is copied anew), the path inside
    them of the plog with the planted departure and its line, and the path of the plog with the version line."""
    good = default_bundle(size, cache)
    bad = cache / f"compare-{size >> 20}MiB"
    done = cache / f"compare-{size >> 20}MiB.complete"
    plogs = [p.relative_to(good).as_posix() for p in sorted(good.glob("node-*/ascend/log/debug/plog/plog-*.log"))]
    rel, versioned = plogs[0], next(p for p in plogs if p.split("_")[0] != plogs[0].split("_")[0])
    # a small bundle's plogs are short: the departure goes halfway into the file then
    with open(good / rel, "rb") as fh:
        at = min(PLANTED_LINE, max(1, sum(1 for _ in fh) // 2))
    mark = (cache / f"workload-{size >> 20}MiB.complete").read_text() + f"{rel}:{at}\n{versioned}\n"
    if not done.exists() or done.read_text() != mark:
        if bad.exists():
            shutil.rmtree(bad)
        shutil.copytree(good, bad)
        for path, line, text in ((rel, at, PLANT), (versioned, 1, VERSION)):
            pid = path.rsplit("plog-", 1)[1].split("_", 1)[0]
            lines = (bad / path).read_text(encoding="utf-8").splitlines(keepends=True)
            lines.insert(line - 1, text.format(pid=pid) + "\n")
            (bad / path).write_text("".join(lines), encoding="utf-8")
        done.write_text(mark)
    return good, bad, rel, at, versioned


def run_diff(good: Path, bad: Path) -> tuple[float, dict]:
    """Seconds for `casebook diff GOOD BAD --json` as a child process, and its output."""
    cmd = [sys.executable, "-m", "casebook.cli", "diff", str(good), str(bad), "--json"]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(f"casebook diff failed ({done.returncode}): {done.stderr.decode(errors='replace').strip()}")
    return elapsed, json.loads(done.stdout)


def found(doc: dict, rel: str, at: int, versioned: str) -> tuple[bool, str]:
    """Whether the diff named the planted version and departure at their lines, and where it says the planted
    plog's stream parts."""
    parts = [f"{d['bad']['file']}:{d['bad']['line']}" for d in doc["flow"]["departures"] if d["bad"]]
    where = next((p for p in parts if p.startswith(rel + ":")), "")
    version = [c for c in doc["changes"] if c["name"] == "cann_version"]
    ok = (bool(version) and version[0]["bad"] == "8.0.RC3" and version[0]["bad_at"] is not None
          and (version[0]["bad_at"]["file"], version[0]["bad_at"]["line"]) == (versioned, 1)
          and where == f"{rel}:{at}")
    return ok, where


def bench(size: int, cache: Path, runs: int = 3) -> CompareResult:
    """Compare the generated bundle of `size` with its planted copy, `runs` times after one warming run."""
    good, bad, rel, at, versioned = planted(size, cache)
    run_diff(good, bad)   # warms the page cache and the knowledge base's kept copy
    times, ok, where = [], True, ""
    for _ in range(runs):
        seconds, doc = run_diff(good, bad)
        times.append(seconds)
        hit, where = found(doc, rel, at, versioned)
        ok &= hit
    files = [f for f in good.rglob("*") if f.is_file()]
    lines = doc["flow"]["lines"]["good"]
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024   # KiB on Linux
    return CompareResult(bundle=str(good), files=len(files), bytes=sum(f.stat().st_size for f in files), lines=lines,
                         seconds=round(statistics.median(times), 2), peak_rss_mb=round(peak / MIB, 1), runs=runs,
                         found=ok, departure=where)


def table(r: CompareResult) -> str:
    """The figures, and how they stand against the targets."""
    return "\n".join([
        f"casebook diff of two bundles of {r.bytes / MIB:,.1f} MiB, {r.files} files, {r.lines:,} lines each",
        f"  {r.seconds:.2f} s (median of {r.runs}; target < {TARGET_S:g} s), peak RSS {r.peak_rss_mb:.0f} MiB "
        f"(target < {TARGET_MIB} MiB)",
        f"  planted version and first departure found at their lines: {'yes' if r.found else 'NO'} ({r.departure})",
    ])


def as_dict(r: CompareResult) -> dict:
    """The figures as a JSON object."""
    return asdict(r)
