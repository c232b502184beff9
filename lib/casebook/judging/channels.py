"""The ways a ticket's lines reach us: each launcher, log collector, terminal and paste puts its mark on every line.

A diagnosis must not depend on the channel: `casebook kb accuracy FOLDER --as NAME` reads every pasted capture as
NAME would have carried it (tests/test_launchers.py asks the same of a capture of each proven case). Each mark is one
the public threads show: mostly a prefix, some of them counting lines (a time, a line number); a web page's copy
turns the spaces into no-break spaces; a mail client or a narrow terminal breaks long lines.
"""
from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Callable


def _prefix(make: Callable[[int], str]) -> Callable[[int, str], str]:
    return lambda i, line: make(i) + line


#: name -> line i as the channel carries it (i 0-based; a line it breaks comes back with its pieces on lines of their
#: own)
CHANNELS: dict[str, Callable[[int, str], str]] = {
    "torchrun": _prefix(lambda i: "[rank3]: "),
    "pdsh": _prefix(lambda i: "worker-1: "),
    "mpi": _prefix(lambda i: "[1,3]<stderr>:"),
    "slurm": _prefix(lambda i: "3: "),
    "ray": _prefix(lambda i: "(RayWorkerWrapper pid=1234, ip=10.0.0.1) "),
    "ray-colour": _prefix(lambda i: "\x1b[36m(WorkerDict pid=1234)\x1b[0m "),
    "vllm": _prefix(lambda i: "(EngineCore_DP0 pid=702) ERROR 09-04 09:50:12 [core.py:702] "),
    "journald": _prefix(lambda i: "Jan  6 09:50:12 node-1 python3[4321]: "),
    "cri": _prefix(lambda i: f"2026-01-06T09:50:12.{i:09d}Z stdout F "),
    "ci-runner": _prefix(lambda i: f"2026-01-06T09:50:12.{i:07d}Z "),
    "cat-n": _prefix(lambda i: f"{i + 1:6d}\t"),
    "markdown": _prefix(lambda i: "    "),
    "quote": _prefix(lambda i: "> "),
    "web-page": lambda i, line: line.replace(" ", "\xa0"),
    # a mail client's soft wrap at 76 columns, and a terminal 100 columns wide that cuts a long line where it ends
    "mail-76": lambda i, line: "\n".join(textwrap.wrap(line, 76, break_on_hyphens=False)) or line,
    "terminal-100": lambda i, line: "\n".join(line[k:k + 100] for k in range(0, len(line), 100)),
}


def parse(spec: str) -> tuple[str, ...]:
    """The channels a spec names, in the order they carry the text: `torchrun+terminal-100` is a launcher's prefix
    seen in a narrow terminal; raises ValueError naming a channel that is not one."""
    names = tuple(spec.split("+"))
    unknown = [n for n in names if n not in CHANNELS]
    if unknown or not spec:
        raise ValueError(f"unknown channel {', '.join(unknown) or repr(spec)}: one of {', '.join(sorted(CHANNELS))}, "
                         f"or several joined by +")
    return names


def carried(text: str, spec: str) -> str:
    """The text as the channels of SPEC carry it in turn, line by line (an empty line stays empty)."""
    for name in parse(spec):
        carry = CHANNELS[name]
        text = "\n".join(carry(i, line) if line else line for i, line in enumerate(text.split("\n")))
    return text


def write_carried(capture: Path, name: str, folder: Path) -> Path:
    """A pasted capture (`capture.txt`) written into `folder` as the channels of NAME carry it; the path of the
    copy."""
    path = folder / f"{capture.parent.name}.txt"
    path.write_text(carried(capture.read_text(encoding="utf-8", errors="replace"), name), encoding="utf-8")
    return path
