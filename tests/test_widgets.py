"""TriageApp driven the way an engineer drives it: clicks and values only."""
import ipywidgets as w
import pytest

from casebook.ranking import CONFIRMED, LIKELY
from casebook.triage import triage
from casebook.walk import STEP_KEYS, TITLES
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
