"""The triage notebook and the Voila app in a real browser, on a KB sample and then on a real corpus collection.

Each test serves a copy of notebooks/ from a temporary folder (logs and failure screenshots stay there) and
walks the case as an engineer would, checking on every step: each file:line once, no table cell reading None
or NaN, tables that fit a 1,000-pixel panel, no English sentence among the findings in 中文, the Root-cause
step's first question on screen without scrolling at 1400×1000, nothing of the first bundle left after opening
the second, and no request leaving the machine. A missing Chromium fails these tests: `make test` installs
it, and a browser test that skips proves nothing.
"""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from browser import (CHROME_FLAGS, CHROMIUM, HOSTILE, PANEL, STEPS, VIEWPORT, app_root, drawn_over, goto_step,
                     in_view_counts, new_page, open_bundle,
                     overflowing_tables, reading, repeated_wheres, scroll_app_to_top, serve_copy, set_language,
                     start_lab, start_voila, wait_for_app)
from casebook.knowledge.kb import load_kb
from conftest import CORPUS, english_sentences, quoted_log

CASE = "task-queue-shared-cache-race"
#: A corpus collection whose cause is still open among its family's.
OPEN = "modelarts-8rank-job"
#: How long a kernel may outlive its closed page: Voila's culler (config/voila.json) checks every 10 s for
#: kernels idle 30 s with no page connected.
KERNEL_GONE_S = 60
REAL, REAL_DIAGNOSIS = "aicore-gatherv2-asys", "aicore-illegal-instruction"
#: How the first bundle's diagnosis reads wherever it is stated (header, conclusion, report).
FIRST_DIAGNOSIS = re.compile(rf"{CASE}\W+(confirmed|likely|确认|可能)")
ROOT_CAUSE = 5
#: ms a notebook served by Voila takes to show its widgets (a cold kernel reads a sample first)
WIDGET_WAIT = 90_000
#: A notebook's panel beside JupyterLab's side bar on a small screen.
NARROW = {"width": 700, "height": 1000}


@pytest.fixture(scope="module")
def chromium() -> Path:
    """Debian's Chromium; its absence is a failure (run `make test`, which installs it)."""
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install -y chromium, as root)")
    return CHROMIUM


@pytest.fixture
def served(tmp_path: Path) -> Path:
    return serve_copy(tmp_path)


@pytest.fixture
def page(chromium, served, request):
    """A fresh headless page on the engineer's screen size; a failing test leaves a screenshot beside the
    server's log in its temporary folder."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=CHROME_FLAGS)
        page = new_page(browser)
        failed_before = request.session.testsfailed
        yield page
        if request.session.testsfailed > failed_before:
            shot = served / f"{request.node.name}-failure.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"screenshot of the failure: {shot}")
        browser.close()


def _every_step_reads_cleanly(page) -> None:
    """Each step: a conclusion, each file:line once, no None or NaN cell; tables fit a 1,000-pixel panel."""
    for n in range(1, STEPS + 1):
        goto_step(page, n)
        r = reading(page)
        assert r["conclusion"], f"step {n} has no conclusion"
        assert repeated_wheres(r) == [], f"step {n} cites a line twice"
        assert not {"None", "NaN", "nan", "NaT", "<NA>"} & set(r["cells"]), f"step {n}: a cell reads None or NaN"
        assert not [c for c in r["cells"] if re.fullmatch(r"\d+\.0", c)], f"step {n}: a whole number as a float"
    app_root(page).locator(".jupyter-widget-Collapse-header, .widget-accordion .p-Collapse-header, "
                           ".lm-Collapse-header, .jp-Collapse-header").first.click()
    assert overflowing_tables(page) == []


def _first_question_is_in_view(page) -> None:
    goto_step(page, ROOT_CAUSE)
    app_root(page).locator(".casebook-questions .widget-dropdown, .casebook-questions .widget-toggle-buttons, "
                           ".casebook-questions .widget-text").first.wait_for()
    scroll_app_to_top(page)
    q = reading(page)["question"]
    assert q is not None, "the Root-cause step shows its questions"
    assert 0 <= q["top"] and q["bottom"] <= VIEWPORT["height"], f"first question at {q}, below the screen"


def _chinese_findings_are_chinese(page, logged: str) -> None:
    """In 中文 the conclusion and findings of every step hold no English sentence but quoted log text."""
    kb = load_kb()
    set_language(page, "zh")
    for n in range(1, STEPS + 1):
        goto_step(page, n)
        r = reading(page)
        english = [e for text in [r["conclusion"], *r["findings"]] for e in english_sentences(text)
                   if not quoted_log(e, logged, kb)]
        assert english == [], f"step {n} in 中文"
    assert app_root(page).locator(".widget-button", has_text="导出报告").is_visible()
    set_language(page, "en")


def _walk_the_sample(page, cases: Path, logged: str) -> None:
    """The engineer's path through the sample: likely, the question answered, confirmed, exported."""
    wait_for_app(page)
    header = page.locator(".casebook-diagnosis")
    assert CASE in header.inner_text() and "likely" in header.inner_text()
    _first_question_is_in_view(page)
    # the question above an input is its label: the input is found by the fact it answers
    app_root(page).locator(".casebook-fact-TASK_QUEUE_ENABLE select").select_option("1")
    page.locator(".casebook-diagnosis", has_text="confirmed").wait_for(timeout=30_000)
    # the step's conclusion is re-rendered after the header: wait for it rather than read it at once
    app_root(page).locator(".casebook-conclusion", has_text="confirmed").first.wait_for(timeout=30_000)
    _every_step_reads_cleanly(page)
    _chinese_findings_are_chinese(page, logged)
    app_root(page).locator(".widget-button", has_text="Export report").click()
    page.locator(".casebook-exported").wait_for(timeout=60_000)
    report = cases / "positive-info-report.html"   # named after the bundle
    assert report.is_file() and "task-queue-shared-cache-race: confirmed" in report.read_text(encoding="utf-8")
    assert (cases / "positive-info-report.md").is_file()


def _walk_a_real_collection(page, logged: str) -> None:
    """Open a real asys collection after the sample: the page speaks only of the new case."""
    open_bundle(page, CORPUS / REAL, REAL_DIAGNOSIS)
    for n in (1, ROOT_CAUSE):
        goto_step(page, n)
        text = page.locator("body").inner_text()
        assert not FIRST_DIAGNOSIS.search(text) and "plog-48213" not in text, "the first bundle's case is still shown"
    # the step's conclusion is re-rendered after the step changes: wait for it rather than read it at once
    app_root(page).locator(".casebook-conclusion", has_text=REAL_DIAGNOSIS).first.wait_for(timeout=30_000)
    _every_step_reads_cleanly(page)
    _chinese_findings_are_chinese(page, logged)


def _an_open_case_shows_three_questions_and_three_causes_before_more(page) -> None:
    """A case still open among its family's causes: the Root-cause step keeps the rest folded."""
    open_bundle(page, CORPUS / OPEN, "none confirmed or likely yet")
    goto_step(page, ROOT_CAUSE)
    app_root(page).locator(".casebook-cause").first.wait_for()
    shown = in_view_counts(page)
    assert 1 <= shown["questions"] <= 3 and shown["more"] == 1, shown
    assert 1 <= shown["causes"] <= 3 and shown["folds"] >= 1, shown


def _a_new_case_leaves_nothing_of_the_last(page, cases: Path) -> None:
    """After the sample was answered and exported, a paste opens a new case: no old path, report name or answer."""
    app = app_root(page)
    before = (cases / "positive-info-report.html").read_bytes()
    app.locator("textarea").first.fill(HOSTILE)
    app.locator(".widget-button", has_text=re.compile(r"^\s*(Read paste|读取粘贴内容)\s*$")).click()
    page.locator(".casebook-diagnosis", has_text="none confirmed or likely yet").wait_for(timeout=60_000)
    assert app.locator("input[placeholder^='plog folder']").input_value() == ""
    assert not app.locator(".widget-text input").evaluate_all(
        "els => els.some(e => e.value.startsWith('positive-info-report'))"), "the last case's report name"
    goto_step(page, ROOT_CAUSE)
    assert not app.locator(".casebook-questions select").evaluate_all(
        "els => els.some(e => e.value && e.value !== 'unknown')"), "an answer of the last case is shown"
    app.locator(".widget-button", has_text="Export report").click()
    page.locator(".casebook-exported").wait_for(timeout=60_000)
    assert (cases / "positive-info-report.html").read_bytes() == before, "the first case's report is kept"


def _closing_the_page_ends_its_kernel(page, server) -> None:
    """Voila ends a page's kernel once the page is gone (config/voila.json culls kernels left without a page)."""
    assert len(server.kernels()) == 1
    page.close(run_before_unload=True)
    deadline = time.monotonic() + KERNEL_GONE_S
    while server.kernels() and time.monotonic() < deadline:
        time.sleep(1)
    assert server.kernels() == [], f"a kernel outlived its page by {KERNEL_GONE_S} s"


def _hostile_line_shows_as_text(page, served: Path, upload: bool = False) -> None:
    """Open a bundle whose error line is markup (typed path, or uploaded through the widget's websocket):
    it must read as text, run nothing, bold nothing."""
    hostile = served / "hostile" / "plog"
    if upload:
        with page.expect_file_chooser() as chooser:
            page.locator("button", has_text="Upload").first.click()
        chooser.value.set_files(str(next(hostile.iterdir())))
    else:
        page.locator("input[placeholder^='plog folder']").fill(str(hostile))
        page.locator(".widget-button", has_text="Open").first.click()
    line = page.get_by_text("<script>alert(1)</script> <b>bold</b>", exact=False).first
    line.wait_for(timeout=60_000)
    assert line.is_visible()
    assert page.locator(".widget-html b", has_text="bold").count() == 0
    assert page.dialogs == []


def test_lab_opens_on_a_note_then_runs_the_triage_notebook(served, page, logged):
    lab = start_lab(served)
    try:
        page.goto(lab.url)
        # the toolbar's indicator reads idle before the kernel's websocket is up; the status bar waits for it
        page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(timeout=90_000)
        page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for(timeout=90_000)
        page.get_by_text("Run all cells (▶▶) to start the app.").wait_for()
        assert page.get_by_text("VBox(children=").count() == 0
        assert page.get_by_text("official Jupyter news").count() == 0, "make lab's config turns the news off"
        for menu, command in (("Edit", "editmenu:clear-all"), ("Run", "runmenu:run-all")):
            page.locator(".lm-MenuBar-itemLabel", has_text=menu).first.click()
            page.locator(f"[data-command='{command}']").click()
        _walk_the_sample(page, served / "cases", logged)
        _walk_a_real_collection(page, logged)
        _hostile_line_shows_as_text(page, served)
        assert page.outside == [], "requests that tried to leave the machine"
    finally:
        lab.stop()


def test_voila_serves_the_app_alone(served, page, logged):
    app = start_voila(served)
    try:
        page.goto(app.url)
        _walk_the_sample(page, served / "cases", logged)
        _a_new_case_leaves_nothing_of_the_last(page, served / "cases")
        assert page.locator(".jp-RenderedMarkdown").count() == 0, "the notebook's prose stays in JupyterLab"
        assert not page.get_by_text("TriageApp(").count(), "app mode shows no code"
        _walk_a_real_collection(page, logged)
        _an_open_case_shows_three_questions_and_three_causes_before_more(page)
        _hostile_line_shows_as_text(page, served, upload=True)
        assert page.outside == [], "requests that tried to leave the machine"
        _closing_the_page_ends_its_kernel(page, app)
    finally:
        app.stop()


def test_the_training_notebooks_draw_nothing_over_anything(served, page):
    """The quiz's choices each on lines of their own; the case walk's evidence and its reasons side by side (or one
    under the other), never one drawn over the other, on every step."""
    quiz = start_voila(served, "03_quiz.ipynb")
    try:
        page.goto(quiz.url)
        choices = page.locator(".casebook-choices").first
        choices.wait_for(timeout=WIDGET_WAIT)
        page.set_viewport_size(NARROW)   # a notebook beside JupyterLab's file browser: long choices wrap
        choices.scroll_into_view_if_needed()
        assert drawn_over(page, [".casebook-choices label"]) == []
        assert page.locator(".casebook-choices label").count() >= 2
    finally:
        quiz.stop()
    walk = start_voila(served, "02_case_walk.ipynb")
    try:
        page.set_viewport_size({"width": PANEL, "height": VIEWPORT["height"]})
        page.goto(walk.url)
        page.locator(".casebook-walk").first.wait_for(timeout=WIDGET_WAIT)
        for n in range(1, STEPS + 1):
            if n > 1:
                label = app_root(page).locator(".widget-label", has_text=re.compile(r"^\d/\d")).first
                app_root(page).locator(".widget-button", has_text="Next").click()
                page.wait_for_function("([el, want]) => el.innerText.startsWith(want)",
                                       arg=[label.element_handle(), f"{n}/"])
            page.wait_for_timeout(500)
            for column in (".casebook-walk > .widget-html:first-child", ".casebook-walk > .widget-html:last-child"):
                page.locator(column).first.scroll_into_view_if_needed()
                assert drawn_over(page, [column]) == [], f"step {n}"
    finally:
        walk.stop()

