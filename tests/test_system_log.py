"""System logs of a collection (OS, install, kernel): read by their kind, selectively, as a full reading reads them."""
import pytest
from casebook.bench.asys import write_asys
from casebook.evidence import errors
from casebook.evidence.registry import KEEP, extract_evidence
from casebook.judging.triage import triage
from casebook.knowledge.literals import required
from casebook.reading import _linescan, scan, system_log
from casebook.reading.backfill import every_record
from casebook.reading.encoding import LONG_LINE, split_lines
from casebook.reading.grammar import KIND_UNPARSED, BlockState, Fields, parse_line
from casebook.reading.plog import read_plog
from conftest import COLLECTIONS, SAMPLES, write_log
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.skipif(not scan.available(), reason="the compiled scanner is not built")

H = "[INFO] RUNTIME(20194,python):2026-05-04-09:00:36.000.684 [npu_driver.cc:453]20346 "


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """A generated asys collection of 2 MB: install, kernel, syslog, messages and slogd logs beside the plogs."""
    out = tmp_path_factory.mktemp("asys") / "a"
    write_asys(out, 2 << 20, SAMPLES)
    return out


def _files(log):
    return [(f.path, f.role, f.system, f.lines, f.unparsed, f.first_time, f.last_time, f.skipped) for f in log.files]


def _same_records(quick, full):
    """Every record of the selective reading is the full reading's record of that line."""
    cols = ["file", "line", "kind", "level", "module", "pid", "time", "code", "msg"]
    keyed = full.records.set_index(["file", "line"])
    mine = quick.records.set_index(["file", "line"])
    assert mine.index.isin(keyed.index).all()
    assert mine[cols[2:]].equals(keyed.loc[mine.index, cols[2:]])


def test_system_logs_are_known_by_name_and_long_ones_by_their_first_lines():
    for path, kind in [("dfx/log/host/install/ascend_install.log", "install"), ("var/log/syslog.1", "syslog"),
                       ("dfx/log/device/dev-os-0/system/message/messages", "messages"),
                       ("messages-20250601", "messages"),
                       ("dfx/log/host/driver/host_kernel.log", "kernel"), ("dmesg.txt", "kernel"),
                       ("kern.log", "kernel"), ("dfx/log/device/dev-os-0/slogd/slogdlog", "slogd"),
                       ("bundle.tar.gz!/host/syslog", "syslog")]:
        assert system_log.kind_of(path) == kind, path
    for path in ("capture.txt", "train_stdout.log", "console.log", "plog-1_20260101000000000.log", "messages.txt"):
        assert system_log.kind_of(path) is None, path
    dmesg = "".join(f"[{i:5d}.{i:06d}] ascend: heartbeat {i}\n" for i in range(40)).encode()
    # dmesg text pasted into a ticket is a paste; a long file of it is the kernel's log
    assert system_log.kind_of("capture.txt", dmesg, len(dmesg)) is None
    assert system_log.kind_of("capture.txt", dmesg, system_log.SNIFF_FROM) == "kernel"
    mixed = dmesg + b"Traceback (most recent call last):\n" + dmesg
    assert system_log.kind_of("capture.txt", b"hello\n" + mixed, system_log.SNIFF_FROM) is None
    # a syslog line's time, host and text; a container runtime's log of the job's console has the stream and a tag
    # where the host would be, and is the job's console (a capture)
    syslog = "".join(f"2025-06-01T10:00:{i:02d}.000001+08:00 node-1 kernel: npu {i}\n" for i in range(40)).encode()
    cri = "".join(f"2025-06-01T10:00:{i:02d}.123456789Z stderr F step {i}\n" for i in range(40)).encode()
    assert system_log.kind_of("0.log", syslog, system_log.SNIFF_FROM) == "syslog"
    assert system_log.kind_of("0.log", cri, system_log.SNIFF_FROM) is None


def test_every_report_line_the_error_reader_finds_holds_a_word_a_system_log_reads():
    need = required(errors._REPORTS.pattern)
    assert need is not None and all(any(w in alt for w in system_log.WORDS) for alt in need.alternatives)


_PIECES = ["[", "]", "A", "Z", "a", "_", "1", "9", "(", ")", ",", ":", " ", "\t", "\x1c", "é", "١", "x", "code",
           "ERROR", "-", "."]
_LINE = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, max_size=12))
def test_the_scanner_tells_routine_text_as_its_python_model_does(lines):
    data = "\n".join(lines).encode()
    sel = scan.select(data, system_log.literals(KEEP), text=True)
    find = system_log.finder(KEEP)
    texts = [raw.decode() for raw in split_lines(data)]
    routine = [no for no, t in enumerate(texts, start=1) if system_log.routine(t, find)]
    assert sel.header_lines == 0 and sel.lines == len(texts)
    assert sel.routine == len(routine)
    assert [no for no, _ in sel.picked] == [no for no in range(1, len(texts) + 1) if no not in routine]


def test_a_system_log_read_selectively_keeps_the_full_readings_records_and_counts(collection):
    quick, full = read_plog(collection, keep=KEEP), read_plog(collection, selective=False)
    kinds = {f.system for f in quick.files}
    assert {"install", "kernel", "syslog", "messages", "slogd"} <= kinds
    assert _files(quick) == _files(full)
    assert all(f.selective for f in quick.files if f.system)
    assert len(quick.records) < len(full.records) / 4
    _same_records(quick, full)
    said = [(r.file, r.line, r.kind, r.level, r.msg) for r in errors.records(quick)]
    assert said == [(r.file, r.line, r.kind, r.level, r.msg) for r in errors.records(full)]
    a, b = extract_evidence(quick), extract_evidence(full)
    assert a.first_error == b.first_error and a.facts == b.facts
    assert [(x.device, x.kernel, x.error_bits) for x in a.aicore_faults] == \
           [(x.device, x.kernel, x.error_bits) for x in b.aicore_faults]
    # the lines left without a record are read back on demand, as they are on disk
    assert every_record(quick).equals(full.records)
    f = quick.file("dfx/log/host/message/syslog")
    assert quick.read_lines(f.path, f.lines - 1, f.lines) == \
           (collection / f.path).read_bytes().rstrip(b"\n").split(b"\n")[-2:]


def test_a_system_logs_routine_lines_are_unparsed_and_its_span_that_of_its_lines(collection):
    log = triage(collection).log
    kernel = log.file("dfx/log/host/driver/host_kernel.log")
    assert kernel.role == "unknown_text" and kernel.system == "kernel"
    assert kernel.first_time.startswith("2025-06-03T08:00:00") and kernel.last_time > kernel.first_time
    install = log.file("dfx/log/host/install/ascend_install.log")
    rows = log.records[log.records["file"] == install.path]
    assert install.unparsed == install.lines and len(rows) < install.lines / 4
    assert rows["msg"].str.contains("version").all()   # the versions family reads the install log's version lines


def test_a_system_log_whose_every_line_reports_is_read_whole(tmp_path):
    # read line by line for a triage, no routine or empty line is left without a record: the reading is not
    # selective, so no view reads the file again
    lines = ["[ 8123.441001] pcieport 0000:60:00.0: AER: Uncorrected (Fatal) error received: 0000:61:00.0",
             "[ 8123.441023] pcieport 0000:60:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer"]
    from casebook.reading.bundle import find_files
    from casebook.reading.plog import parse_bytes
    path = write_log(tmp_path, "dmesg.txt", "\n".join(lines) + "\n")
    (f,) = find_files([tmp_path])
    rows = parse_bytes(f, path.read_bytes(), blank_records=False)
    assert (f.system, f.selective, f.lines, f.blank, len(rows)) == ("kernel", False, 2, 0, 2)


def test_a_system_log_reads_the_lines_that_carry_evidence_and_counts_the_others(tmp_path):
    lines = ["Jun  3 08:00:00 host01 systemd[1]: Started Session 3 of user root.",
             "Jun  3 08:00:01 host01 kernel: [  12.000001] {1}[Hardware Error]: Hardware error from APEI Generic "
             "Hardware Error Source: 1",
             "Jun  3 08:00:02 host01 npu-smi: dcmi module initialize failed. ret is -8005",
             "",
             "   indented text",
             "[ERROR] RUNTIME(11,python):2026-01-01-00:00:00.000.000 [a.cc:1]1 boom",
             "[INFO] RUNTIME(11,python):2026-01-01-00:00:01.000.000 [a.cc:1]1 routine header",
             "[ERROR] RUNTIME(11,python):2026-01-01-00:00:0x.000.000 a header only the grammar may read",
             "Jun  3 08:00:03 host01 cron[9]: (root) CMD (run-parts /etc/cron.hourly) " + "x" * LONG_LINE + " code",
             "Jun  3 08:00:04 host01 sshd[7]: the connection failed, reset by peer"]
    write_log(tmp_path / "b", "var/log/syslog", "\n".join(lines) + "\n")
    quick, full = read_plog(tmp_path / "b", keep=KEEP), read_plog(tmp_path / "b", selective=False)
    (f,) = quick.files
    assert (f.system, f.selective, f.lines, f.blank) == ("syslog", True, 10, 1)
    assert _files(quick) == _files(full)
    _same_records(quick, full)
    assert sorted(quick.records["line"]) == [2, 3, 5, 6, 8, 10]
    # unparsed: the routine session and cron lines (the cron line's literal lies past the cut of a long line) and
    # the four lines read that no rule accepts; the INFO header is counted by its level; the kernel's line, as syslog
    # keeps it, is read as the kernel's
    assert f.unparsed == 2 + 4 and f.levels == {"ERROR": 1, "INFO": 1}
    assert quick.records.set_index("line").loc[2, "kind"] == "kernel"
    # the kernel's APEI record and DCMI's failure report an error without a level; a system log's words of failure
    # are routine, a paste's are its errors
    assert sorted(r.line for r in errors.records(quick)) == [2, 3, 6]


def test_the_npu_drivers_error_lines_in_its_host_log_and_in_dmesg_are_error_lines(tmp_path):
    # the driver's host log (host/driver/host_kernel.log of an asys collection; its INFO lines are 3754's) and dmesg:
    # the driver states the level in its own prefix (hicann/driver dmc_log.h), the kernel's ring buffer does not
    host = ["[2025-05-07-19:54:27.400625] [ascend] [drv_pcie] [INFO] [devdrv_init_dev_num 2253] "
            "<systemd-udevd:694:694> Findout device. (index=0; device=d100; dev_num=0)",
            "[2025-05-07-19:54:30.000001] [812.004512] [ascend] [ERROR] [devmm] [devmm_ioctl_alloc 512] "
            "<python3:5040:5041> Alloc failed. (devid=0)",
            "[2025-05-07-19:54:31.000001] [ascend] [drv_pcie] [INFO] [devdrv_dma_copy 90] <kworker/0:1:9:9> "
            "Copy failed, retry. (index=0)"]
    dmesg = ["[  812.004512] [ascend] [ERROR] [devmm] [devmm_ioctl_alloc 512] <python3:5040> Alloc failed. (devid=0)",
             "[  812.104512] [ascend] [devmm] [devmm_svm_open 77] <python3:5040> open failed, retry"]
    write_log(tmp_path / "b", "dfx/log/host/driver/host_kernel.log", "\n".join(host) + "\n")
    write_log(tmp_path / "b", "dmesg.txt", "\n".join(dmesg) + "\n")
    quick, full = read_plog(tmp_path / "b", keep=KEEP), read_plog(tmp_path / "b", selective=False)
    _same_records(quick, full)
    assert sorted((r.file, r.line) for r in errors.records(quick)) == [
        ("dfx/log/host/driver/host_kernel.log", 2), ("dmesg.txt", 1)]
    # the INFO line that says a copy failed is the driver's routine account of a retry, not an error line
    kernel = quick.records.set_index(["file", "line"])
    assert kernel.loc[("dfx/log/host/driver/host_kernel.log", 3), "level"] == "INFO"
    assert kernel.loc[("dfx/log/host/driver/host_kernel.log", 2), "time"] == "2025-05-07T19:54:30.000001"


def test_a_flood_of_error_lines_in_a_system_log_is_counted_and_named(tmp_path, monkeypatch):
    from casebook.reading import flood
    monkeypatch.setattr(flood, "RECORDED", 20)
    lines = ["Jun  3 08:00:00 host01 systemd[1]: Started Session 3 of user root."] + [
        f"[ERROR] RUNTIME(11,python):2026-01-01-00:00:{n:02d}.000.000 [a.cc:1]1 rtStreamSynchronize failed, task {n}"
        for n in range(50)]
    write_log(tmp_path / "b", "var/log/syslog", "\n".join(lines) + "\n")
    log = read_plog(tmp_path / "b", keep=KEEP)
    (f,) = log.files
    assert (f.system, f.selective, f.lines, f.levels) == ("syslog", True, 51, {"ERROR": 50})
    assert list(log.records["line"]) == list(range(2, 22))
    assert f.warnings == ["var/log/syslog: a flood of error lines: 50 ERROR lines, of which 30 past the first 20 "
                          "repeat a line recorded before (numbers aside) and are counted without a record"]


def test_a_system_log_line_picked_for_a_familys_literal_alone_is_its_text_for_that_family(tmp_path):
    lines = ["[Driver] [2025-06-03 08:00:00] [INFO]Driver version=23.0.0 check item passed",
             "[Driver] [2025-06-03 08:00:01] [INFO]install step 3 of 5",
             "[Driver] [2025-06-03 08:00:02] [ERROR]driver version check failed",
             # a bare key=value `version`, on many lines of an install log, names no version any pattern reads
             "[Driver] [2025-06-03 08:00:03] [INFO]version=[/usr/local/Ascend/driver/75] check item 2500 passed"]
    write_log(tmp_path / "b", "install/ascend_install.log", "\n".join(lines) + "\n")
    quick = read_plog(tmp_path / "b", keep=KEEP)
    (f,) = quick.files
    assert f.system == "install" and list(quick.records["line"]) == [1, 3]
    first = quick.records.iloc[0]
    # no word of failure: the grammar is not run on it, and its whole text is the message the family reads
    assert (first["kind"], first["level"], first["time"], first["msg"]) == ("unparsed", None, None, lines[0])
    # a word of failure sends the third to the grammar's rules; the second holds no literal: routine text
    assert system_log.read_all(lines, KEEP) == [Fields(KIND_UNPARSED, msg=lines[0]), None,
                                                parse_line(lines[2], BlockState()), None]
    assert extract_evidence(quick).facts["npu_driver_version"].value == "23.0.0"


def test_a_system_log_the_scanner_declines_is_read_line_by_line_to_the_same_counts(tmp_path):
    text = ("Jun  3 08:00:00 host01 systemd[1]: Started.\r\n"
            "Jun  3 08:00:02 host01 npu-smi: dcmi failed. ret is -8005\r\n")
    write_log(tmp_path, "syslog", text)
    quick, full = read_plog(tmp_path, keep=KEEP), read_plog(tmp_path, selective=False)
    (f,) = quick.files
    assert (f.system, f.selective, f.lines, f.unparsed) == ("syslog", True, 2, 2)
    assert list(quick.records["line"]) == [2] and len(full.records) == 2
    assert _files(quick) == _files(full)


@pytest.mark.parametrize("name", COLLECTIONS)
def test_no_file_of_the_corpus_is_taken_for_a_system_log(corpus, name):
    assert not any(f.system for f in read_plog(corpus / name, keep=KEEP).files)


def test_the_scanner_counts_routine_lines_only_when_asked():
    data = b"plain text\nmore text\n"
    assert len(_linescan.scan(data, (b"code",), b"device_id=", 200, 1024)) == 8
    assert _linescan.scan(data, (b"code",), b"device_id=", 200, 1024, True)[-3:] == (2, 0, 0)   # routine, repeated, dumped
    assert scan.select(data, ("code",)).routine == 0 and scan.select(data, ("code",), text=True).routine == 2


def test_the_literal_search_is_built_from_the_familys_literals_and_the_words_of_failure():
    find = system_log._finder(("aclnn",))
    assert find("an aclnnCast line") and find("it failed") and not find("routine text")
    assert system_log._finder(())("routine text") is None and system_log._finder(())("an Error")


def test_a_system_log_read_line_by_line_counts_each_routine_line_and_takes_its_span_from_its_edges(tmp_path):
    # CRLF: the scanner declines the file, so it is read line by line
    def kernel(second, words):
        return f"[2025-06-03-08:00:{second:02d}.000000] [ascend] [drv_dms] [INFO] [devdrv 3] <kworker/0:1> {words}"

    lines = [kernel(0, "started"), kernel(1, "started again"), "npu-smi: dcmi failed. ret is -8005",
             kernel(3, "reached"), kernel(9, "stopped")]
    write_log(tmp_path, "host_kernel.log", "\r\n".join(lines) + "\r\n")
    log = read_plog(tmp_path, keep=KEEP)
    (f,) = log.files
    assert (f.system, f.lines, f.unparsed) == ("kernel", 5, 5)   # four routine lines, and the one no rule reads
    assert list(log.records["line"]) == [3]
    # the first and the last line give the span, though neither has a record
    assert (f.first_time, f.last_time) == ("2025-06-03T08:00:00.000000", "2025-06-03T08:00:09.000000")
    assert not any("empty file" in w for w in f.warnings)


def test_an_empty_system_log_is_named_in_the_warnings(tmp_path):
    write_log(tmp_path, "syslog", "")
    (f,) = read_plog(tmp_path, keep=KEEP).files
    assert f.system == "syslog" and f.lines == 0 and "syslog: empty file" in f.warnings


def test_a_long_system_log_is_searched_a_part_at_a_time_to_the_same_fields(monkeypatch):
    lines = ["[Driver] [2025-06-03 08:00:00] [INFO]Driver version=23.0.0 check item passed",
             "[Driver] [2025-06-03 08:00:01] [INFO]install step 3 of 5", "",
             "[Driver] [2025-06-03 08:00:02] [ERROR]driver version check failed", "  indented",
             "[ERROR] DRV(1,npu-smi):2025-06-03-08:00:03.000.000 [dms.c:12] dcmi failed"]
    whole = system_log.read_all(lines, KEEP)
    monkeypatch.setattr(system_log, "_AT_ONCE", 2)
    assert system_log.read_all(lines, KEEP) == whole and whole[1] is None and whole[0] is not None


def test_the_oom_killers_kill_in_a_collections_host_syslog_is_read_and_diagnosed(tmp_path):
    # an asys collection's host messages: routine lines, then the kernel's OOM killer (Linux mm/oom_kill.c) killing the
    # training process; the plog beside it shows only the job's teardown
    lines = ["Sep  3 14:06:40 node-07 systemd[1]: Started Session 12 of user root.",
             "Sep  3 14:06:52 node-07 kernel: [812044.317205] python3.10 invoked oom-killer: "
             "gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
             "Sep  3 14:06:52 node-07 kernel: [812044.317300] Out of memory: Killed process 52111 (python3.10) "
             "total-vm:198437612kB, anon-rss:151220480kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:301420kB",
             "Sep  3 14:06:53 node-07 systemd[1]: session-12.scope: Succeeded."]
    write_log(tmp_path / "c", "dfx/log/host/message/messages", "\n".join(lines) + "\n")
    write_log(tmp_path / "c", "dfx/log/host/cann/run/plog/plog-52111_20250903140640123.log",
              H.replace("20194", "52111") + "rtDeviceReset success\n")
    quick, full = read_plog(tmp_path / "c", keep=KEEP), read_plog(tmp_path / "c", selective=False)
    _same_records(quick, full)
    t = triage(tmp_path / "c")
    assert t.diagnosis is not None and t.diagnosis.case.id == "host-memory-exhausted-oom-killed"
    assert ("oom_killer_line", 3) in {(i.id, i.line) for i in t.diagnosis.for_}
