"""A second open of the same bundle in one process reuses its reading; any change to the bundle reads it anew."""
from __future__ import annotations

import shutil

from casebook.judging import readings
from casebook.judging.triage import triage
from casebook.reading import plog
from conftest import SAMPLES

SAMPLE = SAMPLES / "npu-out-of-memory" / "positive-long-batch"


def test_the_same_bundle_is_read_once_and_answers_stay_apart(tmp_path):
    bundle = tmp_path / "b"
    shutil.copytree(SAMPLE, bundle)
    first = triage(bundle, facts={"TASK_QUEUE_ENABLE": "1"})
    again = triage(bundle)
    assert again.log is first.log and again.evidence is first.evidence
    assert first.answers == {"TASK_QUEUE_ENABLE": "1"} and again.answers == {}


def test_a_changed_file_a_new_file_or_other_reading_settings_read_anew(tmp_path, monkeypatch):
    bundle = tmp_path / "b"
    shutil.copytree(SAMPLE, bundle)
    first = triage(bundle)
    with open(bundle / "train_stdout.log", "a", encoding="utf-8") as fh:
        fh.write("one more line\n")
    changed = triage(bundle)
    assert changed.log is not first.log and changed.log.lines == first.log.lines + 1
    (bundle / "extra.log").write_text("x\n", encoding="utf-8")
    added = triage(bundle)
    assert added.log is not changed.log and added.log.lines == changed.log.lines + 1
    monkeypatch.setattr(plog, "FULL_RECORDS_BELOW", 4 << 20)
    assert triage(bundle).log is not added.log


def test_only_the_last_bundles_are_kept_and_forget_drops_them(tmp_path):
    logs = []
    for i in range(readings.KEPT + 1):
        shutil.copytree(SAMPLE, tmp_path / str(i))
        logs.append(triage(tmp_path / str(i)).log)
    assert triage(tmp_path / "0").log is not logs[0]          # the oldest went first
    assert triage(tmp_path / str(readings.KEPT)).log is logs[-1]
    readings.forget()
    assert triage(tmp_path / str(readings.KEPT)).log is not logs[-1]


def test_bundles_with_archives_are_never_kept(tmp_path):
    archive = shutil.make_archive(str(tmp_path / "bundle"), "gztar", SAMPLE)
    assert triage(archive).log is not triage(archive).log


def test_the_apps_opener_keeps_its_reading_too(tmp_path):
    from casebook.widgets.triage_app import TriageApp
    bundle = tmp_path / "b"
    shutil.copytree(SAMPLE, bundle)
    app = TriageApp()
    first = app.open(bundle)
    again = app.open(bundle)
    assert again.log is first.log and again.evidence is first.evidence
    assert triage(bundle).log is first.log             # the CLI's path and the app's share one kept reading
    assert app.opener.stage.value and app.opener.progress.value == app.opener.progress.max


def test_a_bundle_opened_again_in_the_app_shows_its_figures_without_drawing_them(tmp_path, monkeypatch):
    from casebook.presenting import plots
    from casebook.widgets.triage_app import TriageApp
    bundle = tmp_path / "b"
    shutil.copytree(SAMPLES / "aicore-out-of-range-access" / "positive-mte-write-overflow", bundle)
    drawn = []
    for name in ("timeline", "address_map"):
        real = getattr(plots, name)
        monkeypatch.setattr(plots, name, lambda *a, _real=real, _name=name: drawn.append(_name) or _real(*a))
    app = TriageApp()
    app.open(bundle)
    app.wait_for_figures()
    first = len(drawn)
    assert first and set(drawn) == {"timeline", "address_map"}
    app.open(bundle)
    app.wait_for_figures()
    assert len(drawn) == first                             # the kept reading kept its figures
    readings.forget()
    app.open(bundle)
    app.wait_for_figures()
    assert len(drawn) == 2 * first                         # a new reading draws them anew
