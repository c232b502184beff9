"""What a command reads: paths, a capture on standard input, and a progress bar over the files read."""
from __future__ import annotations

import gc
import sys
from contextlib import contextmanager

from ..reading.bundle import BundleError, Pasted


@contextmanager
def progress_bar(mode: str):
    """A tqdm bar on stderr counting files read (`auto`: only when stderr is a terminal)."""
    if mode == "never" or (mode == "auto" and not sys.stderr.isatty()):
        yield None
        return
    from tqdm import tqdm
    bar = tqdm(total=0, unit="file", desc="reading", file=sys.stderr, leave=False)

    def step(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    try:
        yield step
    finally:
        bar.close()


def inputs(paths: list[str]) -> list:
    """The paths given, with `-` standing for a capture read from standard input."""
    if paths.count("-") > 1:
        raise BundleError("-: standard input can be read once")
    return [Pasted(stdin_bytes()) if p == "-" else p for p in paths]


def stdin_bytes() -> bytes:
    """Standard input, read whole; a closed or unreadable one is unusable input."""
    if sys.stdin is None:   # started with fd 0 closed (`0<&-`)
        raise BundleError("-: standard input is closed")
    try:
        return sys.stdin.buffer.read()
    except OSError as e:   # EIO from a terminal that went away, EISDIR from a folder opened as stdin
        raise BundleError(f"-: cannot read standard input: {e.strerror or e}") from None


@contextmanager
def set_aside():
    """The objects alive now, the imports' mostly, left out of garbage collection until the block ends: the
    collections that a triage's many records set off need not walk them each time (~0.04 s of a 1 GB
    bundle's triage)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
