"""Save a case, resume it: same paths, same answers, same diagnosis; bad files named with their path."""
import json

import pytest
from casebook.judging.triage import triage
from casebook.presenting import casefile
from casebook.presenting.casefile import CaseFile, CaseFileError
from conftest import SAMPLES

POSITIVE = SAMPLES / "task-queue-shared-cache-race" / "positive-info"


def test_save_and_resume_restores_answers_notes_and_verdict(tmp_path):
    t = triage(POSITIVE, facts={"TASK_QUEUE_ENABLE": "1"})
    path = CaseFile.of(t, notes="customer says: 8 cards, one process", step="root_cause").save(tmp_path / "c.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["answers"] == {"TASK_QUEUE_ENABLE": "1"} and doc["step"] == "root_cause"
    assert path.stat().st_size < 2000, "a case file stays small: no log text in it"
    back = casefile.load(path)
    assert back.notes == "customer says: 8 cards, one process"
    again = back.resume()
    assert again.diagnosis.verdict == t.diagnosis.verdict == "confirmed"


def test_paths_under_the_case_folder_are_stored_relative(tmp_path, monkeypatch):
    bundle = tmp_path / "case" / "logs"
    bundle.mkdir(parents=True)
    (bundle / "x.log").write_text("hello\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    CaseFile(paths=["case/logs"]).save(tmp_path / "case" / "c.json")
    doc = json.loads((tmp_path / "case" / "c.json").read_text(encoding="utf-8"))
    assert doc["paths"] == ["logs"]
    assert casefile.load(tmp_path / "case" / "c.json").paths == ["case/logs"]


@pytest.mark.parametrize("text, message", [
    ("{not json", ":1: not JSON"),
    ('{"paths": ["a"]}', "not a casebook case file"),
    ('{"casebook_case": 1, "paths": []}', "'paths' must be a non-empty list"),
    ('{"casebook_case": 1, "paths": ["a"], "answers": {"TASK_QUEUE_ENABLE": "7"}}', "TASK_QUEUE_ENABLE takes one of"),
])
def test_bad_case_files_name_the_file(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CaseFileError) as e:
        casefile.load(path)
    assert str(path) in str(e.value) and message in str(e.value)
