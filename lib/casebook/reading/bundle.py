"""Open what a customer sent: find every file under the given paths and say what each one is.

The role, node, rank, device and pid of a file come from its path (the CANN log layouts in
domain.md §2: `plog/plog-<pid>_<ts>.log`, `device-<id>/device-<pid>_<ts>.log`, the old
`slog/host-0|device-0|device-os-0` layout, `hisi_logs/device-<id>`, `worker-<n>`, `rank_<n>`);
the reader refines it from the content (screen captures, environment dumps). Archives, given or
found in a folder, are expanded by `archive.Expander`; their members are listed as
`bundle.tar.gz!/member`. Symbolic links inside a folder are listed, not followed.
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .archive import Expander, sniff
from .entries import MEMBER_SEP, path_for_roles, printable
from .grammar import number
from .limits import Budget, Limits
from .spool import Spool

ROLE_HOST_PLOG = "host_plog"
ROLE_DEVICE_LOG = "device_log"
ROLE_DEVICE_OS_LOG = "device_os_log"
ROLE_BBOX = "bbox"
ROLE_SCREEN = "screen_capture"
ROLE_ENVIRONMENT = "environment"   # env/printenv, pip list/freeze, CANN version.info, npu-smi info
ROLE_TEXT = "unknown_text"
#: Every role a file can have (the contract's `input.files[].role`).
ROLES = (ROLE_HOST_PLOG, ROLE_DEVICE_LOG, ROLE_DEVICE_OS_LOG, ROLE_BBOX, ROLE_SCREEN, ROLE_ENVIRONMENT, ROLE_TEXT)

_PLOG_NAME = re.compile(r"^plog-(?P<pid>\d+)_(?P<ts>\d{17})\.log$")
_DEVICE_NAME = re.compile(r"^device-(?P<pid>\d+)_(?P<ts>\d{17})\.log$")
_OLD_HOST = re.compile(r"^host-(?P<host>\d+)_\d{17}\.log$")
_OLD_DEVICE = re.compile(r"^device-(?P<dev>\d+)_\d{17}\.log$")
_DEVICE_OS = re.compile(r"^device-os(?:-(?P<dev>\d+))?_\d{17}\.log$")
_DEVICE_DIR = re.compile(r"^(?:device|dev-os)-(?P<dev>\d+)$")
_WORKER_DIR = re.compile(r"^(?:worker|node)[-_](?P<n>\d+)$")
_RANK_DIR = re.compile(r"^rank[-_]?(?P<n>\d+)$")
#: Names of files CANN installs that customers attach as they are (the content decides for other dumps).
_ENV_NAMES = re.compile(r"^(?:version\.info|ascend_install\.info|\w*_install\.info)$")
_SORTS = ("debug", "run", "security")


@dataclass(frozen=True)
class Pasted:
    """Text given as it is (standard input, the app's paste box), read as one capture named `name`."""

    data: bytes
    name: str = "<stdin>"
    #: text already copied into a spool file as it came (standard input: cli/inputs.py), read from there; `data` is
    #: then empty, and `spool` keeps the file until the reading is closed
    source: Path | None = None
    spool: Spool | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return self.name


class BundleError(Exception):
    """The input cannot be used at all (missing path, nothing readable in it)."""


@dataclass
class LogFile:
    """One file found in the bundle, with what its path says about it."""

    path: str                 #: display path: relative to the folder given, or the file's name; `a.zip!/m` in archives
    source: Path              #: where it is on disk (an archive member: its copy in the spool)
    role: str = ROLE_TEXT     #: one of ROLES
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
    encoding: str | None = None  #: the decodings its lines needed, joined: "utf-8", "utf-8+gbk", "gbk+replaced", …
    #: original bytes of every line whose text is not an exact decoding of them (line number -> bytes)
    raw_lines: dict[int, bytes] = field(default_factory=dict, repr=False)
    attachment: str | None = None  #: for environment dumps: env, pip, cann_version, npu_smi
    continues: bool = False   #: its first line continues a record begun before the file (a rotation cut)
    #: a big file gets records only for the lines that matter (plog.FULL_RECORDS_BELOW); the rest are counted
    selective: bool = False
    levels: dict[str, int] = field(default_factory=dict)  #: slog header lines per level
    blank: int = 0            #: empty lines a triage's line-by-line reading counted without a record
    joined: int = 0           #: lines a paste broke off a longer line: each a `continuation` record (rejoin.py)
    #: of a file read selectively: the byte offset of lines 1, 1 + scan.INDEX_STEP, 1 + 2 * INDEX_STEP, …
    line_index: list[int] = field(default_factory=list, repr=False)
    spool: Spool | None = field(default=None, repr=False, compare=False)  #: keeps an archive member's copy alive
    #: files this capture quotes through grep prefixes (`debug/plog/plog-1_….log:1187:`), each with the identity
    #: its path and quoted lines give; their lines are counted here, in the capture
    quoted: list["LogFile"] = field(default_factory=list, repr=False)
    captured_in: str | None = None  #: of a file known only from a capture's grep prefixes: that capture's path
    #: of a file whose path names no role: the kind of system log (OS, install, kernel) its name or first lines
    #: show it is (system_log.py), read by that kind instead of as a paste
    system: str | None = None

    @property
    def in_archive(self) -> bool:
        """Whether the file is a member of an archive."""
        return _in_archive(self.path)


def _in_archive(path: str) -> bool:
    """Whether a display path names an archive member."""
    return MEMBER_SEP in path


def classify(rel: str) -> dict:
    """Role and identity of a file from its display path alone (archive names count as folders)."""
    parts = _parts(path_for_roles(rel)) or ("",)
    name = parts[-1]
    dirs = parts[:-1]
    info: dict = {"role": ROLE_TEXT, "sort": None, "node": None, "rank": None, "device": None, "pid": None}
    for d in dirs:
        if d in _SORTS:
            info["sort"] = d
        if m := _WORKER_DIR.match(d):
            info["node"] = d
        if m := _RANK_DIR.match(d):
            info["rank"] = number(m["n"])
    dev_dirs = [m for d in dirs if (m := _DEVICE_DIR.match(d))]
    if m := _PLOG_NAME.match(name):
        info.update(role=ROLE_HOST_PLOG, pid=number(m["pid"]))
    elif (m := _DEVICE_NAME.match(name)) and dev_dirs and dirs[-1].startswith("device-"):
        # new layout: device-<id>/device-<pid>_<ts>.log; old layout: slog/device-<id>/device-<id>_<ts>.log
        dev = number(dev_dirs[-1]["dev"])
        pid = number(m["pid"])
        info.update(role=ROLE_DEVICE_LOG, device=dev, pid=None if pid == dev else pid)
    elif m := _OLD_HOST.match(name):
        info.update(role=ROLE_HOST_PLOG)
    elif m := _DEVICE_OS.match(name):
        dev = m["dev"] if m["dev"] is not None else (dev_dirs[-1]["dev"] if dev_dirs else None)
        info.update(role=ROLE_DEVICE_OS_LOG, device=number(dev) if dev is not None else None)
    elif m := _OLD_DEVICE.match(name):
        info.update(role=ROLE_DEVICE_LOG, device=number(m["dev"]))
    elif "hisi_logs" in dirs:
        info.update(role=ROLE_BBOX, device=number(dev_dirs[0]["dev"]) if dev_dirs else None)
    elif _ENV_NAMES.match(name):
        info.update(role=ROLE_ENVIRONMENT)
    return info


def _parts(path: str) -> tuple[str, ...]:
    """The parts of a POSIX path as PurePosixPath gives them (empty and `.` parts dropped, a leading `/` or `//`
    kept), without building one for every file of a bundle."""
    lead = len(path) - len(path.lstrip("/"))
    root = ("//",) if lead == 2 else ("/",) if lead else ()
    return root + tuple(p for p in path.split("/") if p and p != ".")


def slog_role(path: str) -> str:
    """The role of a file of slog lines whose name does not say: slog lines under a `device` folder (asys:
    dfx/log/device/…) were written on the device side."""
    side = PurePosixPath(path_for_roles(path)).parts[:-1]
    return ROLE_DEVICE_LOG if "device" in side else ROLE_HOST_PLOG


def find_files(paths: list[str | os.PathLike | Pasted], limits: Limits | None = None,
               spool: Spool | None = None) -> list[LogFile]:
    """Every file under the given paths, archives expanded, sorted and classified; BundleError if none exist.
    Pasted text is one file, kept in the spool while it is read."""
    limits = limits or Limits()
    expander = Expander(spool or Spool(), limits, Budget(limits))
    per_path: list[tuple[Path, list[LogFile]]] = []
    for given in paths:
        if isinstance(given, Pasted):
            per_path.append((Path(given.name), [_pasted(given, expander.spool)]))
            continue
        p = Path(given)
        try:
            p.stat()
        except (FileNotFoundError, NotADirectoryError):
            raise BundleError(f"{printable(os.fspath(given))}: no such file or directory") from None
        except OSError as e:   # a folder on the way that may not be searched, a name too long, …
            raise BundleError(f"{printable(os.fspath(given))}: cannot open: {e.strerror}") from None
        found: list[LogFile] = []
        per_path.append((p, found))
        if p.is_dir():
            unlisted: list[OSError] = []
            top = os.fspath(p)
            for root, dirnames, filenames in os.walk(p, onerror=unlisted.append):
                dirnames.sort()
                # the display path is the walk's own string under the folder given (no Path parsed per file)
                here, folder = Path(root), root[len(top):].lstrip(os.sep).replace(os.sep, "/")
                for name in sorted(filenames) + sorted(d for d in dirnames if os.path.islink(os.path.join(root, d))):
                    found.extend(_entry(f"{folder}/{name}" if folder else name, here / name, expander,
                                        room=limits.max_files - _count(per_path)))
                _within(limits, per_path, given)
            found.extend(_log_file(_relative(Path(e.filename), p), Path(e.filename),
                                   skipped=f"cannot list folder: {e.strerror}") for e in unlisted)
        else:
            found.extend(_entry(p.name, p, expander, given=True, room=limits.max_files - _count(per_path)))
        _within(limits, per_path, given)
    found = _one_namespace(per_path)
    found.sort(key=lambda f: f.path)
    if not found:
        raise BundleError(f"{', '.join(map(str, paths))}: no files in it")
    return found


def _within(limits: Limits, per_path: list[tuple[Path, list[LogFile]]], given: str | os.PathLike) -> None:
    """BundleError once the files found so far pass `limits.max_files` (checked as they are found, so a folder of a
    million files is refused in the time it takes to list the first of them)."""
    if _count(per_path) > limits.max_files:
        raise BundleError(f"{printable(os.fspath(given))}: refused: more than {limits.max_files} files in it (each "
                          f"is read and listed, whatever its size); give the folders of the nodes or processes that "
                          f"failed")


def _count(per_path: list[tuple[Path, list[LogFile]]]) -> int:
    return sum(len(files) for _, files in per_path)


def _relative(path: Path, given: Path) -> str:
    """A path found under a given folder as shown: relative to it, or the folder's own name for itself."""
    rel = path.relative_to(given).as_posix()
    return rel if rel != "." else (given.name or os.fspath(given))


def _one_namespace(per_path: list[tuple[Path, list[LogFile]]]) -> list[LogFile]:
    """All files; when several paths give the same display path (one bundle per node), each path's files are
    shown under the path's own name, which also names the node of a folder whose files name none."""
    paths = [f.path for _, files in per_path for f in files]
    if len(paths) == len(set(paths)):
        return [f for _, files in per_path for f in files]
    names = [p.name or str(p) for p, _ in per_path]
    out = []
    for k, ((p, files), name) in enumerate(zip(per_path, names)):
        prefix = name if names.count(name) == 1 else f"{name}#{k + 1}"
        for f in files:
            f.path = f"{prefix}/{f.path}"
            f.warnings = [f"{prefix}/{w}" for w in f.warnings]   # they start with the old display path
            if f.node is None and p.is_dir():
                f.node = prefix
            out.append(f)
    return out


#: Files that belong to a casebook sample, not to the customer's bundle: listed, never read.
SAMPLE_METADATA = {"expect.yaml": "sample expectations of the knowledge base, not a log",
                   "SOURCE.md": "where a knowledge-base sample's lines come from, not a log"}


def _sample_metadata(full: Path) -> str | None:
    """Why a file is a sample's metadata (a SOURCE.md only beside an expect.yaml), or None."""
    if full.name == "SOURCE.md" and not (full.parent / "expect.yaml").is_file():
        return None
    return SAMPLE_METADATA.get(full.name)


def _entry(rel: str, full: Path, expander: Expander, given: bool = False, room: int = 1 << 62) -> list[LogFile]:
    """The LogFile(s) of one path in a folder: itself, or the members of an archive (past `room` of them, the
    expansion stops)."""
    try:
        st = full.stat() if given else full.lstat()
    except OSError as e:
        return [_log_file(rel, full, skipped=f"cannot stat: {e.strerror}")]
    if stat.S_ISLNK(st.st_mode):
        return [_log_file(rel, full, skipped=f"symbolic link to {printable(os.readlink(full))}: not followed")]
    if not stat.S_ISREG(st.st_mode):
        return [_log_file(rel, full, skipped=f"not a regular file ({_file_type(st.st_mode)})")]
    if meta := _sample_metadata(full):
        return [_log_file(rel, full, size=st.st_size, skipped=meta)]
    try:
        kind = sniff(full)
    except OSError as e:
        return [_log_file(rel, full, size=st.st_size, skipped=f"cannot read: {e.strerror}")]
    if kind is None:
        return [_log_file(rel, full, size=st.st_size)]
    out: list[LogFile] = []
    members = expander.expand(full, rel, kind)
    for m in members:
        out.append(_log_file(m.display, m.source or full, size=m.size, skipped=m.refused, warnings=m.warnings,
                             spool=expander.spool if m.source else None))
        if len(out) > room:   # the read will be refused for its number of files: expand no more of them
            members.close()
            break
    return out or [_log_file(rel, full, size=st.st_size, skipped=f"empty {kind} archive")]


def _pasted(given: Pasted, spool: Spool) -> LogFile:
    if given.source is not None:
        return _log_file(given.name, given.source, size=given.source.stat().st_size, spool=given.spool)
    path, fh = spool.create()
    with fh:
        fh.write(given.data)
    return _log_file(given.name, path, size=len(given.data), spool=spool)


def _file_type(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISDIR, "folder")):
        if test(mode):
            return name
    return "special file"


def _log_file(rel: str, full: Path, size: int = 0, skipped: str | None = None, warnings: list[str] | None = None,
              spool: Spool | None = None) -> LogFile:
    rel = printable(rel)   # the display path only; `source` keeps the name as it is on disk
    return LogFile(path=rel, source=full, size=size, skipped=skipped, warnings=list(warnings or []), spool=spool,
                   **classify(rel))
