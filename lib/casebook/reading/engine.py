"""Where the per-file reading runs: threads on this machine, or the workers of a Dask cluster.

Reading one file is independent of every other file, so an engine only maps a function over the files
and returns the results in the files' order; merging them into one LogTable is the reader's job, and
the result is the same whichever engine ran.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")

ENGINES = ("local", "dask")
#: Files of this size and more are the big ones the reading order spreads the small ones between.
SPREAD_FROM = 1 << 20


class EngineError(Exception):
    """The engine cannot run (unknown name, unreachable scheduler)."""


def default_workers() -> int:
    """One worker per core, at most 8. A third worker on 2 cores read ~20% faster but held ~70 MiB more
    (each worker holds one file and its split lines), so memory decides."""
    return max(1, min(8, os.cpu_count() or 1))


def run(fn: Callable[[T], R], items: list[T], engine: str = "local", scheduler: str | None = None,
        workers: int | None = None, progress: Callable[[int, int], None] | None = None) -> list[R]:
    """`[fn(x) for x in items]` on the chosen engine, in order; `progress(done, total)` after each item."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise EngineError(f"workers must be a whole number of 1 or more, not {workers!r}")
    if engine == "local":
        return _local(fn, items, workers or default_workers(), progress)
    if engine == "dask":
        return _dask(fn, items, scheduler, workers or 2, progress)
    raise EngineError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")


def schedule(sizes: list[int]) -> list[int]:
    """The order files of these sizes are handed to the workers, as indices: the biggest first, with the small ones
    spread between them, so that one worker parses small files in Python while another scans a big one
    without the GIL (one after the other, the small files would all wait for one core at the end)."""
    by_size = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    big = [i for i in by_size if sizes[i] >= SPREAD_FROM]
    small = [i for i in by_size if sizes[i] < SPREAD_FROM]
    if not big or not small:
        return by_size
    per = -(-len(small) // len(big))
    return [j for k, i in enumerate(big) for j in (i, *small[k * per:(k + 1) * per])]


def _report(results: Iterable[R], total: int, progress) -> list[R]:
    out = []
    for r in results:
        out.append(r)
        if progress:
            progress(len(out), total)
    return out


def _local(fn, items, workers, progress):
    # threads, not processes: the heavy work (the compiled line scanner, decoding) releases the GIL,
    # and one process keeps the memory of the run in one place
    if workers == 1 or len(items) <= 1:
        return _report(map(fn, items), len(items), progress)
    pool = ThreadPoolExecutor(workers)
    try:
        return _report(pool.map(fn, items), len(items), progress)
    finally:
        # on an interrupt, files not yet started are dropped: only those being read are waited for
        pool.shutdown(wait=True, cancel_futures=True)


def _dask(fn, items, scheduler, workers, progress):
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as e:  # pragma: no cover - dask is pinned in requirements.txt
        raise EngineError(f"the dask engine needs dask.distributed: {e}") from e
    cluster = None
    try:
        if scheduler:
            client = Client(scheduler, timeout="20s")
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
            client = Client(cluster)
    except OSError as e:
        raise EngineError(f"cannot reach the Dask scheduler {scheduler}: {e}") from e
    try:
        futures = client.map(fn, items, pure=False)
        done = 0
        for _ in as_completed(futures):
            done += 1
            if progress:
                progress(done, len(items))
        return client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
