"""`casebook triage`: the JSON contract, the readable walk, exit codes."""
import gc
import json
import subprocess
import sys

from casebook.cli import main
from casebook.judging.contract import validate
from conftest import ROOT, SAMPLES

POSITIVE = SAMPLES / "task-queue-shared-cache-race" / "positive-info"
NEGATIVE = SAMPLES / "task-queue-shared-cache-race" / "negative-process-per-card"


def run_json(capsys, *args):
    assert main(["triage", *map(str, args), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    return doc


def candidate(doc, case_id):
    return next(c for c in doc["candidates"] if c["case"] == case_id)


def test_positive_with_the_engineers_fact_is_diagnosed(capsys):
    doc = run_json(capsys, POSITIVE, "--fact", "TASK_QUEUE_ENABLE=1")
    assert doc["diagnosis"] == "task-queue-shared-cache-race"
    assert candidate(doc, "task-queue-shared-cache-race")["verdict"] == "confirmed"
    assert doc["aicore_faults"][0]["pc_verdict"] == "pc_start_suspect"
    assert doc["facts"]["TASK_QUEUE_ENABLE"] == {"value": "1", "source": "engineer", "file": None, "line": None,
                                                 "src_file": None, "src_line": None, "note": None}
    assert doc["coverage"] == {"error_lines": 23, "explained": 20}


def test_without_the_fact_the_case_is_likely_and_asks_for_it(capsys):
    doc = run_json(capsys, POSITIVE)
    c = candidate(doc, "task-queue-shared-cache-race")
    assert c["verdict"] == "likely" and doc["diagnosis"] == "task-queue-shared-cache-race"
    assert [m["fact"] for m in c["missing"]] == ["TASK_QUEUE_ENABLE", "failure_vanished_with_debug"]


def test_unset_means_the_default_unless_launch_blocking(capsys):
    doc = run_json(capsys, POSITIVE, "--fact", "TASK_QUEUE_ENABLE=unset")
    assert doc["facts"]["TASK_QUEUE_ENABLE"]["value"] == "1" and doc["facts"]["TASK_QUEUE_ENABLE"]["source"] == "default"
    assert candidate(doc, "task-queue-shared-cache-race")["verdict"] == "confirmed"
    doc = run_json(capsys, POSITIVE, "--fact", "TASK_QUEUE_ENABLE=unset", "--fact", "ASCEND_LAUNCH_BLOCKING=1")
    assert candidate(doc, "task-queue-shared-cache-race")["verdict"] == "ruled_out"
    assert doc["diagnosis"] is None


def test_negative_is_ruled_out(capsys):
    doc = run_json(capsys, NEGATIVE, "--fact", "TASK_QUEUE_ENABLE=1")
    c = candidate(doc, "task-queue-shared-cache-race")
    assert c["verdict"] == "ruled_out" and doc["diagnosis"] is None
    assert [a["id"] for a in c["against"]] == ["single_process_multi_device"]


def test_gatherv2_collection(capsys, corpus):
    doc = run_json(capsys, corpus / "aicore-gatherv2-asys")
    (fault,) = doc["aicore_faults"]
    assert (fault["kernel"], fault["op"]) == ("2_0_11_GatherV2", "GatherV2")
    assert (fault["pc_start"], fault["pc_start_raw"]) == ("0x124080064000", "0x1000124080064000")
    assert (fault["current"], fault["offset"]) == ("0x124080067d2c", "0x3d2c")
    assert (fault["error_code"], fault["error_bits"]) == ("0x10", ["CCU_ILLEGAL_INSTR"])
    disk = sum(p.read_bytes().count(b"\n") + (0 if p.read_bytes().endswith(b"\n") else 1)
               for p in (corpus / "aicore-gatherv2-asys").rglob("*") if p.is_file() and p.stat().st_size)
    assert doc["input"]["lines"] == disk


def test_every_corpus_collection_validates_with_its_line_counts_and_diagnosis(capsys, corpus):
    expected = {"aicore-old-slog-layout": (3, 38702, 0, "aicore-illegal-instruction"),
                "hccl-event-timeout-2workers": (6, 31, 0, "hccl-socket-timeout"),
                # the bbox driver.txt of this collection is four lines of no plog form
                "modelarts-8rank-job": (15, 83, 4, None)}
    for name, (files, lines, unparsed, diagnosis) in expected.items():
        doc = run_json(capsys, corpus / name)
        i = doc["input"]
        assert (i["file_count"], i["lines"], i["lines_unparsed"], doc["diagnosis"]) == \
               (files, lines, unparsed, diagnosis), name
        assert sum(f["lines"] for f in i["files"]) == lines and sum(f["unparsed"] for f in i["files"]) == unparsed


def test_readable_walk_names_the_steps_and_asks(capsys):
    assert main(["triage", str(POSITIVE)]) == 0
    out = capsys.readouterr().out
    for title in ("Symptom", "Error code", "pc start", "Topology", "Root cause", "Fix"):
        assert title in out
    assert "(answer with --fact TASK_QUEUE_ENABLE=...)" in out and "CCU_BUS_ERR" in out


def test_unusable_input_exits_2_with_one_line(tmp_path):
    for args in (["triage", str(tmp_path / "missing")], ["triage", str(POSITIVE), "--fact", "NOPE=1"]):
        r = subprocess.run([sys.executable, "-m", "casebook.cli", *args], capture_output=True, text=True, cwd=ROOT)
        assert r.returncode == 2 and r.stdout == ""
        assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("casebook: ")
    (tmp_path / "empty.log").write_bytes(b"")
    r = subprocess.run([sys.executable, "-m", "casebook.cli", "triage", str(tmp_path / "empty.log")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no readable text" in r.stderr



def test_a_triage_sets_what_is_loaded_aside_from_collection_and_back(capsys, monkeypatch):
    frozen, freeze = [], gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (freeze(), frozen.append(gc.get_freeze_count())))
    run_json(capsys, POSITIVE)
    assert len(frozen) == 1 and frozen[0] > 10000   # the modules loaded, set aside once
    assert gc.get_freeze_count() == 0               # and back under collection when the command is done
