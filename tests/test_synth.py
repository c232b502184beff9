"""The sample generator: determinism, the committed samples, expect.yaml shape and line-level facts.

The founding case's samples are checked line by line here; the samples of every other case share the
checks of the last section (layout, slog headers, time order, positive and negative per case)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from casebook.synth import BUILDERS, write_samples
from casebook.synth.founding import CASE

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "kb" / "samples" / CASE
SAMPLES = ("positive-info", "positive-error-level", "negative-process-per-card")
MASK48 = (1 << 48) - 1

HEADER = re.compile(r"^\[(?P<level>[A-Z]+)\] (?P<module>[A-Z_]+)\((?P<pid>\d+),python\):"
                    r"(?P<ts>\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}) (?P<body>.*)$")
RT_BODY = re.compile(r"^\[(?P<src>[\w.]+:\d+)\](?P<tid>\d+) (?P<func>\w+):(?P<msg>.*)$")
SET_DEVICE = re.compile(r"\[logger\.cc:748\](?P<tid>\d+) SetDevice:set device, device_id=(?P<dev>\d+)$")
CORE = re.compile(r"core id is (?P<core>\d+), .*pc start: (?P<pc>0x[0-9a-f]+), current: (?P<cur>0x[0-9a-f]+),")


@pytest.fixture(scope="module")
def fresh_all(tmp_path_factory) -> Path:
    """Every sample generated into a temporary folder."""
    root = tmp_path_factory.mktemp("fresh")
    write_samples(root)
    return root


@pytest.fixture(scope="module")
def fresh(fresh_all) -> Path:
    """The founding case's samples, freshly generated."""
    return fresh_all / CASE


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under folder, by relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def plogs(sample: str, sort: str = "debug") -> list[Path]:
    """The committed plog files of a sample."""
    return sorted((COMMITTED / sample / "ascend" / "log" / sort / "plog").glob("plog-*.log"))


def lines(path: Path) -> list[str]:
    """The lines of a file, without their newline."""
    return path.read_text(encoding="utf-8").splitlines()


def runtime(line: str) -> dict | None:
    """Header and RUNTIME body fields of a plog line, or None."""
    m = HEADER.match(line)
    if not m:
        return None
    fields = m.groupdict()
    b = RT_BODY.match(fields["body"])
    fields.update(b.groupdict() if b else {"src": None, "tid": None, "func": None, "msg": fields["body"]})
    return fields


def test_generation_is_deterministic(tmp_path):
    paths_a = write_samples(tmp_path / "a")
    paths_b = write_samples(tmp_path / "b")
    assert [p.relative_to(tmp_path / "a") for p in paths_a] == [p.relative_to(tmp_path / "b") for p in paths_b]
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


def test_rewriting_replaces_old_files(tmp_path):
    stale = tmp_path / CASE / "positive-info" / "stale.log"
    stale.parent.mkdir(parents=True)
    stale.write_text("left over\n")
    write_samples(tmp_path)
    assert not stale.exists()


def test_rewriting_removes_retired_generated_samples_and_keeps_those_built_by_hand(tmp_path):
    write_samples(tmp_path)
    retired = tmp_path / CASE / "positive-retired"
    (tmp_path / CASE / "positive-info").rename(retired)             # a sample no builder writes any more
    by_hand = tmp_path / CASE / "negative-from-an-issue"
    by_hand.mkdir()
    (by_hand / "SOURCE.md").write_text("# Source\n\nBuilt from the lines of https://example.org/issue\n")
    (by_hand / "capture.txt").write_text("EZ9999: Inner Error!\n")
    write_samples(tmp_path)
    assert not retired.exists() and (tmp_path / CASE / "positive-info" / "expect.yaml").is_file()
    assert sorted(p.name for p in by_hand.iterdir()) == ["SOURCE.md", "capture.txt"]


def test_committed_samples_are_the_generated_ones(fresh):
    committed, generated = tree(COMMITTED), tree(fresh)
    assert sorted(committed) == sorted(generated)
    for rel, data in generated.items():
        assert committed[rel] == data, f"{rel} differs from a fresh generation: run write_samples(Path('kb/samples'))"


def test_layout(fresh):
    for sample in SAMPLES:
        files = tree(fresh / sample)
        assert "expect.yaml" in files and "train_stdout.log" in files
        for rel in files:
            if rel.startswith("ascend/"):
                assert re.fullmatch(r"ascend/log/(debug|run)/plog/plog-\d+_\d{17}\.log", rel), rel


def test_every_plog_line_has_the_slog_header():
    for sample in SAMPLES:
        for path in plogs(sample) + plogs(sample, "run"):
            pid = int(re.match(r"plog-(\d+)_", path.name)[1])
            for no, line in enumerate(lines(path), 1):
                m = HEADER.match(line)
                assert m, f"{path.name}:{no}: {line[:80]}"
                assert int(m["pid"]) == pid


def test_plog_lines_are_in_time_order():
    for sample in SAMPLES:
        for path in plogs(sample) + plogs(sample, "run"):
            times = [HEADER.match(line)["ts"] for line in lines(path)]
            assert times == sorted(times), path.name


EXPECTED = {
    "positive-info": [({}, CASE, "likely"), ({"TASK_QUEUE_ENABLE": "1"}, CASE, "confirmed")],
    "positive-error-level": [({}, CASE, "likely"),
                             ({"TASK_QUEUE_ENABLE": "1", "single_process_multi_device": True}, CASE, "confirmed"),
                             ({"TASK_QUEUE_ENABLE": "unset", "ASCEND_LAUNCH_BLOCKING": "1"}, None, "ruled_out")],
    "negative-process-per-card": [({}, None, "ruled_out"), ({"TASK_QUEUE_ENABLE": "1"}, None, "ruled_out")],
}
FIRST_RUN = {
    "positive-info": (["TASK_QUEUE_ENABLE"], "pc_start_suspect", [18, 19], 3),
    "positive-error-level": (["single_process_multi_device", "TASK_QUEUE_ENABLE"], "unknown", [18, 19], 3),
    "negative-process-per-card": ([], "consistent", [21, 22], 5),
}


@pytest.mark.parametrize("sample", SAMPLES)
def test_expect_yaml_shape(sample):
    doc = yaml.safe_load((COMMITTED / sample / "expect.yaml").read_text(encoding="utf-8"))
    assert set(doc) == {"about", "runs"}
    assert isinstance(doc["about"], str) and len(doc["about"]) > 100
    runs = doc["runs"]
    assert [(r["facts"], r["diagnosis"], r["verdicts"]) for r in runs] == [
        (facts, diagnosis, {CASE: verdict}) for facts, diagnosis, verdict in EXPECTED[sample]]
    for run in runs:
        assert set(run) <= {"facts", "diagnosis", "verdicts", "missing", "pc_verdict", "first_error_code", "aicore"}
    missing, pc_verdict, cores, device = FIRST_RUN[sample]
    first = runs[0]
    assert first["missing"] == missing and first["pc_verdict"] == pc_verdict
    assert first["aicore"] == {"op": "FlashAttentionScoreGrad", "error_bits": ["CCU_BUS_ERR"], "cores": cores,
                               "device": device}


def fault_lines(sample: str) -> tuple[Path, list[dict]]:
    """The debug plog holding the fault, and its RUNTIME/ASCENDCL ERROR-block records in order."""
    for path in plogs(sample):
        recs = [r for r in map(runtime, lines(path)) if r]
        if any(r["func"] == "ProcLogicCqReport" for r in recs):
            start = next(i for i, r in enumerate(recs) if r["func"] == "ProcLogicCqReport")
            return path, recs[start:]
    raise AssertionError(f"{sample}: no fault")


@pytest.mark.parametrize("sample", SAMPLES)
def test_fault_block_order(sample):
    _, recs = fault_lines(sample)
    errors = [r["func"] if r["module"] == "RUNTIME" else r["module"] for r in recs if r["level"] == "ERROR"]
    assert errors == ["ProcLogicCqReport", "PrintCoreInfo", "PrintCoreInfo", "PrintCoreInfo", "PrintCoreInfo",
                      "PreCheckTaskErr", "PrintErrorInfoForDavinciTask", "GetError", "rtStreamSynchronizeWithTimeout",
                      "FuncErrorReason", "ASCENDCL"]
    text = "\n".join(r["msg"] for r in recs)
    for needle in ("errcode:(0, 0x8000, 0)", "retCode=0x26", "ErrCode=507015", "runtime result = 507015",
                   "fault kernel_name=FlashAttentionScoreGrad_", "sqe_type=0(ffts), errType=0x1(task exception)"):
        assert needle in text


def test_positive_info_one_process_eight_threads_eight_devices():
    (path,) = plogs("positive-info")
    pids, owner = set(), {}
    for line in lines(path):
        pids.add(HEADER.match(line)["pid"])
        if m := SET_DEVICE.search(line):
            assert owner.setdefault(m["tid"], m["dev"]) == m["dev"], "a thread set two devices"
    assert pids == {"48213"}
    assert len(owner) >= 8 and set(owner.values()) == {str(d) for d in range(8)}
    assert owner["48390"] == "3"
    named = {(r["tid"], m[1]) for r in map(runtime, lines(path)) if r and r["func"] not in (None, "SetDevice")
             for m in [re.search(r"device_id=(\d+)", r["msg"])] if m}
    for tid, dev in owner.items():   # each setting thread names its device again later
        assert (tid, dev) in named


def test_positive_info_ordinary_lines():
    (path,) = plogs("positive-info")
    text = lines(path)
    ordinary = [line for line in text if not line.startswith("[ERROR]")]
    assert 3000 <= len(ordinary) <= 6000
    modules = {HEADER.match(line)["module"] for line in ordinary}
    assert {"GE", "RUNTIME", "HCCL", "TBE", "PROFILING", "DRV", "OP", "ASCENDCL"} <= modules
    assert any(line.startswith("[WARNING]") for line in text)
    assert any(line.startswith("[EVENT]") for line in lines(plogs("positive-info", "run")[0]))


def pc_facts(sample: str) -> dict:
    """pc start, currents, binSize and logged kernel address of the fault of a sample."""
    path, recs = fault_lines(sample)
    cores = [CORE.search(r["msg"]) for r in recs if r["func"] == "PrintCoreInfo" and "core id is" in r["msg"]]
    whole = path.read_text(encoding="utf-8")
    bins = re.findall(r"binSize=(\d+)", whole)
    loaded = re.findall(r"LoadKernel:device_id=\d+, kernel_name=\S+, kernel addr=(0x[0-9a-f]+)", whole)
    return {"pc": {int(m["pc"], 16) for m in cores}, "cur": [int(m["cur"], 16) for m in cores],
            "cores": [int(m["core"]) for m in cores], "bins": {int(b) for b in bins}, "loaded": loaded}


def inside(offset: int, size: int) -> bool:
    """Half-open range check."""
    return 0 <= offset < size


def test_positive_info_pc_start_is_the_suspect():
    f = pc_facts("positive-info")
    (pc,) = f["pc"]
    (size,) = f["bins"]
    (k,) = f["loaded"]
    k = int(k, 16)
    assert f["cores"] == [18, 19]
    for cur in f["cur"]:
        assert not inside((cur & MASK48) - (pc & MASK48), size)          # plain 48-bit offset
        assert not inside((cur & 0xFFFFF) - (pc & 0xFFFFF), size)        # msaicerr's last-5-hex-digit offset
        assert inside(cur - k, size)                                      # current is in the loaded kernel
    assert not inside(pc - k, size)


def test_negative_pc_is_consistent():
    f = pc_facts("negative-process-per-card")
    (pc,) = f["pc"]
    (size,) = f["bins"]
    for cur in f["cur"]:
        assert inside((cur & MASK48) - (pc & MASK48), size)
        assert inside((cur & 0xFFFFF) - (pc & 0xFFFFF), size)


def test_error_level_has_only_error_and_event_lines():
    debug, run = plogs("positive-error-level"), plogs("positive-error-level", "run")
    assert len(debug) == 1 and len(run) == 1
    assert all(line.startswith("[ERROR]") for line in lines(debug[0]))
    assert all(line.startswith("[EVENT]") for line in lines(run[0]))
    everything = [line for p in (COMMITTED / "positive-error-level").rglob("*.log") for line in lines(p)]
    assert 200 <= len(everything) <= 600
    assert not [line for line in everything if line.startswith("[INFO]")]
    assert not [line for line in everything if "SetDevice" in line or "binSize" in line]


def test_negative_one_device_per_process():
    debug = plogs("negative-process-per-card")
    assert len(debug) == 8
    devices = {}
    for path in debug:
        pid = re.match(r"plog-(\d+)_", path.name)[1]
        set_devs = {m["dev"] for line in lines(path) if (m := SET_DEVICE.search(line))}
        assert len(set_devs) == 1, path.name
        devices[pid] = set_devs.pop()
        assert {HEADER.match(line)["pid"] for line in lines(path)} == {pid}
    assert sorted(devices.values()) == [str(d) for d in range(8)]
    fault_path, _ = fault_lines("negative-process-per-card")
    assert devices[re.match(r"plog-(\d+)_", fault_path.name)[1]] == "5"


@pytest.mark.parametrize("sample", SAMPLES)
def test_screen_capture_agrees_with_the_plog(sample):
    path, recs = fault_lines(sample)
    pid = re.match(r"plog-(\d+)_", path.name)[1]
    screen = (COMMITTED / sample / "train_stdout.log").read_text(encoding="utf-8")
    first_core = next(r for r in recs if r["func"] == "PrintCoreInfo")
    sync = next(r for r in recs if r["func"] == "rtStreamSynchronizeWithTimeout")
    block = re.search(r"^EZ9999\[PID: (\d+)\] (\S+) \(EZ9999\):  (.*)\[FUNC:PrintCoreInfo\]", screen, re.M)
    assert block and block[1] == pid and block[2] == first_core["ts"] and block[3] == first_core["msg"].removeprefix(
        "[INIT][DEFAULT]")
    pta = re.search(r"^\[ERROR\] (\S+) \(PID:(\d+), Device:(\d+), RankID:(-?\d+)\) ERR00100 PTA call acl api failed$",
                    screen, re.M)
    assert pta and pta[1] == sync["ts"][:19] and pta[2] == pid
    assert "NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507015" in screen
    assert "EZ9999: Inner Error!" in screen and "TraceBack (most recent call last):" in screen


# --- every sample ---------------------------------------------------------------------------------

ALL = ROOT / "kb" / "samples"
#: the plogs and device logs of a process, and the exception logs the device keeps (hisi_logs, their task-scheduler
#: lines logged by pid -1)
LOG_PATH = re.compile(r"(?:worker-\d+/)?ascend/log/(?:(?:debug|run)/plog/plog-\d+_\d{17}|debug/device-\d+/device-\d+_\d{17})"
                      r"\.log|hisi_logs/device-\d+/\d{14}-\d{9}/log/ts\.log")
ANY_HEADER = re.compile(r"^\[(?P<level>[A-Z]+)\] (?P<module>[A-Z_]+)\((?P<pid>-?\d+),(?P<pname>[\w.]+)\):"
                        r"(?P<ts>\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}) \S")


def generated_folders() -> list[tuple[str, str]]:
    """(case, sample) of every sample the generator writes."""
    return sorted({(case, name) for case, name, _ in BUILDERS})


def test_every_generated_sample_is_committed_as_generated(fresh_all):
    for case, name in generated_folders():
        committed, generated = tree(ALL / case / name), tree(fresh_all / case / name)
        assert sorted(committed) == sorted(generated), f"run `casebook synth samples` and commit kb/samples/{case}/{name}"
        for rel, data in generated.items():
            assert committed[rel] == data, f"{case}/{name}/{rel} differs from a fresh generation"


def test_every_other_sample_names_its_public_source():
    # a sample built by hand from a public log's format says where that format was seen
    made = set(generated_folders())
    for folder in sorted(s for c in ALL.iterdir() if c.is_dir() for s in c.iterdir() if s.is_dir()):
        if (folder.parent.name, folder.name) not in made:
            source = folder / "SOURCE.md"
            assert source.is_file() and "http" in source.read_text(encoding="utf-8"), folder


def test_builders_cover_each_case_with_a_positive_and_a_negative():
    by_case: dict[str, set[str]] = {}
    for case, name, _ in BUILDERS:
        by_case.setdefault(case, set()).add(name.split("-")[0])
    unknown = by_case.pop("_unknown")
    assert len(by_case) == 21 and all(kinds == {"positive", "negative"} for kinds in by_case.values()), by_case
    assert len(unknown) >= 1
    names = [(c, n) for c, n, _ in BUILDERS]
    assert len(names) == len(set(names))


def sample_folders() -> list[Path]:
    """Every committed sample folder the generator writes."""
    return [ALL / case / name for case, name in generated_folders()]


def test_every_sample_is_a_realistic_bundle():
    for folder in sample_folders():
        files = [p for p in folder.rglob("*") if p.is_file()]
        logs = [p for p in files if p.suffix == ".log" and p.name != "train_stdout.log"]
        assert (folder / "expect.yaml").is_file() and logs, folder
        ordinary = 0
        for path in logs:
            rel = path.relative_to(folder).as_posix()
            assert LOG_PATH.fullmatch(rel), rel
            times = []
            for no, line in enumerate(lines(path), 1):
                m = ANY_HEADER.match(line)
                assert m, f"{rel}:{no}: {line[:80]}"
                times.append(m["ts"])
                ordinary += m["level"] != "ERROR"
            assert times == sorted(times), rel
        assert ordinary >= 20, f"{folder}: a failure needs ordinary lines around it"


def test_multi_node_samples_keep_one_tree_per_worker():
    folder = ALL / "hccl-notify-wait-timeout" / "positive-peer-killed"
    workers = {p.relative_to(folder).parts[0] for p in folder.rglob("*.log") if p.name != "train_stdout.log"}
    assert workers == {"worker-0", "worker-1"}
