"""Every KB sample meets its expect.yaml: positives rank their case first, near misses do not get the case
they mimic, samples of unknown failures get no diagnosis; coverage and unexplained templates add up."""

import pytest
import yaml
from casebook.judging.contract import validate
from conftest import SAMPLES, triaged

CASES = [(case.name, sample.name, run_no)
         for case in sorted(p for p in SAMPLES.iterdir() if p.is_dir())
         for sample in sorted(p for p in case.iterdir() if p.is_dir())
         for run_no in range(len(yaml.safe_load((sample / "expect.yaml").read_text(encoding="utf-8"))["runs"]))]


def test_there_are_samples_for_the_founding_case():
    names = {(c, s) for c, s, _ in CASES}
    assert {("task-queue-shared-cache-race", "positive-info"), ("task-queue-shared-cache-race", "positive-error-level"),
            ("task-queue-shared-cache-race", "negative-process-per-card")} <= names


@pytest.mark.parametrize("case_id,sample,run_no", CASES)
def test_sample_meets_expectations(case_id, sample, run_no):
    folder = SAMPLES / case_id / sample
    run = yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8"))["runs"][run_no]
    doc = triaged(folder, run.get("facts"))
    validate(doc)
    assert doc["diagnosis"] == run["diagnosis"]
    verdicts = {c["case"]: c["verdict"] for c in doc["candidates"]}
    for cid, verdict in (run.get("verdicts") or {}).items():
        assert verdicts.get(cid) == verdict, (cid, verdicts)
    if doc["diagnosis"] is not None:
        assert doc["candidates"][0]["case"] == doc["diagnosis"]
    missing = {m["fact"] for c in doc["candidates"] if c["case"] == case_id for m in c["missing"]}
    assert set(run.get("missing") or []) <= missing
    if "pc_verdict" in run:
        assert doc["aicore_faults"][0]["pc_verdict"] == run["pc_verdict"]
    if "aicore" in run:
        fault = doc["aicore_faults"][0]
        assert {k: fault[k] for k in run["aicore"]} == run["aicore"]
    cov = doc["coverage"]
    if doc["diagnosis"] is not None:   # the diagnosis accounts for some error lines, and the rest is templated
        assert 0 < cov["explained"] <= cov["error_lines"]
    assert sum(u["count"] for u in doc["unexplained"]) <= cov["error_lines"] - cov["explained"]
    if case_id == "_unknown":
        assert all(c["verdict"] in ("possible", "ruled_out") for c in doc["candidates"])
    assert doc["input"]["lines"] == sum(f["lines"] for f in doc["input"]["files"])
    for meta in ("expect.yaml", "SOURCE.md"):   # a sample's own metadata is listed, never read as a log
        meta_file = next(f for f in doc["input"]["files"] if f["path"] == meta)
        assert meta_file["skipped"] and meta_file["lines"] == 0
