"""Inputs built to exhaust a reader: decompression bombs that slip under one limit or another, a huge line, floods.

Each variant is small on disk and expands (or would be parsed) far beyond what a support bundle needs. The
limits' tests read them to see each refused by a limit; `make probe` (bench/probe.py) times each one and
measures its peak memory in a process of its own. The floods (FLOODS) are of no unusual size but hold too many
lines or files: the probe times them too.
"""
from __future__ import annotations

import gzip
import io
import struct
import tarfile
import zlib
from dataclasses import dataclass
from typing import Callable

from ..reading import unzstd

#: A realistic log line, repeated: deflate packs it about 1,000 times.
LINE = b"[INFO] RUNTIME(4242,python):2026-01-01-00:00:00.000.000 [stream.cc:512]4242 Launch:task launched\n"
#: Under the 16 MiB size past which one entry's ratio is checked: only a layer or the whole read can stop it.
LEAF = 15 << 20


def _deflated(data: bytes) -> bytes:
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    return z.compress(data) + z.flush()


def _text(size: int) -> bytes:
    return (LINE * (size // len(LINE) + 1))[:size]


def _central(name: bytes, packed: int, crc: int, size: int, offset: int) -> bytes:
    return struct.pack("<4s6H3I5H2I", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc, packed, size, len(name), 0, 0, 0, 0,
                       0o100644 << 16, offset) + name


def _end(count: int, directory: bytes, start: int) -> bytes:
    return struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, count, count, len(directory), start, 0)


def zip_of(entries: list[tuple[str, bytes, int, int]]) -> bytes:
    """A zip of already deflated entries: (name, deflated bytes, CRC-32, expanded size) each."""
    out, directory = io.BytesIO(), []
    for name, packed, crc, size in entries:
        directory.append(_central(name.encode(), len(packed), crc, size, out.tell()))
        out.write(struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(packed), size, len(name.encode()), 0))
        out.write(name.encode() + packed)
    return out.getvalue() + b"".join(directory) + _end(len(entries), b"".join(directory), out.tell())


def _zipped(name: str, data: bytes) -> tuple[str, bytes, int, int]:
    return name, _deflated(data), zlib.crc32(data), len(data)


def nested_zip(levels: int = 3, fanout: int = 16, leaf: int = LEAF) -> bytes:
    """Zips of `fanout` zips, `levels` deep, whose innermost entries are `leaf` bytes each: no entry passes the
    per-entry size floor, but all of it expands to fanout**levels * leaf (60 GiB by default)."""
    entry = _zipped("plog-1_20260101000000000.log", _text(leaf))
    data = zip_of([(f"{n:02d}-{entry[0]}", *entry[1:]) for n in range(fanout)])
    for level in range(levels - 1):
        inner = _zipped(f"level-{level}.zip", data)
        data = zip_of([(f"{n:02d}-{inner[0]}", *inner[1:]) for n in range(fanout)])
    return data


def flat_zip(entries: int = 300, leaf: int = LEAF) -> bytes:
    """One zip of many entries, each under the per-entry floor (4.4 GiB by default)."""
    entry = _zipped("plog.log", _text(leaf))
    return zip_of([(f"{n:04d}-{entry[0]}", *entry[1:]) for n in range(entries)])


def overlapping_zip(entries: int = 300, leaf: int = 64 << 20) -> bytes:
    """A zip whose directory lists `entries` names for one and the same deflated data (no nesting, one file)."""
    name, packed, crc, size = _zipped("plog.log", _text(leaf))
    local = zip_of([(name, packed, crc, size)])[:30 + len(name) + len(packed)]
    directory = b"".join(_central(f"{n:04d}.log".encode(), len(packed), crc, size, 0) for n in range(entries))
    return local + directory + _end(entries, directory, len(local))


def tar_of_zips(count: int = 300, leaf: int = LEAF) -> bytes:
    """A plain tar of small zips of one `leaf` each: the tar does not expand, each zip stays under the floor."""
    one = zip_of([_zipped("plog.log", _text(leaf))])
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for n in range(count):
            info = tarfile.TarInfo(f"node-{n:04d}.zip")
            info.size = len(one)
            tar.addfile(info, io.BytesIO(one))
    return out.getvalue()


def sparse_tar(size: int = 6 << 30) -> bytes:
    """A plain tar whose one entry (GNU sparse format) is `size` bytes: holes, then one block of text."""
    block = _text(512)
    head = bytearray(512)

    def put(at: int, width: int, value: bytes) -> None:
        head[at:at + len(value)] = value[:width]

    put(0, 100, b"sparse.log")
    put(100, 8, b"0000644\0")
    put(108, 8, b"0000000\0")
    put(116, 8, b"0000000\0")
    put(124, 12, b"%011o\0" % len(block))
    put(136, 12, b"%011o\0" % 0)
    head[156:157] = b"S"
    put(257, 8, b"ustar  \0")
    put(386, 12, b"%011o\0" % (size - 512))   # the one data block sits at the end
    put(398, 12, b"%011o\0" % 512)
    put(483, 12, b"%011o\0" % size)
    head[148:156] = b" " * 8
    put(148, 8, b"%06o\0 " % sum(head))
    body = bytes(head) + block + bytes(1024)
    return body + bytes(-len(body) % tarfile.RECORDSIZE)


def gzip_stack(levels: int = 3, size: int = 256 << 20) -> bytes:
    """A gzip of a gzip of … a run of text: each layer packs the one inside about 1,000 times."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = _text(1 << 20)
    data = b"".join([z.compress(chunk) for _ in range(size >> 20)] + [z.flush()])
    for _ in range(levels - 1):
        data = gzip.compress(data, 9)
    return data


def tar_gz_tail(size: int = 256 << 20) -> bytes:
    """A tar.gz of one small log whose gzip stream goes on after the tar's end with `size` NUL bytes: the tar reader
    stops at its end-of-archive blocks, and the reader that goes on to check the stream's end meets the rest."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("debug/plog/plog-4242_20260101000000000.log")
        info.size = len(LINE) * 100
        tar.addfile(info, io.BytesIO(LINE * 100))
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    return b"".join([z.compress(buf.getvalue())] + [z.compress(zeros) for _ in range(size >> 20)] + [z.flush()])


def zstd_bomb(size: int = 1 << 30) -> bytes:
    """A .zst of `size` bytes of log text: zstd packs the repeated line about 10,000 times."""
    import zstandard
    z = zstandard.ZstdCompressor(level=3).compressobj()
    chunk = _text(1 << 20)
    return b"".join([z.compress(chunk) for _ in range(size >> 20)] + [z.flush()])


def long_line(size: int = 50 << 20) -> bytes:
    """One log line of `size` bytes (an error message that dumped a tensor), no newline."""
    head = b"[ERROR] RUNTIME(4242,python):2026-01-01-00:00:00.000.000 [stream.cc:512]4242 Launch:dump "
    return head + b"0123456789abcdef" * ((size - len(head)) // 16)


@dataclass(frozen=True)
class Variant:
    """One hostile input: the file name it is written under and how to build it."""

    name: str
    filename: str
    build: Callable[[], bytes]
    what: str


VARIANTS = (
    Variant("nested-zip", "nested.zip", nested_zip, "3 levels of 16 zips, 15 MiB leaves (60 GiB)"),
    Variant("flat-zip", "flat.zip", flat_zip, "one zip of 300 entries of 15 MiB (4.4 GiB)"),
    Variant("overlapping-zip", "overlap.zip", overlapping_zip, "300 directory entries on one 64 MiB stream"),
    Variant("tar-of-zips", "nodes.tar", tar_of_zips, "plain tar of 300 zips of one 15 MiB entry"),
    Variant("sparse-tar", "sparse.tar", sparse_tar, "plain tar, one GNU sparse entry of 6 GiB"),
    Variant("gzip-stack", "stack.log.gz.gz.gz", gzip_stack, "gzip of gzip of gzip of 256 MiB of text"),
    Variant("tar-gz-tail", "tail.tar.gz", tar_gz_tail, "tar.gz of one small log, 256 MiB of NULs after the tar"),
    Variant("long-line", "plog-4242_20260101000000000.log", long_line, "one 50 MB line"),
)
if unzstd.available():   # building it needs the zstandard package too
    VARIANTS += (Variant("zstd-bomb", "big.log.zst", zstd_bomb, "zstd of 1 GiB of text"),)


def blank_lines(count: int = 2_000_000) -> bytes:
    """A capture of nothing but empty lines."""
    return b"\n" * count


def error_flood(size: int = 20 << 20) -> bytes:
    """A plog of one ERROR line repeated, its time, stream and task numbers counting up: a process stuck in a loop."""
    out, n, total = [], 0, 0
    while total < size:
        line = (b"[ERROR] RUNTIME(100,python):2026-01-01-00:%02d:%02d.%03d.000 [stream.cc:%d]100 rtStreamSynchronize "
                b"failed, stream %d, retCode=0x7150007, task %d\n"
                % (n // 60 % 60, n % 60, n % 1000, n % 900, n % 64, n))
        out.append(line)
        n, total = n + 1, total + len(line)
    return b"".join(out)


def console_flood(size: int = 100 << 20) -> bytes:
    """A console capture of one training log line repeated."""
    line = b"2026-01-01 00:00:00,123 - INFO - train.py:120 - epoch 1 step 100/1000 loss 2.3456 lr 1.0e-04\n"
    return line * (size // len(line))


def crlf_plog(size: int = 100 << 20) -> bytes:
    """A plog of INFO lines with Windows line ends: the compiled scanner declines it, so it is sifted."""
    line = LINE.replace(b"\n", b"\r\n")
    return line * (size // len(line))


def gbk_plog(size: int = 100 << 20) -> bytes:
    """A plog of INFO lines, one of them in GBK: the scanner declines bytes that are not UTF-8, so it is sifted."""
    half = _text(size // 2)
    return half + "[ERROR] RUNTIME(4242,python):2026-01-01-00:00:01.000.000 模型加载失败\n".encode("gbk") + half


def prefix_like_lines(size: int = 64 << 20) -> bytes:
    """A capture of lines as long as a line is read (LONG_LINE), each the start of a wrapper a paste may carry and
    none ended: a host name that goes on (`node1node1…`), a line number, indentation, a colour code's digits."""
    width = 1 << 16
    starts = (b"node1", b"1", b" ", b"[1;")
    lines = [(start * (width // len(start)))[:width] + b"\n" for start in starts]
    return b"".join(lines) * (size // (width * len(starts)))


def _lines_up_to(size: int, lines_of: Callable[[int], bytes]) -> bytes:
    """The text of `lines_of(0)`, `lines_of(1)`, ... until it holds `size` bytes or more."""
    out, n, k = [], 0, 0
    while n < size:
        out.append(lines_of(k))
        n += len(out[-1])
        k += 1
    return b"".join(out)


def terminal_cut_lines(size: int = (4 << 20) - 4096, width: int = 40) -> bytes:
    """A capture just under the size read whole (plog.CAPTURE_FULL_BELOW) of distinct slog error lines, each cut by
    a terminal `width` columns wide: every piece is looked at by the rejoin reader, every line joined back read."""
    def cut(k: int) -> bytes:
        line = (f"[ERROR] RUNTIME({1000 + k % 9000},python3):2026-01-01-00:00:01.{k % 1000:03d}.000 [engine.cc:"
                f"{k % 2000}] ReportExceptProc: task {k} failed on stream {k % 64}, retCode=0x{k % 256:x}")
        return b"".join(line[j:j + width].encode() + b"\n" for j in range(0, len(line), width))
    return _lines_up_to(size, cut)


def broken_frames(size: int = (4 << 20) - 4096) -> bytes:
    """A capture just under the size read whole of traceback frames, each broken before its function's name: every
    frame line is rebuilt from the piece below it."""
    frame = b'  File "/usr/local/lib/python3.9/site-packages/torch_npu/npu/utils.py", line %d, in\n<module>\n'
    return _lines_up_to(size, lambda k: frame % (k % 10_000))


def own_header_lines(size: int = (4 << 20) - 4096) -> bytes:
    """A capture just under the size read whole of distinct error lines under the headers frameworks and the driver
    write themselves (MindIE's, MindSpore's Python side, the 2020 colon form, the driver's kernel prefix), each with a
    long message that almost closes another field: every line is an error record the evidence reads."""
    forms = ("[2025-06-17 14:08:52.{k:03d}+08:00] [{p}] [{p}] [mindie-server] [ERROR] [share_memory.cpp:{k}] : "
             "[MIE04E12{t:02X}07] [model_backend] {tail}",
             "[ERROR] ME({p}:281473529845792,MainProcess):2023-12-14-09:06:51.{k:03d}.117 [mindspore/train/"
             "serialization.py:{k}] {tail}",
             "[ERROR] FMK:2020-04-11-09:37:12.{k:03d}.604 Build:framework/domi/omg/model_builder.cpp:{k}:\"{tail}\"",
             "[{p}.{k:06d}][  T613] [ascend] [ERROR] [devmm] [devmm_ioctl {k}] <python3:{p}> {tail}")
    return _lines_up_to(size, lambda k: forms[k % len(forms)].format(
        k=k % 1000, p=1000 + k, t=k % 256, tail=f"step {k} failed: " + "a:[b] (" * 40).encode() + b"\n")


def small_files(count: int = 100_000) -> bytes:
    """A plain tar of `count` plogs of three INFO lines each."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for n in range(count):
            data = LINE.replace(b"4242", b"%d" % (1000 + n)) * 3
            info = tarfile.TarInfo(f"node-{n // 1000}/plog-{1000 + n}_20260101000000000.log")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


#: Floods: inputs of no unusual size that hold too many lines or files, each to be read within the same bounds
#: (or refused, saying why).
FLOODS = (
    Variant("blank-lines", "capture.txt", blank_lines, "two million empty lines"),
    Variant("error-flood", "plog-100_20260101000000000.log", error_flood, "20 MiB plog of one ERROR line repeated"),
    Variant("console-flood", "train.log", console_flood, "100 MiB console capture of one training log line"),
    Variant("small-files", "nodes.tar", small_files, "plain tar of 100,000 plogs of three INFO lines"),
    Variant("prefix-like-lines", "capture.txt", prefix_like_lines,
            "64 MiB capture of 64 KiB lines that each begin like a paste's prefix and never end one"),
    Variant("terminal-cut-lines", "capture.txt", terminal_cut_lines,
            "4 MiB capture of distinct slog error lines, each cut by a terminal 40 columns wide"),
    Variant("broken-frames", "capture.txt", broken_frames,
            "4 MiB capture of traceback frames, each broken before its function's name"),
    Variant("own-header-lines", "capture.txt", own_header_lines,
            "4 MiB capture of distinct error lines under MindIE's, MindSpore's, the 2020 and the driver's headers"),
    Variant("crlf-plog", "plog-4242_20260101000000000.log", crlf_plog,
            "100 MiB plog of INFO lines ended by CRLF (copied through Windows)"),
    Variant("gbk-plog", "plog-4242_20260101000000000.log", gbk_plog,
            "100 MiB plog of INFO lines, one of them GBK (a Chinese locale's message)"),
)


def write(name: str, path: str) -> None:
    """Build the variant called `name` into `path`."""
    variant = next(v for v in VARIANTS + FLOODS if v.name == name)
    with open(path, "wb") as out:
        out.write(variant.build())
