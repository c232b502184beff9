"""Hostile and broken input: refused or read with a named warning, never a crash, nothing written outside."""
import gzip
import io
import os
import stat
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pytest
from casebook.reading.encoding import LONG_LINE
from casebook.reading.entries import MEMBER_SEP
from casebook.reading.plog import read_plog
from casebook.reading.limits import Limits
from conftest import ROOT

LINE = b"[ERROR] APP(7,python):2026-01-01-00:00:00.000.000 [a.cc:1]7 F:hello\n"


def tar_with(path: Path, entries: list[tarfile.TarInfo], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as tar:
        for info in entries:
            data = LINE * 3 if info.isreg() else b""
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def entry(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


def tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def test_tar_entries_that_escape_or_are_not_files_are_refused_and_nothing_is_written(tmp_path, monkeypatch):
    bundle = tmp_path / "in"
    bundle.mkdir()
    temp_area = tmp_path / "tmp"
    temp_area.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp_area))
    tar_with(bundle / "evil.tar.gz", [
        entry("ok/plog-7_20260101000000000.log"),
        entry("/etc/cron.d/evil"),
        entry("../../outside.log"),
        entry("ok/../../../up.log"),
        entry("link-out", tarfile.SYMTYPE, "/etc/passwd"),
        entry("link-up", tarfile.SYMTYPE, "../../secret"),
        entry("hard-out", tarfile.LNKTYPE, "/etc/shadow"),
        entry("ok/link-in", tarfile.SYMTYPE, "plog-7_20260101000000000.log"),
        entry("dev/sda", tarfile.BLKTYPE),
        entry("dev/tty", tarfile.CHRTYPE),
        entry("pipe", tarfile.FIFOTYPE),
    ])
    before = tree(tmp_path)
    log = read_plog(bundle)
    reasons = {f.path.split(MEMBER_SEP, 1)[1]: f.skipped for f in log.files}
    assert reasons["ok/plog-7_20260101000000000.log"] is None
    assert reasons["/etc/cron.d/evil"] == "refused: absolute path"
    assert reasons["../../outside.log"] == reasons["ok/../../../up.log"] == "refused: path with '..'"
    assert reasons["link-out"] == "refused: symlink pointing outside the archive (/etc/passwd)"
    assert reasons["link-up"].startswith("refused: symlink pointing outside")
    assert reasons["hard-out"].startswith("refused: hardlink pointing outside")
    assert reasons["ok/link-in"].startswith("symlink to plog-7_20260101000000000.log: links are not followed")
    assert reasons["dev/sda"] == reasons["dev/tty"] == "refused: device file"
    assert reasons["pipe"] == "refused: FIFO"
    assert log.lines == 3
    assert {p for p in tree(tmp_path) if not p.startswith("tmp/")} == before   # nothing beside or above the bundle
    assert not Path("/etc/cron.d/evil").exists() and not (tmp_path.parent / "outside.log").exists()
    spool = log.files[0].spool.dir if log.files[0].spool else next(f.spool.dir for f in log.files if f.spool)
    assert spool.parent == temp_area and os.listdir(temp_area) == [spool.name]   # the only thing in the temp area
    assert all(p.name.endswith(".member") and p.is_file() for p in spool.iterdir())
    assert all(f"{f.path}: skipped" in " ".join(log.warnings) for f in log.files if f.skipped)


def test_zip_entries_that_escape_or_link_are_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("good/plog-7_20260101000000000.log", LINE)
        zf.writestr("../evil.log", LINE)
        zf.writestr("/abs.log", LINE)
        zf.writestr("..\\..\\win.log", LINE)
        zf.writestr("C:/win/abs.log", LINE)
        link = zipfile.ZipInfo("link")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
    (tmp_path / "evil.zip").write_bytes(buf.getvalue())
    log = read_plog(tmp_path / "evil.zip")
    reasons = {f.path.split(MEMBER_SEP, 1)[1]: f.skipped for f in log.files}
    assert reasons["good/plog-7_20260101000000000.log"] is None
    assert reasons["../evil.log"] == reasons["../../win.log"] == "refused: path with '..'"   # shown with `/`
    assert reasons["C:/win/abs.log"] == "refused: absolute path"
    assert reasons["link"] == "refused: symlink pointing outside the archive (/etc/passwd)"
    assert not (tmp_path.parent / "evil.log").exists() and log.lines == 1


def test_gzip_bomb_is_refused_by_the_ratio_limit(tmp_path):
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9) as gz:
        for _ in range(64):
            gz.write(b"\0" * (1 << 20))
    (tmp_path / "bomb.log.gz").write_bytes(raw.getvalue())
    log = read_plog(tmp_path / "bomb.log.gz", limits=Limits(ratio_floor=1 << 20))
    (f,) = log.files
    assert f.skipped and "--max-ratio" in f.skipped and "decompression bomb" in f.skipped
    assert f.lines == 0


def test_nested_bomb_and_total_size_are_bounded(tmp_path):
    zeros = io.BytesIO()
    with zipfile.ZipFile(zeros, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("zeros.log", b"0" * (40 << 20))
    outer = tmp_path / "outer.tar"
    with tarfile.open(outer, "w") as tar:
        info = tarfile.TarInfo("inner.zip")
        info.size = len(zeros.getvalue())
        tar.addfile(info, io.BytesIO(zeros.getvalue()))
    log = read_plog(outer, limits=Limits(ratio_floor=1 << 20))
    assert "decompression bomb" in log.files[0].skipped
    log = read_plog(outer, limits=Limits(max_bytes=10 << 20))
    assert "--max-bytes" in log.files[0].skipped


def test_archives_nested_too_deep_are_refused(tmp_path):
    data = LINE
    for _ in range(6):
        data = gzip.compress(data)
    (tmp_path / "deep.log.gz").write_bytes(data)
    (f,) = read_plog(tmp_path / "deep.log.gz").files
    assert f.skipped == "refused: archives nested deeper than 4"
    (f,) = read_plog(tmp_path / "deep.log.gz", limits=Limits(max_depth=8)).files
    assert f.lines == 1


def test_special_files_and_links_in_a_folder_are_listed_not_followed(tmp_path):
    (tmp_path / "plog-7_20260101000000000.log").write_bytes(LINE)
    os.mkfifo(tmp_path / "fifo")                          # reading it would hang
    (tmp_path / "passwd").symlink_to("/etc/passwd")
    (tmp_path / "up").symlink_to(tmp_path.parent, target_is_directory=True)
    log = read_plog(tmp_path)
    assert log.file("fifo").skipped == "not a regular file (FIFO)"
    assert log.file("passwd").skipped == "symbolic link to /etc/passwd: not followed"
    assert log.file("up").skipped.startswith("symbolic link to ")
    assert log.lines == 1


def test_a_device_given_by_name_is_listed_as_one_and_not_read():
    (f,) = read_plog("/dev/null").files
    assert (f.path, f.lines, f.skipped) == ("null", 0, "not a regular file (character device)")


@pytest.mark.parametrize("piped", [True, False], ids=["pipe", "file"])
def test_standard_input_is_copied_whole_into_the_spool_from_a_pipe_or_a_file(tmp_path, monkeypatch, piped):
    from casebook.reading.spool import Spool
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    data = LINE * 500   # less than a pipe holds: written before it is read
    if piped:
        fd, w = os.pipe()
        os.write(w, data)
        os.close(w)
    else:
        (tmp_path / "in.txt").write_bytes(data)
        fd = os.open(tmp_path / "in.txt", os.O_RDONLY)
    spent, spool = [], Spool()
    try:
        m = spool.copy_fd(fd, "-", lambda n, so_far: spent.append((n, so_far)))
    finally:
        os.close(fd)
    assert (m.display, m.size, m.source.read_bytes(), m.source.parent) == ("-", len(data), data, spool.dir)
    assert spent and spent[-1][1] == len(data) == sum(n for n, _ in spent)
    spool.close()

ENCODED = [
    ("invalid utf-8", b"[ERROR] APP(7,python):2026-01-01-00:00:00.000.000 [a.cc:1]7 F:caf\xe9 \xff\xfe end\n",
     "not valid UTF-8; bad bytes shown as U+FFFD"),
    ("gbk", "[ERROR] APP(7,python):2026-01-01-00:00:00.000.000 [a.cc:1]7 F:设备内存不足，训练失败\n".encode("gbk"),
     "read as GBK (Chinese) text"),
    ("nul", b"[ERROR] APP(7,python):2026-01-01-00:00:00.000.000 [a.cc:1]7 F:half\x00\x00\x00 written\n",
     "hold NUL bytes"),
]


@pytest.mark.parametrize("name,data,warning", ENCODED, ids=[e[0] for e in ENCODED])
def test_bad_text_is_read_with_a_named_warning_and_its_bytes_recoverable(tmp_path, name, data, warning):
    path = tmp_path / "plog-7_20260101000000000.log"
    path.write_bytes(LINE + data + LINE)
    log = read_plog(path)
    (f,) = log.files
    assert f.lines == 3 and (log.records["kind"] == "plog").all()
    assert any(warning in w and f.path in w and "line 2" in w for w in log.warnings)
    assert log.raw_line(f.path, 2) == data.rstrip(b"\n")
    assert log.raw_line(f.path, 1) == LINE.rstrip(b"\n")
    if name == "gbk":
        assert log.records["msg"].iloc[1] == "设备内存不足，训练失败" and f.encoding == "utf-8+gbk"


def test_crlf_long_line_empty_and_binary_files(tmp_path):
    (tmp_path / "crlf.log").write_bytes(LINE.replace(b"\n", b"\r\n") * 3)
    long = b"[ERROR] APP(7,python):2026-01-01-00:00:00.000.000 [a.cc:1]7 F:" + b"x" * (5 << 20)
    (tmp_path / "long.log").write_bytes(long)              # 5 MB on one line, no final newline
    (tmp_path / "empty.log").write_bytes(b"")
    (tmp_path / "core.so").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 16)
    (tmp_path / "shot.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    (tmp_path / "padded.log").write_bytes(LINE + b"\0" * 9000)   # a writer that died: NUL padding, still text
    log = read_plog(tmp_path)
    assert log.file("crlf.log").lines == 3 and (log.records[log.records["file"] == "crlf.log"]["msg"] == "hello").all()
    assert "crlf.log: 3 lines (1, 2, 3) end with CRLF (Windows line endings)" in " ".join(log.warnings)
    # a 5 MB line is counted and kept whole on disk; only its first LONG_LINE characters are parsed
    msg = log.records[log.records["file"] == "long.log"]["msg"].iloc[0]
    assert log.file("long.log").lines == 1 and set(msg) == {"x"} and LONG_LINE - 100 < len(msg) < LONG_LINE
    assert log.raw_line("long.log", 1) == long
    assert any(w.startswith("long.log: line 1 longer than 65,536 characters") for w in log.warnings)
    assert log.file("empty.log").lines == 0 and "empty.log: empty file" in log.warnings
    assert log.file("core.so").skipped == "binary file (ELF executable)"
    assert log.file("shot.png").skipped == "binary file (PNG image)"
    assert log.file("padded.log").lines == 2 and log.file("padded.log").skipped is None


@pytest.mark.parametrize("order", ["utf-16-le", "utf-16-be"])
def test_utf16_capture_is_converted(tmp_path, order):
    """Either byte order, as its byte-order mark says (Windows tools write little-endian, some Java ones big)."""
    (tmp_path / "stdout.txt").write_bytes("\ufeffEZ9999: Inner Error!\r\nline two\r\n".encode(order))
    log = read_plog(tmp_path)
    (f,) = log.files
    assert (f.lines, f.role) == (2, "screen_capture")
    assert f"{f.path}: UTF-16 text, read as UTF-8 after conversion (line bytes are the converted ones)" in f.warnings
    assert log.raw_line(f.path, 2) == b"line two\r"


def cli(*args):
    return subprocess.run([sys.executable, "-m", "casebook.cli", "triage", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


def test_not_a_bundle_exits_2_with_one_line(tmp_path):
    (tmp_path / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    r = cli(tmp_path / "photo.png")
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1
    assert "not a log bundle" in r.stderr and "binary file (PNG image)" in r.stderr
    bomb = tmp_path / "big.log.gz"
    bomb.write_bytes(gzip.compress(LINE * 10000))
    r = cli(bomb, "--max-bytes", "1000")
    assert r.returncode == 2 and "--max-bytes" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = cli(bomb, "--json")
    assert r.returncode == 0


def test_names_that_are_not_utf8_or_hold_control_characters_are_shown_safely(tmp_path, capsys):
    from casebook.cli import main
    Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9.log")).write_bytes(LINE)   # a Latin-1 file name
    with tarfile.open(tmp_path / "odd.tar", "w", encoding="utf-8", errors="surrogateescape") as tar:
        info = tarfile.TarInfo("two\nlines\udcff.log")
        info.size = len(LINE)
        tar.addfile(info, io.BytesIO(LINE))
    log = read_plog(tmp_path)
    assert sorted(f.path for f in log.files) == ["caf\ufffd.log", f"odd.tar{MEMBER_SEP}two\\x0alines\ufffd.log"]
    assert log.lines == 2
    assert main(["triage", str(tmp_path), "--json"]) == 0   # printable as JSON
    assert "two\\\\x0alines" in capsys.readouterr().out


def test_too_many_entries_are_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n in range(20):
            zf.writestr(f"f{n}.log", LINE)
    (tmp_path / "many.zip").write_bytes(buf.getvalue())
    (f,) = read_plog(tmp_path / "many.zip", limits=Limits(max_members=5)).files
    assert (f.path, f.skipped) == ("many.zip", "refused: more than 5 entries")
    assert read_plog(tmp_path / "many.zip").lines == 20


@pytest.mark.parametrize("ratio", [0.25, 1, 1.5, 200.0])
def test_any_finite_ratio_above_0_is_a_limit_even_below_1(ratio):
    # a ratio below 1 refuses an archive that expands at all past the floor: strict, but a limit the user may set
    assert Limits(max_ratio=ratio).max_ratio == ratio


@pytest.mark.parametrize("ratio", [0, -1.0, float("nan"), float("inf"), "200"])
def test_a_ratio_that_is_not_a_finite_number_above_0_is_refused(ratio):
    with pytest.raises(ValueError, match="Limits.max_ratio must be a finite number above 0"):
        Limits(max_ratio=ratio)
