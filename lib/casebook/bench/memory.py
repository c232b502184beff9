"""`casebook bench --memory`: the time of a "Seen before" lookup in a memory of 100,000 cases.

The cases are synthetic fingerprints drawn the way the field's are spread: a few codes (EZ9999, 507015) in a
large share of cases and a long tail of rare ones, templates per code, op names, AI Core error bits, chips and
versions. The memory is built once into the cache folder (SQLite) and kept; each round looks up a fingerprint
drawn from the same spread, and the figure is the median.
"""
from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from ..memory.case import Case
from ..memory.fingerprint import Fingerprint
from ..memory.similarity import similar
from ..memory.store import Store

#: Bump when the generator changes: a kept memory of another generation is built again.
GENERATION = 1
CHIPS = ("910B", "910A", "910_93", "310P", "310B")
CANN = ("7.0.0", "8.0.RC1", "8.0.RC2", "8.0.RC3", "8.0.0", "8.1.RC1", "8.2.RC1")
BITS = ("CCU_DIV0", "CCU_UB_ECC", "MTE_ILLEGAL_DATA_RANGE", "MTE_UB_ECC", "VEC_DATA_EXCP", "CUBE_ILLEGAL_INST",
        "IFU_BUS_ERR", "CCU_ADDR_ERR", "BIU_L2_READ_OOB", "MTE_READ_OVERFLOW")


@dataclass
class MemoryBench:
    """Figures of the lookup."""

    cases: int
    lookups: int
    median_ms: float
    p95_ms: float
    build_s: float | None   #: seconds to build the memory (None when a kept one was used)
    location: str

    def as_dict(self) -> dict:
        return {"cases": self.cases, "lookups": self.lookups, "median_ms": round(self.median_ms, 2),
                "p95_ms": round(self.p95_ms, 2), "build_s": None if self.build_s is None else round(self.build_s, 1),
                "location": self.location}

    def table(self) -> str:
        built = "kept" if self.build_s is None else f"built in {self.build_s:.1f} s"
        return (f"memory lookup, {self.cases} cases ({built}), {self.lookups} lookups\n"
                f"  median {self.median_ms:.1f} ms   p95 {self.p95_ms:.1f} ms")


def _code(rng: random.Random) -> str:
    # Zipf-like: rank k drawn with weight 1/k over 400 codes, the first ones the common generic codes
    k = min(int(rng.paretovariate(1.1)), 400)
    return ("EZ9999", "507015", "EI0002", "EZ1001", "507035", "ERR00100")[k - 1] if k <= 6 else f"E{k:05d}"


def fingerprint(rng: random.Random) -> Fingerprint:
    """One synthetic fingerprint."""
    codes = tuple(dict.fromkeys(_code(rng) for _ in range(rng.randint(1, 3))))
    op = f"aclnnOp{min(int(rng.paretovariate(0.9)), 600)}"
    return Fingerprint(codes=codes, template=f"{codes[0]} call {op} failed, variant {rng.randint(1, 40)} at <HEX>",
                       ops=(op,), error_bits=(rng.choice(BITS),) if rng.random() < 0.2 else (),
                       family=f"family-{rng.randint(1, 24)}", versions={"cann": rng.choice(CANN)},
                       chip=rng.choice(CHIPS))


def build(path: Path, n: int, seed: int = 7) -> float | None:
    """Build the synthetic memory at `path` unless a kept one of this size and generation is there."""
    with Store(path) as store:
        if store.meta("bench") == f"{GENERATION}:{n}":
            return None
    path.unlink(missing_ok=True)
    for extra in ("-wal", "-shm"):
        Path(str(path) + extra).unlink(missing_ok=True)
    started = time.perf_counter()
    rng = random.Random(seed)
    with Store(path) as store:
        batch = 5000
        for start in range(0, n, batch):
            store.put([Case(id=f"s{i:07d}", source="team", fingerprint=fingerprint(rng), title=f"synthetic {i}")
                       for i in range(start, min(n, start + batch))])
        with store.transaction():
            store.set_meta("bench", f"{GENERATION}:{n}")
    return time.perf_counter() - started


def bench(cache: Path, n: int = 100_000, lookups: int = 50) -> MemoryBench:
    """Build (or reuse) the memory in `cache` and time `lookups` lookups."""
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"memory-bench-{n}.db"
    built = build(path, n)
    rng = random.Random(11)
    times = []
    with Store(path) as store:
        similar(store, fingerprint(rng))   # the first lookup pages the index in; a lookup after it is the figure
        for _ in range(lookups):
            q = fingerprint(rng)
            started = time.perf_counter()
            similar(store, q)
            times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return MemoryBench(n, lookups, statistics.median(times), times[int(0.95 * (len(times) - 1))], built, str(path))
