"""Big files read selectively give the same accounting and evidence as reading every line; engines agree."""
import json
import os
import subprocess
import sys
from pathlib import Path

import casebook
import pytest
from casebook.bench import asys
from casebook.bench import benchmark as bench
from casebook.bench.asys import write_asys
from casebook.bench.workload import FULL_PLANTING, SAMPLE_METADATA, parse_size, planted_samples, write_workload
from casebook.cli import main
from casebook.evidence.registry import KEEP, extract_evidence
from casebook.judging.contract import to_dict
from casebook.judging.triage import Triage, triage
from casebook.knowledge.kb import load_kb
from casebook.presenting import logview
from casebook.reading import plog
from casebook.reading.backfill import every_record
from casebook.reading.bundle import ROLE_TEXT, classify
from casebook.reading.engine import EngineError, run, schedule
from casebook.reading.plog import read_plog
from conftest import COLLECTIONS, SAMPLES, write_log


@pytest.fixture()
def every_file_is_big(monkeypatch):
    """Make every file take the selective path, captures too, as a 20 MiB rotated plog or capture would."""
    monkeypatch.setattr(plog, "FULL_RECORDS_BELOW", 1)
    monkeypatch.setattr(plog, "CAPTURE_FULL_BELOW", 1)


def _fault_view(ev):
    return [(f.device, f.serial, f.cores, f.kernel, f.error_bits, f.pc.verdict if f.pc else None)
            for f in ev.aicore_faults]


@pytest.mark.parametrize("name", ["aicore-gatherv2-asys", "aicore-old-slog-layout", "hccl-event-timeout-2workers",
                                  "modelarts-8rank-job"])
def test_selective_reading_keeps_accounting_and_evidence(corpus, every_file_is_big, name):
    full = read_plog(corpus / name, selective=False)
    quick = read_plog(corpus / name, keep=KEEP)
    assert any(f.selective for f in quick.files)
    assert [(f.path, f.lines, f.unparsed, f.first_time, f.last_time, f.role, f.pid) for f in quick.files] == \
           [(f.path, f.lines, f.unparsed, f.first_time, f.last_time, f.role, f.pid) for f in full.files]
    cols = ["file", "line", "kind", "level", "msg"]
    assert quick.errors()[cols].reset_index(drop=True).equals(full.errors()[cols].reset_index(drop=True))
    assert len(quick.records) <= len(full.records)
    a, b = extract_evidence(quick), extract_evidence(full)
    assert _fault_view(a) == _fault_view(b)
    assert a.first_error == b.first_error
    assert a.topology.single_process_multi_device == b.topology.single_process_multi_device


def test_big_crlf_and_gbk_files_are_sifted(tmp_path, every_file_is_big):
    line = "[ERROR] RUNTIME(1,python):2026-01-01-00:00:00.000.000 [a.cc:1]1 F:boom device_id=0"
    (tmp_path / "plog-1_20260101000000000.log").write_bytes((line + "\r\n").encode() * 3)
    (tmp_path / "plog-2_20260101000000000.log").write_bytes(line.encode() + " 内存不足\n".encode("gbk"))
    log = read_plog(tmp_path, keep=KEEP)
    assert [(f.lines, f.selective, f.encoding) for f in log.files] == [(3, True, "utf-8"), (1, True, "gbk")]
    assert log.records["msg"].iloc[0] == "boom device_id=0" and "内存不足" in log.records["msg"].iloc[3]


def test_selective_reading_keeps_the_diagnosis_of_every_founding_sample(every_file_is_big):
    kb = load_kb()
    for sample in sorted((SAMPLES / "task-queue-shared-cache-race").iterdir()):
        facts = {"TASK_QUEUE_ENABLE": "1"}
        quick = triage(sample, facts=facts, kb=kb)
        # the reference reads every line into a record, with no scanner and no selection
        log = read_plog(sample, selective=False)
        full = Triage(log=log, evidence=extract_evidence(log), kb=kb, answers=quick.answers)
        assert all(f.selective for f in quick.log.files if f.lines) and not any(f.selective for f in full.log.files)
        assert len(full.log.records) == full.log.lines and len(quick.log.records) < len(full.log.records)
        a, b = to_dict(quick), to_dict(full)
        assert a["input"]["lines"] == b["input"]["lines"] == full.log.lines
        for key in ("diagnosis", "candidates", "aicore_faults", "coverage", "first_error", "facts"):
            assert a[key] == b[key], (sample.name, key)


def test_levels_are_counted_for_lines_that_get_no_record(every_file_is_big, corpus):
    log = read_plog(corpus / "aicore-gatherv2-asys", keep=KEEP)
    f = log.file("dfx/log/host/cann/debug/plog/plog-370_20230713074107861.log")
    assert f.levels == {"INFO": 6431, "WARNING": 2446, "EVENT": 34, "ERROR": 22, "TRACE": 20}
    blank = int((log.records[log.records.file == f.path]["kind"] == "blank").sum())
    assert sum(f.levels.values()) + f.unparsed + blank == f.lines
    assert not (log.records[log.records.file == f.path]["level"] == "INFO").all()


def test_workload_generator(tmp_path):
    assert parse_size("1GB") == 1 << 30 and parse_size("200MB") == 200 << 20 and parse_size("512") == 512
    with pytest.raises(ValueError):
        parse_size("lots")
    w = write_workload(tmp_path / "w", 2 << 20, nodes=2, processes_per_node=2, samples=SAMPLES)
    log = read_plog(tmp_path / "w")
    planted = [f for f in log.files if f.path.startswith("planted/")]
    assert planted and not any(f.path.endswith(("expect.yaml", "SOURCE.md")) for f in planted)
    generated = [f for f in log.files if f.path.startswith("node-")]
    assert sum(f.lines for f in generated) == w.lines and sum(f.size for f in generated) == w.bytes
    assert all(f.unparsed == 0 for f in generated) and {f.node for f in generated} == {"node-0", "node-1"}


def test_a_ticket_sized_bundle_plants_its_share_of_the_samples_families_taking_turns():
    kb = load_kb()
    family_of = {c.id: c.family for c in kb.cases.values()}
    every = [s for s in sorted(SAMPLES.glob("*/*")) if s.is_dir() and not s.parent.name.startswith("_")]
    assert planted_samples(SAMPLES, FULL_PLANTING) == planted_samples(SAMPLES, 4 * FULL_PLANTING)
    assert sorted(planted_samples(SAMPLES, FULL_PLANTING)) == every
    assert len(planted_samples(SAMPLES, 1)) == 1                                  # never none
    small, bigger = planted_samples(SAMPLES, 10 << 20), planted_samples(SAMPLES, 50 << 20)
    assert bigger[:len(small)] == small and len(small) < len(bigger) < len(every)
    families = [family_of[s.parent.name] for s in bigger]
    assert all(s.name.startswith("positive") for s in bigger)
    n = len(set(family_of[s.parent.name] for s in every if s.name.startswith("positive")))
    assert n < len(bigger) and len(set(families[:n])) == n                        # one sample a family first
    assert len({s.parent for s in bigger}) == len(bigger)                          # one sample a cause
    causes = {f: sum(1 for c in family_of.values() if c == f) for f in families}
    assert families[0] == max(causes, key=causes.get)                             # the largest family leads
    size = sum(f.stat().st_size for s in small for f in s.rglob("*") if f.is_file() and f.name not in SAMPLE_METADATA)
    total = sum(f.stat().st_size for s in every for f in s.rglob("*") if f.is_file() and f.name not in SAMPLE_METADATA)
    last = sum(f.stat().st_size for f in small[-1].rglob("*") if f.is_file() and f.name not in SAMPLE_METADATA)
    assert size - last < total * (10 << 20) / FULL_PLANTING <= size                # stops once its share is in


def test_small_files_are_read_between_the_big_ones():
    mib = 1 << 20
    assert schedule([5, 3 * mib, 7, 9 * mib, 1, 2]) == [3, 2, 0, 1, 5, 4]
    assert schedule([1, 2, 3]) == [2, 1, 0] and schedule([2 * mib, mib]) == [0, 1]
    assert schedule([]) == []


def test_dask_engine_gives_the_same_result_as_local(corpus, tmp_path):
    write_workload(tmp_path / "multi", 1 << 20, nodes=3, processes_per_node=2, samples=SAMPLES)
    for path in (corpus / "hccl-event-timeout-2workers", corpus / "aicore-gatherv2-asys", tmp_path / "multi"):
        local = to_dict(triage(path))
        dask = to_dict(triage(path, engine="dask", workers=2))
        assert dask == local, path


def test_engine_keeps_order_and_reports_progress():
    seen = []
    assert run(lambda x: x * x, list(range(20)), workers=3, progress=lambda d, t: seen.append((d, t))) == \
           [x * x for x in range(20)]
    assert seen[-1] == (20, 20)
    with pytest.raises(EngineError, match="unknown engine"):
        run(abs, [1], engine="spark")


def test_bench_reports_every_figure(tmp_path, capsys):
    write_workload(tmp_path / "b", 1 << 20, nodes=1, processes_per_node=2)
    assert main(["bench", str(tmp_path / "b"), "--json", "--runs", "2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["runs"] == 2
    for key in ("bundle_bytes", "grep_mib_s", "baseline_mib_s", "casebook_mib_s", "ratio_to_grep",
                "ratio_to_baseline", "peak_rss_mb", "grep_lines_s", "baseline_lines_s", "casebook_lines_s",
                "baseline_process_s", "cold_s", "warm_s", "open_s", "reopen_s"):
        assert doc[key] > 0, key
    assert doc["cold_s"] == doc["casebook_s"]
    # the naive loop as its own process pays for the interpreter on top of the loop
    assert doc["baseline_process_s"] > doc["baseline_s"]
    assert isinstance(doc["walk_step_ms"], float) and doc["walk_step_ms"] >= 0   # a step can take under 0.01 ms
    assert doc["bundle_lines"] == sum(1 for p in (tmp_path / "b").rglob("*.log") for _ in p.open())
    assert main(["bench", str(tmp_path / "b"), "--runs", "1"]) == 0
    table = capsys.readouterr().out
    assert "baseline / warm" in table and "lines/s" in table   # a small bundle is judged by the ticket targets
    assert bench.bundle_files(tmp_path / "b")


def test_the_memory_sampler_counts_a_child_process_with_its_parent():
    # a parent whose child holds 64 MiB: the child is found in the tree and its memory counted with the parent's
    code = ("import subprocess, sys; c = subprocess.Popen([sys.executable, '-c', "
            "'import sys; b = bytearray(64 << 20); print(1, flush=True); sys.stdin.read()'], "
            "stdin=subprocess.PIPE, stdout=subprocess.PIPE); c.stdout.readline(); print(c.pid, flush=True); "
            "sys.stdin.read(); c.stdin.close(); c.wait()")
    parent = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        tree = bench._tree(parent.pid)
        assert tree == {parent.pid, child}
        assert bench._rss(tree) >= bench._rss({parent.pid}) + (64 << 20)
        assert bench._rss({2 ** 22 + 1}) == 0   # no such process: nothing, not an error
    finally:
        parent.stdin.close()
        parent.wait(timeout=30)


def test_cli_synth_and_triage_on_the_dask_engine(tmp_path, capsys):
    assert main(["synth", str(tmp_path / "s"), "--size", "1MB"]) == 0
    assert "files" in capsys.readouterr().out
    assert main(["synth", str(tmp_path / "s2")]) == 2
    assert main(["triage", str(tmp_path / "s"), "--engine", "dask", "--workers", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["input"]["lines"] > 0


def test_level_counts_of_a_selective_reading_are_those_of_a_full_one(corpus, every_file_is_big):
    full = read_plog(corpus / "aicore-gatherv2-asys", selective=False)
    quick = read_plog(corpus / "aicore-gatherv2-asys", keep=KEEP)
    assert logview.level_counts(quick).equals(logview.level_counts(full))


def test_the_explorer_says_how_many_lines_of_a_big_bundle_have_no_record(corpus, every_file_is_big, monkeypatch):
    from casebook.widgets import PlogExplorer
    monkeypatch.setattr(logview, "EVERY_LINE_BELOW", 1)   # the corpus bundle stands for a cluster's
    t = triage(corpus / "aicore-gatherv2-asys")
    n = logview.without_record(t.log)
    assert n == t.log.lines - len(t.log.records) > 0
    assert f"{n} lines of big files have no record" in PlogExplorer(t).shown.value
    assert logview.without_record(read_plog(corpus / "aicore-gatherv2-asys", selective=False)) == 0


def test_an_asys_collection_is_generated_in_real_proportions(tmp_path):
    w = write_asys(tmp_path / "a", 2 << 20, SAMPLES)
    t = triage(tmp_path / "a")
    files = {f.path: f for f in t.log.files}
    assert (len(files), t.log.lines, t.log.bytes) == (w.files, w.lines, w.bytes)
    share = {kind.paths[0]: sum(files[p].size for p in kind.paths) / t.log.bytes for kind in asys.KINDS}
    for kind in asys.KINDS:   # each kind at its share of the real collection's bytes, within a few points
        assert abs(share[kind.paths[0]] - kind.bytes / asys.REAL_BYTES) < 0.03, kind.paths[0]
    plogs = [f for f in t.log.files if f.role == "host_plog"]
    assert plogs and sum(f.size for f in plogs) < 0.1 * t.log.bytes
    assert {"host_plog", "device_log", "device_os_log", "bbox", "unknown_text"} <= {f.role for f in t.log.files}
    assert t.diagnosis.case.id == "aicore-illegal-instruction"


def test_bench_measures_corpus_collections_and_asys_collections(tmp_path, capsys):
    write_log(tmp_path / "corpus" / "one", "plog-1_20260101000000000.log",
              "[ERROR] RUNTIME(1,python):2026-01-01-00:00:00.000.000 [a.cc:1]1 F:boom device_id=0\n")
    (tmp_path / "corpus" / "NOTICE.md").write_text("a corpus's notes are not a collection\n")
    assert main(["bench", "--corpus", str(tmp_path / "corpus"), "--asys", "1MB", "--cache", str(tmp_path / "cache"),
                 "--runs", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [c["collection"] for c in doc["corpus"]] == ["one"] and [a["size"] for a in doc["asys"]] == ["1MB"]
    for r in doc["corpus"] + doc["asys"]:
        assert r["cold_s"] > 0 and r["warm_s"] > 0 and r["baseline_process_s"] > 0 and r["peak_rss_mb"] > 0
    assert doc["asys"][0]["diagnosis"] == "aicore-illegal-instruction"
    assert main(["bench", "--corpus", str(tmp_path / "nowhere")]) == 2


def test_bench_sizes_reports_each_generated_bundle(tmp_path, capsys):
    assert main(["bench", "--sizes", "1MB,2MB", "--cache", str(tmp_path), "--runs", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["size"] for s in doc["sizes"]] == ["1MB", "2MB"]
    one, two = doc["sizes"]
    assert one["bundle_bytes"] < two["bundle_bytes"]
    for s in doc["sizes"]:
        assert {"grep_s", "baseline_s", "baseline_process_s", "warm_s", "open_s", "reopen_s", "cold_s",
                "peak_rss_mb"} <= set(s)
    assert main(["bench", "--sizes", "10XB", "--cache", str(tmp_path)]) == 2


def test_the_naive_baseline_is_pinned():
    import inspect

    from casebook.bench import naive
    assert naive.PATTERN.pattern == (
        r"^\[(?P<level>[A-Z]+|\d+)\]\s*(?P<module>\w+)\((?P<pid>-?\d+),(?P<pname>[^)]*)\):(?P<ts>\S+)\s?"
        r"(?:\[(?P<file>[^\]:]+):(?P<line>\d+)\])?\s*(?:(?P<tid>\d+)\s+)?(?:(?P<func>[A-Za-z_~][\w:~]*):)?(?P<msg>.*)$")
    body = inspect.getsource(naive.parse)
    for step in ('with open(p, encoding="utf-8", errors="replace") as fh:', "for line in fh:",
                 "m = PATTERN.match(line)", 'records.append(m.groupdict() if m else {"raw": line})'):
        assert step in body


@pytest.mark.parametrize("name", COLLECTIONS)
def test_a_triage_reads_every_file_selectively_with_the_accounting_of_a_full_reading(corpus, name):
    quick, full = triage(corpus / name).log, read_plog(corpus / name)
    # a capture is read whole (its broken lines are joined back); every file with a role is read selectively
    slogs = [f for f in quick.files if classify(f.path)["role"] != ROLE_TEXT and f.size and not f.skipped]
    assert slogs and all(f.selective for f in slogs if f.encoding == "utf-8")
    assert len(quick.records) < len(full.records) and quick.lines == full.lines
    assert [(f.path, f.lines, f.unparsed, f.role, f.first_time, f.last_time) for f in quick.files] == \
           [(f.path, f.lines, f.unparsed, f.role, f.first_time, f.last_time) for f in full.files]
    assert quick.levels_seen() == full.levels_seen() == set(full.records["level"].dropna())


@pytest.mark.parametrize("name", COLLECTIONS)
def test_the_explorer_sees_every_line_of_a_ticket_sized_bundle(corpus, name):
    quick, full = triage(corpus / name).log, read_plog(corpus / name)
    assert every_record(quick).equals(full.records)
    assert logview.without_record(quick) == 0
    assert logview.choices(quick) == logview.choices(full)
    for f in (logview.Filter(level="INFO"), logview.Filter(module="RUNTIME", text="stream"), logview.Filter()):
        assert logview.select(quick, f).equals(logview.select(full, f))


HEAVY = ("pandas", "numpy", "matplotlib", "dask", "distributed", "drain3", "jsonschema", "ipywidgets", "tqdm")


def _imported(*args: str) -> set[str]:
    """Top-level names of every module `python -X importtime -m casebook.cli ARGS` imports."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "casebook.cli", *args], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(Path(casebook.__file__).parents[1])})
    names = [line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")]
    assert out.returncode == 0 and "casebook.reading.bundle" in names, out.stderr[-2000:]
    return {n.split(".")[0] for n in names}


def test_the_cli_imports_only_what_a_command_uses():
    assert not _imported("triage", "--help") & set(HEAVY)
    # a triage's JSON needs nothing that draws, runs Dask, checks a schema or shows widgets, no DataFrame (its log
    # table is the records themselves) and no Drain3 with its persistence packages (the error lines' templates
    # are templates.py's), and no archive module for a folder of plain files; the sample has unexplained error lines,
    # so the miner runs
    assert not _imported("triage", str(SAMPLES / "npu-out-of-memory" / "positive-long-batch"), "--json") & {
        *HEAVY, "jsonpickle", "cachetools", "tarfile"}
