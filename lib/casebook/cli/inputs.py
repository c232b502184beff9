"""What a command reads: paths, a capture on standard input, and a progress bar over the files read."""
from __future__ import annotations

import gc
import sys
from contextlib import contextmanager

from ..reading.bundle import BundleError, Pasted
from ..reading.limits import LimitExceeded, Limits
from ..reading.spool import Spool


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


def inputs(paths: list[str], limits: Limits | None = None) -> list:
    """The paths given, with `-` standing for a capture read from standard input (within `limits`)."""
    if paths.count("-") > 1:
        raise BundleError("-: standard input can be read once")
    return [stdin_pasted(limits or Limits()) if p == "-" else p for p in paths]


def stdin_pasted(limits: Limits) -> Pasted:
    """Standard input, copied into a spool file as it comes (never held in memory), as a capture; refused in one
    line past `limits.max_bytes`, the bound of everything an archive expands to, as an endless stream would
    be. A closed or unreadable one is unusable input."""
    if sys.stdin is None:   # started with fd 0 closed (`0<&-`)
        raise BundleError("-: standard input is closed")

    def spend(n: int, so_far: int) -> None:
        if so_far > limits.max_bytes:
            raise LimitExceeded(f"-: refused: standard input goes on past {limits.max_bytes} bytes (--max-bytes), as "
                                f"an endless stream would")

    spool = Spool()
    try:
        try:
            fd = sys.stdin.fileno()
        except (OSError, ValueError):   # a stream of the embedding program's, with no descriptor
            member = spool.copy(sys.stdin.buffer, "-", spend)
        else:
            member = spool.copy_fd(fd, "-", spend)
    except LimitExceeded as e:
        spool.close()
        raise BundleError(str(e)) from None
    except (OSError, ValueError) as e:   # EIO from a terminal that went away, EISDIR from a folder opened as stdin
        spool.close()
        raise BundleError(f"-: cannot read standard input: {getattr(e, 'strerror', None) or e}") from None
    return Pasted(b"", source=member.source, spool=spool)


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
