"""Sifting picks what the compiled scanner picks, from the files the scanner declines, and holds only those lines."""
import io

import pytest
from casebook.evidence.registry import KEEP
from casebook.reading import plog, scan, system_log
from casebook.reading.bundle import LogFile
from casebook.reading.encoding import LineTexts
from casebook.reading.plog import read_plog
from casebook.reading.sift import sift
from hypothesis import given, settings
from hypothesis import strategies as st
from test_scan import _PIECES, H, model

PLOG = "dfx/log/host/cann/debug/plog/plog-370_20230713074107861.log"


def sifted(data: bytes, keep=KEEP, **options) -> scan.Selection:
    return sift(io.BytesIO(data), keep, LineTexts(LogFile(path="x.log", source="x.log", size=len(data))), **options)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40), st.integers(min_value=0, max_value=4), st.integers(min_value=1, max_value=3),
       st.booleans())
def test_sifting_agrees_with_the_scanners_model(pieces, sample, step, dumps):
    data = "".join(pieces).encode()
    assert sifted(data, device_sample=sample, index_step=step, dumps=dumps) == model(data, KEEP, sample, step, dumps)


@pytest.mark.skipif(not scan.available(), reason="the compiled scanner is not built")
@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=60), st.integers(min_value=0, max_value=3), st.booleans(), st.booleans())
def test_sifting_agrees_with_the_scanner_in_each_mode(pieces, flood, text, dumps):
    data = "".join(pieces).encode()
    keep = system_log.literals(KEEP) if text else KEEP
    routine = system_log.plain if text else None
    expected = scan.select(data, keep, text=text, flood=flood, dumps=dumps)
    assert sifted(data, keep, text=routine, flood=flood, dumps=dumps) == expected


def test_sifting_stops_past_the_most_lines_that_are_no_header():
    data = (H + "a\n" + "plain\n" * 3).encode()
    assert len(sifted(data, most=3).picked) == 3
    with pytest.raises(scan.TooMany):
        sifted(data, most=2)


def test_a_crlf_copy_of_a_plog_reads_as_the_original_with_a_warning(corpus, tmp_path):
    (tmp_path / "plog").mkdir()
    original = (corpus / "aicore-gatherv2-asys" / PLOG).read_bytes()
    (tmp_path / "plog" / "plog-370_20230713074107861.log").write_bytes(original.replace(b"\n", b"\r\n"))
    crlf = read_plog(tmp_path, keep=KEEP)
    lf = read_plog(corpus / "aicore-gatherv2-asys" / PLOG, keep=KEEP)
    f, g = crlf.files[0], lf.files[0]
    assert f.selective and (f.lines, f.unparsed, f.levels, f.first_time, f.last_time) == \
        (g.lines, g.unparsed, g.levels, g.first_time, g.last_time)
    cols = ["line", "kind", "level", "time", "code", "msg"]
    assert crlf.records[cols].values.tolist() == lf.records[cols].values.tolist()
    assert len(crlf.records) < f.lines / 2   # the INFO lines were counted, not recorded
    assert any(f"{f.lines} lines (1, 2, 3, 4, 5, …) end with CRLF" in w for w in crlf.warnings)
    # a window is read from the line index, as the bytes on disk hold it
    assert crlf.read_lines(f.path, 20, 21) == [x + b"\r" for x in original.split(b"\n")[19:21]]


def test_lines_not_in_utf8_are_decoded_and_the_rest_still_sifted(tmp_path):
    lines = [(H + f"step {i}").encode() for i in range(3000)]
    lines[1500] = "[ERROR] APP(3,x):2026-01-01-00:00:01.000.000 模型加载失败".encode("gbk")
    lines[2500] = (H + "说明").encode("gbk")
    lines[2700] = b"[ERROR] APP(3,x):2026-01-01-00:00:02.000.000 bad \xff byte"
    lines[2800] = H.encode() + b"bad \xff byte"
    (tmp_path / "plog-3_20260101000000000.log").write_bytes(b"\n".join(lines) + b"\n")
    log = read_plog(tmp_path, keep=KEEP)
    f = log.files[0]
    assert f.selective and f.lines == 3000 and f.encoding == "utf-8+gbk+replaced"
    assert list(log.records["line"]) == [1501, 2701]
    assert log.records["msg"].iloc[0].endswith("模型加载失败")
    assert any("2 lines (1501, 2501) not valid UTF-8, read as GBK" in w for w in log.warnings)
    assert any("2 lines (2701, 2801) not valid UTF-8; bad bytes shown as U+FFFD" in w for w in log.warnings)
    assert set(f.raw_lines) == {2701}   # of a line left unpicked, the bytes are read back from disk when asked for
    assert [log.raw_line(f.path, n) for n in (2701, 2801, 2501)] == [lines[2700], lines[2800], lines[2500]]


@pytest.mark.skipif(not scan.available(), reason="the compiled scanner is not built")
def test_without_the_scanner_files_are_sifted_with_the_same_result_and_a_warning(monkeypatch, corpus):
    quick = read_plog(corpus / "aicore-gatherv2-asys", keep=KEEP)
    monkeypatch.setattr(scan, "_linescan", None)
    slow = read_plog(corpus / "aicore-gatherv2-asys", keep=KEEP)
    assert [(f.path, f.lines, f.unparsed, f.selective, f.levels) for f in slow.files] == \
        [(f.path, f.lines, f.unparsed, f.selective, f.levels) for f in quick.files]
    cols = ["file", "line", "kind", "time", "msg"]
    assert slow.records[cols].values.tolist() == quick.records[cols].values.tolist()
    assert any("scanner" in w and "sifted" in w for w in slow.warnings)
    assert not any("scanner" in w for w in quick.warnings)


def test_a_utf16_file_is_still_read_whole(tmp_path):
    (tmp_path / "plog-1_20260101000000000.log").write_bytes((H + "a\n" + H + "b\n").encode("utf-16"))
    log = read_plog(tmp_path, keep=KEEP)
    assert log.files[0].lines == 2 and any("UTF-16" in w for w in log.warnings)


def test_the_sifted_file_is_read_from_disk_not_whole(monkeypatch, tmp_path):
    # a file read whole goes through parse_bytes: a sifted one never does
    (tmp_path / "plog-1_20260101000000000.log").write_bytes((H + "a\r\n" + H + "b\r\n").encode())
    monkeypatch.setattr(plog, "parse_bytes", lambda *a, **k: pytest.fail("read whole"))
    assert read_plog(tmp_path, keep=KEEP).files[0].lines == 2
