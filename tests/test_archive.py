"""Archives: every container shape reads exactly the lines of the folder it packs; damage is read up to."""
import gc
import gzip
import io
import pickle
import tarfile
import zipfile
from pathlib import Path

import pytest
from casebook.reading.entries import MEMBER_SEP, path_for_roles
from casebook.reading.plog import read_file, read_plog
from casebook.reading.limits import Limits
from conftest import COLLECTIONS


def pack_tar(src: Path, out: Path, mode: str = "w") -> Path:
    with tarfile.open(out, mode) as tar:
        tar.add(src, arcname=src.name)
    return out


def pack_zip(src: Path, out: Path) -> Path:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(src.rglob("*")):
            if p.is_file():
                zf.write(p, p.relative_to(src.parent).as_posix())
    return out


def accounting(log, prefix=""):
    """(member path without the archive prefix, role, node, rank, device, pid, lines, unparsed) of each file."""
    return sorted((f.path.split(MEMBER_SEP)[-1] if MEMBER_SEP in f.path else prefix + f.path, f.role, f.node,
                   f.rank, f.device, f.pid, f.lines, f.unparsed) for f in log.files)


@pytest.mark.parametrize("name", COLLECTIONS)
@pytest.mark.parametrize("shape", ["tar", "tar.gz", "tgz", "zip"])
def test_each_archive_shape_reads_what_the_folder_reads(corpus, tmp_path, name, shape):
    folder = read_plog(corpus / name)
    if shape == "zip":
        archive = pack_zip(corpus / name, tmp_path / f"{name}.zip")
    else:
        archive = pack_tar(corpus / name, tmp_path / f"{name}.{shape}", "w" if shape == "tar" else "w:gz")
    packed = read_plog(archive)
    assert accounting(packed) == accounting(folder, prefix=f"{name}/")
    assert packed.lines == folder.lines and packed.lines_unparsed == folder.lines_unparsed
    assert all(f.path.startswith(f"{archive.name}{MEMBER_SEP}{name}/") for f in packed.files)
    assert packed.records["file"].isin([f.path for f in packed.files]).all()


def test_single_gz_file_and_nested_archives_in_a_folder(corpus, tmp_path):
    host = corpus / "aicore-old-slog-layout/slog/host-0/host-0_20200909152234009.log"
    (tmp_path / "bundle").mkdir()
    (tmp_path / "bundle" / (host.name + ".gz")).write_bytes(gzip.compress(host.read_bytes()))
    inner = pack_zip(corpus / "hccl-event-timeout-2workers", tmp_path / "w.zip")
    pack_tar(inner, tmp_path / "bundle" / "nodes.tar.gz", "w:gz")
    log = read_plog(tmp_path / "bundle")
    gz = log.file(f"{host.name}.gz{MEMBER_SEP}{host.name}")
    assert (gz.role, gz.pid, gz.lines) == ("host_plog", 13694, host.read_bytes().count(b"\n"))
    nested = [f for f in log.files if f.path.startswith(f"nodes.tar.gz{MEMBER_SEP}w.zip{MEMBER_SEP}")]
    assert len(nested) == 6 and {f.node for f in nested} == {"worker-0", "worker-1"}
    assert sum(f.lines for f in nested) == read_plog(corpus / "hccl-event-timeout-2workers").lines


def test_archive_names_count_as_folders_for_roles():
    assert path_for_roles("worker-3.tar.gz!/process_log/debug/plog/plog-1_20260101000000000.log") == \
        "worker-3/process_log/debug/plog/plog-1_20260101000000000.log"
    assert path_for_roles("a/rank_2.zip!/x.tgz!/plog-1_20260101000000000.log") == \
        "a/rank_2/x/plog-1_20260101000000000.log"


def test_member_files_pickle_and_read_alone_then_the_spool_goes(corpus, tmp_path):
    archive = pack_tar(corpus / "hccl-event-timeout-2workers", tmp_path / "b.tgz", "w:gz")
    log = read_plog(archive)
    f = log.files[0]
    spool_dir = f.spool.dir
    copy = pickle.loads(pickle.dumps(f))         # what a worker process would receive
    copy.lines = 0
    mine = log.records[log.records["file"] == f.path]
    assert [(r[1], r[2], r[13]) for r in read_file(copy)] == list(zip(mine["line"], mine["kind"], mine["msg"]))
    del copy
    gc.collect()
    assert spool_dir.is_dir()                    # a copy never removes the folder
    assert sorted(p.name for p in spool_dir.iterdir()) == [p.name for p in sorted(spool_dir.iterdir())]
    assert all(p.name.endswith(".member") for p in spool_dir.iterdir())
    log.close()
    assert not spool_dir.exists()


def test_spool_is_removed_when_the_table_is_dropped(corpus, tmp_path):
    archive = pack_zip(corpus / "hccl-event-timeout-2workers", tmp_path / "b.zip")
    log = read_plog(archive)
    spool_dir = log.files[0].spool.dir
    del log
    gc.collect()
    assert not spool_dir.exists()


def test_truncated_gzip_is_read_up_to_the_damage(tmp_path):
    text = b"".join(b"[ERROR] APP(1,p):2026-01-01-00:00:00.000.000 [a.cc:1]1 F:line %d\n" % i for i in range(20000))
    blob = gzip.compress(text)
    (tmp_path / "plog-1_20260101000000000.log.gz").write_bytes(blob[: len(blob) // 2])
    log = read_plog(tmp_path)
    (f,) = log.files
    assert f.path == f"plog-1_20260101000000000.log.gz{MEMBER_SEP}plog-1_20260101000000000.log"
    assert 0 < f.lines < 20000 and f.skipped is None
    assert any("damaged or truncated" in w and f.path in w for w in log.warnings)


def test_truncated_tar_gz_keeps_the_members_before_and_part_of_the_broken_one(tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for n in range(3):
            data = b"".join(b"[INFO] APP(%d,p):2026-01-01-00:00:00.000.000 x %d %d\n" % (n, n, i)
                            for i in range(30000))
            info = tarfile.TarInfo(f"log/plog-{n}_20260101000000000.log")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    blob = buf.getvalue()
    (tmp_path / "cut.tar.gz").write_bytes(blob[: int(len(blob) * 0.5)])
    log = read_plog(tmp_path / "cut.tar.gz")
    read = [f for f in log.files if not f.skipped]
    assert read[0].lines == 30000
    assert any("damaged or truncated" in w for f in read for w in f.warnings)


def test_corrupt_zip_member_is_named_and_the_others_are_read(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a/plog-1_20260101000000000.log", b"[ERROR] APP(1,p):2026-01-01-00:00:00.000.000 one\n" * 500)
        zf.writestr("b/plog-2_20260101000000000.log", b"[ERROR] APP(2,p):2026-01-01-00:00:00.000.000 two\n" * 500)
    blob = bytearray(buf.getvalue())
    start = blob.index(b"a/plog-1_20260101000000000.log") + len("a/plog-1_20260101000000000.log")
    for i in range(start + 20, start + 40):
        blob[i] ^= 0x5A
    (tmp_path / "bad.zip").write_bytes(bytes(blob))
    log = read_plog(tmp_path / "bad.zip")
    good = log.file(f"bad.zip{MEMBER_SEP}b/plog-2_20260101000000000.log")
    assert good.lines == 500 and not good.warnings
    bad = log.file(f"bad.zip{MEMBER_SEP}a/plog-1_20260101000000000.log")
    assert any(bad.path in w for w in bad.warnings)


def test_zip_without_its_directory_is_read_from_local_headers(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for n in range(3):
            zf.writestr(f"plog-{n}_20260101000000000.log", b"[INFO] APP(1,p):2026-01-01-00:00:00.000.000 x\n" * 100)
    blob = buf.getvalue()
    (tmp_path / "cut.zip").write_bytes(blob[: blob.index(b"PK\x01\x02")])   # the central directory is lost
    log = read_plog(tmp_path / "cut.zip")
    assert [f.lines for f in log.files] == [100, 100, 100]
    assert all("zip directory missing" in f.warnings[0] for f in log.files)
    (tmp_path / "cut.zip").write_bytes(blob[: blob.index(b"PK\x01\x02") - 40])   # and the last entry cut short
    log = read_plog(tmp_path / "cut.zip")
    assert [f.lines for f in log.files][:2] == [100, 100] and log.files[2].lines < 100
    assert any("truncated" in w or "damaged" in w for w in log.files[2].warnings)


def test_unsupported_compression_is_listed_with_its_reason(tmp_path):
    import bz2
    (tmp_path / "logs.tar.bz2").write_bytes(bz2.compress(b"x" * 100))
    (tmp_path / "plog-1_20260101000000000.log").write_text("[INFO] APP(1,p):2026-01-01-00:00:00.000.000 x\n")
    log = read_plog(tmp_path)
    assert log.file("logs.tar.bz2").skipped.startswith("unsupported compression (bz2)")


def test_limits_are_function_arguments(tmp_path):
    (tmp_path / "big.log.gz").write_bytes(gzip.compress(b"[INFO] APP(1,p):2026-01-01-00:00:00.000.000 x\n" * 5000))
    log = read_plog(tmp_path, limits=Limits(max_bytes=1000))
    (f,) = log.files
    assert f.skipped and "--max-bytes" in f.skipped and f.lines == 0
    assert read_plog(tmp_path).files[0].lines == 5000


def test_member_names_are_shown_with_slashes_and_without_dot_prefix(tmp_path):
    line = b"[ERROR] APP(3,python):2026-01-01-00:00:00.000.000 x\n"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("worker-1\\debug\\plog\\plog-3_20260101000000000.log", line)
    (tmp_path / "win.zip").write_bytes(buf.getvalue())
    with tarfile.open(tmp_path / "dot.tar", "w") as tar:
        info = tarfile.TarInfo("./run/plog/plog-4_20260101000000000.log")
        info.size = len(line)
        tar.addfile(info, io.BytesIO(line))
    log = read_plog(tmp_path)
    win = log.file(f"win.zip{MEMBER_SEP}worker-1/debug/plog/plog-3_20260101000000000.log")
    assert (win.role, win.node, win.sort, win.pid) == ("host_plog", "worker-1", "debug", 3)
    assert log.file(f"dot.tar{MEMBER_SEP}run/plog/plog-4_20260101000000000.log").sort == "run"


LINE = b"[INFO] APP(1,p):2026-01-01-00:00:00.000.000 x\n"


def _headless(entries, stream: bool = False) -> bytes:
    """A zip of (name, data, method) entries without its central directory; `stream`: written as to a pipe, each
    entry's sizes and CRC-32 in a data descriptor after its data (flag 0x8)."""
    class Pipe(io.RawIOBase):
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.data += b
            return len(b)

    out = Pipe() if stream else io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data, method in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            with zf.open(info, "w") as w:
                w.write(data)
    blob = bytes(out.data) if stream else out.getvalue()
    return blob[: blob.index(b"PK\x01\x02")]


def test_a_headless_zip_names_its_entries_by_their_flags_encoding_and_warns_once_each(tmp_path):
    blob = _headless([("cafX.log", LINE * 3, zipfile.ZIP_STORED), ("日志.log", LINE * 2, zipfile.ZIP_STORED)])
    # the first name in the old DOS code page (no UTF-8 flag): 0x82 is é there, not a UTF-8 byte
    blob = blob.replace(b"cafX.log", b"caf\x82.log")
    (tmp_path / "c.zip").write_bytes(blob)
    log = read_plog(tmp_path / "c.zip")
    assert [f.path for f in log.files] == [f"c.zip{MEMBER_SEP}café.log", f"c.zip{MEMBER_SEP}日志.log"]
    assert [f.lines for f in log.files] == [3, 2]
    note = ("c.zip: zip directory missing (BadZipFile: File is not a zip file); entries read from their local "
            "headers")
    assert [f.warnings for f in log.files] == [[note], [note]]


def test_a_headless_zip_stops_at_an_entry_it_must_refuse_and_says_why(tmp_path):
    blob = _headless([("a.log", LINE, zipfile.ZIP_STORED), ("../evil.log", LINE, zipfile.ZIP_STORED),
                      ("b.log", LINE, zipfile.ZIP_STORED)])
    (tmp_path / "r.zip").write_bytes(blob)
    log = read_plog(tmp_path / "r.zip")
    assert sorted((f.path.split(MEMBER_SEP)[-1], f.lines, f.skipped) for f in log.files) == [
        ("../evil.log", 0, "refused: path with '..'"), ("a.log", 1, None)]
    assert all("zip directory missing" in f.warnings[0] for f in log.files)


def test_a_headless_zip_checks_each_entry_by_the_crc_its_data_descriptor_records(tmp_path):
    entries = [("a.log", LINE * 4, zipfile.ZIP_DEFLATED), ("b.log", LINE * 2, zipfile.ZIP_DEFLATED)]
    blob = _headless(entries, stream=True)
    assert blob.count(b"PK\x07\x08") == 2   # each entry's CRC-32 follows its data
    (tmp_path / "d.zip").write_bytes(blob)
    log = read_plog(tmp_path / "d.zip")
    assert [(f.lines, len(f.warnings)) for f in log.files] == [(4, 1), (2, 1)]
    # a changed CRC-32 in the first descriptor is reported, and the next entry is still found
    at = blob.index(b"PK\x07\x08") + 4
    bad = blob[:at] + bytes(b ^ 0xFF for b in blob[at:at + 4]) + blob[at + 4:]
    (tmp_path / "d.zip").write_bytes(bad)
    first, second = read_plog(tmp_path / "d.zip").files
    assert (first.lines, second.lines) == (4, 2) and not second.warnings[1:]
    assert "CRC-32 is" in first.warnings[1] and "read as it decoded" in first.warnings[1]


def test_a_headless_zip_cut_inside_an_entry_reads_up_to_the_cut_and_no_further(tmp_path):
    blob = _headless([("a.log", LINE * 50, zipfile.ZIP_STORED), ("b.log", LINE * 50, zipfile.ZIP_STORED)])
    cut = blob.index(b"b.log") + 5 + 10 * len(LINE)   # ten lines into the second entry's data
    (tmp_path / "t.zip").write_bytes(blob[:cut])
    a, b = read_plog(tmp_path / "t.zip").files
    assert (a.lines, b.lines) == (50, 10)
    assert b.warnings[1] == (f"t.zip{MEMBER_SEP}b.log: damaged or truncated entry (its compressed data ends early); "
                             f"read up to the damage ({10 * len(LINE)} bytes)")


@pytest.mark.parametrize("member, target, inside", [
    ("a/link", "b.log", True), ("a/link", "../b.log", True), ("a/link", "../../b.log", False),
    ("link", "../b.log", False), ("a/b/link", "./../c/../d.log", True), ("a/link", "/etc/passwd", False),
    ("a/link", "..\\..\\x", False), ("a/link", "c:/x", False), ("a/link", ".", True), ("a/b/link", "../..", True),
    ("a/b/link", "../../..", False)])
def test_a_link_stays_inside_the_archive_only_when_it_never_climbs_above_its_top(member, target, inside):
    from casebook.reading.entries import link_inside
    assert link_inside(member, target) is inside


def test_unsupported_xz_is_listed_with_its_reason(tmp_path):
    import lzma
    (tmp_path / "logs.tar.xz").write_bytes(lzma.compress(b"x" * 100))
    (f,) = read_plog(tmp_path / "logs.tar.xz").files
    assert (f.path, f.lines, f.skipped) == ("logs.tar.xz", 0,
                                            "unsupported compression (xz); unpack it and send the files")


@pytest.mark.parametrize("name, data", [
    # zip's local-header magic, then text: no zip directory, and the name length its header would give is over 4 KiB
    ("note.txt", b"PK\x03\x04 is how a zip starts, but this is a note\n" + b"of three lines\n" * 2),
    # "ustar" where a tar header has it, in a line of text: no tar header checks out
    ("ustar.txt", LINE * 3 + b"x" * (257 - 3 * len(LINE)) + b"ustar\n" + LINE * 5),
])
def test_a_text_that_only_starts_like_an_archive_is_read_as_text(tmp_path, name, data):
    from casebook.reading.archive import sniff
    (tmp_path / name).write_bytes(data)
    assert sniff(tmp_path / name) is None
    (f,) = read_plog(tmp_path / name).files
    assert (f.path, f.lines, f.skipped, f.warnings) == (name, data.count(b"\n"), None, [])
