"""Rotated plogs: joined in time order, and a warning when the first error may have been rotated away."""
from casebook.reading.plog import read_plog
from casebook.reading.rotation import DEFAULT_FILE_NUM, streams
from conftest import COLLECTIONS, write_log


def plog_line(pid, t, msg="x", level="INFO"):
    return f"[{level}] APP({pid},python):2026-03-14-10:00:{t:02d}.000.000 [a.cc:1]{pid} F:{msg}\n"


def rotated(tmp_path, pid, count, first=None, folder="debug/plog"):
    for n in range(count):
        text = (first if n == 0 and first else "") + plog_line(pid, n)
        write_log(tmp_path, f"{folder}/plog-{pid}_20260314100{n:03d}000.log", text)


def test_at_the_rotation_limit_the_oldest_file_carries_the_warning(tmp_path):
    rotated(tmp_path, 5, DEFAULT_FILE_NUM)
    rotated(tmp_path, 6, DEFAULT_FILE_NUM - 1)
    log = read_plog(tmp_path)
    (stream5,) = [s for s in streams(log.files) if s.pid == 5]
    assert [f.path for f in stream5.files] == sorted(f.path for f in stream5.files)
    assert {f.role for f in stream5.files} == {"host_plog"} and len(stream5.files) == 10
    (w,) = [w for w in log.warnings if "rotation limit" in w]
    assert w.startswith(stream5.files[0].path) and "pid 5" in w and "(10, the default ASCEND_HOST_LOG_FILE_NUM)" in w
    assert "ask for every file of debug/plog" in w and w in stream5.files[0].warnings
    assert [str(g) for g in log.rotation] == [w]


def test_the_walk_says_so_in_its_first_step(tmp_path):
    from casebook import triage
    from casebook.presenting import walk
    rotated(tmp_path, 5, DEFAULT_FILE_NUM)
    symptom = walk.build(triage(tmp_path))[0]
    assert any("rotated away" in line for line in symptom.findings)


def test_the_limit_found_in_an_environment_dump_is_used(tmp_path):
    rotated(tmp_path, 5, 3)
    write_log(tmp_path, "env.txt", "PATH=/usr/bin\nHOME=/root\nASCEND_HOST_LOG_FILE_NUM=3\n")
    (w,) = read_plog(tmp_path).warnings
    assert "(3, ASCEND_HOST_LOG_FILE_NUM as found in the bundle)" in w


def test_oldest_file_starting_mid_record_is_flagged(tmp_path):
    rotated(tmp_path, 5, 2, first='  "op": "Abs",\n')
    log = read_plog(tmp_path)
    oldest = log.files[0]
    assert oldest.continues and not log.files[1].continues
    (w,) = log.warnings
    assert w.startswith(oldest.path) and "starts in the middle of a record" in w


def test_corpus_collections_raise_no_rotation_warning(corpus):
    for name in COLLECTIONS:
        assert not [w for w in read_plog(corpus / name).warnings if "rotated away" in w], name


def test_timeline_merges_files_in_time_order(tmp_path):
    write_log(tmp_path, "debug/plog/plog-5_20260314100000000.log", plog_line(5, 1) + plog_line(5, 4))
    write_log(tmp_path, "debug/plog/plog-5_20260314100005000.log", plog_line(5, 5) + "  continued\n" + plog_line(5, 7))
    write_log(tmp_path, "debug/plog/plog-6_20260314100000000.log", plog_line(6, 2) + plog_line(6, 6))
    t = read_plog(tmp_path).timeline()
    assert list(zip(t["pid"].astype(object).where(t["pid"].notna(), None), t["line"])) == [
        (5, 1), (6, 1), (5, 2), (5, 1), (None, 2), (6, 2), (5, 3)]
    assert t["file"].iloc[4] == "debug/plog/plog-5_20260314100005000.log"   # the untimed line stays after its line


def test_timeline_places_lines_without_a_time_by_their_file_and_ties_by_file_then_line(tmp_path):
    # a file opening on untimed lines takes its first time for them; a file with no time at all goes last
    write_log(tmp_path, "debug/plog/plog-7_20260314100000000.log", "  lead one\n  lead two\n" + plog_line(7, 3))
    write_log(tmp_path, "debug/plog/plog-8_20260314100000000.log", plog_line(8, 3) + plog_line(8, 3))
    write_log(tmp_path, "notes.txt", "no time here\nnor here\n")
    log = read_plog(tmp_path)
    t = log.timeline()
    assert list(zip(t["file"].str.rsplit("/", n=1).str[-1], t["line"])) == [
        ("plog-7_20260314100000000.log", 1), ("plog-7_20260314100000000.log", 2), ("plog-7_20260314100000000.log", 3),
        ("plog-8_20260314100000000.log", 1), ("plog-8_20260314100000000.log", 2), ("notes.txt", 1), ("notes.txt", 2)]
    assert list(t.index) == list(range(len(t)))
    assert log.timeline().equals(t)
    from casebook.reading.rotation import timeline
    assert timeline(log.records.iloc[:0], log.files).empty
