"""Exploring a bundle: level counts, filters, and raw lines around a line as they are on disk."""
import pytest
from casebook.presenting import logview
from casebook.reading.plog import read_plog
from conftest import write_log

LOG = ("[INFO] RUNTIME(7,python):2026-01-01-10:00:00.000.000 [a.cc:1]7 F:start\n"
       "[ERROR] RUNTIME(7,python):2026-01-01-10:00:01.000.000 [a.cc:2]7 F:failed <b>here</b>\n"
       "[ERROR] HCCL(7,python):2026-01-01-10:00:02.000.000 [h.cc:3][7]fallout\n"
       "a line no rule knows\r\n")


@pytest.fixture
def log(tmp_path):
    write_log(tmp_path, "plog/plog-7_20260101100000000.log", LOG)
    return read_plog(tmp_path / "plog")


def test_level_counts(log):
    counts = logview.level_counts(log)
    assert counts.loc["ERROR", "total"] == 2 and counts.loc["INFO", "total"] == 1
    assert counts.loc[logview.NO_LEVEL, "total"] == 1


def test_filters_combine(log):
    assert list(logview.select(log, logview.Filter(level="ERROR"))["line"]) == [2, 3]
    assert list(logview.select(log, logview.Filter(level="ERROR", module="HCCL"))["line"]) == [3]
    assert list(logview.select(log, logview.Filter(text="FAILED"))["line"]) == [2]
    assert list(logview.select(log, logview.Filter(pid="7"), limit=1)["line"]) == [1]
    assert logview.choices(log)["module"] == [logview.ANY, "HCCL", "RUNTIME"]


def test_window_reads_the_raw_lines_and_marks_the_one_asked(log):
    w = logview.window(log, "plog-7_20260101100000000.log", 2, before=1, after=5)
    assert list(w["line"]) == [1, 2, 3, 4] and list(w["mark"]) == ["", ">>", "", ""]
    assert w["text"][1].endswith("F:failed <b>here</b>") and w["text"][3] == "a line no rule knows"
    with pytest.raises(ValueError, match=":9: the file has 4 lines"):
        logview.window(log, "plog-7_20260101100000000.log", 9)
