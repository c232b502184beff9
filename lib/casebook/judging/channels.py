"""The ways a ticket's lines reach us: each launcher, log collector and paste puts its own prefix before every line.

A diagnosis must not depend on the channel: `casebook kb accuracy FOLDER --as NAME` reads every pasted capture as
NAME would have carried it (tests/test_launchers.py asks the same of a capture of each proven case). Each prefix is
one the public threads show; a function of the line's index where the prefix counts (a time, a line number).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

#: name -> the prefix of line i (0-based)
PREFIXES: dict[str, Callable[[int], str]] = {
    "torchrun": lambda i: "[rank3]: ",
    "pdsh": lambda i: "worker-1: ",
    "mpi": lambda i: "[1,3]<stderr>:",
    "slurm": lambda i: "3: ",
    "ray": lambda i: "(RayWorkerWrapper pid=1234, ip=10.0.0.1) ",
    "ray-colour": lambda i: "\x1b[36m(WorkerDict pid=1234)\x1b[0m ",
    "vllm": lambda i: "(EngineCore_DP0 pid=702) ERROR 09-04 09:50:12 [core.py:702] ",
    "journald": lambda i: "Jan  6 09:50:12 node-1 python3[4321]: ",
    "cri": lambda i: f"2026-01-06T09:50:12.{i:09d}Z stdout F ",
    "ci-runner": lambda i: f"2026-01-06T09:50:12.{i:07d}Z ",
    "cat-n": lambda i: f"{i + 1:6d}\t",
    "markdown": lambda i: "    ",
    "quote": lambda i: "> ",
}


def carried(text: str, name: str) -> str:
    """The text with NAME's prefix before every line that holds text (an empty line stays empty)."""
    prefix = PREFIXES[name]
    return "\n".join(prefix(i) + line if line else line for i, line in enumerate(text.split("\n")))


def write_carried(capture: Path, name: str, folder: Path) -> Path:
    """A pasted capture (`capture.txt`) written into `folder` as NAME carries it; the path of the copy."""
    path = folder / f"{capture.parent.name}.txt"
    path.write_text(carried(capture.read_text(encoding="utf-8", errors="replace"), name), encoding="utf-8")
    return path
