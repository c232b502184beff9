"""The compiled line scanner picks exactly what its Python model says, and declines what it cannot read exactly."""
import os
import re
from collections import Counter

import pytest
from casebook.evidence.registry import KEEP
from casebook.reading import plog, scan
from casebook.reading.device_text import memory_row, register_row
from casebook.reading.encoding import split_lines
from casebook.reading.plog import read_plog
from casebook.reading.scan import DEVICE, Selection, select
from hypothesis import example, given, settings
from hypothesis import strategies as st

# in CI (.ci/run sets CI) the scanner is part of the build: without it these tests run, and fail
pytestmark = pytest.mark.skipif(not scan.available() and not os.environ.get("CI"),
                                reason="the compiled scanner is not built")


def test_the_scanner_is_built():
    assert scan.available(), "the compiled scanner (reading/_linescan*.so) is missing: `make install` builds it"

# grammar.HEADER's header part with ASCII classes: the scanner accepts exactly these lines as headers
_HEADER = re.compile(r"\[(?P<level>[A-Z]+|\d+)\][ \t\f\v]*(?:[A-Za-z_][A-Za-z_0-9]*|\d+)\(-?\d+,[^)]*\):"
                     r"(?P<ts>\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3})", re.ASCII)


def model(data: bytes, keep: tuple[str, ...], sample: int = scan.DEVICE_SAMPLE, step: int = scan.INDEX_STEP,
          dumps: bool = False) -> Selection | None:
    """What the scanner must answer, written plainly."""
    if any(b in data for b in (b"\x00", b"\r", b"\x1b", b"\xc2\xa0")) or data.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    raws = split_lines(text.encode())
    lines = [raw.decode() for raw in raws]
    starts = [0]
    for raw in raws:
        starts.append(starts[-1] + len(raw) + 1)
    sel = Selection(lines=len(lines), header_lines=0, levels=Counter(), index=starts[:len(lines):step])
    seen: set = set()
    previous = None   # (header?, picked?) of the line before
    for no, line in enumerate(lines, start=1):
        m = _HEADER.match(line)
        picked = m is None
        if picked and dumps and (memory_row(line) or (register_row(line) and not any(k in line for k in keep))):
            sel.dumped += 1
            picked = False
        if m:
            sel.header_lines += 1
            sel.levels[m["level"]] += 1
            sel.first_header = sel.first_header or line
            sel.last_header = line
            body = line[m.end():]
            picked = m["level"] == "ERROR" or any(k in body for k in keep)
            at = body.find(DEVICE)
            if at >= 0 and len(seen) < sample:
                end = at + len(DEVICE)
                while end < len(body) and body[end] in "0123456789":
                    end += 1
                key = (line[:m.start("ts")], body[:end])
                if key not in seen:
                    seen.add(key)
                    picked = True
        if picked:
            sel.picked.append((no, line))
        if m is None and previous == (True, False):
            sel.context[no - 1] = lines[no - 2]
        previous = (m is not None, picked)
    sel.levels = dict(sel.levels)
    return sel


H = "[INFO] RUNTIME(20194,python):2026-05-04-09:00:36.000.684 [npu_driver.cc:453]20346 "


def test_scan_refuses_what_it_cannot_read_exactly():
    assert select(H.encode() + b"x\n\xff\xfe bad\n", KEEP) is None          # not UTF-8
    assert select(b"a\x00b\n", KEEP) is None                                # NUL
    assert select(H.encode() + b"x\r\n", KEEP) is None                      # CRLF: line by line
    assert select(b"\xef\xbb\xbf" + H.encode() + b"x\n", KEEP) is None      # byte-order mark
    assert select(H.encode() + "é".encode()[:1], KEEP) is None              # cut inside a character
    assert select(H.encode() + b"\xed\xa0\x80\n", KEEP) is None             # a surrogate
    assert select(H.encode() + b"\xc0\xaf\n", KEEP) is None                 # an overlong form
    with pytest.raises(ValueError):
        select(b"x\n", ("x",))                                              # one-byte literals are not searched


def test_scan_counts_levels_and_picks_errors_messages_and_plain_lines():
    data = ("\n[ERROR] A(1,p):2026-01-01-00:00:00.000.000 boom\nplain text\n" + H + "TASK_QUEUE_ENABLE=1\n"
            + H + "nothing\n" + "[EVENT] B(2,q):2026-01-01-00:00:00.000.000 exception_task_id= only in the header? no\n"
            + "[INFO] TASK_QUEUE_ENABLE(1,p):2026-01-01-00:00:00.000.000 literal in the header only").encode()
    sel = select(data, KEEP)
    assert (sel.lines, sel.header_lines) == (7, 5)
    assert sel.levels == {"ERROR": 1, "INFO": 3, "EVENT": 1}
    assert [n for n, _ in sel.picked] == [1, 2, 3, 4, 6]
    assert sel.last_header.endswith("literal in the header only")
    assert sel == model(data, KEEP)


def test_a_header_like_the_one_before_still_needs_its_own_time():
    data = (H + "a\n" + H.replace("09:00:36", "09:0x:36") + "b\n" + H[:20] + "\n" + H + "c\n").encode()
    sel = select(data, KEEP)
    assert (sel.header_lines, sel.levels) == (2, {"INFO": 2})
    assert [n for n, _ in sel.picked] == [2, 3]
    assert sel == model(data, KEEP)


def test_device_lines_are_sampled_once_per_thread_and_device():
    lines = [f"[INFO] RUNTIME(7,python):2026-01-01-00:00:{i % 60:02d}.000.000 [a.cc:1]{tid} Send:device_id={dev}, n={i}"
             for i, (tid, dev) in enumerate([(1, 0), (1, 0), (2, 0), (1, 1), (2, 0), (1, 10), (1, 1)] * 3)]
    data = "\n".join(lines).encode()
    sel = select(data, KEEP)
    assert [n for n, _ in sel.picked] == [1, 3, 4, 6]     # device_id=1 and device_id=10 are different devices
    assert sel == model(data, KEEP)


def test_non_header_line_takes_the_header_line_before_it_as_context():
    data = (H + "a\n" + H + "b\nTraceback (most recent call last):\n" + "[ERROR] A(1,p):2026-01-01-00:00:00.000.000 x\n"
            + "  dump line\n").encode()
    sel = select(data, KEEP)
    assert sel.context == {2: H + "b"}        # the ERROR line before the dump is picked, so needs no context
    assert sel == model(data, KEEP)


_PIECES = st.sampled_from([
    H, "[ERROR] APP(3,x):2026-01-01-00:00:00.000.000 ", "[WARNING]  HCCL(-1,):2026-01-01-00:00:00.000.000",
    "[12] 17(4,p q):2026-01-01-00:00:00.000.001 ", "[INFO] RUNTIME(1,p)2026-01-01", "[INFO]RUNTIME(1,p):2026-1-01",
    "[info] A(1,p):2026-01-01-00:00:00.000.000 ", "[INFO] A(1,p):２０２６-01-01-00:00:00.000.000 ",
    "device_id=", "device_id=3", "7 ", "TASK_QUEUE_ENABLE", "TASK_QUEUE", "hwts ", "CANN-", "version", "set device",
    "内存", "é", "\t", " ", "]", "(", ")", ":", "0", "x", "\n", "\n\n",
    "<exception_print> 0x", "<exception_print>", " 0x", "1f", "A", ": 0x0", "\n<exception_print> 0x16500: 0x0 0x0\n",
    "HWS_REG", "_", "[0]", "(sq_head)", "[", "(", "=", "=0x1", "AIC_ERROR=", "PC_START",
    "\n<exception_print>AIC_ERROR=0x8\n",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40), st.integers(min_value=0, max_value=4), st.integers(min_value=1, max_value=3),
       st.booleans())
def test_scan_agrees_with_its_model(pieces, sample, step, dumps):
    data = "".join(pieces).encode()
    assert select(data, KEEP, sample, step, dumps=dumps) == model(data, KEEP, sample, step, dumps)


def test_a_device_dumps_memory_rows_are_counted_not_picked():
    rows = ["<exception_print> 0x16500: 0x0 0x0 0x1f", "<exception_print> 0x0: 0xA ", "<exception_print> 0x1: 0x",
            "<exception_print> 0x1:0x0", "<exception_print>0x1: 0x0", "<exception_print> 0x1: 0x0 note",
            "AIC_ERROR=0x1",
            # registers: one a family reads (it holds a literal), two it does not, and two that are no register
            "<exception_print>AIC_ERROR=0x8", "<exception_print>HWS_REG_AIC_BASE_ADDR[0]=0x6000b0000000",
            "<exception_print>HWS_REG_SQ_STATUS(sq_head)=0x10c0005fe", "<exception_print>HWTS_SLOT_START: slot_id=29",
            "<exception_print>hws_reg=0x1"]
    data = "\n".join(rows).encode()
    assert [n for n, _ in select(data, KEEP).picked] == list(range(1, 13))
    sel = select(data, KEEP, dumps=True)
    assert ([n for n, _ in sel.picked], sel.dumped) == ([3, 4, 5, 6, 7, 8, 11, 12], 4)
    assert sel == model(data, KEEP, dumps=True)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
@example(b"step 1\n\x1b[31mERROR\x1b[0m boom\n")   # a terminal's colours
@example("step\xa01\n".encode())                    # a web page's no-break space
@example("步骤 1\n".encode())                        # other text beyond ASCII is read as it is
def test_scan_declines_exactly_the_bytes_the_model_declines(data):
    assert (select(data, KEEP) is None) == (model(data, KEEP) is None)


def test_windows_of_a_selectively_read_file_are_read_from_its_line_index(corpus, monkeypatch):
    monkeypatch.setattr(plog, "FULL_RECORDS_BELOW", 1)
    monkeypatch.setattr(scan, "INDEX_STEP", 100)
    log = read_plog(corpus / "aicore-gatherv2-asys", keep=KEEP)
    f = log.file("dfx/log/host/cann/debug/plog/plog-370_20230713074107861.log")
    assert f.selective and len(f.line_index) == (f.lines + 99) // 100
    whole = f.source.read_bytes().split(b"\n")
    for first, last in [(1, 1), (99, 102), (100, 100), (101, 101), (250, 420), (f.lines - 3, f.lines)]:
        assert log.read_lines(f.path, first, last) == whole[first - 1:last]
    with pytest.raises(ValueError, match="lines"):
        log.read_lines(f.path, f.lines, f.lines + 1)


def test_a_traceback_in_a_plog_read_selectively_reads_as_in_a_full_reading(tmp_path):
    # the lines picked one after the other keep the block state: a frame's code line is still the traceback's
    head = "[ERROR] RUNTIME(100,python):2026-01-01-00:00:0{}.000.000 [s.cc:1]100 {}"
    lines = [head.format(1, "start"), "Traceback (most recent call last):", '  File "train.py", line 3, in <module>',
             "    main()", "RuntimeError: boom", head.format(2, "after")]
    (tmp_path / "plog-100_20260101000000000.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    quick, full = read_plog(tmp_path, keep=KEEP), read_plog(tmp_path, selective=False)
    assert quick.files[0].selective
    assert list(quick.records["kind"]) == ["plog", "python", "python", "python", "python", "plog"]
    cols = ["line", "kind", "time", "msg"]
    assert quick.records[cols].values.tolist() == full.records[cols].values.tolist()


def test_any_of_is_a_trie_that_stops_where_a_literal_ends():
    assert scan.any_of(["set device", "set deviceId", "sdma", "hwts "]) == "(?:hwts\\ |s(?:dma|et\\ device))"
    assert scan.any_of(["a.b", "a.b", "a(c"]) == "a(?:\\(c|\\.b)"   # each literal once, metacharacters escaped
    assert scan.any_of(["x"]) == "x"
    assert scan.any_of([]) == "" and scan.any_of(["ab", ""]) == ""   # as an alternation of them: found anywhere


_LITERALS = st.lists(st.text(alphabet="ab.c内 ", min_size=1, max_size=5), min_size=1, max_size=8)


@settings(max_examples=400, deadline=None)
@given(_LITERALS, st.text(alphabet="ab.c内 \n", max_size=30))
def test_any_of_finds_a_text_exactly_when_it_holds_one_of_the_literals(literals, text):
    assert bool(re.search(scan.any_of(literals), text)) == any(lit in text for lit in literals)
