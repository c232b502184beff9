"""Floods are bounded: repeated error lines past a budget are counted, not recorded; a capture of more lines than a
triage reads one by one, and a bundle of more files than it takes in, are refused, naming them."""
import pytest
from casebook.evidence.registry import KEEP, extract_evidence
from casebook.reading import flood, plog, scan
from casebook.reading.bundle import BundleError
from casebook.reading.limits import Limits
from casebook.reading.plog import read_plog
from conftest import write_log
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.skipif(not scan.available(), reason="the compiled scanner is not built")

PLOG = "plog-100_20260101000000000.log"


def _error(n: int, text: str) -> str:
    return f"[ERROR] RUNTIME(100,python):2026-01-01-00:{n // 60 % 60:02d}:{n % 60:02d}.000.000 [s.cc:{n}]100 {text}"


def test_a_flood_of_one_error_is_counted_past_the_budget_and_a_new_error_still_recorded(tmp_path, monkeypatch):
    monkeypatch.setattr(flood, "RECORDED", 20)
    lines = [_error(n, f"rtStreamSynchronize failed, stream 7, task {n * 31}, retCode=0x7150007") for n in range(200)]
    lines[150] = _error(150, "aclrtSynchronizeDevice failed, device 1, retCode=0x7150007")
    lines.insert(160, "<exception_print>after a repeated error line")
    write_log(tmp_path, PLOG, "\n".join(lines) + "\n")
    log, full = read_plog(tmp_path, keep=KEEP), read_plog(tmp_path, selective=False)
    (f,) = log.files
    records = log.records
    assert list(records["line"]) == [*range(1, 21), 151, 161]
    assert f.levels == {"ERROR": 200} and f.lines == 201 and f.unparsed == 0
    assert (f.first_time, f.last_time) == (full.files[0].first_time, full.files[0].last_time)
    # the dump line after a repeated error line takes that line's time, as in a full reading
    assert records.iloc[-1]["time"] == full.records[full.records["line"] == 161].iloc[0]["time"]
    assert f.warnings == [f"{PLOG}: a flood of error lines: 200 ERROR lines, of which 179 past the first 20 repeat a "
                          f"line recorded before (numbers aside) and are counted without a record"]
    assert extract_evidence(log).first_error == extract_evidence(full).first_error


def test_a_few_thousand_errors_are_all_recorded(tmp_path):
    write_log(tmp_path, PLOG, "\n".join(_error(n, "HcclAllReduce failed, timeout") for n in range(3000)) + "\n")
    log = read_plog(tmp_path, keep=KEEP)
    assert len(log.errors()) == 3000 and not log.files[0].warnings


_TEXTS = st.sampled_from(["x failed, stream 7", "x failed, stream 1", "y failed", "y failed 0x1f", "[a.cc:3] z"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), _TEXTS, st.integers(0, 999)), max_size=40), st.integers(1, 6))
def test_the_scanner_leaves_out_the_repeats_its_python_model_does(items, budget):
    levels = ["ERROR", "INFO", "WARNING", "ERROR"]
    lines = [f"[{levels[k]}] RUNTIME(100,python):2026-01-01-00:00:{n % 60:02d}.{n:03d}.000 [s.cc:{n}]100 {t}"
             if k < 3 else f"plain {t} {n}" for k, t, n in items]
    sel = scan.select("\n".join(lines).encode(), KEEP, flood=budget)
    model = flood.Flood(budget=budget)
    kept = [no for no, line in enumerate(lines, start=1) if not model.repeats(line)]
    assert sel.repeated == model.left and {no for no, _ in sel.picked} <= set(kept)
    assert [no for no, _ in sel.picked if lines[no - 1].startswith("[ERROR]")] == \
           [no for no in kept if lines[no - 1].startswith("[ERROR]")]


def test_a_device_number_tells_one_repeated_error_from_another():
    seen = flood.Flood()
    assert not any(seen.repeats(_error(n, "x failed, device 0")) for n in range(flood.RECORDED))
    assert seen.repeats(_error(1, "x failed, device 0")) and not seen.repeats(_error(2, "x failed, device 3"))
    assert not seen.repeats("plain text") and seen.left == 1


@pytest.mark.parametrize("scanned", [True, False], ids=["scanned", "line-by-line"])
def test_a_capture_of_more_lines_than_a_triage_reads_one_by_one_is_refused(tmp_path, monkeypatch, scanned):
    monkeypatch.setattr(plog, "CAPTURE_LINES", 50)
    if scanned:
        monkeypatch.setattr(plog, "CAPTURE_FULL_BELOW", 1)
    write_log(tmp_path, "train.log", "epoch 1 step 3 loss 2.5\n" * 51)
    write_log(tmp_path, "short.log", "epoch 1 step 3 loss 2.5\n" * 50)
    short, long = read_plog(tmp_path, keep=KEEP).files   # in the order of their paths
    assert long.skipped.startswith("refused: more than 50 lines of console text") and long.lines == 0
    assert short.skipped is None and short.lines == 50


def test_a_plog_of_more_plain_lines_than_a_capture_may_have_is_read_whole(tmp_path, monkeypatch):
    # the bound is a capture's, whose lines are read one by one; a CANN log's plain lines are only scanned
    monkeypatch.setattr(plog, "CAPTURE_LINES", 50)
    write_log(tmp_path, PLOG, _error(0, "boom") + "\n" + "epoch 1 step 3 loss 2.5\n" * 51)
    (f,) = read_plog(tmp_path, keep=KEEP).files
    assert (f.selective, f.skipped, f.lines, f.unparsed) == (True, None, 52, 51)


def test_a_bundle_of_more_files_than_a_read_takes_is_refused_naming_it(tmp_path):
    for n in range(4):
        write_log(tmp_path / "b" / f"d{n}", PLOG, _error(n, "boom") + "\n")
    assert len(read_plog(tmp_path / "b", limits=Limits(max_files=4)).files) == 4
    with pytest.raises(BundleError, match=r"b: refused: more than 3 files in it"):
        read_plog(tmp_path / "b", limits=Limits(max_files=3))
    with pytest.raises(ValueError):
        Limits(max_files=0)
