"""TriageApp driven the way an engineer drives it: clicks and values only."""
import json
import re
import threading
from html import escape

import ipywidgets as w
import pytest
from casebook.judging.ranking import CONFIRMED, LIKELY
from casebook.judging.triage import triage
from casebook.presenting.walk import STEP_KEYS, TITLES
from casebook.widgets import TriageApp
from casebook.widgets.triage_app import NOT_RUN
from conftest import ROOT, SAMPLES, write_log

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


def test_language_toggle_switches_titles_and_the_walk(hostile_app):
    app = hostile_app
    app.goto("root_cause")
    english = app.html_of_step()
    app.language.value = "zh"
    assert "根因" in app.step_label.value and app.step.lang == "zh" and app.html_of_step() != english
    assert app.step.key == "root_cause", "the step on screen stays"
    app.language.value = "en"
    assert "Root cause" in app.step_label.value and app.html_of_step() == english


def test_answering_task_queue_confirms_the_case(positive_app):
    app = positive_app()
    assert app.triage.diagnosis.case.id == CASE and app.triage.diagnosis.verdict == LIKELY
    assert "likely" in app.header.value
    app.goto("root_cause")
    question = app.questions["TASK_QUEUE_ENABLE"]
    assert isinstance(question, w.Dropdown) and question.value == "unknown"
    question.value = "1"
    assert app.triage.diagnosis.verdict == CONFIRMED
    assert "confirmed" in app.header.value and "confirmed" in app.head.value
    assert any(question in row.children for row in app.question_rows), "answered question stays visible"
    question.value = "unknown"
    assert app.triage.diagnosis.verdict == LIKELY


def test_questions_follow_language_and_bool_facts_take_yes_no(positive_app):
    app = positive_app()
    app.goto("root_cause")
    toggle = app.questions["failure_vanished_with_debug"]
    assert isinstance(toggle, w.ToggleButtons) and [v for _, v in toggle.options] == ["unknown", "yes", "no"]
    app.questions["TASK_QUEUE_ENABLE"].value = "1"
    app.language.value = "zh"
    assert [label for label, _ in toggle.options] == ["未知", "是", "否"]
    assert app.questions["TASK_QUEUE_ENABLE"].value == "1" and app.triage.answers["TASK_QUEUE_ENABLE"] == "1", \
        "relabelling keeps the answers"
    texts = [row.children[0].value for row in app.question_rows]
    assert any("TASK_QUEUE_ENABLE 的取值" in t for t in texts)
    toggle.value = "yes"
    assert app.triage.answers["failure_vanished_with_debug"] is True
    assert any(toggle in row.children for row in app.question_rows)


def test_given_answers_get_a_widget_that_can_take_them_back(tmp_path):
    write_log(tmp_path, "plog/plog-100_20260101100000000.log", HOSTILE)
    app = TriageApp(triage(tmp_path / "plog", facts={"TASK_QUEUE_ENABLE": "2"}))
    box = app.questions["TASK_QUEUE_ENABLE"]
    assert box.value == "2"
    box.value = "unknown"
    assert "TASK_QUEUE_ENABLE" not in app.triage.answers


def test_cell_ending_with_app_displays_the_widget_or_says_how_to_start(hostile_app):
    bundle = hostile_app._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == NOT_RUN and "▶▶" in NOT_RUN


def test_the_triage_notebook_opens_on_the_note_not_on_widget_text():
    nb = json.loads((ROOT / "notebooks" / "01_triage.ipynb").read_text(encoding="utf-8"))
    (app_cell,) = [c for c in nb["cells"] if c["cell_type"] == "code" and "TriageApp(" in "".join(c["source"])]
    assert app_cell is [c for c in nb["cells"] if c["cell_type"] == "code"][-1], "no cell under the app"
    shown = [o["data"] for o in app_cell["outputs"]]
    assert shown == [{"text/plain": [NOT_RUN]}]
    assert '"../cases"' in "".join(app_cell["source"]), "exports go to the project's cases/ folder"


# -- the step as an expert reads it ---------------------------------------------------------------------------
def test_each_step_opens_with_its_conclusion_then_questions_then_findings_then_evidence(positive_app):
    app = positive_app()
    order = app.widget.children
    assert order.index(app.head) < order.index(app.question_box) < order.index(app.body)
    for key in STEP_KEYS:
        app.goto(key)
        html = app.html_of_step()
        assert app.step.conclusion and html.startswith("<p class='casebook-conclusion'>")
        if app.step.findings and app.step.cited:
            assert html.index("casebook-findings") < html.index("casebook-evidence")
        wheres = re.findall(r"data-where='([^']*)'", html)
        assert len(wheres) == len(set(wheres)) == len(app.step.cited), f"{key}: a file:line cited twice"


def test_root_cause_questions_come_in_the_walks_order(positive_app):
    app = positive_app()
    app.goto("root_cause")
    shown = [next(f for f, box in app.questions.items() if box in row.children) for row in app.question_rows]
    assert shown[:len(app.step.questions)] == [q.fact for q in app.step.questions]
    assert app.question_title.value and shown[0] == "TASK_QUEUE_ENABLE"


def test_a_long_cited_line_shows_its_matched_part_and_opens_to_the_whole_line(positive_app):
    app = positive_app()
    app.goto("pc_start")
    (c,) = [c for c in app.step.cited if len(c.text) > 200]
    html = app.body.value
    block = html[html.index(f"data-where='{c.where}'"):]
    block = block[:block.index("</details>")]
    summary, full = block.split("</summary>")
    assert "<mark>" in summary and len(re.sub(r"<[^>]+>", "", summary)) < len(c.text)
    assert escape(c.text) in full


def test_tables_show_unknowns_as_empty_cells_and_whole_numbers_as_integers(positive_app):
    app = positive_app()
    app.files.selected_index = 0
    pages = [app.files_table.value]
    for key in STEP_KEYS:
        app.goto(key)
        pages.append(app.body.value)
    cells = [re.sub(r"<[^>]+>", "", c).strip()
             for page in pages for c in re.findall(r"<td[^>]*>(.*?)</td>", page, re.S)]
    assert cells and not {"None", "NaN", "nan", "NaT", "<NA>"} & set(cells)
    assert "48213" in cells and "48213.0" not in cells


def test_opening_another_bundle_leaves_nothing_of_the_first(tmp_path, positive_app):
    app = positive_app()
    app.export.folder = tmp_path
    app.export.export_button.click()
    assert CASE in app.header.value and "Report written" in app.export.status.value
    write_log(tmp_path, "plog/plog-100_20260101100000000.log", HOSTILE)
    app.opener.path_box.value = str(tmp_path / "plog")
    app.opener.open_button.click()
    app.files.selected_index = 0
    shown = [app.header.value, app.files_table.value, app.export.status.value, app.status.value]
    for key in STEP_KEYS:
        app.goto(key)
        shown += [app.head.value, app.body.value, *(row.children[0].value for row in app.question_rows)]
    assert not [s for s in shown if CASE in s or "plog-48213" in s]


# -- opening, exporting and saving from the app -------------------------------------------------------------
def test_path_box_opens_a_bundle_and_moves_the_progress_bar(tmp_path):
    write_log(tmp_path, "plog/plog-100_20260101100000000.log", HOSTILE)
    app = TriageApp(folder=tmp_path)
    assert app.triage is None and app.next.disabled and "Open a bundle" in app.header.value
    app.opener.path_box.value = str(tmp_path / "plog")
    app.opener.open_button.click()
    assert app.triage is not None and app.opener.progress.value == app.opener.progress.max
    assert "1 file, 1 line, 0 warnings" in app.opener.stage.value
    assert app.files_table.value == ""                     # built when its section opens
    app.files.selected_index = 0
    assert "plog-100_20260101100000000.log" in app.files_table.value and "<script>" not in app.files_table.value
    app.files.selected_index = None
    assert app.files_table.value == ""


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
    assert app.export.name.value == "plog-report", "named after the bundle"
    html = (tmp_path / "plog-report.html").read_text(encoding="utf-8")
    assert "Collect more" in html and "&lt;script&gt;" in html and "<script>" not in html
    assert (tmp_path / "plog-report.md").is_file()
    assert "Report written" in app.export.status.value and "data:text/html;base64," in app.export.status.value


def test_export_speaks_the_apps_language(tmp_path, hostile_app):
    hostile_app.export.folder = tmp_path
    hostile_app.language.value = "zh"
    hostile_app.export.export_button.click()
    assert "报告已写入" in hostile_app.export.status.value
    assert re.search(r"^### 1\. 现象", (tmp_path / "plog-report.md").read_text(encoding="utf-8"), re.M)


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


def _labels(app) -> list[str]:
    """Every label, description and placeholder of the app's own widgets (not the walk's text)."""
    boxes = [app.back, app.next, app.opener.path_box, app.opener.open_button, app.opener.upload,
             app.opener.paste.text, app.opener.paste.read_button,
             app.export.redact, app.export.collect_more, app.export.name, app.export.export_button,
             app.export.notes, app.export.case_path, app.export.save_button, app.export.resume_button]
    texts = [getattr(b, "description", "") for b in boxes] + [getattr(b, "placeholder", "") for b in boxes]
    return [t for t in texts if t.strip("\u200b")] + [app.files.get_title(0), app.opener.stage.value]


def test_language_switches_every_app_label(tmp_path):
    write_log(tmp_path, "plog/plog-100_20260101100000000.log", HOSTILE)
    app = TriageApp(folder=tmp_path)
    app.language.value = "zh"
    app.open(tmp_path / "plog")
    labels = _labels(app)
    assert len(labels) == 18 and all(re.search(r"[\u4e00-\u9fff]", t) for t in labels), labels
    assert "诊断" in app.header.value and "文件" in app.header.value
    app.files.selected_index = 0
    assert re.search(r"[\u4e00-\u9fff]", app.files_table.value), "the files table's headers follow"
    app.opener.paste.read_button.click()
    assert "请先粘贴日志文本" in app.opener.status.value
    app.language.value = "en"
    assert app.next.description == "Next" and not any(re.search(r"[\u4e00-\u9fff]", t) for t in _labels(app))


def test_step_tables_and_figures_are_shown_escaped(hostile_app, monkeypatch):
    import pandas as pd
    from casebook.widgets import triage_app
    from matplotlib.figure import Figure
    original = triage_app.walk.build

    def build(t, lang="en"):
        steps = original(t, lang)
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


def test_the_first_step_shows_before_its_figures_which_follow_once_drawn_and_are_reused_by_every_step():
    app = TriageApp(triage(POSITIVE))
    figured = next(i for i, s in enumerate(app.steps) if s.figures)
    app.goto(app.steps[figured].key)
    app.wait_for_figures()
    drawn = dict(app._pngs)
    assert len(drawn) == sum(len(s.figures) for s in app.steps) and all(p.startswith(b"\x89PNG") for p in drawn.values())
    assert "data:image/png;base64," in app.body.value and "casebook-pending" not in app.body.value
    for _ in range(len(app.steps) - 1 - figured):
        app.next.click()
        assert "casebook-pending" not in app.body.value
        assert "data:image/png;base64," in app.html_of_step() or not app.step.figures
    app.questions["TASK_QUEUE_ENABLE"].value = "1"      # re-ranks and rebuilds the walk
    app.wait_for_figures()
    assert app._pngs == drawn                            # the same figures of the same evidence: none drawn anew


def test_the_garbage_of_drawn_figures_is_collected_behind_the_page_not_on_a_click(monkeypatch):
    import gc

    from casebook.widgets import figures
    collections = []
    monkeypatch.setattr(figures.gc, "collect", lambda: collections.append(threading.current_thread().name))
    app = TriageApp(triage(POSITIVE))
    app.wait_for_figures()
    assert collections == ["casebook-figures"]   # once, on the drawing thread, after its figures
    for _ in range(len(app.steps) - 1):
        app.next.click()
    assert collections == ["casebook-figures"]   # the figures were drawn: the walk itself collects nothing
    assert gc.isenabled()


def test_a_step_shown_before_its_figures_are_drawn_says_so_and_html_of_step_draws_them(monkeypatch):
    from casebook.widgets import figures
    monkeypatch.setattr(figures.FigureDrawer, "start", lambda self, *args: None)   # nothing drawn behind the page
    app = TriageApp(triage(POSITIVE))
    app.goto(next(s for s in app.steps if s.figures).key)
    assert "casebook-pending" in app.body.value and "drawing the figure" in app.body.value
    assert "data:image/png;base64," not in app.body.value
    assert "data:image/png;base64," in app.html_of_step() and app._pngs


def test_a_figure_that_fails_to_draw_is_left_out_and_the_page_says_why(monkeypatch):
    from casebook.presenting import plots

    def broken(*args):
        raise ValueError("no room on the canvas")
    monkeypatch.setattr(plots, "timeline", broken)
    app = TriageApp(triage(POSITIVE))
    step = next(s for s in app.steps if s.figures and all(m.key[0] == "timeline" for m in s.figures))
    app.goto(step.key)
    app.wait_for_figures()
    assert "could not be drawn" in app.status.value and "ValueError: no room on the canvas" in app.status.value
    assert "casebook-pending" not in app.body.value and "data:image/png" not in app.body.value
    assert [png for key, png in app._pngs.items() if key[0] == "timeline"] == [None]


def test_the_progress_bar_moves_a_bounded_number_of_times_and_always_reaches_the_last_file():
    from casebook.widgets.opener import PROGRESS_STEPS, BundleOpener
    opener = BundleOpener(lambda t: None)
    moves = []
    opener.progress.observe(lambda change: moves.append(change["new"]), names="value")
    for done in range(1, 101):
        opener._reading(done, 100)
    assert moves == list(range(4, 101, 4)) and len(moves) == PROGRESS_STEPS
    assert "100" in opener.stage.value
    small, moves = BundleOpener(lambda t: None), []
    small.progress.observe(lambda change: moves.append(change["new"]), names="value")
    for done in range(1, 4):
        small._reading(done, 3)
    assert moves == [1, 2, 3]


# -- the root-cause step of a case still open --------------------------------------------------------------
def test_an_open_case_shows_three_questions_and_three_causes_before_more_and_an_answer_keeps_its_place():
    from casebook.presenting.step import QUESTIONS_SHOWN
    from conftest import CORPUS
    app = TriageApp(triage(CORPUS / "modelarts-8rank-job"))
    app.goto("root_cause")
    assert app.triage.diagnosis is None and len(app.step.questions) > QUESTIONS_SHOWN
    in_view = [r for r in app.question_box.children if r is not app.more_questions]
    assert len(in_view) == QUESTIONS_SHOWN and app.question_box.children[-1] is app.more_questions
    assert app.more_questions.selected_index is None, "the other questions wait folded"
    assert len(app.more_box.children) == len(app.step.questions) - QUESTIONS_SHOWN
    html = app.body.value
    assert 1 <= html.count("class='casebook-cause'") <= 3
    assert html.index("casebook-causes") < html.index("<details class='casebook-fold'>")
    facts = [next(f for f, box in app.questions.items() if box in row.children) for row in app.question_rows]
    second = facts[1]
    box = app.questions[second]
    assert not box.description, "the question above the input is its label, not the fact's id"
    box.value = "no"
    after = [next(f for f, b in app.questions.items() if b in row.children) for row in app.question_rows]
    assert after[1] == second and box.value == "no", "an answered question stays where it was"
    box.value = "yes"
    again = [next(f for f, b in app.questions.items() if b in row.children) for row in app.question_rows]
    assert app.triage.answers[second] is True and again[1] == second


def test_a_new_case_clears_the_path_the_report_name_and_the_answers_and_never_overwrites_a_report(tmp_path):
    app = TriageApp(triage(POSITIVE), folder=tmp_path)
    app.opener.path_box.value = str(POSITIVE)
    assert app.export.name.value == "positive-info-report"
    app.goto("root_cause")
    app.questions["TASK_QUEUE_ENABLE"].value = "1"
    app.export.notes.value = "first case"
    first = app.export.export()
    assert [p.name for p in first] == ["positive-info-report.html", "positive-info-report.md"]
    app.opener.paste.text.value = HOSTILE
    app.opener.paste.read_button.click()
    assert app.triage.answers == {} and app.opener.path_box.value == ""
    assert app.export.name.value != "positive-info-report" and app.export.notes.value == ""
    app.goto("root_cause")
    shown = [box.value for row in app.question_rows for box in row.children[1:]]
    assert "1" not in shown, "no answer of the last case is shown"
    app.export.name.value = "positive-info-report"   # typed over: the first case's report stays as it was
    before = first[1].read_text(encoding="utf-8")
    second = app.export.export()
    assert first[1].read_text(encoding="utf-8") == before and second[0].name == "positive-info-report-2.html"
    assert "another case" in app.export.status.value
    again = TriageApp(triage(POSITIVE), folder=tmp_path)   # a later session: the name on disk is taken
    assert again.export.name.value == "positive-info-report-3"
