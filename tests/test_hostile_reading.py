"""Hostile reading, round two: a file truncated while it is read, changed bytes inside a compressed tar,
zstd files, and a file rewritten with its old size and modification time. Every input is built here."""
import gzip
import io
import json
import os
import random
import subprocess
import sys
import tarfile
import textwrap
import threading
import time
import zipfile
from pathlib import Path

import pytest
from casebook.judging import readings
from casebook.judging.triage import triage
from casebook.reading import scan, unzstd
from casebook.reading.limits import Limits
from casebook.reading.plog import read_plog

NAME = "plog-7_20260101000000000.log"
ROOT = Path(__file__).resolve().parents[1]
CASEBOOK = ROOT / ".venv" / "bin" / "casebook"
needs_scanner = pytest.mark.skipif(not scan.available() and not os.environ.get("CI"),
                                   reason="the compiled scanner is not built here")
needs_zstd = pytest.mark.skipif(not unzstd.available(), reason="the zstandard package is not installed")


def log_lines(n: int, tag: str = "a", code: str = "0x8000") -> bytes:
    return b"".join(b"[ERROR] APP(7,python):2026-01-01-00:00:00.000.000 [a.cc:%d]7 F:%s errcode:(0, %s, 0) line %d\n"
                    % (i, tag.encode(), code.encode(), i) for i in range(1, n + 1))


def info_lines(n: int) -> bytes:
    return b"".join(b"[INFO] APP(7,python):2026-01-01-00:00:00.000.000 [a.cc:1]7 F: step %d ok\n" % i
                    for i in range(n))


def tar_of(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


# -- a file truncated while it is read -------------------------------------------------------------------------------
# The child maps the file, and only then is the file cut (scan.select is the first thing to read the map): the pages
# past the new end are gone, and reading one raises SIGBUS, which ended the process (rc -7) before.
_CUT_WHILE_SCANNED = textwrap.dedent("""
    import os, sys
    from casebook.reading import scan
    real = scan.select
    def cut_then_scan(data, keep, *args, **kwargs):
        os.truncate(sys.argv[1], int(sys.argv[2]))
        return real(data, keep, *args, **kwargs)
    scan.select = cut_then_scan
    from casebook.cli import main
    sys.exit(main(["triage", sys.argv[1]]))
""")


@needs_scanner
@pytest.mark.parametrize("keep", [100_000, 0])
def test_a_file_truncated_while_it_is_scanned_is_read_as_it_is_now(tmp_path, keep):
    path = tmp_path / NAME
    path.write_bytes((info_lines(40_000) + log_lines(3)) * 8)     # ~16 MiB, many pages past the cut
    done = subprocess.run([sys.executable, "-c", _CUT_WHILE_SCANNED, str(path), str(keep)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == (0 if keep else 2), done.stderr[-2000:]   # an emptied file holds nothing to read
    assert "Traceback" not in done.stderr and "Fatal Python error" not in done.stderr
    if keep:
        assert f"warning: {NAME}: truncated while it was read (" in done.stderr
        assert f"{keep} bytes now); read as it is now" in done.stderr


_READ_CUT = textwrap.dedent("""
    import json, os, sys
    from pathlib import Path
    from casebook.reading import scan
    from casebook.reading.bundle import LogFile
    from casebook.reading.plog import read_file
    path, keep = Path(sys.argv[1]), int(sys.argv[2])
    real = scan.select
    def cut_then_scan(data, literals, *args, **kwargs):
        os.truncate(path, keep)
        return real(data, literals, *args, **kwargs)
    scan.select = cut_then_scan
    f = LogFile(path=path.name, source=path)
    rows = read_file(f, keep=("errcode",))
    print(json.dumps({"lines": f.lines, "rows": len(rows), "skipped": f.skipped, "warnings": f.warnings}))
""")


@needs_scanner
def test_the_lines_that_were_there_are_read_and_counted(tmp_path):
    data = info_lines(60_000) + log_lines(5)
    path = tmp_path / NAME
    path.write_bytes(data * 3)
    # in a process of its own: a SIGBUS would end it, not the test run
    done = subprocess.run([sys.executable, "-c", _READ_CUT, str(path), str(len(data))], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    read = json.loads(done.stdout)
    # sifted on what is left (sift.py): every line counted, its five error lines recorded
    assert (read["lines"], read["rows"], read["skipped"]) == (60_005, 5, None)
    assert read["warnings"] == [f"{NAME}: truncated while it was read ({3 * len(data)} bytes when it was mapped, "
                                f"{len(data)} bytes now); read as it is now: a writer may have rotated or emptied "
                                f"it, collect it again"]


@needs_scanner
def test_a_file_emptied_before_it_is_mapped_is_named_too(tmp_path):
    path = tmp_path / NAME
    path.write_bytes(b"")
    with open(path, "rb") as fh, pytest.raises(scan.Shrunk, match="emptied before it was mapped"):
        scan.select_file(fh.fileno(), ("errcode",))


@needs_scanner
def test_a_triage_survives_a_writer_that_keeps_cutting_and_refilling_its_file(tmp_path):
    path = tmp_path / NAME
    # ERROR lines, every one picked: the scan's last phase, copying the picked lines out of the map, is long enough
    # for a cut to land in it too (a guard the compiler had dropped there let SIGBUS end the process)
    whole = (info_lines(30_000) + log_lines(2)) * 5 + log_lines(80_000)          # ~19 MiB
    path.write_bytes(whole)
    stop = threading.Event()

    def writer():
        while not stop.is_set():
            with open(path, "r+b") as fh:
                fh.truncate(random.randrange(0, len(whole)))
            time.sleep(random.choice((0.002, 0.03)))
            path.write_bytes(whole)
            time.sleep(random.choice((0.002, 0.03)))

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        for _ in range(4):
            done = subprocess.run([str(CASEBOOK), "triage", str(path)], capture_output=True, text=True, timeout=300)
            assert done.returncode in (0, 2), done.stderr[-2000:]   # 2: the file was empty when it was read
            assert "Traceback" not in done.stderr
    finally:
        stop.set()
        thread.join()


# -- changed bytes inside a compressed tar ---------------------------------------------------------------------------
TAR = tar_of({f"debug/plog/plog-7_2026010100000000{i}.log": log_lines(400, tag=str(i)) for i in range(3)})


def changed_code(packed: bytes) -> bytes:
    """A stored (level 0) gzip with one error code changed in its data: it still decodes, only its CRC-32 tells."""
    at = packed.index(b"0x8000")
    return packed[:at] + b"0x8100" + packed[at + 6:]


def test_a_tar_gz_whose_data_was_changed_warns_naming_it(tmp_path):
    (tmp_path / "bundle.tar.gz").write_bytes(changed_code(gzip.compress(TAR, 0)))
    log = read_plog(tmp_path / "bundle.tar.gz")
    assert len(log.files) == 3 and log.lines == 1200            # every entry read, as it decoded
    assert (log.records.msg.str.contains("0x8100")).sum() == 1
    (warning,) = log.warnings
    assert warning.startswith("bundle.tar.gz: damaged compressed data (error: incorrect data check (CRC-32 or size")
    assert "found after the tar's end" in warning


def test_the_same_tar_gz_untouched_gives_no_warning(tmp_path):
    (tmp_path / "bundle.tgz").write_bytes(gzip.compress(TAR, 0))
    log = read_plog(tmp_path / "bundle.tgz")
    assert log.lines == 1200 and not log.warnings


def test_a_changed_tgz_inside_a_zip_warns_naming_it(tmp_path):
    with zipfile.ZipFile(tmp_path / "outer.zip", "w") as zf:
        zf.writestr("node-0/logs.tgz", changed_code(gzip.compress(TAR, 0)))
        zf.writestr("node-1/plog.log.gz", changed_code(gzip.compress(log_lines(50), 0)))
    log = read_plog(tmp_path / "outer.zip")
    assert log.lines == 1250
    assert any(w.startswith("outer.zip!/node-0/logs.tgz: damaged compressed data (error: incorrect data check")
               for w in log.warnings)
    assert any(w.startswith("outer.zip!/node-1/plog.log.gz!/plog.log: damaged or truncated compressed data")
               for w in log.warnings)


def test_any_flipped_byte_of_a_deflated_tar_gz_is_named_or_changes_nothing(tmp_path):
    packed = gzip.compress(TAR, 9)
    rng = random.Random(26)
    for n, at in enumerate(rng.sample(range(10, len(packed) - 8), 12)):   # the deflate data, header and trailer aside
        bad = bytearray(packed)
        bad[at] ^= 1 << rng.randrange(8)
        path = tmp_path / f"b{n}.tar.gz"
        path.write_bytes(bytes(bad))
        log = read_plog(path)
        read = b"".join(f.source.read_bytes() for f in log.files if f.source and not f.skipped)
        named = [w for w in log.warnings if w.startswith(f"b{n}.tar.gz")]
        assert named or read == b"".join(log_lines(400, tag=str(i)) for i in range(3)), at


@needs_zstd
def test_a_tar_zst_whose_data_was_changed_warns_naming_it(tmp_path):
    import zstandard
    packed = zstandard.ZstdCompressor(level=1, write_checksum=True).compress(TAR)
    at = len(packed) // 2
    bad = packed[:at] + bytes([packed[at] ^ 0x20]) + packed[at + 1:]
    (tmp_path / "bundle.tar.zst").write_bytes(bad)
    log = read_plog(tmp_path / "bundle.tar.zst")
    assert any(w.startswith("bundle.tar.zst") and "damaged" in w for w in log.warnings), log.warnings


# -- zstd ------------------------------------------------------------------------------------------------------------
def zstd_blocks(data: bytes) -> bytes:
    """`data` as the zstd tool writes it: one frame of many blocks, with its checksum."""
    import zstandard
    return zstandard.ZstdCompressor(level=3, write_checksum=True).compress(data)


@needs_zstd
def test_a_zst_is_read_like_the_file_it_holds(tmp_path):
    data = log_lines(3000)
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / NAME).write_bytes(data)
    (tmp_path / (NAME + ".zst")).write_bytes(zstd_blocks(data))
    (tmp_path / "logs.tar.zst").write_bytes(zstd_blocks(TAR))
    plain = read_plog(tmp_path / "plain" / NAME)
    packed = read_plog(tmp_path / (NAME + ".zst"))
    assert [f.path for f in packed.files] == [f"{NAME}.zst!/{NAME}"] and not packed.warnings
    assert packed.files[0].role == "host_plog" and packed.files[0].pid == 7
    assert packed.records.msg.tolist() == plain.records.msg.tolist()
    tar = read_plog(tmp_path / "logs.tar.zst")
    assert len(tar.files) == 3 and tar.lines == 1200 and not tar.warnings


@needs_zstd
def test_a_truncated_zst_keeps_the_lines_before_the_cut_and_never_garbage(tmp_path):
    data = log_lines(40_000)
    packed = zstd_blocks(data)
    (tmp_path / "cut.log.zst").write_bytes(packed[:len(packed) * 2 // 3])
    log = read_plog(tmp_path / "cut.log.zst")
    (f,) = log.files
    assert not f.skipped and 0 < f.lines < 40_000
    kept = f.source.read_bytes()
    assert data.startswith(kept)                                  # a prefix of the original: nothing made up
    assert f.warnings == [f"cut.log.zst!/cut.log: damaged or truncated compressed data (EOFError: compressed data "
                          f"ends inside a zstd block); read up to the damage ({len(kept)} bytes)"]


@needs_zstd
def test_a_zst_cut_inside_its_first_block_is_refused_not_read(tmp_path):
    (tmp_path / "tiny.log.zst").write_bytes(zstd_blocks(log_lines(10))[:20])
    log = read_plog(tmp_path / "tiny.log.zst")
    assert [f.skipped for f in log.files] == ["unreadable: damaged compressed data (EOFError: compressed data ends "
                                              "inside a zstd block)"]
    assert log.lines == 0


@needs_zstd
def test_a_zst_bomb_is_refused_by_the_ratio_limit(tmp_path):
    import zstandard
    (tmp_path / "bomb.log.zst").write_bytes(zstandard.ZstdCompressor().compress(b"\n" * (64 << 20)))
    log = read_plog(tmp_path / "bomb.log.zst", limits=Limits(ratio_floor=1 << 20))
    assert any("--max-ratio" in (f.skipped or "") for f in log.files)


def test_without_zstandard_a_zst_is_refused_as_unsupported(tmp_path, monkeypatch):
    # the magic number and a frame header: what the zstd tool writes first
    (tmp_path / "x.log.zst").write_bytes(b"\x28\xb5\x2f\xfd\x24\x13\x99\x00\x00" + bytes(range(40)))
    monkeypatch.setattr(unzstd, "zstandard", None)
    log = read_plog(tmp_path / "x.log.zst")
    (f,) = log.files
    assert f.lines == 0 and f.skipped.startswith("unsupported compression (zstd): the zstandard package is not "
                                                 "installed")
    assert log.records.empty                                      # no garbage lines
    assert log.warnings == [f"x.log.zst: skipped ({f.skipped})"]


# -- a file rewritten with its old size and modification time -------------------------------------------------------
def test_a_file_rewritten_with_its_old_size_and_mtime_is_read_anew(tmp_path):
    bundle = tmp_path / "b"
    (bundle / "debug" / "plog").mkdir(parents=True)
    path = bundle / "debug" / "plog" / NAME
    path.write_bytes(log_lines(200, code="0x8000"))
    first = triage(bundle)
    assert first.log.records.msg.str.contains("0x8000").sum() == 200
    st = path.stat()
    path.write_bytes(log_lines(200, code="0x4000"))             # the same size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))           # and the same modification time
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    again = triage(bundle)
    assert again.log is not first.log
    assert again.log.records.msg.str.contains("0x4000").sum() == 200
    assert not again.log.records.msg.str.contains("0x8000").any()


def test_where_the_change_time_cannot_tell_the_ends_of_the_file_do(tmp_path):
    path = tmp_path / NAME
    path.write_bytes(log_lines(500, code="0x8000"))
    st = path.stat()
    before = readings._identity(path, st)
    data = path.read_bytes()
    path.write_bytes(data[:-readings.ENDS // 2] + data[-readings.ENDS // 2:].replace(b"0x8000", b"0x4000"))
    assert readings._identity(path, st) != before                # the very same stat: only the bytes differ
    path.write_bytes(data)
    assert readings._identity(path, st) == before


def _zstd_text(data: bytes) -> tuple[bytes, str | None]:
    """What the zstd reader decodes of `data`, and the message of the error it stops on (None when none)."""
    from casebook.reading.unzstd import Unzstd
    z, out = Unzstd(io.BytesIO(data)), []
    try:
        while chunk := z.read(1 << 16):
            out.append(chunk)
    except (EOFError, OSError) as e:
        return b"".join(out), str(e)
    return b"".join(out), None


@needs_zstd
def test_a_zstd_stream_is_walked_frame_by_frame_and_each_cut_is_named():
    data = log_lines(200)
    frame = zstd_blocks(data)
    assert _zstd_text(frame) == (data, None)
    assert _zstd_text(b"") == (b"", "empty zstd stream")
    assert _zstd_text(frame[:3]) == (b"", "compressed data ends inside a zstd frame header")
    # a skippable frame (metadata a decoder passes over) before and between frames: its length is read little-endian
    skippable = (0x184D2A53).to_bytes(4, "little") + (6).to_bytes(4, "little") + b"meta!!"
    assert _zstd_text(skippable + frame + skippable + frame) == (data + data, None)
    # one of no bytes ends the stream whole; one cut inside its 8 header bytes is named
    empty = (0x184D2A50).to_bytes(4, "little") + bytes(4)
    assert _zstd_text(frame + empty) == (data, None)
    assert _zstd_text(frame + empty[:7]) == (data, "compressed data ends inside a skippable zstd frame")
    # the frame's checksum (its last 4 bytes) cut off
    assert _zstd_text(frame[:-2]) == (data, "compressed data ends before the checksum of its zstd frame")
