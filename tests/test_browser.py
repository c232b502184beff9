"""The triage notebook in a real browser: JupyterLab and Voila, driven by Playwright over Debian's Chromium.

Each test serves a copy of notebooks/ (so nothing autosaves over the repository) beside a copy of the
sample bundle and a hostile one, from a server on 127.0.0.1 with a token and private config dirs. A missing
Chromium fails these tests: `make test` installs it, and a browser test that skips proves nothing.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLES

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
SAMPLE = "task-queue-shared-cache-race/positive-info"
HOSTILE = ("[ERROR] RUNTIME(100,python):2026-01-01-10:00:00.000.000 [x.cc:1]100 "
           "F:<script>alert(1)</script> <b>bold</b> device_id=0\n")
CHROME_FLAGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]
LAB_FLAGS = ["--LabApp.news_url=None", "--LabApp.extension_manager=readonly",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
START_TIMEOUT = 90
WIDGET_TIMEOUT = 90_000   # ms: a cold kernel reads the sample and draws the walk


@pytest.fixture(scope="module")
def chromium() -> Path:
    """Debian's Chromium; its absence is a failure (run `make test`, which installs it)."""
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install -y chromium, as root)")
    return CHROMIUM


@pytest.fixture
def served(tmp_path: Path) -> Path:
    """A served folder: notebooks/ copied, the sample at ../kb/samples, a hostile bundle, private config dirs."""
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.copytree(SAMPLES / SAMPLE, tmp_path / "kb" / "samples" / SAMPLE)
    hostile = tmp_path / "hostile" / "plog"
    hostile.mkdir(parents=True)
    (hostile / "plog-100_20260101100000000.log").write_text(HOSTILE, encoding="utf-8")
    news = tmp_path / "config" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True)
    (news / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}), encoding="utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    return tmp_path


def _env(root: Path) -> dict:
    env = dict(os.environ)
    env.update(JUPYTER_CONFIG_DIR=str(root / "config"), JUPYTER_RUNTIME_DIR=str(root / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(root / "workspaces"), IPYTHONDIR=str(root / "ipython"),
               JUPYTER_CONFIG_PATH=str(ROOT / "config"), JUPYTER_PLATFORM_DIRS="1", MPLBACKEND="Agg")
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(ready, proc: subprocess.Popen, log: Path, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{what} exited with {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
        if ready():
            return
        time.sleep(0.3)
    raise AssertionError(f"{what} did not start in {START_TIMEOUT} s:\n{log.read_text(errors='replace')[-3000:]}")


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class Server:
    """A Jupyter process of this test, stopped by its own pid."""

    def __init__(self, cmd: list[str], cwd: Path, root: Path, name: str) -> None:
        self.log = ARTIFACTS / f"{name}.log"
        self.fh = open(self.log, "wb")
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=_env(root), stdout=self.fh, stderr=subprocess.STDOUT)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.fh.close()


@pytest.fixture
def browser_page(chromium, request):
    """A fresh headless Chromium page; any JavaScript dialog (an executed alert) is recorded, and a failing
    test leaves a screenshot of the page in test-artifacts/."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=CHROME_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1400})
        page.dialogs = []
        page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
        failed_before = request.session.testsfailed
        yield page
        if request.session.testsfailed > failed_before:
            page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-failure.png"), full_page=True)
        browser.close()


def _walk_to_diagnosis_answer_and_export(page, served: Path, shot: str) -> None:
    """The engineer's path through the app; shared by the Lab and the Voila test."""
    header = page.locator(".casebook-diagnosis")
    header.wait_for(timeout=WIDGET_TIMEOUT)
    assert "task-queue-shared-cache-race" in header.inner_text() and "likely" in header.inner_text()
    nxt = page.locator(".widget-button", has_text="Next")
    for _ in range(4):                                   # symptom -> error code -> pc start -> topology -> root cause
        nxt.click()
    page.get_by_text("5/6").wait_for()
    assert page.get_by_text("(task-queue-shared-cache-race, likely).").is_visible()   # the step's conclusion
    queue = page.locator(".widget-dropdown", has_text="TASK_QUEUE_ENABLE").locator("select")
    queue.select_option("1")
    page.get_by_text("(task-queue-shared-cache-race, confirmed).").wait_for(timeout=30_000)
    assert "confirmed" in header.inner_text()
    page.get_by_role("button", name="中文").click()
    label = page.locator(".widget-label", has_text="5/6")
    page.locator(".widget-label", has_text="5/6 · 根因").wait_for()
    assert page.locator(".widget-button", has_text="下一步").is_visible()
    page.get_by_role("button", name="en", exact=True).click()
    page.locator(".widget-label", has_text="5/6 · Root cause").wait_for()
    assert label.count() == 1
    box = page.locator(".widget-vbox", has=page.locator(".casebook-diagnosis")).first.bounding_box()
    page.screenshot(path=str(ARTIFACTS / shot), full_page=True,   # the app's top: header, walk, first findings
                    clip={"x": box["x"], "y": box["y"], "width": box["width"], "height": min(box["height"], 900)})
    page.locator(".widget-button", has_text="Export report").click()
    page.locator(".casebook-exported").wait_for(timeout=60_000)
    report = served / "notebooks" / "case-report.html"
    assert report.is_file() and "task-queue-shared-cache-race: confirmed" in report.read_text(encoding="utf-8")
    assert (served / "notebooks" / "case-report.md").is_file()


def _hostile_line_shows_as_text(page, served: Path, shot: str, upload: bool = False) -> None:
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
    page.screenshot(path=str(ARTIFACTS / shot), full_page=True)


def test_lab_runs_the_triage_notebook_from_the_menu(served, browser_page):
    port, token = _free_port(), secrets.token_hex(16)
    root_flag = ["--allow-root"] if os.geteuid() == 0 else []
    lab = Server([sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
                  f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
                  f"--ServerApp.root_dir={served / 'notebooks'}", *LAB_FLAGS, *root_flag],
                 served / "notebooks", served, "jupyterlab")
    try:
        _wait(lambda: _http_ok(f"http://127.0.0.1:{port}/api/status?token={token}"), lab.proc, lab.log, "JupyterLab")
        page = browser_page
        page.goto(f"http://127.0.0.1:{port}/lab/tree/01_triage.ipynb?token={token}")
        # the toolbar's indicator reads idle before the kernel's websocket is up; the status bar waits for it
        page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(timeout=WIDGET_TIMEOUT)
        page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for(timeout=WIDGET_TIMEOUT)
        for menu, command in (("Edit", "editmenu:clear-all"), ("Run", "runmenu:run-all")):
            page.locator(".lm-MenuBar-itemLabel", has_text=menu).first.click()
            page.locator(f"[data-command='{command}']").click()
        _walk_to_diagnosis_answer_and_export(page, served, "lab-walk.png")
        _hostile_line_shows_as_text(page, served, "lab-hostile.png")
    finally:
        lab.stop()


def test_voila_app_mode_serves_the_same_widgets(served, browser_page):
    port, token = _free_port(), secrets.token_hex(16)
    app = Server([sys.executable, "-m", "voila", "01_triage.ipynb", "--no-browser", f"--port={port}",
                  "--Voila.ip=127.0.0.1", f"--token={token}"], served / "notebooks", served, "voila")
    try:
        _wait(lambda: _port_open(port), app.proc, app.log, "Voila")
        page = browser_page
        page.goto(f"http://127.0.0.1:{port}/?token={token}")
        _walk_to_diagnosis_answer_and_export(page, served, "voila-walk.png")
        assert not page.get_by_text("TriageApp(folder=").is_visible(), "app mode shows no code"
        _hostile_line_shows_as_text(page, served, "voila-hostile.png", upload=True)
    finally:
        app.stop()
