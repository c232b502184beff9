"""`casebook kb new` drafts a case page and a regression sample from a solved case; `kb stats` counts the KB."""
from __future__ import annotations

import json
import shutil

import yaml
from casebook.cli import main
from casebook.judging.triage import triage
from casebook.knowledge.checks import check
from casebook.knowledge.kb import load_kb
from casebook.knowledge.stats import stats
from casebook.presenting.casefile import CaseFile
from conftest import ROOT, SAMPLES

FOUNDING = SAMPLES / "task-queue-shared-cache-race" / "positive-info"


def kb_copy(tmp_path):
    root = tmp_path / "kb"
    shutil.copytree(ROOT / "kb", root)
    return root


def test_kb_new_drafts_a_page_and_a_sample_from_the_founding_case_file(tmp_path, capsys):
    kb = kb_copy(tmp_path)
    case = CaseFile.of(triage(FOUNDING, facts={"TASK_QUEUE_ENABLE": "1"})).save(tmp_path / "cases" / "case.json")
    assert main(["kb", "new", "--from", str(case), "--root", str(kb), "--id", "fa-grad-ticket-draft"]) == 0
    out = capsys.readouterr().out
    page, sample = kb / "cases" / "fa-grad-ticket-draft.md", kb / "samples" / "fa-grad-ticket-draft" / "positive-ticket"
    assert str(page) in out and "cited lines" in out
    loaded = load_kb(kb).cases["fa-grad-ticket-draft"]
    assert (loaded.status, loaded.family) == ("draft", "aicore-exception")   # the family the evidence supports
    assert loaded.signatures[0].field == "message" and loaded.signatures[0].key
    expect = yaml.safe_load((sample / "expect.yaml").read_text(encoding="utf-8"))
    assert expect["runs"][0]["facts"] == {"TASK_QUEUE_ENABLE": "1"}
    assert expect["runs"][0]["diagnosis"] == "fa-grad-ticket-draft"
    # only cited lines: the sample is a small excerpt of the bundle, and the draft's signature matches it
    copied = [p for p in sample.rglob("*.log")]
    original = sum(1 for p in FOUNDING.rglob("*.log") for _ in p.open(encoding="utf-8"))
    kept = sum(1 for p in copied for _ in p.open(encoding="utf-8"))
    assert copied and 0 < kept < original / 5
    assert any(loaded.signatures[0].pattern.search(line) for p in copied for line in p.open(encoding="utf-8"))
    problems = [p for p in check(kb) if p.file == "kb/cases/fa-grad-ticket-draft.md"]
    assert [p.message for p in problems] == [
        "draft case: write fix.workaround, fix.confirm, references, then verify it with samples"]
    assert main(["kb", "new", "--from", str(case), "--root", str(kb), "--id", "fa-grad-ticket-draft"]) == 2
    assert "exists" in capsys.readouterr().err


def test_kb_new_redacts_hosts_and_users(tmp_path):
    kb = kb_copy(tmp_path)
    capture = tmp_path / "t" / "train_stdout.log"
    capture.parent.mkdir()
    capture.write_text("EZ9999: Inner Error!\nEZ9999: [PID: 71] 2025-01-02-03:04:05.006.007 The error from device"
                       "(chipId:0, dieId:0), serial number is 3, there is an aicore error exception, core id is 1, "
                       "error code = 0x0, dump info: pc start: 0x1000, current: 0x1010 at /home/alice/job on "
                       "10.2.3.4[FUNC:X][FILE:y.cc][LINE:1]\n", encoding="utf-8")
    assert main(["kb", "new", str(capture.parent), "--family", "aicore-exception", "--root", str(kb)]) == 0
    written = "".join(p.read_text(encoding="utf-8") for p in (kb / "samples").rglob("*.log"))
    page = next((kb / "cases").glob("aicore-exception-*-draft.md")).read_text(encoding="utf-8")
    for text in (written, page):
        assert "alice" not in text and "10.2.3.4" not in text
    assert "<ip-1>" in written and "/home/<user-1>" in written


def test_kb_new_takes_a_case_file_or_paths(capsys):
    assert main(["kb", "new"]) == 2
    assert "--from CASE.json or PATH" in capsys.readouterr().err


def test_kb_stats_counts_what_the_checks_stand_behind(tmp_path, capsys):
    kb = kb_copy(tmp_path)
    counts = stats(load_kb(kb))
    assert counts.families == len(list((kb / "families").glob("*.md")))
    assert counts.cases == sum(1 for c in load_kb(kb).cases.values() if c.status == "verified")
    for note in (kb / "samples" / "npu-out-of-memory").glob("*/SOURCE.md"):
        note.unlink()
    before = stats(load_kb(kb)).cases_without_real_source
    some = next(p for p in (kb / "samples" / "npu-out-of-memory").iterdir() if p.is_dir())
    (some / "SOURCE.md").write_text("https://example.org/thread\n", encoding="utf-8")
    assert stats(load_kb(kb)).cases_without_real_source == before - 1
    assert main(["kb", "stats", "--json", "--root", str(kb)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) >= {"cases", "families", "codes", "samples", "cases_without_real_source"}
    assert doc["codes"] >= 400 and doc["samples"] == counts.samples
