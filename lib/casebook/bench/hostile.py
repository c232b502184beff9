"""The hostile inputs of round two, as `make probe` runs them: each builds its input, runs `casebook` on it in
processes of their own, and checks the outcome (no payload run, no escape byte out, no traceback, the warning or the
exit code promised in docs/reliability.md)."""
from __future__ import annotations

import gzip
import io
import os
import pickle
import re
import shutil
import subprocess
import sys
import tarfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..knowledge.kb import default_root

#: a small sample of the knowledge base: a triage of it is quick
SAMPLE = default_root() / "samples" / "npu-out-of-memory" / "positive-long-batch"
#: what a terminal may obey: C0 controls but the tab and the line feed, DEL, C1
OBEYED = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
STAMP = "2026-01-01-10:00:{:02d}.000.000"


@dataclass
class Run:
    """One `casebook` process: how it ended, what it printed, its time and peak memory."""

    exit_code: int
    out: bytes
    err: bytes
    seconds: float
    peak_rss: int   #: bytes


@dataclass
class Outcome:
    """How a scenario ended: whether its promise held, in words, and the heaviest of its runs."""

    held: bool
    said: str
    seconds: float
    peak_rss: int


def measure(args: list[str], env: dict | None = None, stdin=subprocess.DEVNULL, folder: Path | None = None,
            during: Callable[[], None] | None = None) -> Run:
    """Run `casebook ARGS` (or `python -c` when args[0] is `-c`) in a child, timed and measured with wait4;
    `during` runs beside it, in a thread, while it reads."""
    cmd = [sys.executable, *args] if args[0] == "-c" else [sys.executable, "-m", "casebook.cli", *args]
    where = folder or Path(os.environ.get("TMPDIR", "/tmp"))
    with open(where / "probe-out", "w+b") as out, open(where / "probe-err", "w+b") as err:
        start = time.monotonic()
        child = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=stdin, env={**os.environ, **(env or {})})
        side = threading.Thread(target=during, daemon=True) if during else None
        if side:
            side.start()
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.monotonic() - start
        if side:
            side.join()
        out.seek(0)
        err.seek(0)
        return Run(os.waitstatus_to_exitcode(status), out.read(), err.read(), seconds, usage.ru_maxrss * 1024)


def _plog(folder: Path, lines: list[str], pid: int = 100) -> Path:
    path = folder / "ascend" / "log" / "debug" / "plog" / f"plog-{pid}_20260101100000000.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _error(n: int, text: str, pid: int = 100) -> str:
    return f"[ERROR] RUNTIME({pid},python):{STAMP.format(n % 60)} [stream.cc:{n}]{pid} {text}"


def _outcome(runs: list[Run], held: bool, said: str) -> Outcome:
    return Outcome(held, said, sum(r.seconds for r in runs), max(r.peak_rss for r in runs))


def _clean(run: Run, codes: tuple[int, ...] = (0,)) -> bool:
    return run.exit_code in codes and b"Traceback" not in run.err


class Payload:
    """Unpickling this makes the marker folder: what a planted copy would do."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return os.mkdir, (self.marker,)


def planted_pickle(folder: Path) -> Outcome:
    """Item 1: every copy the cache folder holds after a first run is replaced by a pickle that runs code."""
    kept, marker = folder / "kept", folder / "marker"
    env = {"CASEBOOK_CACHE": str(kept)}
    first = measure(["triage", str(SAMPLE)], env, folder=folder)
    copies = sorted(kept.glob("*.pickle"))
    for path in copies:
        path.write_bytes(pickle.dumps(Payload(str(marker))))
    second = measure(["triage", str(SAMPLE)], env, folder=folder)
    held = bool(copies) and _clean(first) and _clean(second) and not marker.exists()
    return _outcome([first, second], held, f"{len(copies)} copies planted; the payload "
                                            f"{'ran' if marker.exists() else 'never ran'}, exit {second.exit_code}")


ESCAPES = ("\x1b]0;owned\x07", "\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b]8;;http://evil.example/\x1b\\x\x1b]8;;\x1b\\",
           "\x1b[2J\x1b[H", "\x9b2J", "\x9d0;owned\x9c", "\rfake\x08\x7f")


def escape_codes(folder: Path) -> Outcome:
    """Item 2: ESC, OSC, CSI and C1 sequences in error lines, walked in each text mode."""
    _plog(folder / "bundle", [_error(n, f"connect failed{seq} at {seq}peer, retCode=0x7{n}")
                              for n, seq in enumerate(ESCAPES)])
    runs = [measure(["triage", str(folder / "bundle"), *mode], folder=folder)
            for mode in ([], ["--wide"], ["--lang", "zh"], ["--json"])]
    leaked = sum(len(OBEYED.findall(r.out + r.err)) for r in runs)
    held = all(_clean(r) for r in runs) and leaked == 0
    return _outcome(runs, held, f"4 modes, {leaked} control bytes reached the terminal")


def shrinking_file(folder: Path) -> Outcome:
    """Item 3: a 40 MB plog of picked (ERROR) lines cut to a tenth, refilled and cut again while it is read. The
    file is written and refilled from a copy a line at a time: this process stays small, and a child's peak memory
    starts from its parent's."""
    pristine = folder / "pristine.log"
    with pristine.open("w", encoding="utf-8") as f:
        for n in range(400_000):
            f.write(_error(n, "Launch: task launched") + "\n")
    path = _plog(folder / "bundle", [])
    shutil.copyfile(pristine, path)
    size = path.stat().st_size

    def cut() -> None:
        for _ in range(20):
            time.sleep(0.05)
            os.truncate(path, size // 10)
            time.sleep(0.05)
            shutil.copyfile(pristine, path)
        os.truncate(path, size // 10)

    run = measure(["triage", str(path), "--json"], folder=folder, during=cut)
    warned = b"truncated while it was read" in run.out
    return _outcome([run], _clean(run, (0, 2)), f"exit {run.exit_code}"
                    f"{', a warning names the file' if warned else ', read before the first cut'}")


def changed_tar_gz(folder: Path) -> Outcome:
    """Item 4: one byte of an error code changed inside a stored (level 0) .tar.gz: it still decodes."""
    data = (_error(1, "aclnnCast failed, error code EZ9999") + "\n").encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("ascend/log/debug/plog/plog-100_20260101100000000.log")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    packed = bytearray(gzip.compress(buffer.getvalue(), compresslevel=0))
    at = packed.index(b"EZ9999")
    packed[at + 5] = ord("8")
    path = folder / "bundle.tar.gz"
    path.write_bytes(bytes(packed))
    run = measure(["triage", str(path), "--json"], folder=folder)
    warned = b"bundle.tar.gz" in run.out and b"damaged" in run.out
    return _outcome([run], _clean(run) and warned,
                    f"exit {run.exit_code}, {'a warning names the archive' if warned else 'no warning'}")


#: one value of each form `--redact` must hide, in the lines and the folder names that carry it
SENSITIVE = {
    "ip in a word": ("rank_10.22.32.42_dev", "10.22.32.42"), "ip after letters": ("ip10.21.31.41", "10.21.31.41"),
    "zero-padded ip": ("010.020.030.040", "010.020.030.040"), "upper-case host": ("GPU-NODE7.CORP.INTERNAL", "NODE7"),
    "url password": ("http://alice:s3cret@repo.example.org/x", "s3cret"), "name@host": ("bob@node9", "bob@"),
    "~user": ("~carol/train.py", "carol"), "non-ascii home": ("/home/张三/run", "张三"),
    "HOME=": ("HOME=/export/dave", "dave"), "/data/users": ("/data/users/erin/job", "erin"),
    "mac": ("aa:bb:cc:dd:ee:0f", "aa:bb:cc:dd:ee:0f"),
}


def redaction(folder: Path) -> Outcome:
    """Item 5: each listed form in error lines; `report --redact` as Markdown and HTML."""
    _plog(folder / "bundle" / "worker-7", [_error(n, f"HCCL connect to {text} failed, retCode=0x7")
                                           for n, (text, _) in enumerate(SENSITIVE.values())])
    runs, left = [], set()
    for suffix in ("md", "html"):
        report = folder / f"report.{suffix}"
        runs.append(measure(["report", str(folder / "bundle"), "--redact", "-o", str(report)], folder=folder))
        text = report.read_text(encoding="utf-8") if report.exists() else ""
        left |= {name for name, (_, value) in SENSITIVE.items() if value in text}
    held = all(_clean(r) for r in runs) and not left
    return _outcome(runs, held, f"{len(SENSITIVE)} forms, {len(left)} left visible{': ' if left else ''}"
                                f"{', '.join(sorted(left))}")


def dollar_names(folder: Path) -> Outcome:
    """Item 6: a kernel named with TeX-like dollars, drawn in the report's figures."""
    _plog(folder / "bundle", [_error(1, "Aicore kernel execute failed, device_id=0, stream_id=2, task_id=1, "
                                        "fault kernel_name=MatMul$^^$x_$\\frac{", ),
                              _error(2, "Kernel task happen error, retCode=0x26, [aicore exception].")])
    report = folder / "report.html"
    run = measure(["report", str(folder / "bundle"), "-o", str(report)], folder=folder)
    return _outcome([run], _clean(run) and report.exists(), f"exit {run.exit_code}, "
                                                            f"{'report written' if report.exists() else 'no report'}")


REWRITE = """
import os, sys
from casebook import triage
path = sys.argv[1]
said = lambda t: "EZ1001" if t.log.records.msg.str.contains("EZ1001").any() else "EZ9999"
first = said(triage(path))
stat = os.stat(path)
with open(path, "r+b") as f:
    data = f.read().replace(b"EZ9999", b"EZ1001")
    f.seek(0); f.write(data)
os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
print(first, said(triage(path)))
"""


def same_size_rewrite(folder: Path) -> Outcome:
    """Item 7: a file rewritten with its size and modification time put back, triaged twice in one process."""
    path = _plog(folder / "bundle", [_error(1, "aclnnCast failed, error code EZ9999")])
    run = measure(["-c", REWRITE, str(path)], folder=folder)
    codes = run.out.decode().split()
    return _outcome([run], _clean(run) and codes == ["EZ9999", "EZ1001"], f"first {' then '.join(codes) or '?'}")


def io_errors(folder: Path) -> Outcome:
    """Item 8: a closed standard input and output, output to /dev/full, a report onto a folder and into /proc."""
    sample = str(SAMPLE)
    shells = {"closed stdin": f"exec 0<&-; {sys.executable} -m casebook.cli triage -",
              "closed stdout": f"exec 1>&-; {sys.executable} -m casebook.cli triage {sample}",
              "stdout to /dev/full": f"{sys.executable} -m casebook.cli triage {sample} > /dev/full",
              "report onto a folder": f"{sys.executable} -m casebook.cli report {sample} -o {folder}",
              "report into /proc": f"{sys.executable} -m casebook.cli report {sample} -o /proc/casebook.md"}
    runs, wrong = [], []
    for name, line in shells.items():
        run = measure(["-c", "import os, sys; os.execv('/bin/sh', ['sh', '-c', sys.argv[1]])", line], folder=folder)
        runs.append(run)
        if run.exit_code != 2 or b"Traceback" in run.err or len(run.err.strip().splitlines()) != 1:
            wrong.append(name)
    return _outcome(runs, not wrong, f"{len(shells) - len(wrong)} of {len(shells)} end in exit 2 and one line"
                                     f"{': not ' + ', '.join(wrong) if wrong else ''}")


def zst_file(folder: Path) -> Outcome:
    """Item 9: a plog compressed with zstd reads as the lines it holds."""
    try:
        import zstandard
    except ImportError:
        return Outcome(True, "zstandard not installed: refused as unsupported (not measured)", 0.0, 0)
    path = _plog(folder / "bundle", [_error(n, "aclnnCast failed, error code EZ9999") for n in range(1000)])
    packed = path.with_name(path.name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
    path.unlink()
    run = measure(["triage", str(packed), "--json"], folder=folder)
    read = b'"lines": 1000' in run.out
    return _outcome([run], _clean(run) and read, f"exit {run.exit_code}, "
                                                 f"{'its 1,000 lines read' if read else 'not its 1,000 lines'}")


@dataclass(frozen=True)
class Scenario:
    """One hostile input of round two and the check of its promise."""

    name: str
    item: int    #: its number in docs/reliability.md's list of round two
    what: str
    run: Callable[[Path], Outcome]


SCENARIOS = (
    Scenario("planted-pickle", 1, "a code-running pickle in place of every kept copy", planted_pickle),
    Scenario("escape-codes", 2, "OSC, CSI, C1 sequences in log lines; four output modes", escape_codes),
    Scenario("shrinking-file", 3, "a 40 MB plog cut and refilled while it is read", shrinking_file),
    Scenario("changed-tar-gz", 4, "one byte of an error code changed inside a .tar.gz", changed_tar_gz),
    Scenario("redaction", 5, "eleven forms of addresses, hosts and users; `report --redact`", redaction),
    Scenario("dollar-names", 6, "a kernel named `MatMul$^^$x_$\\frac{` in the figures", dollar_names),
    Scenario("same-size-rewrite", 7, "a file rewritten with its size and mtime put back", same_size_rewrite),
    Scenario("io-errors", 8, "closed stdin/stdout, /dev/full, report onto a folder or /proc", io_errors),
    Scenario("zst-file", 9, "a plog compressed with zstd", zst_file),
)
