"""Open what a customer sent: find every file under the given paths and say what each one is.

The role, node, rank, device and pid of a file come from its path (the CANN log layouts in
domain.md §2: `plog/plog-<pid>_<ts>.log`, `device-<id>/device-<pid>_<ts>.log`, the old
`slog/host-0|device-0|device-os-0` layout, `hisi_logs/device-<id>`, `worker-<n>`, `rank_<n>`).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

ROLE_HOST_PLOG = "host_plog"
ROLE_DEVICE_LOG = "device_log"
ROLE_DEVICE_OS_LOG = "device_os_log"
ROLE_BBOX = "bbox"
ROLE_SCREEN = "screen_capture"
ROLE_TEXT = "unknown_text"

_PLOG_NAME = re.compile(r"^plog-(?P<pid>\d+)_(?P<ts>\d{17})\.log$")
_DEVICE_NAME = re.compile(r"^device-(?P<pid>\d+)_(?P<ts>\d{17})\.log$")
_OLD_HOST = re.compile(r"^host-(?P<host>\d+)_\d{17}\.log$")
_OLD_DEVICE = re.compile(r"^device-(?P<dev>\d+)_\d{17}\.log$")
_DEVICE_OS = re.compile(r"^device-os(?:-(?P<dev>\d+))?_\d{17}\.log$")
_DEVICE_DIR = re.compile(r"^(?:device|dev-os)-(?P<dev>\d+)$")
_WORKER_DIR = re.compile(r"^(?:worker|node)[-_](?P<n>\d+)$")
_RANK_DIR = re.compile(r"^rank[-_]?(?P<n>\d+)$")
_SORTS = ("debug", "run", "security")


class BundleError(Exception):
    """The input cannot be used at all (missing path, nothing readable in it)."""


@dataclass
class LogFile:
    """One file found in the bundle, with what its path says about it."""

    path: str                 #: display path: relative to the folder given, or the file's name
    source: Path              #: where it is on disk
    role: str = ROLE_TEXT     #: host_plog, device_log, device_os_log, bbox, screen_capture, unknown_text
    sort: str | None = None   #: debug / run / security, when the path says
    node: str | None = None   #: worker or host, when the path says
    rank: int | None = None
    device: int | None = None
    pid: int | None = None
    size: int = 0
    lines: int = 0            #: lines read (`\n`-terminated, plus a non-empty tail)
    unparsed: int = 0         #: of those, lines no grammar rule accepted
    first_time: str | None = None
    last_time: str | None = None
    skipped: str | None = None  #: reason the file was not read
    warnings: list[str] = field(default_factory=list)


def classify(rel: str) -> dict:
    """Role and identity of a file from its relative path alone."""
    parts = Path(rel).parts
    name = parts[-1]
    dirs = parts[:-1]
    info: dict = {"role": ROLE_TEXT, "sort": None, "node": None, "rank": None, "device": None, "pid": None}
    for d in dirs:
        if d in _SORTS:
            info["sort"] = d
        if m := _WORKER_DIR.match(d):
            info["node"] = d
        if m := _RANK_DIR.match(d):
            info["rank"] = int(m["n"])
    dev_dirs = [m for d in dirs if (m := _DEVICE_DIR.match(d))]
    if m := _PLOG_NAME.match(name):
        info.update(role=ROLE_HOST_PLOG, pid=int(m["pid"]))
    elif (m := _DEVICE_NAME.match(name)) and dev_dirs and dirs[-1].startswith("device-"):
        # new layout: device-<id>/device-<pid>_<ts>.log; old layout: slog/device-<id>/device-<id>_<ts>.log
        dev = int(dev_dirs[-1]["dev"])
        pid = int(m["pid"])
        info.update(role=ROLE_DEVICE_LOG, device=dev, pid=None if pid == dev else pid)
    elif m := _OLD_HOST.match(name):
        info.update(role=ROLE_HOST_PLOG)
    elif m := _DEVICE_OS.match(name):
        dev = m["dev"] if m["dev"] is not None else (dev_dirs[-1]["dev"] if dev_dirs else None)
        info.update(role=ROLE_DEVICE_OS_LOG, device=int(dev) if dev is not None else None)
    elif m := _OLD_DEVICE.match(name):
        info.update(role=ROLE_DEVICE_LOG, device=int(m["dev"]))
    elif "hisi_logs" in dirs:
        info.update(role=ROLE_BBOX, device=int(dev_dirs[0]["dev"]) if dev_dirs else None)
    return info


def find_files(paths: list[str | os.PathLike]) -> list[LogFile]:
    """Every file under the given paths, sorted, classified by path; raises BundleError if none exist."""
    found: list[LogFile] = []
    for given in paths:
        p = Path(given)
        if not p.exists():
            raise BundleError(f"{given}: no such file or directory")
        if p.is_dir():
            for root, dirnames, filenames in os.walk(p):
                dirnames.sort()
                for name in sorted(filenames):
                    full = Path(root) / name
                    rel = full.relative_to(p).as_posix()
                    found.append(_log_file(rel, full))
        else:
            found.append(_log_file(p.name, p))
    found.sort(key=lambda f: f.path)
    if not found:
        raise BundleError(f"{', '.join(map(str, paths))}: no files in it")
    return found


#: Files that belong to a casebook sample, not to the customer's bundle: listed, never read.
SAMPLE_METADATA = {"expect.yaml": "sample expectations of the knowledge base, not a log"}


def _log_file(rel: str, full: Path) -> LogFile:
    f = LogFile(path=rel, source=full, **classify(rel))
    f.skipped = SAMPLE_METADATA.get(full.name)
    try:
        f.size = full.stat().st_size
    except OSError as e:
        f.skipped = f.skipped or f"cannot stat: {e.strerror}"
    return f
