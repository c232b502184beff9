"""Reading: every line of every file counted, none dropped; roles and identity from paths."""
from pathlib import Path

import pytest
from casebook.reading.bundle import BundleError, classify
from casebook.reading.encoding import lines_of
from casebook.reading.plog import read_plog
from casebook.reading.table import PLOG_COLUMNS
from conftest import COLLECTIONS, write_log
from hypothesis import given
from hypothesis import strategies as st


def real_line_count(path: Path) -> int:
    """Lines as design.md §5 defines them, counted independently of the reader."""
    data = path.read_bytes()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


@pytest.mark.parametrize("name", COLLECTIONS)
def test_every_corpus_file_is_read_with_its_real_line_count(corpus, name):
    log = read_plog(corpus / name)
    on_disk = sorted(p for p in (corpus / name).rglob("*") if p.is_file())
    assert len(log.files) == len(on_disk)
    for f in log.files:
        assert f.skipped is None
        assert f.lines == real_line_count(corpus / name / f.path), f.path
    assert log.lines == sum(real_line_count(p) for p in on_disk)
    assert len(log.records) == log.lines
    assert list(log.records.columns) == PLOG_COLUMNS
    assert log.lines_unparsed == int((log.records["kind"] == "unparsed").sum())


def test_unparsed_lines_are_kept_not_dropped(corpus):
    log = read_plog(corpus / "aicore-gatherv2-asys")
    raw = log.records[log.records["kind"] == "unparsed"]
    assert log.lines_unparsed == 101          # the op-info JSON printed across lines in plog-370 and plog-1216
    assert '  "Abs": {' in set(raw["msg"])


def test_roles_and_identity_from_paths():
    assert classify("ascend/log/debug/plog/plog-48213_20260314100211104.log") | {} == {
        "role": "host_plog", "sort": "debug", "node": None, "rank": None, "device": None, "pid": 48213}
    info = classify("worker-1/process_log/debug/device-3/device-48213_20260314100211104.log")
    assert (info["role"], info["node"], info["device"], info["pid"]) == ("device_log", "worker-1", 3, 48213)
    info = classify("slog/device-0/device-0_20200909152235075.log")
    assert (info["role"], info["device"], info["pid"]) == ("device_log", 0, None)
    assert classify("slog/device-os-0/device-os-0_20200909152231193.log")["role"] == "device_os_log"
    assert classify("slog/host-0/host-0_20200909152234009.log")["role"] == "host_plog"
    assert classify("device_log/hisi_logs/device-0/history.log")["role"] == "bbox"
    assert classify("process_log/rank_5/debug/plog/plog-1_20260314100211104.log")["rank"] == 5


def test_old_and_asys_layouts(corpus):
    old = read_plog(corpus / "aicore-old-slog-layout")
    assert {f.role for f in old.files} == {"host_plog", "device_log", "device_os_log"}
    assert old.file("slog/host-0/host-0_20200909152234009.log").pid == 13694
    asys = read_plog(corpus / "aicore-gatherv2-asys")
    assert {f.sort for f in asys.files} == {"debug", "run"}


def test_line_definition_crlf_tail_and_bad_bytes(tmp_path):
    p = tmp_path / "plog-1_20260101000000000.log"
    p.write_bytes(b"[ERROR] APP(1,python):2026-01-01-00:00:00.000.000 [a.cc:1]1 F:one\r\n"
                  b"caf\xe9 \xff bytes\n"
                  b"\n"
                  b"[INFO] APP(1,python):2026-01-01-00:00:01.000.000 [a.cc:2]1 F:tail without newline")
    log = read_plog(p)
    f = log.files[0]
    assert (f.lines, f.unparsed) == (4, 1)
    assert log.records["msg"].iloc[0] == "one"          # \r is not a line break, and is not kept in the message
    assert "\ufffd" in log.records["msg"].iloc[1]
    assert any("not valid UTF-8" in w and "line 2" in w for w in log.warnings)
    assert log.raw_line(f.path, 2) == b"caf\xe9 \xff bytes" and f.encoding == "utf-8+replaced"
    assert f.last_time == "2026-01-01T00:00:01.000000"


def test_binary_file_skipped_with_reason(tmp_path):
    (tmp_path / "core.bin").write_bytes(bytes(range(256)) * 64)
    write_log(tmp_path, "plog-2_20260101000000000.log", "[ERROR] APP(2,p):2026-01-01-00:00:00.000.000 x\n")
    log = read_plog(tmp_path)
    skipped = [f for f in log.files if f.skipped]
    assert [f.path for f in skipped] == ["core.bin"] and skipped[0].skipped == "binary file"
    assert log.lines == 1
    assert log.summary() == "2 files (1 read, 1 skipped), 1 lines (0 unparsed), 47 bytes"
    assert log.unusable_reason() is None


def test_nothing_readable_is_named_in_one_line(tmp_path):
    (tmp_path / "a.bin").write_bytes(b"\x7fELF" + bytes(range(32)) * 8)
    (tmp_path / "b.log").write_bytes(b"")
    reason = read_plog(tmp_path).unusable_reason()
    assert reason == ("not a log bundle: no readable text lines in it (a.bin: binary file (ELF executable); "
                      "b.log: empty)")


def test_readable_cli_output_accounts_for_the_input(tmp_path, capsys):
    from casebook.cli import main
    (tmp_path / "core.bin").write_bytes(bytes(range(256)) * 64)
    write_log(tmp_path, "plog-2_20260101000000000.log", "[ERROR] APP(2,p):2026-01-01-00:00:00.000.000 x\nodd line\n")
    assert main(["triage", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Input: 2 files (1 read, 1 skipped), 2 lines (1 unparsed), 56 bytes"
    assert out[1] == "  skipped core.bin: binary file"


def test_screen_capture_role_from_content(tmp_path):
    write_log(tmp_path, "train_stdout.log", "step 1 loss 2.3\nEZ9999: Inner Error!\n")
    assert read_plog(tmp_path).files[0].role == "screen_capture"


def test_missing_path_is_a_bundle_error(tmp_path):
    with pytest.raises(BundleError, match="no such file"):
        read_plog(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(BundleError, match="no files"):
        read_plog(tmp_path / "empty")


@given(st.text(alphabet="ab\n\r ", max_size=30))
def test_lines_of_gives_the_lines_between_newlines_one_at_a_time(text):
    assert list(lines_of(text)) == text.split("\n")


def test_a_triage_reading_counts_empty_lines_without_a_record(tmp_path):
    """Read line by line for a triage, a file's empty lines are counted, not recorded (and a system log's routine
    lines); every other record, the counts, the role, the times and the warnings are those of a reading that
    records every line."""
    from dataclasses import replace as copy
    from casebook.reading.bundle import find_files
    from casebook.reading.plog import parse_bytes
    from conftest import ROOT, SAMPLES
    write_log(tmp_path, "blanks.txt", "\n" * 5000 + "Traceback (most recent call last):\n\n  File \"a.py\", line 1\n")
    write_log(tmp_path, "only-blanks.txt", "\n" * 3)
    folders = [ROOT / "tests" / "captures", SAMPLES, tmp_path]
    files = [f for folder in folders for f in find_files([folder]) if not f.skipped]
    dropped = 0
    for f in files:
        data = f.source.read_bytes()
        full, quick = copy(f, warnings=[], raw_lines={}), copy(f, warnings=[], raw_lines={})
        rows = parse_bytes(full, data)
        kept = parse_bytes(quick, data, blank_records=False)
        blank = [r for r in rows if r[2] == "blank" and not data.split(b"\n")[r[1] - 1].rstrip(b"\r")]
        # a system log's routine lines are counted without a record too (reading/system_log.py): the same test
        routine = _routine_lines(full, data) if full.system else set()
        assert kept == [r for r in rows if r not in blank and r[1] not in routine], f.path
        assert quick.blank == len(blank) and quick.selective == bool(blank or routine), f.path
        view = lambda g: (g.lines, g.unparsed, g.role, g.first_time, g.last_time, g.warnings, g.raw_lines, g.pid,
                          g.rank, g.attachment, g.continues, [q.path for q in g.quoted])
        assert view(quick) == view(full), f.path
        dropped += quick.blank
    assert dropped > 5000


def _routine_lines(f, data: bytes) -> set[int]:
    """The 1-based numbers of a system log's routine lines, as its reader tells them."""
    from casebook.reading import system_log
    from casebook.reading.encoding import LineTexts, as_read, split_lines
    texts = [LineTexts(f).text(no, raw) for no, raw in enumerate(split_lines(as_read(data)), start=1)]
    numbered = [no for no, text in enumerate(texts, start=1) if text]
    return {no for no, fields in zip(numbered, system_log.read_all([t for t in texts if t], system_log.default_keep()))
            if fields is None}


def test_a_device_dumps_memory_rows_are_counted_without_a_record(corpus):
    """The rows of memory words an AI Core exception dump prints, and the registers no family reads, are read as the
    grammar reads them but kept without a record, like INFO lines: the old slog layout's device log has 32,768 rows
    and 1,285 such registers. The other records, the counts and the role are those of a reading that records every
    line, and the explorer gets every row back."""
    from casebook.evidence.registry import KEEP
    from casebook.reading.backfill import every_record
    from casebook.reading.device_text import memory_row, register_row
    folder = corpus / "aicore-old-slog-layout"
    quick, full = read_plog(folder, keep=KEEP), read_plog(folder)
    device = next(f.path for f in full.files if "/device-0/" in f.path)
    rows = full.records[full.records["file"] == device]
    memory = rows[rows["msg"].map(lambda m: memory_row("<exception_print> " + m))]
    assert len(memory) == 32768 and set(memory["kind"]) == {"exception_print"}
    registers = rows[rows["kind"].eq("exception_print") & rows["msg"].map(
        lambda m: register_row("<exception_print>" + m) and not any(k in m for k in KEEP))]
    assert len(registers) == 1285
    kept = quick.records[quick.records["file"] == device]
    assert set(kept["line"]).isdisjoint(memory["line"]) and set(kept["line"]).isdisjoint(registers["line"])
    others = rows[~rows["line"].isin(memory["line"]) & ~rows["line"].isin(registers["line"])
                  & rows["kind"].eq("exception_print")]
    assert list(kept[kept["kind"] == "exception_print"]["line"]) == list(others["line"])
    # the registers the AI Core family reads stay records: each core's AIC_ERROR, PC_START and CURRENT_PC
    assert len(kept[kept["msg"].str.match(r"(?:AIC_ERROR|PC_START|CURRENT_PC)=")]) == 48
    view = lambda g: (g.path, g.lines, g.unparsed, g.role, g.first_time, g.last_time, g.device)
    assert [view(f) for f in quick.files] == [view(f) for f in full.files]
    assert len(every_record(quick)[lambda r: r["file"] == device]) == len(rows)
    # a register line, the dump's header and a row of the same words pasted with a note are no memory rows
    assert not memory_row("<exception_print>AIC_ERROR=0x8") and not memory_row("<exception_print>TIME:1, device_id=0")
    assert not memory_row("<exception_print> 0x16500: 0x0 0x0 see the fault")
    assert memory_row("<exception_print> 0x0: 0x1")
    assert register_row("<exception_print>HWS_REG_AIC_BASE_ADDR[0]=0x6000b0000000")
    assert register_row("<exception_print>HWS_REG_SQ_STATUS(sq_head)=0x10c0005fe")
    assert not register_row("<exception_print>HWTS_SLOT_START: slot_id=29")
    assert not register_row("<exception_print>####AICORE_INFO_START: core_id=0, AI_CORE_INT=0x0")
    assert not register_row("<exception_print>TIME:2020-09-09-15:22:37.885.071, device_id=0, stream_id=523")
