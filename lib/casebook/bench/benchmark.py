"""`casebook bench`: triage throughput and memory, side by side with `grep -c ERROR` and a naive parser.

Everything runs on the same files after one read that warms the page cache: `grep -c ERROR` is the practical
limit; the naive per-line regex loop (naive.py) is the baseline, timed in this process and as its own `python3`
process; casebook is timed cold (`casebook triage --json` in a child process whose whole process tree is
sampled for resident memory), warm (one `triage()` call in this process, imports and KB loaded, from an empty
reading cache), through the triage notebook's `TriageApp.open` up to the first step, and re-opened (the
kept reading). On a shared machine one run of each says little, so they run in rounds and each figure is the
median of its runs.
"""
from __future__ import annotations

import gc
import hashlib
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import naive

if TYPE_CHECKING:
    from ..knowledge.kb import KnowledgeBase
    from ..widgets.triage_app import TriageApp

MIB = 1024 * 1024
#: From this size on a bundle is judged by the big-bundle targets (throughput against grep and the baseline);
#: below it by the ticket-size targets (warm and cold time against the naive loop).
SELECTIVE_SIZE = 512 * MIB


@dataclass(frozen=True)
class BenchResult:
    """The figures of one bench run (MiB/s of input bytes; RSS in MiB)."""

    bundle: str
    bundle_files: int
    bundle_bytes: int
    bundle_lines: int
    grep_s: float
    grep_mib_s: float
    grep_lines_s: float
    baseline_s: float
    baseline_mib_s: float
    baseline_lines_s: float
    casebook_s: float
    casebook_mib_s: float
    casebook_lines_s: float
    ratio_to_grep: float
    ratio_to_baseline: float
    peak_rss_mb: float
    diagnosis: str | None
    walk_step_ms: float      #: slowest step of the triage notebook's walk (Next clicked), after the bundle is read
    runs: int = 1            #: rounds run; the seconds are the medians of the rounds
    baseline_process_s: float = 0.0   #: the naive loop as its own python3 process, interpreter start included
    cold_s: float = 0.0      #: `casebook triage --json` as a child process (the same run as casebook_s)
    warm_s: float = 0.0      #: one triage() in this process, imports and KB loaded, nothing kept from a reading
    open_s: float = 0.0      #: TriageApp.open up to the first step shown, nothing kept from a reading
    reopen_s: float = 0.0    #: TriageApp.open of the same bundle again (the kept reading)


def _written_mark() -> str:
    """The mark of a complete generated bundle: names the generator's code, so a bundle an older generator wrote
    is written anew."""
    from . import workload
    digest = hashlib.sha256(Path(workload.__file__).read_bytes()).hexdigest()[:16]
    return f"written by casebook synth {digest}\n"


def default_bundle(size: int, cache: Path) -> Path:
    """The generated bundle of this size, written under `cache` on first use and reused after."""
    from ..knowledge.kb import default_root
    from .workload import write_workload
    root = cache / f"workload-{size >> 20}MiB"
    done = cache / f"workload-{size >> 20}MiB.complete"   # beside the bundle, so it is not read as a log
    mark = _written_mark()
    if not done.exists() or done.read_text() != mark:   # absent, or an older generator's
        write_workload(root, size, samples=default_root() / "samples")
        done.write_text(mark)
    return root


def asys_bundle(size: int, cache: Path) -> Path:
    """The generated asys collection of this size (asys.py), written under `cache` on first use and reused after."""
    from ..knowledge.kb import default_root
    from . import asys
    root = cache / f"asys-{size >> 20}MiB"
    done = cache / f"asys-{size >> 20}MiB.complete"
    mark = f"written by casebook synth {hashlib.sha256(Path(asys.__file__).read_bytes()).hexdigest()[:16]}\n"
    if not done.exists() or done.read_text() != mark:
        asys.write_asys(root, size, default_root() / "samples")
        done.write_text(mark)
    return root


def collections(root: Path) -> list[Path]:
    """The collections of a corpus folder: its sub-folders, in name order (its licence and notes are files)."""
    return sorted(p for p in root.iterdir() if p.is_dir())


def bundle_files(root: Path) -> list[Path]:
    """Every regular file under root, in path order."""
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.is_file())


def warm(files: list[Path]) -> int:
    """Read every file once so all three contenders start from a warm page cache; returns the bytes."""
    total = 0
    for p in files:
        with open(p, "rb") as fh:
            while chunk := fh.read(8 * MIB):
                total += len(chunk)
    return total


def run_grep(files: list[Path]) -> tuple[float, int]:
    """Seconds for `grep -c ERROR` over the files, and the ERROR count it reports."""
    start = time.perf_counter()
    out = subprocess.run(["grep", "-c", "ERROR", "--", *map(str, files)], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if out.returncode not in (0, 1):
        raise RuntimeError(f"grep failed: {out.stderr.strip()}")
    counts = [line.rsplit(":", 1)[-1] for line in out.stdout.splitlines()]
    return elapsed, sum(int(c) for c in counts if c.isdigit())


def run_baseline(files: list[Path]) -> tuple[float, int]:
    """Seconds for the naive per-line loop in this process; and the line count."""
    start = time.perf_counter()
    lines = naive.parse([str(p) for p in files])
    return time.perf_counter() - start, lines


def run_baseline_process(files: list[Path]) -> float:
    """Seconds for the same naive loop run as its own `python3` process, interpreter start included."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "casebook.bench.naive", *map(str, files)], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _tree(root_pid: int) -> set[int]:
    """A process and all its descendants, from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
                parents[int(entry)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, frontier = {root_pid}, [root_pid]
    while frontier:
        parent = frontier.pop()
        kids = [pid for pid, pp in parents.items() if pp == parent and pid not in tree]
        tree.update(kids)
        frontier.extend(kids)
    return tree


def _rss(pids: set[int]) -> int:
    """Resident bytes of these processes together (those that have ended count nothing)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


#: Samples of resident memory between two walks of the process table for the measured tree: a walk reads every
#: process's stat (about 1 ms here), which at every 20 ms sample took CPU from the run it measures; a worker
#: started between two walks is counted from the next (200 ms later).
_WALK_EVERY = 10


def run_casebook(paths: list[Path], extra: list[str] = ()) -> tuple[float, int, str | None]:
    """Seconds for `casebook triage --json`, its peak tree RSS in bytes, and the diagnosis."""
    cmd = [sys.executable, "-m", "casebook.cli", "triage", *map(str, paths), "--json", *extra]
    peak = 0
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        tree, n = {proc.pid}, 0
        while not done.is_set():
            if n % _WALK_EVERY == 0:
                tree = _tree(proc.pid)
            peak = max(peak, _rss(tree))
            n += 1
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    if proc.returncode != 0:
        raise RuntimeError(f"casebook triage failed ({proc.returncode}): {err.decode(errors='replace').strip()}")
    return elapsed, peak, json.loads(out).get("diagnosis")


def walk_step_ms(path: Path, kb: KnowledgeBase) -> float:
    """Milliseconds of the slowest step of TriageApp's walk on this bundle, once it is read: each step is
    reached by a click on Next, as an engineer would."""
    from ..judging.triage import triage
    from ..widgets.triage_app import TriageApp
    app = TriageApp(triage(path, kb=kb))
    app.wait_for_figures()   # the steps as an engineer reaches them, a few seconds after the first one shows
    slowest = 0.0
    for _ in range(len(app.steps) - 1):
        start = time.perf_counter()
        app.next.click()
        slowest = max(slowest, time.perf_counter() - start)
    return slowest * 1000


def run_warm(path: Path, kb: KnowledgeBase, app: TriageApp) -> tuple[float, float, float]:
    """Seconds of one triage() call, of `app.open` (a TriageApp) up to its first step, and of a second open, in
    this process with imports and the knowledge base `kb` loaded; the first two start with no reading kept."""
    from ..judging import readings
    from ..judging.triage import triage
    readings.forget()
    start = time.perf_counter()
    triage(path, kb=kb)
    warm_s = time.perf_counter() - start
    readings.forget()
    start = time.perf_counter()
    app.open(path)
    open_s = time.perf_counter() - start
    app.wait_for_figures()   # drawn behind the page after the first step shows: not part of any figure here
    start = time.perf_counter()
    app.open(path)
    reopen_s = time.perf_counter() - start
    readings.forget()
    return warm_s, open_s, reopen_s


def bench(path: Path, extra: list[str] = (), runs: int = 3) -> BenchResult:
    """Run every contender on the files under `path`, `runs` rounds of each; seconds are medians and the peak
    RSS is the largest seen."""
    from ..knowledge.kb import load_kb
    from ..widgets.triage_app import TriageApp
    files = bundle_files(path)
    size = warm(files)
    gc.collect()   # what an earlier bench in this process left
    greps, baselines, processes, triages, warms = [], [], [], [], []
    # the naive loop runs in this process before the knowledge base and the app are loaded: every garbage
    # collection walks what the process holds, and a loop that makes a dict per line collects often (holding
    # them made it three times slower on the 10 MB bundle), which would flatter casebook
    for _ in range(max(1, runs)):
        greps.append(run_grep(files)[0])
        baselines.append(run_baseline(files))
        processes.append(run_baseline_process(files))
        triages.append(run_casebook([path], extra))
    # the notebook's first cells: imports, the knowledge base and the app, before any bundle is opened
    kb = load_kb()
    app = TriageApp(kb=kb)
    run_warm(path, kb, app)   # and a first open, which pays for what loads on first use (figures)
    for _ in range(max(1, runs)):
        warms.append(run_warm(path, kb, app))
    grep_s = statistics.median(greps)
    base_s, lines = statistics.median(s for s, _ in baselines), baselines[0][1]
    cb_s, diagnosis = statistics.median(s for s, _, _ in triages), triages[0][2]
    peak = max(p for _, p, _ in triages)
    mib = size / MIB
    return BenchResult(
        bundle=str(path), bundle_files=len(files), bundle_bytes=size, bundle_lines=lines,
        grep_s=round(grep_s, 3), grep_mib_s=round(mib / grep_s, 1), grep_lines_s=round(lines / grep_s),
        baseline_s=round(base_s, 3), baseline_mib_s=round(mib / base_s, 1), baseline_lines_s=round(lines / base_s),
        casebook_s=round(cb_s, 3), casebook_mib_s=round(mib / cb_s, 1), casebook_lines_s=round(lines / cb_s),
        ratio_to_grep=round(grep_s / cb_s, 3), ratio_to_baseline=round(base_s / cb_s, 2),
        peak_rss_mb=round(peak / MIB, 1), diagnosis=diagnosis, walk_step_ms=round(walk_step_ms(path, kb), 2),
        runs=len(greps), baseline_process_s=round(statistics.median(processes), 3), cold_s=round(cb_s, 3),
        warm_s=round(statistics.median(w for w, _, _ in warms), 3),
        open_s=round(statistics.median(o for _, o, _ in warms), 3),
        reopen_s=round(statistics.median(r for _, _, r in warms), 3))


def table(r: BenchResult) -> str:
    """The result as a readable table."""
    rows = [("grep -c ERROR", r.grep_s, r.grep_mib_s, r.grep_lines_s, "", ""),
            ("naive per-line regex", r.baseline_s, r.baseline_mib_s, r.baseline_lines_s, "", ""),
            ("casebook triage", r.casebook_s, r.casebook_mib_s, r.casebook_lines_s, f"{r.peak_rss_mb:.0f}",
             r.diagnosis or "-")]
    out = [f"bundle {r.bundle}: {r.bundle_files} files, {r.bundle_bytes / MIB:.1f} MiB, {r.bundle_lines} lines; "
           f"median of {r.runs} run{'s' if r.runs > 1 else ''} each",
           f"{'':24}{'seconds':>9}{'MiB/s':>9}{'lines/s':>12}{'peak RSS MiB':>14}  diagnosis"]
    out += [f"{name:24}{s:>9.2f}{v:>9.1f}{n:>12,.0f}{rss:>14}  {d}" for name, s, v, n, rss, d in rows]
    out.append(f"naive loop as its own process {r.baseline_process_s:.2f} s; casebook warm {r.warm_s:.2f} s, "
               f"notebook open {r.open_s:.2f} s, re-open {r.reopen_s:.3f} s")
    big = r.bundle_bytes >= SELECTIVE_SIZE
    out.append(f"casebook / grep = {r.ratio_to_grep:.2f} (target >= 0.33); casebook / baseline = "
               f"{r.ratio_to_baseline:.1f}x (target >= 10); peak RSS {r.peak_rss_mb:.0f} MiB (target <= 300); "
               f"slowest walk step {r.walk_step_ms:.0f} ms (target < 200)" if big else
               f"warm: baseline / warm = {r.baseline_s / r.warm_s:.2f}x (target >= 2); cold: cold / naive process = "
               f"{r.cold_s / r.baseline_process_s:.2f}x (target <= 5); peak RSS {r.peak_rss_mb:.0f} MiB (target <= 200)")
    return "\n".join(out)


def as_dict(r: BenchResult) -> dict:
    """The result as the `--json` object."""
    return asdict(r)
