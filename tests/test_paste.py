"""The paste reader: grep output, launcher and logging prefixes, quotes and broken lines read like the plog they
came from; every line is still counted once; a wrapper it does not know leaves the line as it is."""
import io
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from casebook.cli import main
from casebook.judging.contract import to_dict, validate
from casebook.judging.triage import triage
from casebook.knowledge.addresses import hexs, offset
from casebook.presenting import walk
from casebook.reading.bundle import LogFile, Pasted
from casebook.reading.grammar import KIND_CONSOLE, KIND_CONTINUATION, KIND_PASTE, KIND_PLOG, KIND_UNPARSED
from casebook.reading.paste import ascii_marks, peel
from casebook.reading.plog import parse_bytes, read_plog
from casebook.reading.prefixes import PasteState
from casebook.reading.rejoin import Join, rewrapped
from casebook.reading.shell import grep_target
from casebook.widgets import TriageApp
from conftest import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

GATHERV2 = "aicore-gatherv2-asys"
OLD_LAYOUT = "aicore-old-slog-layout"
#: One plog of the GatherV2 collection: its AI Core fault, kernel line and retCode are ERROR lines.
PLOG = Path(GATHERV2) / "dfx/log/host/cann/debug/plog/plog-370_20230713074107861.log"
REPORT_LINE = 8368   #: the fault's report line in PLOG


def capture(tmp_path: Path, text: str, name: str = "ticket.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def grep(*args: str) -> str:
    """Real grep output, run from the corpus folder so the paths look like a customer's."""
    return subprocess.run(["grep", *args], cwd=CORPUS, capture_output=True, text=True, check=True).stdout


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


def fault_view(t) -> list[tuple]:
    """What an AI Core fault is judged by: device, kernel, the pc offset and the decoded error bits."""
    return [(f.device, f.kernel, hexs(offset(f.pc_start_raw, f.current_raw)) if f.pc_start_raw is not None
             and f.current_raw is not None else None, tuple(f.error_bits)) for f in t.evidence.aicore_faults]


def first_view(t) -> tuple:
    e = t.evidence.first_error
    return e.time, e.code, e.pid, e.device, " ".join(e.text.split())


def diagnosis(t) -> str | None:
    return t.diagnosis.case.id if t.diagnosis else None


def assert_counted(log, text: str) -> None:
    """Every line of the capture counted once: one record per line, numbered in order, unparsed ones counted; an
    empty line is counted without a record."""
    (f,) = log.files
    expected = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    r = log.records
    assert f.lines == len(r) + f.blank == expected
    assert list(r["line"]) == sorted(r["line"])
    without = set(range(1, expected + 1)) - set(r["line"])
    assert len(without) == f.blank and all(not text.split("\n")[n - 1].strip("\r") for n in without)
    assert f.unparsed == int((r["kind"] == KIND_UNPARSED).sum())
    heads = r[r["joined"] > 0]
    assert int(heads["joined"].sum()) == int((r["kind"] == KIND_CONTINUATION).sum())


# -- grep output over a real collection --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def collections(tmp_path_factory):
    """For each AI Core collection: its own triage, its `grep -rn ERROR` paste's, and the triage of a folder holding
    only the lines that grep printed, at the same paths (what the ERROR lines carry)."""
    out = {}
    for name in (GATHERV2, OLD_LAYOUT):
        root = tmp_path_factory.mktemp(name)
        text = grep("-rn", "ERROR", name)
        paste = capture(root, "$ grep -rn ERROR " + name + "\n" + text, "grep.txt")
        kept: dict[str, list[str]] = {}
        for line in text.splitlines():
            path, _, rest = re.match(r"([^:]+):(\d+):(.*)", line).groups()
            kept.setdefault(path, []).append(rest)
        for path, rest in kept.items():
            (root / "errors" / path).parent.mkdir(parents=True, exist_ok=True)
            (root / "errors" / path).write_text("\n".join(rest) + "\n", encoding="utf-8")
        out[name] = (triage(CORPUS / name), triage(paste), triage(root / "errors" / name), paste)
    return out


def test_grep_rn_of_a_collection_gives_its_ai_core_fault_and_diagnosis(collections):
    full, paste, _, _ = collections[GATHERV2]
    assert fault_view(paste) == fault_view(full) == [(0, "2_0_11_GatherV2", "0x3d2c", ("CCU_ILLEGAL_INSTR",))]
    assert first_view(paste) == first_view(full)
    assert diagnosis(paste) == diagnosis(full) == "aicore-illegal-instruction"


def test_grep_rn_citations_name_the_original_file_and_line(collections):
    _, paste, _, path = collections[GATHERV2]
    (fault,) = paste.evidence.aicore_faults
    assert fault.file == path.name and fault.src_file.startswith(GATHERV2 + "/dfx/log/host/cann/debug/plog/plog-")
    original = (CORPUS / fault.src_file).read_text(encoding="utf-8").split("\n")[fault.src_line - 1]
    assert "serial number is 367" in original and original.endswith(lines_of(path)[fault.line - 1].split(":", 2)[2])
    e = paste.evidence.first_error
    assert (CORPUS / e.src_file).read_text(encoding="utf-8").split("\n")[e.src_line - 1].endswith(e.text)
    doc = to_dict(paste)
    validate(doc)
    assert (doc["aicore_faults"][0]["src_file"], doc["aicore_faults"][0]["src_line"]) == (fault.src_file, fault.src_line)
    assert all(r["src_file"] and r["src_line"] for r in doc["aicore_faults"][0]["evidence"])
    steps = walk.build(paste)
    cited = [c for s in steps for c in s.cited if c.src_line is not None]
    assert cited and all(c.where.startswith(f"{c.src_file}:{c.src_line} (quoted at {path.name}:") for c in cited)
    groups = [b for s in steps for b in s.bursts if len(b.lines) > 1]
    assert groups and all(re.fullmatch(rf"{GATHERV2}/\S+:\d+-\d+ \(quoted at {path.name}:\d+-\d+\)", b.where)
                          and len({c.src_file for c in b.lines}) == 1 for b in groups)


def test_grep_rn_names_files_that_get_their_roles_pids_and_devices(collections):
    _, paste, _, _ = collections[OLD_LAYOUT]
    sources = {q.path: (q.role, q.pid, q.device, q.captured_in) for q in paste.log.sources}
    assert sources == {
        f"{OLD_LAYOUT}/slog/device-os-0/device-os-0_20200909152231193.log": ("device_os_log", None, 0, "grep.txt"),
        f"{OLD_LAYOUT}/slog/host-0/host-0_20200909152234009.log": ("host_plog", 13694, None, "grep.txt"),
        f"{OLD_LAYOUT}/slog/device-0/device-0_20200909152235075.log": ("device_log", None, 0, "grep.txt")}
    assert [f.path for f in paste.log.files] == ["grep.txt"] and paste.log.files[0].role == "screen_capture"
    # a quoted file's lines are on disk in the capture that quotes them
    assert {q.source for q in paste.log.sources} == {paste.log.files[0].source}
    # the device-side lines get the device of their file and no process of the job, as when the files are read
    assert first_view(paste) == first_view(collections[OLD_LAYOUT][0])
    assert (paste.evidence.first_error.device, paste.evidence.first_error.pid) == (0, None)
    doc = to_dict(paste)
    validate(doc)
    assert {s["path"]: s["role"] for s in doc["input"]["sources"]} == {p: v[0] for p, v in sources.items()}


def test_a_grep_paste_shows_what_the_error_lines_carry(collections):
    """The old layout keeps pc start and current in the device's <exception_print> dump, whose register lines are
    not ERROR lines: the paste reads what the same ERROR lines read as files give, and no more (the faulting kernel,
    from its ERROR line, without registers)."""
    full, paste, errors_only, _ = collections[OLD_LAYOUT]
    assert fault_view(full) == [(0, "0_1_GatherV2", "0x130", ("CCU_ILLEGAL_INSTR",))]
    assert fault_view(paste) == fault_view(errors_only) == [(0, "0_1_GatherV2", None, ())], \
        "the dump's TIME, PC_START, CURRENT_PC lines are INFO"
    assert diagnosis(paste) == diagnosis(errors_only) is None
    assert first_view(paste) == first_view(errors_only) == first_view(full)
    incidents = [(i.kind, i.device, i.first.text) for i in paste.evidence.incidents]
    assert incidents == [(i.kind, i.device, i.first.text) for i in errors_only.evidence.incidents]
    assert ("aicore_exception", 0, "hwts aic exception, bitmap=0x20000000") in incidents
    assert paste.log.errors()["msg"].str.contains("fault kernel_name=0_1_GatherV2").any()
    full, paste, errors_only, _ = collections[GATHERV2]
    assert (fault_view(paste), diagnosis(paste)) == (fault_view(errors_only), diagnosis(errors_only))


def test_grep_rn_keeps_the_node_of_worker_folders(tmp_path):
    name = "hccl-event-timeout-2workers"
    paste = triage(capture(tmp_path, grep("-rn", "ERROR", name)))
    full = triage(CORPUS / name)
    assert {(i.node, i.pid) for i in paste.evidence.incidents} == {(i.node, i.pid) for i in full.evidence.incidents}
    assert diagnosis(paste) == diagnosis(full)


def test_grep_rn_of_bbox_files_gives_their_device_events(tmp_path):
    name = "modelarts-8rank-job"
    text = grep("-rn", "-e", "ecc err", "-e", "excep_id", "-e", "system exception code", name)
    paste = triage(capture(tmp_path, text))
    events = {(e.kind, e.device, e.code) for e in paste.evidence.device_events}
    assert events == {("driver_exception", 0, "0xa8028802"), ("ts_exception", 0, "0xb4060007"),
                      ("hardware_error", 2, "0x400cd8d202e0")}
    assert events <= {(e.kind, e.device, e.code) for e in triage(CORPUS / name).evidence.device_events}
    assert {q.role for q in paste.log.sources} == {"bbox"}


def test_grep_n_of_one_plog_gives_the_plogs_fault_and_diagnosis(tmp_path):
    alone = triage(CORPUS / PLOG)
    text = grep("-n", "ERROR", str(PLOG))
    for shown in ("", f"[root@node-1 corpus]# grep -n ERROR {PLOG}\n"):
        paste = triage(capture(tmp_path, shown + text))
        assert fault_view(paste) == fault_view(alone)
        assert diagnosis(paste) == diagnosis(alone) == "aicore-illegal-instruction"
        assert first_view(paste) == first_view(alone)
        (fault,) = paste.evidence.aicore_faults
        assert fault.src_line == REPORT_LINE
        assert fault.src_file == (str(PLOG) if shown else None), "the prompt's grep command names the file"
    assert [q.pid for q in paste.log.sources] == [370]


def test_a_big_capture_read_selectively_is_peeled_too(tmp_path, monkeypatch):
    from casebook.evidence.registry import KEEP
    from casebook.reading import plog, scan
    assert scan.available(), "the compiled scanner is built in the test environment"
    text = grep("-rn", "ERROR", GATHERV2)
    monkeypatch.setattr(plog, "CAPTURE_FULL_BELOW", 1)
    log = read_plog(capture(tmp_path, text), keep=KEEP)
    (f,) = log.files
    assert f.selective and f.lines == text.count("\n") and f.role == "screen_capture"
    r = log.records
    assert r["wrapper"].eq("grep_file").all() and list(r["src_line"])[:3] == [8363, 8367, 8368]
    assert {q.pid for q in log.sources} == {1216, 370}


# -- launcher prefixes and re-wrapping ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def plog_alone():
    return triage(CORPUS / PLOG)


@pytest.mark.parametrize("prefix, column, value", [
    ("[rank0]: ", "rank", 0), ("(Worker pid=123) ", "worker_pid", 123), ("[1,2]<stderr>:", "rank", 2),
    ("(EngineCore_DP0 pid=702) ERROR 09-04 09:50:12 [core.py:702] ", "worker_pid", 702),
    ("worker-1: ", None, None), ("10.0.0.2: ", None, None), ("2025-03-01T10:00:00.123456789Z stderr F ", None, None),
    ("    ", None, None), ("\t", None, None), ("3: ", "rank", 3), ("  1024\t", "src_line", 1024)])
def test_every_line_prefixed_reads_like_the_plog(tmp_path, plog_alone, prefix, column, value):
    text = "".join(prefix + line for line in (CORPUS / PLOG).read_text(encoding="utf-8").splitlines(True))
    paste = triage(capture(tmp_path, text))
    assert first_view(paste) == first_view(plog_alone)
    assert fault_view(paste) == fault_view(plog_alone) and fault_view(paste)
    assert diagnosis(paste) == diagnosis(plog_alone)
    assert_counted(paste.log, text)
    r = paste.log.records
    assert r["wrapper"].notna().all()
    if column:
        assert (r[column] == value).all()


#: A paste whose first line no grammar reads (a sanitizer's report): only what the whole paste shows tells its
#: wrapper from text, as a Markdown code block indents every line and pdsh names the host on every line.
SANITIZER = ["====== ERROR: illegal write of size 16384", "======    at 0x0 on UB in add_custom",
             "======    in block aiv(0-7) on device 0"]


@pytest.mark.parametrize("prefix, wrapper", [
    ("    ", "margin"), ("worker-1: ", "host"), ("node3: ", "host"), ("0: ", "srun"),
    ("     7\t", "margin+line_number"),   # cat -n's padding is every line's: the margin
    ("Jan  6 09:50:12 node-1 python3[4321]: ", "journal")])
def test_a_wrapper_every_line_carries_is_peeled_from_the_first_line_too(tmp_path, prefix, wrapper):
    plain = read_plog(capture(tmp_path, "\n".join(SANITIZER) + "\n", "plain.txt")).records
    text = "".join(prefix + line + "\n" for line in SANITIZER)
    r = read_plog(capture(tmp_path, text)).records
    assert list(r["msg"]) == list(plain["msg"]) and list(r["kind"]) == list(plain["kind"])
    assert r["wrapper"].eq(wrapper).all()


def test_a_console_saved_with_its_colours_reads_like_the_plain_one(tmp_path, plog_alone):
    """A console kept by `tee` or `script` holds a terminal's colour codes; they are left out of the parsed text,
    named in a warning, and the line's bytes stay whole (LogTable.raw_line). Other escape sequences stay in the text
    (tests/test_hostile_output.py: the reports show them escaped)."""
    lines = (CORPUS / PLOG).read_text(encoding="utf-8").splitlines(True)
    text = "".join(f"\x1b[36m(Worker pid=5)\x1b[0m \x1b[1m{line[:-1]}\x1b[0m\n" if k % 7 == 0 else line
                   for k, line in enumerate(lines))
    path = capture(tmp_path, text)
    paste = triage(path)
    assert first_view(paste) == first_view(plog_alone)
    assert fault_view(paste) == fault_view(plog_alone) and diagnosis(paste) == diagnosis(plog_alone)
    assert_counted(paste.log, text)
    (f,) = paste.log.files
    assert any("colour codes" in w and "(1, 8, 15" in w for w in f.warnings), f.warnings
    assert "\x1b" not in "".join(paste.log.records["msg"].astype(str))
    assert paste.log.raw_line(f.path, 1) == text.split("\n")[0].encode()


def test_a_log_copied_from_a_web_page_reads_like_the_plain_one(tmp_path, plog_alone):
    """A rich-text page's copy turns every space into a no-break space: they are read as spaces, named in a warning,
    and the line's bytes stay whole."""
    text = (CORPUS / PLOG).read_text(encoding="utf-8").replace(" ", "\xa0")
    paste = triage(capture(tmp_path, text))
    assert first_view(paste) == first_view(plog_alone)
    assert fault_view(paste) == fault_view(plog_alone) and diagnosis(paste) == diagnosis(plog_alone)
    assert_counted(paste.log, text)
    (f,) = paste.log.files
    assert any("no-break spaces" in w for w in f.warnings), f.warnings
    assert paste.log.raw_line(f.path, 1) == text.split("\n")[0].encode()


def test_a_host_name_alone_on_one_line_is_no_wrapper(tmp_path):
    text = "python3: can't open file '/root/train.py': [Errno 2] No such file or directory\n"
    r = read_plog(capture(tmp_path, text)).records
    assert r["wrapper"].isna().all() and r["msg"][0].startswith("python3: ")


def test_a_margin_keeps_what_each_line_adds_to_it(tmp_path):
    text = "    Traceback (most recent call last):\n      File \"t.py\", line 3, in <module>\n    RuntimeError: boom\n"
    indented = read_plog(capture(tmp_path, text)).records
    plain = read_plog(capture(tmp_path, textwrap.dedent(text), "plain.txt")).records
    assert list(indented["kind"]) == list(plain["kind"]) and list(indented["msg"]) == list(plain["msg"])


def test_a_message_logged_in_several_lines_under_one_prefix_reads_as_one(tmp_path):
    """vLLM's formatter puts its prefix on every line of a message: the op's complaint broken over four lines is
    read as the unprefixed paste reads it."""
    lines = ["aclnnQuantMatmulWeightNz failed, error code is 161002", "AclNN_Parameter_Error(EZ1001):",
             "Tensor scale not implemented for DT_FLOAT16,", "should be in dtype support list",
             "[DT_UINT64, DT_BFLOAT16, DT_INT64, DT_FLOAT]."]
    prefix = "(EngineCore_DP0 pid=702) ERROR 09-04 09:50:12 [core.py:702] "
    plain = triage(capture(tmp_path, "\n".join(lines) + "\n", "plain.txt"))
    paste = triage(capture(tmp_path, "".join(prefix + line + "\n" for line in lines)))
    assert [r.said() for r in paste.evidence.rejections] == [r.said() for r in plain.evidence.rejections]
    assert paste.evidence.rejections and diagnosis(paste) == diagnosis(plain) == "op-rejects-dtype"
    r = paste.log.records
    # the later lines are the message's rest, unread text, each an error line at the prefix's level
    assert list(r["kind"][2:]) == [KIND_UNPARSED] * 3 and list(r["level"][2:]) == ["ERROR"] * 3


@pytest.mark.parametrize("wrap", [
    pytest.param(lambda line: textwrap.wrap(line, 120) or [""], id="textwrap"),
    pytest.param(lambda line: [line[k:k + 120] for k in range(0, len(line), 120)] or [""], id="hard-cut")])
def test_the_plog_rewrapped_at_120_columns_reads_to_the_same_error_and_fault(tmp_path, plog_alone, wrap):
    text = "\n".join(piece for line in (CORPUS / PLOG).read_text(encoding="utf-8").splitlines()
                     for piece in wrap(line)) + "\n"
    paste = triage(capture(tmp_path, text))
    assert first_view(paste) == first_view(plog_alone)
    assert fault_view(paste) == fault_view(plog_alone)
    assert_counted(paste.log, text)
    assert (paste.log.records["kind"] == KIND_CONTINUATION).sum() > 1000


# -- each wrapper, one line at a time -------------------------------------------------------------------------

HEADER = "[ERROR] RUNTIME(370,python3):2023-07-13-07:42:40.515.526 [engine.cc:1377]1432 ReportExceptProc:boom"

#: (line, wrappers peeled, what they name, what remains)
WRAPPED = [
    ("debug/plog/plog-4242_20250101120000000.log:1187:" + HEADER, ("grep_file",),
     {"src_file": "debug/plog/plog-4242_20250101120000000.log", "src_line": 1187}, HEADER),
    ("./plog/plog-1_20250101120000000.log:7:" + HEADER, ("grep_file",),
     {"src_file": "plog/plog-1_20250101120000000.log", "src_line": 7}, HEADER),
    ("1187:" + HEADER, ("grep_line",), {"src_line": 1187}, HEADER),
    ("1186-" + HEADER, ("grep_line",), {"src_line": 1186}, HEADER),
    ("[rank3]:" + HEADER, ("torchrun",), {"rank": 3}, HEADER),
    ("[default0]: " + HEADER, ("torchrun",), {"rank": 0}, HEADER),
    ("(Worker pid=123) " + HEADER, ("ray_worker",), {"worker_pid": 123}, HEADER),
    ("(VllmWorkerProcess pid=4567) " + HEADER, ("ray_worker",), {"worker_pid": 4567}, HEADER),
    ("(RayWorkerWrapper pid=88, ip=10.0.0.3) " + HEADER, ("ray_worker",), {"worker_pid": 88}, HEADER),
    ("(vLLMHttpServer pid=1) (Worker_TP1 pid=2) " + HEADER, ("ray_worker", "ray_worker"), {"worker_pid": 2}, HEADER),
    ("2025-03-01 10:00:00,123 - train - ERROR - " + HEADER, ("python_logging",), {"level": "ERROR"}, HEADER),
    ("2025-03-01 10:00:00,123 - WARNING - train.py:58 - " + HEADER, ("python_logging",), {"level": "WARNING"}, HEADER),
    ("[2025-03-01 10:00:00,123] [ERROR] " + HEADER, ("python_logging",), {"level": "ERROR"}, HEADER),
    ("2025-11-13 19:10:42.153018+08:00 | CRITICAL | mod:fn:12 - " + HEADER, ("python_logging",), {"level": "ERROR"},
     HEADER),
    ("ERROR:root:" + HEADER, ("python_logging_basic",), {"level": "ERROR"}, HEADER),
    ("ERROR 09-07 01:11:09 [multiproc_executor.py:596] " + HEADER, ("vllm_logging",), {"level": "ERROR"}, HEADER),
    ("E0419 16:59:47.826516 19842 ascend_direct_transport.cpp:487] " + HEADER, ("glog",), {"level": "ERROR"}, HEADER),
    ("I0419 16:59:47.796775 19844 real_client.cpp:264] " + HEADER, ("glog",), {"level": "INFO"}, HEADER),
    ("E20260311 09:41:52.163968  7716 hccl_transport_mem_c.cpp:129] " + HEADER, ("glog",), {"level": "ERROR"}, HEADER),
    ("2025-03-01T10:00:00.123456789Z " + HEADER, ("timestamp",), {}, HEADER),
    ("2025-03-01T10:00:00.123456789Z stdout F " + HEADER, ("timestamp",), {}, HEADER),
    ("[1,3]<stderr>:" + HEADER, ("mpi_tag",), {"rank": 3}, HEADER),
    ("[36m(WorkerDict pid=88, ip=10.0.0.3)[0m " + HEADER, ("colour", "ray_worker", "colour"), {"worker_pid": 88},
     HEADER),
    ("worker-1: " + HEADER, ("host",), {}, HEADER),
    ("3: " + HEADER, ("srun",), {"rank": 3}, HEADER),
    ("     12\t" + HEADER, ("line_number",), {"src_line": 12}, HEADER),
    ("Jan  6 09:50:12 node-1 python3[4321]: " + HEADER, ("journal",), {}, HEADER),
    ("192.168.1.12: " + HEADER, ("host",), {}, HEADER),
    ("node3: E16005: The model has [2] [--domain_version] fields", ("host",), {},
     "E16005: The model has [2] [--domain_version] fields"),
    ("[pod/train-0/main] " + HEADER, ("kubectl_prefix",), {}, HEADER),
    ("trainer-1  | " + HEADER, ("compose",), {}, HEADER),
    ("E       " + HEADER, ("pytest",), {}, HEADER),
    ("> " + HEADER, ("quote",), {}, HEADER),
    ("    " + HEADER, ("indent",), {}, HEADER),
    ("2025-03-01T10:00:00Z [rank1]:" + HEADER, ("timestamp", "torchrun"), {"rank": 1}, HEADER),
    ("train.log:12:[rank3]:" + HEADER, ("grep_file", "torchrun"), {"src_file": "train.log", "src_line": 12, "rank": 3},
     HEADER),
]


@pytest.mark.parametrize("line, wrappers, named, rest", WRAPPED, ids=[w[1][-1] + str(k) for k, w in enumerate(WRAPPED)])
def test_each_wrapper_is_peeled_and_kept(line, wrappers, named, rest):
    p = peel(line, PasteState())
    assert (p.wrappers, p.text, p.furniture) == (wrappers, rest, False)
    assert {k: getattr(p, k) for k in named} == named


#: Lines that look like a wrapper but are none: they stay as they are.
UNWRAPPED = [
    "/usr/lib/python3/site-packages/torch_npu/utils/path_manager.py:82: UserWarning: owner does not match",
    "10:00:00 training started",
    "E0419 the ticket number, no glog time",
    "[rank]: no number",
    "(Worker pid=abc) not a pid",
    "name | value in a table",
    "| 0     910B3               | OK            | 95.5        45                0    / 0             |",
    "  File \"train.py\", line 3, in <module>",
    "        TraceBack (most recent call last):",
    "# Heading of a ticket",
    "288: <not available>",
    "1" * 30 + ":" + HEADER,   # a number too long for a line's is no grep prefix
    "PATH=/usr/local/Ascend/driver/lib64:/usr/bin",
    "--",
    "E  two spaces are no pytest report: " + HEADER,
    "a" * 600 + "-12-" + HEADER,   # grep's context prefix is looked for in a line's first 512 characters only
    "EZ9999: " + HEADER,           # an error code is no host name
    "RuntimeError: " + HEADER,     # nor is an exception's
    "python3: can't open file '/root/train.py'",
    "[5m left] waiting for the job",   # a colour code before a prefix or a reset only
    "[mxpi_imagedecoder0] [2006] [DVPP: decode jpeg or jpg fail]",
    "Jan  6 09:50:12 node-1 kernel: [ 123.456] watchdog: BUG: soft lockup",   # the kernel's own, read as the kernel's
]


@pytest.mark.parametrize("line", UNWRAPPED)
def test_what_only_looks_like_a_wrapper_is_left_as_it_is(line):
    p = peel(line, PasteState())
    assert (p.wrappers, p.text) == ((), line)


def test_lines_of_the_paste_itself_are_counted_as_the_pastes(tmp_path):
    text = (f"[root@node-1 log]# grep -rn -C1 ERROR plog\n```\nplog/plog-1_20250101120000000.log-1-{HEADER}\n"
            f"plog/plog-1_20250101120000000.log:2:{HEADER}\n--\nBinary file plog/core matches\n```\n"
            f"grep: plog/x.bin: binary file matches\n>>> import torch_npu\n")
    log = read_plog(capture(tmp_path, text))
    assert_counted(log, text)
    r = log.records
    assert list(r["kind"]) == [KIND_PASTE, KIND_PASTE, KIND_PLOG, KIND_PLOG, KIND_PASTE, KIND_PASTE, KIND_PASTE,
                               KIND_PASTE, KIND_PASTE]
    assert list(r["src_line"].dropna()) == [1, 2]
    assert list(r["wrapper"][:2]) == ["prompt", "fence"] and r["wrapper"][8] == "python_prompt"


def test_a_pytest_failure_report_is_peeled_down_to_its_exception(tmp_path):
    text = ("    def test_compile(self):\n>       result = executor.compile(obj, args)\n"
            "E       RuntimeError: Response is empty\nE\nE       ----------------------------------\n"
            "E       - C++ Call Stack: (For framework developers)\n")
    log = read_plog(capture(tmp_path, text))
    assert_counted(log, text)
    r = log.records
    errors = r[r["level"] == "ERROR"]
    assert list(errors["line"]) == [3] and errors["msg"].iloc[0] == "RuntimeError: Response is empty"
    assert r["wrapper"][2] == "pytest"


def test_grep_commands_name_their_single_file():
    assert grep_target("grep -n ERROR plog-1_20250101120000000.log") == "plog-1_20250101120000000.log"
    assert grep_target("grep -n -A 3 -e ERROR ./a.log") == "a.log"
    assert grep_target("grep -rn ERROR .") is None and grep_target("grep -n ERROR a.log b.log") is None
    assert grep_target("ls -l") is None


def test_full_width_punctuation_is_read_where_the_grammar_needs_ascii(tmp_path):
    line = "[ERROR] RUNTIME（370，python3）：2023-07-13-07:42:40.515.526 [engine.cc:1377]1432 ReportExceptProc:设备异常，请检查"
    log = read_plog(capture(tmp_path, line + "\n"))
    (rec,) = log.records.to_dict("records")
    assert (rec["kind"], rec["pid"], rec["wrapper"]) == (KIND_PLOG, 370, "full_width")
    assert rec["msg"].endswith("设备异常，请检查"), "punctuation between Chinese words is the text's own"
    assert ascii_marks("a（b） 中，文") == "a(b) 中，文"


def test_a_logging_prefix_gives_its_level_to_a_line_the_grammar_does_not_know(tmp_path):
    text = ("2025-03-01 10:00:00,123 - train - ERROR - worker npu-3 stopped\n"
            "ERROR 09-07 01:11:09 [multiproc_executor.py:596]     indented rest of a traceback\n")
    r = read_plog(capture(tmp_path, text)).records
    # vLLM prefixes every line of a message it logs: an indented rest is a later line, not at the prefix's level
    assert list(r["kind"]) == [KIND_CONSOLE, KIND_CONSOLE] and list(r["level"]) == ["ERROR", None]
    assert list(r["msg"]) == ["worker npu-3 stopped", "indented rest of a traceback"]


def test_a_plog_line_split_once_is_joined_back(tmp_path):
    report = (CORPUS / PLOG).read_text(encoding="utf-8").split("\n")[REPORT_LINE - 1]
    cut = report.index("current:")
    text = "noise before\n" + report[:cut].rstrip() + "\n" + report[cut:] + "\nafter\n"
    log = read_plog(capture(tmp_path, text))
    assert_counted(log, text)
    r = log.records
    assert list(r["kind"][1:3]) == [KIND_PLOG, KIND_CONTINUATION] and r["joined"][1] == 1
    assert "pc start: 0x1000124080064000, current: 0x124080067d2c" in r["msg"][1]
    assert r["msg"][2] == report[cut:]
    # the line after the cut decides, whatever stands before it (here a blank line, which goes on nothing)
    (tmp_path / "blank_before").mkdir()
    text = "\n" + report[:cut].rstrip() + "\n" + report[cut:] + "\n"
    r = read_plog(capture(tmp_path / "blank_before", text)).records
    assert list(r["joined"][1:3]) == [1, 0] and "current: 0x124080067d2c" in r["msg"][1]


def test_a_short_slog_line_is_taken_as_whole(tmp_path):
    text = HEADER + "\nprogress 10% done\n"
    r = read_plog(capture(tmp_path, text)).records
    assert list(r["kind"]) == [KIND_PLOG, KIND_UNPARSED] and list(r["joined"]) == [0, 0]


def test_tables_and_dumps_are_not_taken_for_rewrapped_lines():
    table = ["+------+------+", "| NPU  Name       | Health |", "| 0    910B3      | OK     |", "+------+------+"]
    env = ["LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64/common:/usr/local/Ascend/driver/lib64/driver",
           "TASK_QUEUE_ENABLE=2", "ASCEND_LAUNCH_BLOCKING=0 and a longer line to reach the width of the first",
           "HCCL_CONNECT_TIMEOUT=1200"]
    assert rewrapped(table * 3) == [] and rewrapped(env * 3) == []


def test_a_repeated_output_line_is_not_taken_for_a_word_wrapped_piece():
    """A tool that prints the same kind of line again ("OpenBLAS blas_thread_init: ..." twice) is not a sentence a word
    wrap moved down, though the next line's first word would not fit after the line above."""
    texts = ["root@host:/w# python3 -c 'import torch, torch_npu; print(torch.npu.device_count())' # a long prompt",
             "OpenBLAS blas_thread_init: pthread_create failed for thread 1 of 96: Operation not permitted",
             "OpenBLAS blas_thread_init: RLIMIT_NPROC -1 current, -1 max",
             "OpenBLAS blas_thread_init: pthread_create failed for thread 2 of 96: Operation not permitted",
             "OpenBLAS blas_thread_init: RLIMIT_NPROC -1 current, -1 max"]
    assert rewrapped(texts) == []


def test_a_piece_that_carries_a_wrapper_is_a_line_of_its_own_in_a_rewrapped_capture():
    # the lines after the first two headers go on in mid-sentence; the third header's next line is torchrun's
    texts = [HEADER, "went the device", HEADER, "went the stream", HEADER, "[rank1]: went the next step"]
    assert rewrapped(texts) == [Join(0, ("",)), Join(2, ("",))]

# -- every line counted, unknown wrappers left alone (properties) ----------------------------------------------

PIECES = st.sampled_from(["[rank0]:", "[rank", "(Worker pid=1) ", "(Worker pid=) ", "12:", "12-", "a.log:3:", "a.log-3-",
                          "> ", ">>> ", "2025-01-01 10:00:00,000 - ERROR - ", "ERROR:root:", "svc  | ", "  ", "\t", "--",
                          "```", "$ grep -n E a.log", "：", "（", "中文", "x", " ", ":", "-", "|", "0", "[ERROR] ",
                          HEADER, "EZ9999: Inner Error!", "Traceback (most recent call last):"])
LINES = st.lists(PIECES, max_size=6).map("".join)


@settings(deadline=None, max_examples=300)
@given(st.lists(LINES, max_size=6))
def test_peeling_leaves_a_line_or_a_suffix_of_it(lines):
    state = PasteState()
    for line in lines:
        p = peel(line, state)
        assert line.endswith(p.text)
        assert p.wrappers or p.text == line, "a line no rule matches stays as it is"


@settings(deadline=None, max_examples=200)
@given(st.lists(LINES, max_size=12), st.sampled_from(["", "\n"]))
def test_every_line_of_a_paste_is_counted_once(lines, end):
    text = "\n".join(lines) + end
    f = LogFile(path="ticket.txt", source=Path("ticket.txt"))
    rows = parse_bytes(f, text.encode("utf-8"))
    expected = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    assert f.lines == len(rows) == expected
    assert [r[1] for r in rows] == list(range(1, expected + 1))
    assert f.unparsed == sum(1 for r in rows if r[2] == KIND_UNPARSED)
    assert sum(r[19] for r in rows) == sum(1 for r in rows if r[2] == KIND_CONTINUATION)


# -- somewhere to paste --------------------------------------------------------------------------------------


def test_triage_and_report_read_a_capture_from_standard_input(tmp_path, monkeypatch, capsys):
    text = grep("-n", "ERROR", str(PLOG))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["triage", "-", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    assert doc["input"]["paths"] == ["<stdin>"] and [f["path"] for f in doc["input"]["files"]] == ["<stdin>"]
    assert doc["aicore_faults"][0]["kernel"] == "2_0_11_GatherV2" and doc["aicore_faults"][0]["src_line"] == REPORT_LINE
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["report", "-", "-o", str(tmp_path / "case.md")]) == 0
    assert f":{REPORT_LINE} (quoted at <stdin>:" in (tmp_path / "case.md").read_text(encoding="utf-8")
    assert main(["triage", "-", "-"]) == 2 and "standard input" in capsys.readouterr().err


def test_pasted_text_is_one_capture_beside_the_files_given(tmp_path):
    log = read_plog(Pasted(f"1187:{HEADER}\n".encode(), "<paste>"), CORPUS / PLOG)
    assert [f.path for f in log.files] == ["<paste>", PLOG.name] and log.paths[0] == "<paste>"
    assert log.raw_line("<paste>", 1) == f"1187:{HEADER}".encode()


def test_the_app_reads_what_is_pasted_into_its_box(tmp_path):
    app = TriageApp(folder=tmp_path)
    app.opener.paste.read_button.click()
    assert app.triage is None and "paste some log text" in app.opener.status.value
    app.opener.relabel("zh")
    assert app.opener.paste.read_button.description == "读取粘贴内容"
    app.opener.paste.read_button.click()
    assert "请先粘贴日志文本" in app.opener.status.value
    app.opener.paste.text.value = grep("-n", "ERROR", str(PLOG))
    app.opener.paste.read_button.click()
    assert [f.path for f in app.triage.log.files] == ["<paste>"]
    assert [f.kernel for f in app.triage.evidence.aicore_faults] == ["2_0_11_GatherV2"]


def test_progress_dots_before_a_log_line_are_peeled(tmp_path):
    # vllm-ascend#1383: a progress line's dots, no newline after them, then vLLM's ERROR line
    text = ("..ERROR 06-23 10:51:59 [engine.py:458] The Inner error is reported as above.\n"
            "...and the rest is prose\n")
    r = read_plog(capture(tmp_path, text)).records
    assert list(r["kind"]) == [KIND_CONSOLE, KIND_UNPARSED]
    assert (r["level"][0], r["wrapper"][0], r["msg"][0]) == ("ERROR", "progress+vllm_logging",
                                                             "The Inner error is reported as above.")


def test_an_empty_line_is_taken_by_no_wrapper_rule():
    """peel() answers an empty line at once (every rule would try it: `"" in first` holds): what the rules say."""
    from casebook.reading.paste import FURNITURE, Peeled, peel
    from casebook.reading.prefixes import WRAPPERS
    state = PasteState()
    assert not any(test("", state) for _, test, _ in FURNITURE)
    assert all(rule("", state) is None for _, rule, _, _ in WRAPPERS)
    assert peel("", state) == Peeled("") and state == PasteState()


def test_a_prefix_rule_cuts_where_its_match_ends_and_names_the_level_it_saw():
    import re as _re
    from casebook.reading.prefixes import Cut, PasteState, _prefix
    rule = _prefix(_re.compile(r"(?P<level>WARN|CRITICAL|INFO)?:? ?"))
    state = PasteState()
    assert rule("WARN: x", state) == Cut(6, level="WARNING")
    assert rule("CRITICAL: x", state).level == "ERROR" and rule("INFO: x", state).level == "INFO"
    assert rule("x", state) is None   # an empty match cuts nothing
    plain = _prefix(_re.compile(r"> "))
    assert plain("> x", state) == Cut(2) and plain("x", state) is None


def test_full_width_marks_become_ascii_between_ascii_text_and_stay_beside_chinese():
    from casebook.reading.paste import ascii_marks
    assert ascii_marks("a：b") == "a:b" and ascii_marks("中：x") == "中：x" and ascii_marks("x：中") == "x：中"
    assert ascii_marks("：x") == ":x" and ascii_marks("错误（x）") == "错误（x)"


def test_each_quoted_file_gets_its_identity_from_its_path_and_the_lines_quoted_from_it(tmp_path):
    from casebook.reading.quoted import quoted_files
    capture = LogFile(path="grep.txt", source=tmp_path / "grep.txt", node="worker-3")
    columns = ["kind", "src_file", "pid", "time"]
    rows = [(KIND_PLOG, "slog/host-0/host-0_1.log", 77, "2020-09-09T15:22:34"),
            (KIND_PLOG, "slog/host-0/host-0_1.log", 77, "2020-09-09T15:22:31"),
            (KIND_UNPARSED, "slog/host-0/host-0_1.log", None, None),
            (KIND_PLOG, "debug/plog/plog-4242_20260314100000000.log", 9, None),
            (KIND_CONSOLE, None, None, "2020-09-09T00:00:00")]
    host, plog = quoted_files(capture, rows, columns)
    # a name that says nothing, most of its quoted lines plog headers: a host plog, its process the headers' pid
    assert (host.path, host.role, host.pid, host.node, host.first_time, host.last_time) == (
        "slog/host-0/host-0_1.log", "host_plog", 77, "worker-3", "2020-09-09T15:22:31", "2020-09-09T15:22:34")
    # a plog's name gives its pid; no time quoted, none given
    assert (plog.role, plog.pid, plog.first_time, plog.last_time) == ("host_plog", 4242, None, None)
    assert all((q.source, q.captured_in) == (capture.source, "grep.txt") for q in (host, plog))


@pytest.mark.parametrize("line", [
    "[ERROR] RUNTIME(2082291,python3):2024-07-04-14:14:25.036.721 [stars_engine.cc:1321]2082291 fault",
    "[INFO] AICPU(3102,aicpu_custom_scheduler):2025-06-03-08:00:00.019.008 [aicpusd_interface.cpp:76] task done",
    "[ERROR] ME(3187425,ffff8a7fd1e0,python):2024-03-01-10:00:00.000.001 [kernel_runtime.cc:208] x] y",
    "[0] 12(1,p):2024-03-01-10:00:00.000.001 numbered level and module"])
def test_an_slog_header_opens_a_line_as_peeling_it_would_say(line):
    """The re-wrap test takes an slog header for a line of its own at once: what peeling it would have said too."""
    from dataclasses import replace

    from casebook.reading.grammar import HEADER, opens_line
    from casebook.reading.paste import peel
    from casebook.reading.prefixes import PasteState
    from casebook.reading.rejoin import _opens
    for state in (PasteState(), PasteState(previous=("grep_file",), grep_files={"plog.log"})):
        p = peel(line, replace(state, grep_files=set(state.grep_files)))
        assert HEADER.match(line) and _opens(line, state)
        assert p.furniture or bool(p.wrappers) or opens_line(p.text)
