"""TriageApp driven the way an engineer drives it: clicks and values only."""
import ipywidgets as w
import pytest
from casebook.judging.ranking import CONFIRMED, LIKELY
from casebook.judging.triage import triage
from casebook.presenting.walk import STEP_KEYS, TITLES
from casebook.widgets import TriageApp
from conftest import SAMPLES, write_log

POSITIVE = SAMPLES / "task-queue-shared-cache-race" / "positive-info"
CASE = "task-queue-shared-cache-race"
HOSTILE = ("[ERROR] RUNTIME(100,python):2026-01-01-10:00:00.000.000 [x.cc:1]100 "
           "F:<script>alert(1)</script> <b>bold</b> device_id=0\n")


@pytest.fixture
def hostile_app(tmp_path):
    """An app over a one-line plog whose message is markup."""
    write_log(tmp_path, "plog/plog-100_20260101100000000.log", HOSTILE)
    return TriageApp(triage(tmp_path / "plog"))


@pytest.fixture(scope="module")
def positive_app():
    """A fresh app over the likely-but-unconfirmed sample (module scope: the bundle takes a moment to read)."""
    return lambda: TriageApp(triage(POSITIVE))


def test_next_walks_every_step_in_order_and_back_returns(hostile_app):
    app = hostile_app
    assert app.back.disabled
    seen = []
    for i, key in enumerate(STEP_KEYS):
        assert app.step_index == i and app.steps[i].key == key
        assert TITLES[key][0] in app.step_label.value
        seen.append(app.step_label.value)
        app.next.click()
    assert app.step_index == len(STEP_KEYS) - 1 and app.next.disabled
    assert len(set(seen)) == len(STEP_KEYS)
    app.back.click()
    assert app.step_index == len(STEP_KEYS) - 2 and app.step_label.value == seen[-2]
    app.goto("symptom")
    assert app.step_label.value == seen[0]


def test_log_markup_is_shown_as_text(hostile_app):
    app = hostile_app
    app.goto("symptom")
    html = app.html_of_step()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "<script>" not in html and "<b>bold" not in html
    app.goto("topology")
    assert "<script>" not in app.html_of_step() and "&lt;script&gt;" in app.html_of_step()


def test_language_toggle_switches_titles(hostile_app):
    app = hostile_app
    app.goto("root_cause")
    app.language.value = "中文"
    assert "根因" in app.step_label.value and "根因" in app.html_of_step()
    app.language.value = "en"
    assert "Root cause" in app.step_label.value


def test_answering_task_queue_confirms_the_case(positive_app):
    app = positive_app()
    assert app.triage.diagnosis.case.id == CASE and app.triage.diagnosis.verdict == LIKELY
    assert "likely" in app.header.value
    app.goto("root_cause")
    question = app.questions["TASK_QUEUE_ENABLE"]
    assert isinstance(question, w.Dropdown) and question.options[0] == "unknown"
    question.value = "1"
    assert app.triage.diagnosis.verdict == CONFIRMED
    assert "confirmed" in app.header.value and "confirmed" in app.html_of_step()
    assert any(question in row.children for row in app.question_box.children), "answered question stays visible"
    question.value = "unknown"
    assert app.triage.diagnosis.verdict == LIKELY


def test_questions_follow_language_and_bool_facts_take_yes_no(positive_app):
    app = positive_app()
    app.goto("root_cause")
    toggle = app.questions["failure_vanished_with_debug"]
    assert isinstance(toggle, w.ToggleButtons) and tuple(toggle.options) == ("unknown", "yes", "no")
    app.language.value = "中文"
    texts = [row.children[0].value for row in app.question_box.children]
    assert any("TASK_QUEUE_ENABLE 的取值" in t for t in texts)
    toggle.value = "yes"
    assert app.triage.answers["failure_vanished_with_debug"] is True
    assert any(toggle in row.children for row in app.question_box.children)


def test_given_answers_get_a_widget_that_can_take_them_back(tmp_path):
    write_log(tmp_path, "plog/plog-100_20260101100000000.log", HOSTILE)
    app = TriageApp(triage(tmp_path / "plog", facts={"TASK_QUEUE_ENABLE": "2"}))
    box = app.questions["TASK_QUEUE_ENABLE"]
    assert box.value == "2"
    box.value = "unknown"
    assert "TASK_QUEUE_ENABLE" not in app.triage.answers


def test_cell_ending_with_app_displays_the_widget(hostile_app):
    bundle = hostile_app._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


# -- opening, exporting and saving from the app -------------------------------------------------------------
def test_path_box_opens_a_bundle_and_moves_the_progress_bar(tmp_path):
    write_log(tmp_path, "plog/plog-100_20260101100000000.log", HOSTILE)
    app = TriageApp(folder=tmp_path)
    assert app.triage is None and app.next.disabled and "Open a bundle" in app.header.value
    app.opener.path_box.value = str(tmp_path / "plog")
    app.opener.open_button.click()
    assert app.triage is not None and app.opener.progress.value == app.opener.progress.max
    assert "1 files, 1 lines" in app.opener.stage.value
    assert "plog-100_20260101100000000.log" in app.files_table.value and "<script>" not in app.files_table.value


def test_progress_moves_one_step_per_file_read(tmp_path):
    for n in range(3):
        write_log(tmp_path, f"plog/plog-10{n}_20260101100000000.log", HOSTILE)
    app = TriageApp(folder=tmp_path)
    seen = []
    app.opener.progress.observe(lambda change: seen.append(change["new"]), names="value")
    app.opener.path_box.value = str(tmp_path / "plog")
    app.opener.open_button.click()
    assert app.opener.progress.max == 3 + 2 and app.opener.progress.value == app.opener.progress.max
    assert {1, 2, 3} <= set(seen)


def test_a_bad_path_is_reported_not_raised(tmp_path):
    app = TriageApp(folder=tmp_path)
    app.opener.path_box.value = str(tmp_path / "missing")
    app.opener.open_button.click()
    assert app.triage is None and "no such file or directory" in app.opener.status.value


def test_upload_is_stored_and_opened(tmp_path):
    import datetime
    app = TriageApp(folder=tmp_path)
    app.opener.upload_dir = tmp_path
    app.opener.upload.value = [{"name": "../../plog-100_20260101100000000.log", "type": "text/plain",
                                "size": len(HOSTILE), "content": memoryview(HOSTILE.encode()),
                                "last_modified": datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)}]
    assert app.triage is not None and app.triage.log.lines == 1
    stored = list(tmp_path.glob("casebook-upload-*/*"))
    assert [p.name for p in stored] == ["plog-100_20260101100000000.log"], "the browser's name is never a path"


def test_export_writes_both_formats_with_options(tmp_path, hostile_app):
    app = hostile_app
    app.export.folder = tmp_path
    app.export.redact.value = True
    app.export.collect_more.value = True
    app.export.export_button.click()
    html = (tmp_path / "case-report.html").read_text(encoding="utf-8")
    assert "Collect more" in html and "&lt;script&gt;" in html and "<script>" not in html
    assert (tmp_path / "case-report.md").is_file()
    assert "Report written" in app.export.status.value and "data:text/html;base64," in app.export.status.value


def test_save_and_resume_restore_answers_notes_and_step(tmp_path, positive_app):
    app = positive_app()
    app.export.folder = tmp_path
    app.goto("root_cause")
    app.questions["TASK_QUEUE_ENABLE"].value = "1"
    app.export.notes.value = "customer: 8 cards, one process"
    app.export.save_button.click()
    assert "Case saved" in app.export.status.value
    fresh = TriageApp(folder=tmp_path)
    fresh.export.resume_button.click()
    assert fresh.triage.diagnosis.verdict == CONFIRMED and fresh.step.key == "root_cause"
    assert fresh.export.notes.value == "customer: 8 cards, one process"
    assert fresh.questions["TASK_QUEUE_ENABLE"].value == "1"


def test_resume_of_a_missing_case_file_says_so(tmp_path):
    app = TriageApp(folder=tmp_path)
    app.export.resume_button.click()
    assert "case.json: cannot read" in app.export.status.value


def test_language_switches_the_app_labels_too(hostile_app):
    hostile_app.language.value = "中文"
    assert hostile_app.next.description == "下一步" and "诊断" in hostile_app.header.value
    hostile_app.language.value = "en"
    assert hostile_app.next.description == "Next"


def test_step_tables_and_figures_are_shown_escaped(hostile_app, monkeypatch):
    import pandas as pd
    from casebook.widgets import triage_app
    from matplotlib.figure import Figure
    original = triage_app.walk.build

    def build(t):
        steps = original(t)
        steps[0].tables.append(("<u>caption</u>", pd.DataFrame({"text": ["<script>alert(1)</script>"]})))
        steps[0].figures.append(lambda: Figure())
        return steps
    monkeypatch.setattr(triage_app.walk, "build", build)
    hostile_app.refresh()
    hostile_app.goto("symptom")
    html = hostile_app.html_of_step()
    assert "&lt;u&gt;caption&lt;/u&gt;" in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>" not in html and "data:image/png;base64," in html


# -- the training and exploring widgets ---------------------------------------------------------------------
def test_case_walk_pairs_evidence_with_reasons():
    from casebook.widgets import CaseWalk
    walk_ = CaseWalk(triage(POSITIVE), CASE)
    assert walk_.back.disabled and "Symptom" in walk_.step_label.value and "<h4>Symptom</h4>" in walk_.why.value
    walk_.next.click()
    walk_.next.click()
    assert "pc start" in walk_.step_label.value and "seen [pc_mismatch]" in walk_.why.value
    assert "pc_start_suspect" in walk_.evidence.value
    for _ in range(5):
        walk_.next.click()
    assert walk_.next.disabled and "Confirming the fix" in walk_.why.value


def test_quiz_widget_grades_explains_and_scores():
    from casebook.presenting.quiz import make_quiz
    from casebook.widgets import Quiz
    ui = Quiz(make_quiz(0, sample=SAMPLES / CASE / "negative-process-per-card"))
    ui.checks["case"].click()
    assert "Pick an answer first" in ui.feedback["case"].value
    ui.choices["case"].value = CASE
    ui.checks["case"].click()
    assert "Not quite" in ui.feedback["case"].value and "Score: 0/5" in ui.score.value
    for q in ui.quiz.questions:
        ui.choices[q.key].value = q.answer
        ui.checks[q.key].click()
        assert "Right." in ui.feedback[q.key].value
    assert "Score: 5/5" in ui.score.value and "negative-process-per-card" in ui.score.value


def test_kb_browser_searches_codes_kernels_and_chinese():
    from casebook.knowledge.kb import load_kb
    from casebook.widgets import KbBrowser
    b = KbBrowser(load_kb(), "CCU_BUS_ERR")
    assert b.hits[0].id == "CCU_BUS_ERR" and "<h1>CCU_BUS_ERR" in b.page.value
    b.query.value = "FlashAttentionScoreGrad_8ac1e3b7d5f0a2c4_high_performance_10000000000220130"
    assert [h.id for h in b.hits] == [CASE] and "kernel" in b.page.value
    b.query.value = "共享缓存"
    assert CASE in [h.id for h in b.hits]
    b.query.value = "no-such-word-anywhere"
    assert b.hits == [] and "Nothing matches" in b.page.value


def test_markdown_pages_show_raw_html_as_text():
    from casebook.widgets.step_view import markdown_html
    assert "&lt;script&gt;" in markdown_html("text <script>alert(1)</script>")


def test_plog_explorer_filters_and_windows_escape_log_text(hostile_app):
    from casebook.widgets import PlogExplorer
    ex = PlogExplorer(hostile_app.triage)
    assert "ERROR" in ex.counts.value
    assert ex.level.options == ("(any)", "ERROR")
    ex.text.value = "no such text"
    assert ex.shown.value.startswith("0 record(s)")
    ex.level.value = "ERROR"
    ex.text.value = "alert"
    assert ex.shown.value.startswith("1 record(s)") and "&lt;script&gt;" in ex.records.value
    assert "<script>" not in ex.records.value
    assert "&gt;&gt;" in ex.window.value and "&lt;b&gt;bold" in ex.window.value and "<b>bold" not in ex.window.value


def test_server_configs_raise_the_websocket_limit_to_what_the_upload_says():
    import json

    from casebook.widgets.opener import UPLOAD_LIMIT_MIB
    from conftest import ROOT
    limit = UPLOAD_LIMIT_MIB << 20
    lab = json.loads((ROOT / "config" / "jupyter_server_config.json").read_text(encoding="utf-8"))
    voila = json.loads((ROOT / "config" / "voila.json").read_text(encoding="utf-8"))
    assert lab["ServerApp"]["tornado_settings"]["websocket_max_message_size"] == limit
    assert voila["Voila"]["tornado_settings"]["websocket_max_message_size"] == limit
    assert "JUPYTER_CONFIG_PATH=$(CURDIR)/config" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_figures_are_drawn_while_loading_and_reused_by_every_step():
    app = TriageApp(triage(POSITIVE))
    drawn = dict(app._pngs)
    assert drawn and all(png.startswith(b"\x89PNG") for png in drawn.values())
    for _ in range(len(app.steps) - 1):
        app.next.click()
        assert "data:image/png;base64," in app.html_of_step() or not app.step.figures
    app.questions["TASK_QUEUE_ENABLE"].value = "1"      # re-ranks and rebuilds the walk
    assert app._pngs == drawn
