"""How a run ends: bad options and unusable paths exit 2 with one line, odd names print as valid UTF-8, and an
interrupted, terminated or killed run leaves nothing in the temporary folder (or the next run sweeps it)."""
import ctypes
import io
import json
import math
import os
import signal
import subprocess
import sys
import tarfile
import time
import zlib
from pathlib import Path

import pytest
from casebook.cli import main
from casebook.reading.engine import EngineError
from casebook.reading.limits import Limits
from casebook.reading.plog import read_plog
from casebook.reading.spool import Spool, sweep
from conftest import ROOT, SAMPLES
from hypothesis import given
from hypothesis import strategies as st

LINE = b"[ERROR] APP(7,python):2026-01-01-00:00:00.000.000 [a.cc:1]7 F:hello\n"
SAMPLE = SAMPLES / "task-queue-shared-cache-race" / "positive-info"


def one_line(text: str) -> bool:
    return len(text.strip().splitlines()) == 1 and "Traceback" not in text


def cli(*args, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """`casebook ARGS` in a process of its own; stdout and stderr as bytes."""
    return subprocess.run([sys.executable, "-m", "casebook.cli", *map(os.fsdecode, args)], capture_output=True,
                          cwd=ROOT, env={**os.environ, **(env or {})}, **kwargs)


# -- options -----------------------------------------------------------------------------------------------------
BAD = [("--workers", "-1"), ("--workers", "0"), ("--workers", "two"), ("--max-ratio", "nan"), ("--max-ratio", "inf"),
       ("--max-ratio", "-3"), ("--max-ratio", "0"), ("--max-bytes", "-5"), ("--max-bytes", "0"), ("--max-bytes", "1e9")]


@pytest.mark.parametrize("option,value", BAD, ids=[f"{o}={v}" for o, v in BAD])
def test_a_bad_option_exits_2_with_one_line(capsys, option, value):
    with pytest.raises(SystemExit) as exit_:
        main(["triage", str(SAMPLE), option, value])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and one_line(err)
    assert err.startswith(f"casebook triage: argument {option}: must be") and repr(value) in err


def test_bench_options_are_checked_too(capsys):
    for option in ("--workers", "--runs"):
        with pytest.raises(SystemExit) as exit_:
            main(["bench", str(SAMPLE), option, "-1"])
        assert exit_.value.code == 2 and one_line(capsys.readouterr().err)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_limits_refuse_a_ratio_that_would_switch_the_check_off(ratio):
    if math.isfinite(ratio) and ratio > 0:
        assert Limits(max_ratio=ratio).max_ratio == ratio
    else:
        with pytest.raises(ValueError, match="max_ratio must be a finite number above 0"):
            Limits(max_ratio=ratio)


@given(st.integers(-10, 0))
def test_limits_and_engine_refuse_counts_below_1(n):
    for field in ("max_bytes", "max_members", "max_depth"):
        with pytest.raises(ValueError, match=f"{field} must be a whole number of 1 or more"):
            Limits(**{field: n})
    with pytest.raises(EngineError, match="workers must be a whole number of 1 or more"):
        read_plog(SAMPLE, workers=n)


# -- paths -------------------------------------------------------------------------------------------------------
def _without_dac_override() -> None:
    """In the child, before exec: as root, give up the capabilities that pass over file permissions."""
    if os.geteuid() == 0:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
        for cap in (1, 2):   # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            if prctl(24, cap, 0, 0, 0) != 0:   # PR_CAPBSET_DROP: an exec'd program cannot have them
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_unreadable_folders_and_files_exit_2_or_are_listed(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "plog-1_20260101000000000.log").write_bytes(LINE)
    (tmp_path / "bundle" / "closed").mkdir(parents=True)
    (tmp_path / "bundle" / "plog-7_20260101000000000.log").write_bytes(LINE)
    (tmp_path / "bundle" / "secret.log").write_bytes(LINE)
    for mode, path in ((0o000, locked), (0o000, tmp_path / "bundle" / "closed"),
                       (0o000, tmp_path / "bundle" / "secret.log")):
        path.chmod(mode)
    try:
        folder = cli("triage", locked, preexec_fn=_without_dac_override)
        inside = cli("triage", locked / "plog-1_20260101000000000.log", preexec_fn=_without_dac_override)
        mixed = cli("triage", tmp_path / "bundle", "--json", preexec_fn=_without_dac_override)
    finally:
        for path in (locked, tmp_path / "bundle" / "closed", tmp_path / "bundle" / "secret.log"):
            path.chmod(0o700)
    assert folder.returncode == 2 and one_line(folder.stderr.decode())
    assert "locked: cannot list folder: Permission denied" in folder.stderr.decode()
    assert inside.returncode == 2 and one_line(inside.stderr.decode())
    assert inside.stderr.decode().endswith("plog-1_20260101000000000.log: cannot open: Permission denied\n")
    assert mixed.returncode == 0, mixed.stderr.decode()
    files = {f["path"]: f for f in json.loads(mixed.stdout)["input"]["files"]}
    assert files["closed"]["skipped"] == "cannot list folder: Permission denied"
    assert files["secret.log"]["skipped"] == "cannot read: Permission denied"
    assert files["plog-7_20260101000000000.log"]["lines"] == 1


def test_a_name_that_is_not_utf8_prints_valid_utf8_json_and_reports(tmp_path, capsys):
    folder = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9-\xff"))
    folder.mkdir()
    (folder / os.fsdecode(b"plog-7_20260101000000000\xfe.log")).write_bytes(LINE)
    for env in ({"PYTHONIOENCODING": "utf-8"}, {"LC_ALL": "C", "PYTHONIOENCODING": ""}):
        r = cli("triage", folder, "--json", env=env)
        assert r.returncode == 0, r.stderr.decode()
        doc = json.loads(r.stdout.decode("utf-8"))   # strict: not one byte outside UTF-8
        assert doc["input"]["paths"] == [os.fsdecode(tmp_path) + "/caf\ufffd-\ufffd"]
        assert doc["input"]["lines"] == 1 and "\ufffd.log" in doc["input"]["files"][0]["path"]
    for suffix in (".md", ".html"):
        out = tmp_path / f"case{suffix}"
        assert main(["report", str(folder), "-o", str(out)]) == 0
        assert "caf\ufffd-\ufffd" in out.read_bytes().decode("utf-8")


def test_a_missing_path_with_a_newline_in_its_name_is_reported_on_one_line(tmp_path, capsys):
    assert main(["triage", str(tmp_path / "two\nlines")]) == 2
    err = capsys.readouterr().err
    assert one_line(err) and "two\\x0alines: no such file or directory" in err
    assert main(["report", str(tmp_path / "two\nlines"), "-o", str(tmp_path / "r.md")]) == 2
    assert one_line(capsys.readouterr().err)


def test_a_reader_that_closes_stdout_early_ends_the_run_quietly(tmp_path):
    for n in range(300):   # enough JSON to fill the pipe
        (tmp_path / f"plog-{n}_20260101000000000.log").write_bytes(LINE)
    p = subprocess.Popen([sys.executable, "-m", "casebook.cli", "triage", str(tmp_path), "--json"], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.read(100)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait() == 1 and "Traceback" not in err and "BrokenPipe" not in err


# -- signals and leftovers --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def slow_bundle(tmp_path_factory) -> Path:
    """A tar.gz of 300 MiB of plog text, packed about 7 times: it takes a while to expand and read."""
    path = tmp_path_factory.mktemp("slow") / "bundle.tar.gz"
    text = b"".join(LINE.replace(b"hello", b"value %d" % (n * 7919 % 1000003)) for n in range(12000))
    size = 300 << 20
    stream = io.BytesIO()
    with tarfile.open(fileobj=stream, mode="w") as tar:
        info = tarfile.TarInfo("plog/plog-7_20260101000000000.log")
        info.size = size
        tar.addfile(info, io.BytesIO(text * (size // len(text)) + text[:size % len(text)]))
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    path.write_bytes(z.compress(stream.getvalue()) + z.flush())
    return path


def _default_signals() -> None:
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def start_until_spooled(path: Path, tmp: Path) -> subprocess.Popen:
    """A `casebook triage` of `path` with its own temporary folder, once its spool has a member in it."""
    # the signals at their default action, as in a terminal: a run started under nohup inherits SIGHUP ignored, and
    # the spool rightly leaves an ignored signal alone (the run then goes on to its end)
    p = subprocess.Popen([sys.executable, "-m", "casebook.cli", "triage", str(path), "--json"], cwd=ROOT,
                         env={**os.environ, "TMPDIR": str(tmp)}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=_default_signals)
    give_up = time.monotonic() + 120   # a guard against a hang, not a measure of speed
    while not list(tmp.glob("casebook-spool-*/*.member")):
        assert p.poll() is None, p.stderr.read().decode()
        assert time.monotonic() < give_up
        time.sleep(0.005)
    return p


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["INT", "TERM", "HUP"])
def test_an_interrupted_or_terminated_run_leaves_no_file_in_the_temporary_folder(slow_bundle, tmp_path, sig):
    p = start_until_spooled(slow_bundle, tmp_path)
    p.send_signal(sig)
    err = p.stderr.read().decode()
    code = p.wait()
    assert "Traceback" not in err and os.listdir(tmp_path) == []
    if sig == signal.SIGINT:
        assert code == 130 and err == "casebook: interrupted\n"
    else:
        assert code == -sig   # it still ends by the signal, as a caller expects


def test_a_killed_run_leaves_its_spool_and_the_next_run_sweeps_it(slow_bundle, tmp_path):
    p = start_until_spooled(slow_bundle, tmp_path)
    p.kill()
    p.wait()
    left = list(tmp_path.glob("casebook-spool-*"))
    assert len(left) == 1 and list(left[0].iterdir())
    (tmp_path / "small").mkdir()
    with tarfile.open(tmp_path / "small" / "b.tar", "w") as tar:
        info = tarfile.TarInfo("plog-7_20260101000000000.log")
        info.size = len(LINE)
        tar.addfile(info, io.BytesIO(LINE))
    r = cli("triage", tmp_path / "small" / "b.tar", env={"TMPDIR": str(tmp_path)})
    assert r.returncode == 0 and os.listdir(tmp_path) == ["small"]


def test_a_sweep_removes_only_the_spools_of_processes_that_are_gone(tmp_path, monkeypatch):
    holder = ("import sys; from casebook.reading.spool import Spool; s = Spool(); path, out = s.create(); "
              "out.close(); print(path.parent, flush=True); sys.stdin.read()")
    p = subprocess.Popen([sys.executable, "-c", holder], env={**os.environ, "TMPDIR": str(tmp_path)},
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    theirs = Path(p.stdout.readline().strip())
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    mine = Spool()
    mine.create()[1].close()
    assert sweep(tmp_path) == [] and theirs.exists() and mine.dir.exists()   # both alive
    p.kill()
    p.wait()
    assert sweep(tmp_path) == [theirs] and not theirs.exists() and mine.dir.exists()
    mine.close()
    assert os.listdir(tmp_path) == []


def test_the_command_ends_with_its_output_out_and_its_spools_removed(tmp_path):
    # the process ends without the interpreter's exit (no finalizer runs): a spool still held at the end, here by
    # the caller's own variable, is removed all the same
    ends = ("import sys; from casebook.cli import run; from casebook.reading.spool import Spool; held = Spool(); "
            "held.create()[1].close(); sys.argv = ['casebook', *sys.argv[1:]]; run()")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    r = subprocess.run([sys.executable, "-c", ends, "triage", "--json", str(SAMPLES / "task-queue-shared-cache-race"
                        / "positive-info")], capture_output=True, text=True, env=env, cwd=ROOT)
    assert r.returncode == 0 and r.stderr == "" and os.listdir(tmp_path) == []
    assert json.loads(r.stdout)["diagnosis"] == "task-queue-shared-cache-race"   # all of it was written
    r = subprocess.run([sys.executable, "-c", ends, "triage", str(tmp_path / "missing")], capture_output=True,
                       text=True, env=env, cwd=ROOT)
    assert r.returncode == 2 and r.stderr.startswith("casebook: ") and os.listdir(tmp_path) == []
