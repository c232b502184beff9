"""The collect-more request follows what the case misses, and asks nothing the bundle already holds."""
from casebook.judging.triage import triage
from casebook.presenting import collect
from conftest import SAMPLES, write_log

CASE = SAMPLES / "task-queue-shared-cache-race"


def _whats(req):
    return [a.what for a in req.asks]


def test_error_level_bundle_asks_for_info_logs_topology_env_versions_and_health():
    req = collect.build(triage(CASE / "positive-error-level"))
    text = req.to_markdown()
    for needle in ("ASCEND_MODULE_LOG_LEVEL", "ASCEND_HOST_LOG_FILE_NUM", "pip list", "env |", "npu-smi info",
                   "msnpureport", "TASK_QUEUE_ENABLE"):
        assert needle in text, needle
    assert "How the job starts its processes" in _whats(req)


def test_info_bundle_does_not_ask_for_what_it_holds():
    req = collect.build(triage(CASE / "positive-info"))
    whats = _whats(req)
    assert "A rerun's plogs at INFO level for the runtime" not in whats     # binSize is there
    assert "How the job starts its processes" not in whats                  # set-device lines are there
    assert any("environment" in w for w in whats)                           # TASK_QUEUE_ENABLE still open


def test_answers_close_the_environment_ask(tmp_path):
    t = triage(CASE / "positive-info", facts={"TASK_QUEUE_ENABLE": "1"})
    assert not any("environment" in w for w in _whats(collect.build(t)))


def test_a_bundle_without_errors_asks_for_the_full_plog_folder(tmp_path):
    write_log(tmp_path, "plog/plog-1_20260101000000000.log",
              "[INFO] RUNTIME(1,python):2026-01-01-00:00:00.000.000 [a.cc:1]1 F:hello\n")
    req = collect.build(triage(tmp_path / "plog"))
    assert _whats(req)[0] == "The full plog folder of the failing run"
    assert req.to_text().startswith("1. The full plog folder")
