"""`make probe`: each hostile input of bombs.py read by `casebook triage` in a process of its own, with the time
it took and its peak memory, then each scenario of hostile.py with its check. Exit 1 when an input takes over
MAX_SECONDS or MAX_RSS, ends without a verdict (exit 0 or a one-line refusal, exit 2), or a scenario's promise
does not hold."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .bombs import FLOODS, VARIANTS, Variant
from .hostile import SCENARIOS, Outcome, Scenario, measure

MAX_SECONDS = 30
MAX_RSS = 500 << 20


@dataclass
class Probe:
    """How one `casebook triage` of a hostile input ended."""

    variant: Variant
    size: int            #: bytes on disk
    seconds: float       #: wall time of the whole process, imports included
    peak_rss: int        #: bytes, the process's maximum resident set
    exit_code: int
    outcome: str         #: the refusal, or what was read

    @property
    def within(self) -> bool:
        return self.seconds <= MAX_SECONDS and self.peak_rss <= MAX_RSS and self.exit_code in (0, 2)


def _said(text: str) -> str:
    """The refusal in a message, from `refused:` on (or the message), short."""
    at = text.find("refused: ")
    said = (text[at:] if at >= 0 else text.split(": ", 1)[-1]).strip().rstrip(")")
    return said if len(said) <= 80 else said[:79] + "…"


def _outcome(exit_code: int, out: str, err: str) -> str:
    if exit_code == 2:
        return f"exit 2, {_said(err)}"
    if exit_code != 0:
        return f"exit {exit_code}: {err.strip()[-80:]}"
    doc = json.loads(out)
    refused = [f["skipped"] for f in doc["input"]["files"] if f["skipped"]]
    warned = [w for f in doc["input"]["files"] for w in f["warnings"]]
    return f"exit 0, {doc['input']['lines']:,} lines read; {_said((refused or warned or [''])[0])}"


def probe(variant: Variant, folder: Path) -> Probe:
    """Build the input in `folder` and read it in a child process, measured with wait4. The input is built by
    another child: a process records its parent's peak memory as its own when it starts, so this one stays small."""
    path = folder / variant.filename
    subprocess.run([sys.executable, "-c", f"from casebook.bench.bombs import write; write({variant.name!r}, "
                                          f"{str(path)!r})"], check=True)
    size = path.stat().st_size
    spool = folder / "tmp"
    spool.mkdir(exist_ok=True)
    run = measure(["triage", str(path), "--json"], {"TMPDIR": str(spool)}, folder=folder)
    path.unlink()
    outcome = _outcome(run.exit_code, run.out.decode(), run.err.decode(errors="replace"))
    return Probe(variant, size, run.seconds, run.peak_rss, run.exit_code, outcome)


def table(probes: list[Probe]) -> str:
    """The probes as a Markdown table."""
    rows = ["| input | what | on disk | time | peak RSS | outcome |", "|---|---|---:|---:|---:|---|"]
    rows += [f"| {p.variant.name} | {p.variant.what} | {p.size / 1024:,.0f} KiB | {p.seconds:.1f} s | "
             f"{p.peak_rss / (1 << 20):.0f} MiB | {p.outcome} |" for p in probes]
    return "\n".join(rows)


def scenario_table(done: list[tuple[Scenario, Outcome]]) -> str:
    """The scenarios of round two as a Markdown table."""
    rows = ["| item | input | what | time | peak RSS | held | outcome |", "|---:|---|---|---:|---:|---|---|"]
    rows += [f"| {s.item} | {s.name} | {s.what} | {o.seconds:.1f} s | {o.peak_rss / (1 << 20):.0f} MiB | "
             f"{'yes' if o.held else 'NO'} | {o.said} |" for s, o in done]
    return "\n".join(rows)


def main() -> int:
    """Probe every variant and scenario; print the tables and the machine; 1 when one is over the bounds."""
    with tempfile.TemporaryDirectory(prefix="casebook-probe-") as tmp:
        probes = []
        for v in VARIANTS + FLOODS:
            probes.append(probe(v, Path(tmp)))
            print(f"{v.name}: {probes[-1].seconds:.1f} s, {probes[-1].peak_rss >> 20} MiB", file=sys.stderr)
        done = []
        for s in SCENARIOS:
            with tempfile.TemporaryDirectory(dir=tmp) as folder:
                done.append((s, s.run(Path(folder))))
            print(f"{s.name}: {done[-1][1].said}", file=sys.stderr)
    print(table(probes))
    print()
    print(scenario_table(done))
    print(f"\n{os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()}; "
          f"bounds: {MAX_SECONDS} s and {MAX_RSS >> 20} MiB each")
    over = [p.variant.name for p in probes if not p.within] + [s.name for s, o in done if not o.held]
    if over:
        print(f"over the bounds or not held: {', '.join(over)}", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
