"""Damaged containers and text: every line that can be decoded is read and counted, the damage is named, and an
entry that cannot be read at all is listed as refused while every other member is read."""
import gzip
import io
import json
import os
import random
import re
import struct
import subprocess
import tarfile
import zipfile
import zlib
from pathlib import Path

import pandas as pd
import pytest
from casebook.cli import main
from casebook.reading.bundle import LogFile
from casebook.reading.encoding import LONG_LINE
from casebook.reading.entries import MEMBER_SEP
from casebook.reading.limits import Limits
from casebook.reading.plog import parse_bytes, read_file, read_plog
from conftest import SAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NAME = "plog-7_20260101000000000.log"
EXAMPLES = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def log_lines(n: int, tag: str = "a") -> bytes:
    return b"".join(b"[ERROR] APP(7,python):2026-01-01-00:00:00.000.000 [a.cc:%d]7 F:%s line %d\n"
                    % (i, tag.encode(), i) for i in range(1, n + 1))


def line_count(data: bytes) -> int:
    """Lines as the reader defines them, counted independently: `\\n`-ended, plus a non-empty tail."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def triage_json(path: Path, capsys) -> dict:
    """`casebook triage PATH --json` run in this process: it must return 0, not raise."""
    assert main(["triage", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def by_member(log) -> dict:
    return {f.path.split(MEMBER_SEP, 1)[-1]: f for f in log.files}


# -- zip entries that cannot be read, or whose CRC is wrong ------------------------------------------------------
def zip_bytes(entries: list[tuple[str, bytes, int, int]]) -> bytes:
    """A zip of (name, data, method, unix mode) entries, written by zipfile."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data, method, mode in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type, info.external_attr = method, mode << 16
            zf.writestr(info, data)
    return buf.getvalue()


def patch_entry(blob: bytes, index: int, **fields) -> bytes:
    """Change the flags, method or CRC of entry `index` in both its local header and the central directory."""
    out = bytearray(blob)
    zf = zipfile.ZipFile(io.BytesIO(blob))
    info = zf.infolist()[index]
    central = [i for i in range(len(blob)) if blob.startswith(b"PK\x01\x02", i)][index]
    for base, at in ((info.header_offset, {"flags": 6, "method": 8, "crc": 14}),
                     (central, {"flags": 8, "method": 10, "crc": 16})):
        for key, value in fields.items():
            struct.pack_into("<I" if key == "crc" else "<H", out, base + at[key], value)
    return bytes(out)


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_a_zip_entry_with_a_wrong_crc_keeps_all_its_lines(tmp_path, method):
    data = log_lines(500)
    blob = zip_bytes([("a/" + NAME, data, method, 0o100644), ("b/" + NAME, log_lines(3), method, 0o100644)])
    (tmp_path / "crc.zip").write_bytes(patch_entry(blob, 0, crc=zlib.crc32(data) ^ 0xFF))
    log = read_plog(tmp_path / "crc.zip")
    a, b = by_member(log)["a/" + NAME], by_member(log)["b/" + NAME]
    assert (a.lines, b.lines, a.skipped) == (500, 3, None)
    assert "CRC-32" in a.warnings[0] and "read as it decoded" in a.warnings[0] and not b.warnings


DAMAGE = {
    "encrypted flag": ({"flags": 0x1}, "refused: encrypted zip entry"),
    "unknown method": ({"method": 99}, "refused: zip entry compressed with method 99"),
}


@EXAMPLES
@given(damage=st.sampled_from(sorted(DAMAGE) + ["bad crc", "garbage data", "method"]),
       link=st.booleans(), method=st.integers(0, 0xFFFF).filter(lambda m: m not in (0, 8, 12, 14)),
       lines=st.integers(1, 300))
def test_an_unreadable_zip_entry_is_refused_and_every_other_member_read(tmp_path_factory, capsys, damage, link,
                                                                          method, lines):
    tmp = tmp_path_factory.mktemp("zip")
    mode = 0o120777 if link else 0o100644
    target = b"../../etc/passwd" if link else log_lines(5, "x")
    entries = [("ok/" + NAME, log_lines(lines), zipfile.ZIP_DEFLATED, 0o100644),
               ("odd", target, zipfile.ZIP_DEFLATED, mode),
               ("after/" + NAME, log_lines(2), zipfile.ZIP_STORED, 0o100644)]
    blob = zip_bytes(entries)
    if damage == "bad crc":
        blob = patch_entry(blob, 1, crc=0xDEADBEEF)
    elif damage == "method":
        blob = patch_entry(blob, 1, method=method)
    elif damage == "garbage data":   # the deflated bytes of the entry overwritten: nothing decodes
        start = blob.index(b"odd", 30) + 3
        blob = blob[:start] + b"\xff" * (blob.index(b"PK", start) - start) + blob[blob.index(b"PK", start):]
    else:
        blob = patch_entry(blob, 1, **DAMAGE[damage][0])
    (tmp / "case.zip").write_bytes(blob)
    doc = triage_json(tmp / "case.zip", capsys)
    files = {f["path"]: f for f in doc["input"]["files"]}
    assert files[f"case.zip{MEMBER_SEP}ok/{NAME}"]["lines"] == lines
    assert files[f"case.zip{MEMBER_SEP}after/{NAME}"]["lines"] == 2
    odd = files[f"case.zip{MEMBER_SEP}odd"]
    if damage == "bad crc" and not link:
        assert odd["skipped"] is None and odd["lines"] == 5 and "CRC-32" in odd["warnings"][0]
    elif damage in DAMAGE:
        assert odd["skipped"].startswith(DAMAGE[damage][1])
    elif damage == "method":
        assert odd["skipped"] == f"refused: zip entry compressed with method {method}, which is not read"
    elif damage == "garbage data":
        assert odd["skipped"].startswith(("unreadable zip entry", "unreadable: damaged compressed data"))
    else:
        assert odd["skipped"] == "refused: symlink pointing outside the archive (../../etc/passwd)"
    assert doc["input"]["lines"] == lines + 2 + (odd["lines"] or 0)


def test_a_zip_without_directory_refuses_the_entries_past_the_limit_instead_of_dropping_them(tmp_path):
    blob = zip_bytes([(f"{n}/{NAME}", log_lines(2), zipfile.ZIP_DEFLATED, 0o100644) for n in range(8)])
    (tmp_path / "cut.zip").write_bytes(blob[:blob.index(b"PK\x01\x02")])
    log = read_plog(tmp_path / "cut.zip", limits=Limits(max_members=5))
    read = [f for f in log.files if not f.skipped]
    assert len(read) == 5 and all(f.lines == 2 for f in read)
    assert log.file("cut.zip").skipped == "refused: more than 5 entries"


def test_names_met_twice_in_one_archive_are_each_cited_apart(tmp_path):
    with pytest.warns(UserWarning, match="Duplicate name"):
        blob = zip_bytes([(f"a/{NAME}", log_lines(3, "first"), zipfile.ZIP_DEFLATED, 0o100644),
                          (f"a/{NAME}", log_lines(4, "second"), zipfile.ZIP_DEFLATED, 0o100644)])
    (tmp_path / "twice.zip").write_bytes(blob)
    with tarfile.open(tmp_path / "twice.tar", "w") as tar:
        for n in (1, 2, 5):
            info = tarfile.TarInfo(f"./b/{NAME}")
            info.size = len(log_lines(n))
            tar.addfile(info, io.BytesIO(log_lines(n)))
    log = read_plog(tmp_path)
    assert [(f.path, f.lines, f.role, f.pid) for f in log.files] == [
        (f"twice.tar{MEMBER_SEP}b/{NAME}", 1, "host_plog", 7), (f"twice.tar{MEMBER_SEP}b/{NAME}#2", 2, "host_plog", 7),
        (f"twice.tar{MEMBER_SEP}b/{NAME}#3", 5, "host_plog", 7), (f"twice.zip{MEMBER_SEP}a/{NAME}", 3, "host_plog", 7),
        (f"twice.zip{MEMBER_SEP}a/{NAME}#2", 4, "host_plog", 7)]
    second = log.records[log.records["file"] == f"twice.zip{MEMBER_SEP}a/{NAME}#2"]
    assert second["msg"].str.contains("second").all()


# -- tar and tar.gz cut anywhere -----------------------------------------------------------------------------------
MEMBERS = [("one/" + NAME, log_lines(40, "one")), ("two/" + NAME, log_lines(900, "two")),
           ("three/" + NAME, log_lines(60, "three"))]


def tar_stream() -> tuple[bytes, list[tarfile.TarInfo]]:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in MEMBERS:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    infos = tarfile.open(fileobj=io.BytesIO(buf.getvalue())).getmembers()
    return buf.getvalue(), infos


TAR, INFOS = tar_stream()


def expected_lines(stream: bytes) -> dict[str, int]:
    """Lines of each member that a tar stream cut to `stream` still holds (a member whose header is cut: none)."""
    out = {}
    for info, (name, data) in zip(INFOS, MEMBERS):
        if len(stream) >= info.offset_data:
            out[name] = line_count(data[:max(0, len(stream) - info.offset_data)])
    return out


@EXAMPLES
@given(cut=st.integers(1, len(TAR) - 1), compressed=st.booleans())
def test_a_tar_cut_anywhere_keeps_every_line_before_the_cut(tmp_path_factory, cut, compressed):
    tmp = tmp_path_factory.mktemp("tar")
    if compressed:
        packed = gzip.compress(TAR)
        packed = packed[:1 + cut * (len(packed) - 1) // len(TAR)]
        stream = zlib.decompressobj(31).decompress(packed)   # all of the tar that the cut gzip still holds
        path = tmp / "cut.tar.gz"
    else:
        packed = stream = TAR[:cut]
        path = tmp / "cut.tar"
    path.write_bytes(packed)
    if len(stream) < 512:
        return   # not even one header: nothing to read (covered below as not an archive)
    log = read_plog(path)
    got = {name: f.lines for name, f in by_member(log).items() if not f.skipped and f.lines}
    assert got == {name: n for name, n in expected_lines(stream).items() if n}
    complete = [name for info, (name, data) in zip(INFOS, MEMBERS) if len(stream) >= info.offset_data + len(data)]
    if len(complete) < len(MEMBERS):   # the cut is named: on the entry it falls in, or after the last entry
        assert any("damaged or truncated" in w for f in log.files for w in f.warnings) or \
            any(f.skipped and "cut or damaged after entry" in f.skipped for f in log.files)


def test_a_tar_without_its_end_blocks_reads_every_entry_and_says_where_it_ends(tmp_path):
    last = INFOS[-1]
    (tmp_path / "cut.tar").write_bytes(TAR[:last.offset_data + -(-last.size // 512) * 512])
    log = read_plog(tmp_path / "cut.tar")
    assert [(f.path, f.lines, f.skipped) for f in log.files] == [
        (f"cut.tar{MEMBER_SEP}(after entry 3)", 0,
         "archive cut or damaged after entry 3 (it ends without its end-of-archive blocks); entries before it were "
         "read"),
        *sorted((f"cut.tar{MEMBER_SEP}{name}", line_count(data), None) for name, data in MEMBERS)]

# -- a gzip with a flipped byte ---------------------------------------------------------------------------------
GZIPPED = gzip.compress(log_lines(4000), 6)


@EXAMPLES
@given(where=st.integers(10, len(GZIPPED) - 9), bit=st.integers(0, 7))
def test_a_gzip_with_a_flipped_byte_reads_at_least_what_zcat_recovers(tmp_path_factory, where, bit):
    tmp = tmp_path_factory.mktemp("gz")
    bad = bytearray(GZIPPED)
    bad[where] ^= 1 << bit
    (tmp / (NAME + ".gz")).write_bytes(bytes(bad))
    zcat = subprocess.run(["gzip", "-dc"], input=bytes(bad), capture_output=True).stdout
    log = read_plog(tmp)
    (f,) = log.files
    if f.skipped:   # nothing decodes (a byte of the gzip header itself)
        assert zcat == b""
        return
    got = Path(f.source).read_bytes()
    assert got.startswith(zcat) and f.lines == line_count(got) >= line_count(zcat)
    if got != log_lines(4000):
        assert any("damaged or truncated" in w for w in f.warnings)


# -- text damage ----------------------------------------------------------------------------------------------------
@EXAMPLES
@given(nuls=st.integers(1, 20000), lines=st.integers(1, 120), selective=st.booleans())
def test_a_log_after_a_run_of_nul_bytes_is_read_with_a_warning(tmp_path_factory, nuls, lines, selective):
    path = tmp_path_factory.mktemp("nul") / NAME
    path.write_bytes(b"\0" * nuls + log_lines(lines))
    f = LogFile(path=NAME, source=path)
    rows = read_file(f, keep=(), selective_from=1) if selective else parse_bytes(f, path.read_bytes())
    assert f.skipped is None and f.lines == len(rows) == lines
    assert [r[2] for r in rows] == ["plog"] * lines and rows[0][13] == "one line 1".replace("one", "a")
    assert f.warnings[0].startswith(f"{NAME}: starts with {nuls} NUL bytes")


def test_a_file_of_nothing_but_nul_bytes_is_still_binary():
    f = LogFile(path=NAME, source=Path(NAME))
    assert parse_bytes(f, b"\0" * 9000) == [] and f.skipped == "binary file (only NUL bytes)"


def test_crlf_and_bare_cr_endings_are_named():
    f = LogFile(path=NAME, source=Path(NAME))
    data = log_lines(2).replace(b"\n", b"\r\n") + b"progress 10%\rprogress 90%\rdone\n" + log_lines(1)
    rows = parse_bytes(f, data)
    assert f.lines == 4 and [r[13] for r in rows][:2] == ["a line 1", "a line 2"]
    assert f.warnings == [
        f"{NAME}: 2 lines (1, 2) end with CRLF (Windows line endings); the CR is left out of the parsed text",
        f"{NAME}: line 3 hold a CR before their end (old Mac line endings, or a progress line rewritten in place); "
        f"only LF ends a line, so each is one line"]


def test_a_long_line_picked_by_the_scanner_is_parsed_from_its_start(tmp_path):
    path = tmp_path / NAME
    path.write_bytes(log_lines(3) + b"[ERROR] APP(7,python):2026-01-01-00:00:00.000.000 [a.cc:9]7 F:" + b"y" * (3 << 20)
                     + b"\n" + log_lines(2))
    f = LogFile(path=NAME, source=path)
    rows = read_file(f, keep=(), selective_from=1)
    assert f.selective and f.lines == 6 and len(rows[3][13]) < LONG_LINE and set(rows[3][13]) == {"y"}
    assert any("line 4 longer than 65,536 characters" in w for w in f.warnings)


# -- numbers too long for their column ------------------------------------------------------------------------------
NUMBERED = [SAMPLES / "aicore-out-of-range-access" / "positive-mte-write-overflow",
            SAMPLES / "hccl-notify-wait-timeout" / "positive-peer-killed",
            SAMPLES / "task-queue-shared-cache-race" / "positive-info"]
DIGITS = re.compile(rb"(?<![0-9A-Fa-fx])\d+(?![0-9A-Fa-f])")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sample=st.sampled_from(NUMBERED), digits=st.sampled_from([19, 20, 4301, 5000]), seed=st.integers(0, 2 ** 16),
       per_file=st.integers(1, 40))
def test_numbers_too_long_for_their_column_never_break_the_triage(tmp_path_factory, capsys, sample, digits, seed,
                                                                  per_file):
    """A pid, rank, device, stream or line number of 19 to 5,000 digits, in lines and in file names, wherever a
    real sample has a number (`per_file` numbers of each file, picked at random): the field stays empty and the
    rest is read."""
    rng = random.Random(seed)
    out = tmp_path_factory.mktemp("numbers")
    for src in sorted(p for p in sample.rglob("*") if p.is_file() and p.name != "expect.yaml"):
        data = src.read_bytes()
        runs = rng.sample(list(DIGITS.finditer(data)), min(per_file, len(DIGITS.findall(data))))
        for m in sorted(runs, key=lambda m: -m.start()):
            data = data[:m.start()] + b"9" * digits + data[m.end():]
        name = src.name if rng.random() < 0.5 else DIGITS.sub(b"9" * min(digits, 200), src.name.encode(), 1).decode()
        dest = out / src.relative_to(sample).parent / name   # a name holds at most 255 bytes
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    doc = triage_json(out, capsys)
    assert doc["input"]["lines"] == sum(line_count(p.read_bytes()) for p in out.rglob("*") if p.is_file())


def test_a_20_digit_pid_and_5000_digit_names_leave_the_field_empty(tmp_path):
    head = b"[ERROR] APP(%s,python):2026-01-01-00:00:00.000.000 [a.cc:1]7 F:SetupAgent rankNum[8], rank[%s]\n"
    (tmp_path / ("rank_" + "1" * 200)).mkdir()   # a name holds at most 255 bytes: 200 digits stand for 5,000
    plog = tmp_path / ("rank_" + "1" * 200) / f"plog-{'2' * 200}_20260101000000000.log"
    plog.write_bytes(head % (b"1" * 20, b"3") + head % (b"7", b"4" * 5000))
    log = read_plog(tmp_path)
    (f,) = log.files
    assert (f.lines, f.pid, f.rank) == (2, 7, None) and log.records["pid"].tolist()[0] is pd.NA


def test_a_stored_entry_is_complete_once_its_size_is_read_and_an_empty_one_at_once():
    from casebook.reading.decompress import Stored
    fh = io.BytesIO(b"abcdefgh")
    fh.seek(2)
    s = Stored(fh, 4)
    assert (s.end, s.complete) == (6, False)
    assert s.read(3) == b"cde" and not s.complete and s.read() == b"f" and s.complete and s.read() == b""
    assert Stored(io.BytesIO(b"xy"), 0).complete


def test_a_deflated_entry_reads_no_further_than_its_limit_and_names_where_it_ends():
    from casebook.reading.decompress import Deflated
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = z.compress(b"line\n" * 1000) + z.flush()
    fh = io.BytesIO(packed + b"TRAILER")
    d = Deflated(fh, limit=len(packed) + 7)
    assert d.read() == b"line\n" * 1000 and d.complete and d.end == len(packed)
    short = Deflated(io.BytesIO(packed), limit=10)   # only its first 10 compressed bytes may be read
    got = short.read()
    assert not short.complete and len(got) < 5000 and (b"line\n" * 1000).startswith(got)
    assert Deflated(io.BytesIO(packed), limit=0).read() == b""


def test_a_gzip_header_is_measured_through_its_optional_fields_and_a_wrong_one_named():
    from casebook.reading.decompress import _header_length
    base = b"\x1f\x8b\x08"
    plain = base + b"\x00" + b"\x00" * 6
    assert _header_length(plain) == 10 and _header_length(plain[:9]) is None
    extra = base + b"\x04" + b"\x00" * 6 + struct.pack("<H", 5) + b"12345"
    assert _header_length(extra) == 17 and _header_length(extra[:11]) is None and _header_length(extra[:16]) is None
    named = base + b"\x18" + b"\x00" * 6 + b"plog.log\x00note\x00"
    assert _header_length(named) == 24 and _header_length(named[:-1]) is None
    crc = base + b"\x06" + b"\x00" * 6 + struct.pack("<H", 1) + b"x" + b"\xab\xcd"
    assert _header_length(crc) == 15 and _header_length(crc[:-1]) is None
    with pytest.raises(zlib.error, match=r"^not a gzip member \(incorrect header check\)$"):
        _header_length(b"PK\x03\x04" + b"\x00" * 8)
    # a whole member with an extra field and a name reads as the data it holds
    body = zlib.compressobj(6, zlib.DEFLATED, -15)
    data = b"[INFO] APP(1,p):2026-01-01-00:00:00.000.000 x\n" * 3
    member = (extra[:3] + b"\x0c" + extra[4:] + b"p.log\x00" + body.compress(data) + body.flush()
              + struct.pack("<II", zlib.crc32(data), len(data)))
    from casebook.reading.decompress import Gunzip
    assert Gunzip(io.BytesIO(member)).read() == data


def test_gzip_members_with_nul_padding_after_them_read_as_one_stream(tmp_path):
    # what a tape or a preallocated file leaves after a gzip: `zcat` skips the NULs, and so does the reader
    (tmp_path / f"{NAME}.gz").write_bytes(gzip.compress(log_lines(3, "first")) + bytes(100)
                                          + gzip.compress(log_lines(2, "second")) + bytes(512))
    log = read_plog(tmp_path / f"{NAME}.gz")
    (f,) = log.files
    assert (f.path, f.lines, f.skipped, log.warnings) == (f"{NAME}.gz{MEMBER_SEP}{NAME}", 5, None, [])
    assert f.source.read_bytes() == log_lines(3, "first") + log_lines(2, "second")


def test_a_warning_names_one_line_or_the_first_five_of_many():
    from casebook.reading.encoding import lines_named
    assert lines_named([7]) == "line 7" and lines_named([3, 4]) == "2 lines (3, 4)"
    assert lines_named([1, 2, 3, 4, 5]) == "5 lines (1, 2, 3, 4, 5)"
    assert lines_named([1, 2, 3, 4, 5, 9]) == "6 lines (1, 2, 3, 4, 5, …)"


def test_the_one_member_of_a_bare_stream_is_named_after_the_file_without_its_ending():
    from casebook.reading.entries import stream_member_name
    assert stream_member_name("logs/plog-1.log.gz") == "plog-1.log" and stream_member_name("a.tar!/x.LOG.ZST") == "x.LOG"
    assert stream_member_name(".gz") == ".gz" and stream_member_name("noext") == "noext"
