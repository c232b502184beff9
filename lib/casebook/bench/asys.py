"""A generated `asys` collection in the proportions of a real one: mostly OS, install and driver text, few plogs.

A real collection from a single-card host (CANN 8.x) is 9.1 MB in 28 files, of which under 1% are the plogs that
carry the fault: the CANN install log, the device OS run logs (slog form), the host kernel driver log, syslog,
the device firmware log, the device OS messages and slogd's own log hold the rest. The generator writes each kind
at its real path and share of the bytes, in that kind's line form, and plants the fault as genuine sample logs
(an AI Core exception in the host plogs and a bbox dump of a knowledge-base sample) where asys puts them.
"""
from __future__ import annotations

import random
import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable

from .workload import SAMPLE_METADATA, WorkloadSummary

#: The size of the real collection the shares below are taken from.
REAL_BYTES = 9_100_000
#: The sample whose logs are the collection's fault, and the one whose bbox dump is copied beside them.
FAULT_SAMPLE = "aicore-illegal-instruction/positive-custom-op-undef"
BBOX_SAMPLE = "aicore-icache-data-corruption/negative-ts-dump-clean"
_START = datetime(2025, 6, 3, 8, 0, 0)
_MON = "Jun  3"


def _slog(level: str, module: str, pid: int, pname: str, t: datetime, rest: str) -> str:
    stamp = f"{t:%Y-%m-%d-%H:%M:%S}.{t.microsecond // 1000:03d}.{t.microsecond % 1000:03d}"
    return f"[{level}] {module}({pid},{pname}):{stamp} {rest}"


def _install(rng: random.Random, t: datetime, n: int) -> str:
    part = rng.choice(("Driver", "Firmware", "Toolkit", "Kernels", "NNAE"))
    key = rng.choice(("install_path", "feature", "chip_type", "package", "version", "username", "usergroup"))
    return (f"[{part}] [{t:%Y-%m-%d %H:%M:%S}] [INFO]{key}=[/usr/local/Ascend/{part.lower()}/{n % 97}] "
            f"check item {n} passed, copy file {rng.getrandbits(32):08x}.so to the install path")


def _device_os(rng: random.Random, t: datetime, n: int) -> str:
    module, pname = rng.choice((("TDT", "tsdaemon"), ("DRV", "dmp_daemon"), ("HCCP", "hccp_service"),
                                ("AICPU", "aicpu_scheduler")))
    return _slog(rng.choice(("INFO", "INFO", "INFO", "DEBUG", "EVENT")), module, 1000 + n % 7, pname, t,
                 f"[tsd_event.cpp:{100 + n % 900}][HandleEvent][tid:{2000 + n % 13}] event {n % 40} handled, "
                 f"queue depth {rng.randint(0, 64)}, heartbeat ok")


def _host_kernel(rng: random.Random, t: datetime, n: int) -> str:
    mod = rng.choice(("drv_pcie", "drv_devmm", "drv_dms", "drv_ascend_hdc"))
    return (f"[{t:%Y-%m-%d-%H:%M:%S}.{t.microsecond:06d}] [ascend] [{mod}] [INFO] [devdrv_heart_beat {300 + n % 50}] "
            f"<kworker/{n % 4}:1> dev_id=0, heart beat count={n}, status normal")


def _syslog(rng: random.Random, t: datetime, n: int) -> str:
    return (f"{_MON} {t:%H:%M:%S} host01 kernel: [{n * 0.37:12.6f}] [ascend][DEVMM] "
            f"[devmm_svm_ioctl:{400 + n % 60}] page table updated, vma 0x{rng.getrandbits(40):x}")


def _firmware(rng: random.Random, t: datetime, n: int) -> str:
    return (f"[INFO] LPM(-1,null):1970-01-01-00:{n // 60000 % 60:02d}:{n // 1000 % 60:02d}.{n % 1000:03d}.430 "
            f"(dieid:0) [lpm_task.c {100 + n % 400}] temperature {40 + n % 30} C, voltage {800 + n % 50} mV")


def _messages(rng: random.Random, t: datetime, n: int) -> str:
    return (f"{_MON} {t:%H:%M:%S} (none) kern.info kernel: [{n * 0.41:12.6f}][ T{n % 8}] [DRV_DEVMNG]"
            f"devmng heartbeat {n}, channel {n % 4} idle")


def _slogd(rng: random.Random, t: datetime, n: int) -> str:
    return (f"{t:%Y-%m-%d %H:%M:%S}.{t.microsecond // 1000:03d}[INFO] log_flush.c:{200 + n % 80}: "
            f"flushed {rng.randint(1, 4096)} bytes of device log to storage")


def _device_app(rng: random.Random, t: datetime, n: int) -> str:
    return _slog("INFO", "AICPU", 3100 + n % 3, "aicpu_custom_scheduler", t,
                 f"[aicpusd_interface.cpp:{50 + n % 300}][TaskProcess][tid:{3200 + n % 5}] task {n} done")


@dataclass(frozen=True)
class Kind:
    """One kind of file of the collection: where it lies, its share of the real collection's bytes, its lines."""

    paths: tuple[str, ...]
    bytes: int
    line: Callable[[random.Random, datetime, int], str]


#: The inventory of the real collection (docs/performance.md), its plogs apart: those are planted sample logs.
KINDS = (
    Kind(("dfx/log/host/install/ascend_install.log",), 4_000_000, _install),
    Kind(tuple(f"dfx/log/device/dev-os-0/system/run/device-os/device-os_2025060308000{i}123.log" for i in range(3)),
         3_000_000, _device_os),
    Kind(("dfx/log/host/driver/host_kernel.log",), 600_000, _host_kernel),
    Kind(("dfx/log/host/message/syslog",), 500_000, _syslog),
    Kind(("dfx/log/device/dev-os-0/firmware/debug/device-0/device-0_20250603080000123.log",), 400_000, _firmware),
    Kind(("dfx/log/device/dev-os-0/system/message/messages", "dfx/log/device/dev-os-0/system/message/messages.1"),
         400_000, _messages),
    Kind(("dfx/log/device/dev-os-0/slogd/slogdlog",), 200_000, _slogd),
    Kind(tuple(f"dfx/log/device/dev-os-0/application/run/device-app-{3100 + i}/device-app-{3100 + i}_"
               f"20250603080000{i}12.log" for i in range(9)), 30_000, _device_app),
)


def write_asys(out: Path, size_bytes: int, samples: Path, seed: int = 11) -> WorkloadSummary:
    """Write an asys collection of about `size_bytes` under `out` (replaced if present): every kind at its share
    of the size, the fault sample's plogs as the host plogs, the bbox sample's dump under `dfx/bbox`."""
    if out.exists():
        shutil.rmtree(out)
    rng = random.Random(seed)
    scale = size_bytes / REAL_BYTES
    files = written = lines = 0
    for kind in KINDS:
        per_file = max(1, int(kind.bytes * scale) // len(kind.paths))
        for rel in kind.paths:
            path = out / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            t, size, chunk = _START, 0, []
            while size < per_file:
                t += timedelta(microseconds=rng.randint(50, 20000))
                line = kind.line(rng, t, lines) + "\n"
                chunk.append(line)
                size += len(line)
                lines += 1
            path.write_text("".join(chunk), encoding="utf-8")
            files, written = files + 1, written + size
    fault = samples / FAULT_SAMPLE
    for sort in ("debug", "run"):
        dest = out / "dfx/log/host/cann" / sort / "plog"
        dest.mkdir(parents=True, exist_ok=True)
        for plog in sorted((fault / "ascend/log" / sort / "plog").glob("*.log")):
            shutil.copy(plog, dest / plog.name)
    shutil.copytree(samples / BBOX_SAMPLE / "hisi_logs", out / "dfx/bbox/hisi_logs",
                    ignore=shutil.ignore_patterns(*SAMPLE_METADATA))
    for planted in [*(out / "dfx/log/host/cann").rglob("*.log"), *(out / "dfx/bbox").rglob("*")]:
        if planted.is_file():
            data = planted.read_bytes()
            files, written = files + 1, written + len(data)
            lines += data.count(b"\n") + (not data.endswith(b"\n") and bool(data))   # a last line without its \n
    return WorkloadSummary(out, files, written, lines)
