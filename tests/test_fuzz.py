"""Property and fuzz tests of the reader: it never raises, and every line is accounted for and recoverable."""
import gzip
import io
import random
import tarfile
import tempfile
import zipfile
from pathlib import Path

from casebook.reading.bundle import LogFile
from casebook.reading.grammar import KIND_UNPARSED
from casebook.reading.encoding import split_lines
from casebook.reading.plog import parse_bytes, read_plog
from casebook.reading.table import PLOG_COLUMNS
from conftest import CORPUS
from hypothesis import example, given, settings
from hypothesis import strategies as st

SEED = 20261129
MUTATED_LINES = 12_000


def line_count(data: bytes) -> int:
    """design.md §5, counted independently: `\\n`-terminated lines plus a non-empty tail."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def utf8(raw: bytes) -> bool:
    """Whether a line is valid UTF-8 (its text is then an exact decoding of its bytes)."""
    try:
        raw.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def gbk(raw: bytes) -> bool:
    """Whether a line decodes as GBK and encodes back to the same bytes."""
    try:
        return raw.decode("gbk").encode("gbk") == raw
    except UnicodeError:
        return False


def utf16_as_utf8(data: bytes) -> bytes:
    """A UTF-16 file as the reader reads it: converted to UTF-8; any other file as it is."""
    return data.decode("utf-16", errors="replace").encode("utf-8") if data[:2] in (b"\xff\xfe", b"\xfe\xff") else data


def check_accounting(data: bytes, name: str = "plog-1_20260101000000000.log") -> LogFile:
    f = LogFile(path=name, source=Path(name))
    rows = parse_bytes(f, data)
    if f.skipped:
        assert f.skipped.startswith("binary file") and rows == [] and f.lines == 0
        return f
    data = utf16_as_utf8(data)
    assert f.lines == len(rows) == line_count(data)
    assert [r[1] for r in rows] == list(range(1, f.lines + 1))
    assert all(len(r) == len(PLOG_COLUMNS) and r[0] == name for r in rows)
    assert f.unparsed == sum(1 for r in rows if r[2] == KIND_UNPARSED)
    lines = dict(enumerate(split_lines(data), start=1))
    # a kept line is its bytes exactly; a line neither UTF-8 nor GBK is always kept; a UTF-8 line never is
    # (but for a byte-order mark opening the file, a terminal's colour codes, which its text drops, and no-break
    # spaces, which it reads as spaces)
    assert {no: lines[no] for no in f.raw_lines} == f.raw_lines
    assert {no for no, raw in lines.items() if not utf8(raw) and not gbk(raw)} <= set(f.raw_lines)
    assert not {no for no, raw in lines.items()
                if utf8(raw) and b"\x1b" not in raw and b"\xc2\xa0" not in raw} & set(f.raw_lines) - (
        {1} if data.startswith(b"\xef\xbb\xbf") else set())
    return f


@settings(deadline=None, max_examples=300)
@given(st.binary(max_size=4000))
def test_arbitrary_bytes_never_raise_and_every_line_is_counted(data):
    check_accounting(data)


TEXTISH = st.lists(st.sampled_from([b"\n", b"\r\n", b"\r", b"\x00", b"\xff", b"\xe9", "设备".encode("gbk"), "设备".encode(),
                                    b"[ERROR] APP(1,p):2026-01-01-00:00:00.000.000 ", b"EZ9999: Inner Error!",
                                    b"    TraceBack (most recent call last):", b"  File \"x.py\", line 3",
                                    b"Traceback (most recent call last):", b"<exception_print>", b"A=1", b"x" * 50]),
                   max_size=200).map(b"".join)


@settings(deadline=None, max_examples=300)
@given(TEXTISH)
def test_log_like_fragments_never_raise_and_every_line_is_counted(data):
    check_accounting(data)


@settings(deadline=None, max_examples=25)
@given(st.lists(st.binary(max_size=600), min_size=1, max_size=4))
@example(blobs=[b"\xfd7zXZ\x00"])   # the magic of a compression the reader does not unpack
@example(blobs=[b"PK\x05\x06"])     # a zip archive's end record alone: an archive that cannot be read
@example(blobs=[b"(\xb5/\xfd"])     # a zstd frame's magic alone: compressed data that ends inside its header
def test_bundles_of_arbitrary_files_are_read_whole(blobs):
    with tempfile.TemporaryDirectory() as tmp:
        for n, blob in enumerate(blobs):
            (Path(tmp) / f"f{n}.log").write_bytes(blob)
        log = read_plog(tmp)
        assert len(log.files) == len(blobs)
        assert log.lines == len(log.records) == sum(f.lines for f in log.files)
        for f, blob in zip(log.files, blobs):
            if f.skipped:
                assert f.skipped.startswith(("binary file", "unsupported compression", "not a readable zip archive",
                                             "unreadable: damaged compressed data"))
                assert f.lines == 0
            elif "!/" not in f.path:   # not taken for an archive: read as the file it is
                assert f.lines == line_count(utf16_as_utf8(blob))


def mutate(rng: random.Random, line: bytes) -> bytes:
    """One random damage to a real line: the kinds customers' files show (cut, flipped, padded, re-encoded)."""
    op = rng.randrange(8)
    at = rng.randrange(len(line) + 1)
    if op == 0:
        return line[:at]
    if op == 1 and line:
        i = rng.randrange(len(line))
        return line[:i] + bytes([line[i] ^ (1 << rng.randrange(8))]) + line[i + 1:]
    if op == 2:
        return line[:at] + rng.choice([b"\x00" * rng.randrange(1, 40), b"\xff\xfe", b"\r", b"\xe9", b"\x1b[31m"]) + line[at:]
    if op == 3:
        return line[:at] + "，训练失败".encode(rng.choice(["gbk", "utf-8"])) + line[at:]
    if op == 4:
        return line + line[: at]
    if op == 5:
        return bytes(c if not 48 <= c <= 57 else rng.randrange(48, 58) for c in line)
    if op == 6:
        return line.replace(b"]", b"", 1).replace(b"(", b"[", 1)
    return rng.choice([b"EZ9999: Inner Error!", b"  ", b"Traceback (most recent call last):"]) + line[at:]


def test_seeded_fuzz_of_mutated_real_lines():
    files = sorted(p for p in CORPUS.rglob("*") if p.is_file())
    lines = [x for p in files for x in split_lines(p.read_bytes())]
    rng = random.Random(SEED)
    sample = [mutate(rng, rng.choice(lines)) for _ in range(MUTATED_LINES)]
    total = 0
    for start in range(0, len(sample), 1000):
        chunk = b"\n".join(sample[start:start + 1000]) + rng.choice([b"", b"\n"])
        f = check_accounting(chunk)
        total += f.lines
    assert total >= 10_000


def small_archives() -> list[bytes]:
    """A tar.gz, a zip and a .gz of two short plogs, to be damaged by the fuzzer."""
    logs = {f"debug/plog/plog-{n}_20260101000000000.log": b"[ERROR] APP(1,p):2026-01-01-00:00:00.000.000 x\n" * 40
            for n in (1, 2)}
    tgz, zipped = io.BytesIO(), io.BytesIO()
    with tarfile.open(fileobj=tgz, mode="w:gz") as tar:
        for name, data in logs.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in logs.items():
            zf.writestr(name, data)
    return [tgz.getvalue(), zipped.getvalue(), gzip.compress(next(iter(logs.values())))]


ARCHIVES = small_archives()


@settings(deadline=None, max_examples=150)
@given(st.sampled_from(range(len(ARCHIVES))), st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)),
                                                       max_size=6), st.integers(0, 10_000))
def test_damaged_archives_never_raise_and_are_accounted_for(which, flips, cut):
    blob = bytearray(ARCHIVES[which])
    for at, value in flips:
        blob[at % len(blob)] = value
    blob = bytes(blob[: max(cut % (len(blob) + 1), 1)])
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "bundle.bin").write_bytes(blob)
        log = read_plog(tmp)
        assert log.files and log.lines == len(log.records) == sum(f.lines for f in log.files)
        per_file = log.records["file"].value_counts().to_dict()
        assert {f.path: f.lines for f in log.files if f.lines} == per_file
        assert all(f.lines == 0 for f in log.files if f.skipped)
        assert all(f.path.startswith("bundle.bin") for f in log.files)


@settings(deadline=None, max_examples=150)
@given(st.sampled_from([b"\x1f\x8b", b"\x1f\x8b\x08\x00", b"PK\x03\x04", b"PK\x05\x06", b"BZh", b"\0" * 257 + b"ustar"]),
       st.binary(max_size=1500))
def test_arbitrary_bytes_behind_an_archive_signature_never_raise(magic, rest):
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "x").write_bytes(magic + rest)
        log = read_plog(tmp)
        assert log.lines == len(log.records) == sum(f.lines for f in log.files)
        assert all(f.lines == 0 for f in log.files if f.skipped)
