"""Finding files and saying what each is: roles, sort, node, rank, device and pid from paths and content."""
import os
from pathlib import PurePosixPath

import pytest
from casebook.reading import bundle
from casebook.reading.bundle import ROLES, BundleError, classify, find_files
from casebook.reading.plog import read_plog
from conftest import write_log
from hypothesis import given
from hypothesis import strategies as st


@pytest.mark.parametrize("path,expected", [
    ("ascend/log/debug/plog/plog-48213_20260314100211104.log",
     {"role": "host_plog", "sort": "debug", "pid": 48213}),
    ("ascend/log/security/plog/plog-7_20260314100211104.log", {"role": "host_plog", "sort": "security", "pid": 7}),
    ("ascend/log/run/device-3/device-48213_20260314100211104.log",
     {"role": "device_log", "sort": "run", "device": 3, "pid": 48213}),
    ("dfx/log/host/cann/debug/plog/plog-1148_20230713074118404.log", {"role": "host_plog", "sort": "debug"}),
    ("slog/host-0/host-0_20200909152234009.log", {"role": "host_plog", "pid": None}),
    ("slog/device-0/device-0_20200909152235075.log", {"role": "device_log", "device": 0, "pid": None}),
    ("slog/device-os-0/device-os-0_20200909152231193.log", {"role": "device_os_log", "device": 0}),
    ("device_log/slog/dev-os-3/debug/device-os/device-os_20230607152207758.log",
     {"role": "device_os_log", "device": 3, "sort": "debug"}),
    ("device_log/hisi_logs/device-0/20230713162044-070000011/bbox/driver.txt", {"role": "bbox", "device": 0}),
    ("worker-1/process_log/debug/plog/plog-26251_20250124110314544.log",
     {"role": "host_plog", "node": "worker-1", "pid": 26251}),
    ("job/process_log/rank_5/debug/plog/plog-1_20260314100211104.log", {"rank": 5, "node": None}),
    ("node_2/rank-3/plog/plog-1_20260314100211104.log", {"node": "node_2", "rank": 3}),
    ("worker-4.tar.gz!/process_log/run/plog/plog-9_20260314100211104.log",
     {"role": "host_plog", "node": "worker-4", "sort": "run", "pid": 9}),
    ("info/version.info", {"role": "environment"}),
    ("ascend_install.info", {"role": "environment"}),
    ("train.log", {"role": "unknown_text"}),
])
def test_identity_from_the_path(path, expected):
    info = classify(path)
    assert info["role"] in ROLES
    assert {k: info[k] for k in expected} == expected


def test_content_settles_role_rank_and_pid(tmp_path):
    write_log(tmp_path, "stdout.txt", "[ERROR] 2026-03-14-10:07:42 (PID:77, Device:3, RankID:2) ERR00100 PTA call acl "
                                      "api failed\n")
    write_log(tmp_path, "merged.log", "[INFO] APP(41,python):2026-03-14-10:00:00.000.000 [a.cc:1]41 F:x\n" * 3)
    write_log(tmp_path, "notes.txt", "the job died at step 300\n")
    write_log(tmp_path, "train.out", "[2026-07-07 14:54:58,102] torch.distributed.run: [WARNING] OMP_NUM_THREADS=1\n"
                                     "2026-07-07 14:56:52,494 - INFO - [rank 0] step 10: loss 7.86\n")
    log = read_plog(tmp_path)
    cap = log.file("stdout.txt")
    assert (cap.role, cap.rank, cap.device) == ("screen_capture", 2, None)   # a process's Device is not the file's
    assert (log.file("merged.log").role, log.file("merged.log").pid) == ("host_plog", 41)
    assert log.file("notes.txt").role == "unknown_text"
    assert log.file("train.out").role == "screen_capture"   # the script's own output, even without an error
    write_log(tmp_path, "dfx/log/device/0/slog.txt", "[ERROR] AICPU(9,aicpu):2026-03-14-10:00:00.000.000 x\n")
    assert read_plog(tmp_path / "dfx").files[0].role == "device_log"   # asys keeps device logs under device/


def test_rank_from_hccl_setup_is_shared_by_the_files_of_that_process(corpus):
    log = read_plog(corpus / "hccl-event-timeout-2workers")
    ranks = {(f.node, f.pid, f.sort): f.rank for f in log.files}
    assert ranks == {("worker-0", 59420, "debug"): 0, ("worker-0", 59420, "run"): 0,
                     ("worker-1", 26251, "debug"): 1, ("worker-1", 26251, "run"): 1,
                     ("worker-1", 26252, "debug"): 2, ("worker-1", 26252, "run"): 2}


def test_every_file_is_listed_sorted_and_a_file_given_alone_is_named(tmp_path):
    write_log(tmp_path, "b/plog-2_20260101000000000.log", "x\n")
    write_log(tmp_path, "a/plog-1_20260101000000000.log", "x\n")
    write_log(tmp_path, "expect.yaml", "case: x\n")
    files = find_files([tmp_path])
    assert [f.path for f in files] == ["a/plog-1_20260101000000000.log", "b/plog-2_20260101000000000.log",
                                       "expect.yaml"]
    assert files[2].skipped.startswith("sample expectations")
    (alone,) = find_files([tmp_path / "a" / "plog-1_20260101000000000.log"])
    assert alone.path == "plog-1_20260101000000000.log" and alone.pid == 1


def test_several_paths_are_one_case_and_missing_ones_are_errors(tmp_path):
    write_log(tmp_path, "n1/plog-1_20260101000000000.log", "x\n")
    write_log(tmp_path, "n2/plog-2_20260101000000000.log", "y\n")
    log = read_plog(tmp_path / "n1", tmp_path / "n2")
    assert log.lines == 2 and len(log.files) == 2
    with pytest.raises(BundleError, match="no such file"):
        find_files([tmp_path / "nope"])


def test_one_bundle_per_node_keeps_paths_apart(tmp_path):
    for node in ("hostA", "hostB"):
        write_log(tmp_path, f"{node}/debug/plog/plog-1_20260101000000000.log",
                  "[ERROR] APP(1,python):2026-01-01-00:00:00.000.000 [a.cc:1]1 F:x\n")
    log = read_plog(tmp_path / "hostA", tmp_path / "hostB")
    assert [(f.path, f.node) for f in log.files] == [
        ("hostA/debug/plog/plog-1_20260101000000000.log", "hostA"),
        ("hostB/debug/plog/plog-1_20260101000000000.log", "hostB")]
    assert set(log.records["file"]) == {f.path for f in log.files}


CAPTURE = """Epoch 3 step 120 loss 2.31
Traceback (most recent call last):
  File "train.py", line 88, in <module>
    loss.backward()
RuntimeError: npuSynchronizeDevice:../torch_npu/csrc/core/npu/NPUStream.cpp:627 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507015
[ERROR] 2026-03-14-10:07:42 (PID:48213, Device:3, RankID:5) ERR00100 PTA call acl api failed
EZ9999: Inner Error!
EZ9999[PID: 48213] 2026-03-14-10:07:42.117.604 (EZ9999):  The error from device(chipId:3, dieId:0), serial number is 7
        TraceBack (most recent call last):
        Kernel task happen error, retCode=0x26, [aicore exception].[FUNC:PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1729]
"""


def test_torch_npu_screen_capture(tmp_path):
    log = read_plog(write_log(tmp_path, "logs/rank5_stdout.txt", CAPTURE))
    (f,) = log.files
    assert (f.role, f.rank, f.lines, f.unparsed) == ("screen_capture", 5, 10, 1)
    assert list(log.records["kind"]) == ["unparsed", "python", "python", "python", "python", "pta", "block_head",
                                         "block_msg", "block_line", "block_line"]


def test_a_source_note_is_sample_metadata_only_beside_expect_yaml(tmp_path):
    write_log(tmp_path, "sample/SOURCE.md", "# Source\nhttps://example.org\n")
    write_log(tmp_path, "sample/expect.yaml", "runs: []\n")
    write_log(tmp_path, "ticket/SOURCE.md", "# notes the customer wrote\n")
    log = read_plog(tmp_path)
    skipped = {f.path: f.skipped for f in log.files}
    assert skipped["sample/SOURCE.md"] and skipped["sample/expect.yaml"]
    assert skipped["ticket/SOURCE.md"] is None and log.file("ticket/SOURCE.md").lines == 1


def test_a_folder_however_named_gives_the_same_display_paths(tmp_path, monkeypatch):
    write_log(tmp_path, "b/a/plog-1_20260101000000000.log", "x\n")
    write_log(tmp_path, "b/z.log", "x\n")
    (tmp_path / "b" / "a" / "m").mkdir()
    write_log(tmp_path, "b/a/m/device-0_1.log", "x\n")
    (tmp_path / "b" / "link").symlink_to(tmp_path / "b" / "a", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    shown = ["a/m/device-0_1.log", "a/plog-1_20260101000000000.log", "link", "z.log"]
    for given in ("b", "b/", "./b", "./b//", str(tmp_path / "b")):
        files = find_files([given])
        assert [f.path for f in files] == shown, given
        assert [os.path.abspath(f.source) for f in files] == [str(tmp_path / "b" / p) for p in shown]
    assert files[2].skipped.startswith("symbolic link to ")   # a linked folder is listed, not followed
    monkeypatch.chdir(tmp_path / "b")
    assert [f.path for f in find_files(["."])] == shown


@given(st.text(alphabet="/.a", max_size=12))
def test_path_parts_are_posix_paths_parts(path):
    assert bundle._parts(path) == PurePosixPath(path).parts


def test_an_empty_archive_and_an_unreadable_file_are_listed_with_their_reason(tmp_path, monkeypatch):
    """Each keeps its place in the bundle's listing, named by its path in the bundle and read from where it lies."""
    import errno
    import zipfile
    zipfile.ZipFile(tmp_path / "logs.zip", "w").close()
    (tmp_path / "locked.log").write_text("[ERROR] RUNTIME(1,python):2024-01-01-00:00:00.000.000 [a.cc:1]1 x\n")
    real = bundle.sniff

    def refused(path):
        if path.name == "locked.log":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        return real(path)
    monkeypatch.setattr(bundle, "sniff", refused)
    files = {f.path: f for f in find_files([tmp_path])}
    empty, locked = files["logs.zip"], files["locked.log"]
    assert (empty.skipped, empty.source, empty.size) == ("empty zip archive", tmp_path / "logs.zip", 22)
    assert (locked.skipped, locked.source) == ("cannot read: Permission denied", tmp_path / "locked.log")
