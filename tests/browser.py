"""The triage app in a real browser: JupyterLab or Voila started on 127.0.0.1, Debian's Chromium driven by
Playwright, no request let off the machine; and the readings the browser tests and `make screenshots` take.

The servers read the project's own config (`config/`, as `make lab` and `make app` do) and serve a copy of
notebooks/ from a temporary folder, with private Jupyter folders, so nothing is written into the repository.
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from casebook.presenting.walk import STEP_KEYS

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
SAMPLE = "task-queue-shared-cache-race/positive-info"
HOSTILE = ("[ERROR] RUNTIME(100,python):2026-01-01-10:00:00.000.000 [x.cc:1]100 "
           "F:<script>alert(1)</script> <b>bold</b> device_id=0\n")
CHROME_FLAGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]
LAB_FLAGS = ["--LabApp.news_url=None", "--LabApp.extension_manager=readonly",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
#: The screen the engineer is assumed to have: the first question must show on it without scrolling.
VIEWPORT = {"width": 1400, "height": 1000}
#: The narrowest panel the app's tables must fit.
PANEL = 1000
START_TIMEOUT = 90
WIDGET_TIMEOUT = 90_000   # ms: a cold kernel reads the sample and draws the walk
LOCAL_HOSTS = ("127.0.0.1", "localhost")
STEPS = len(STEP_KEYS)
#: A file:line as the walk writes it (a path with a file name, a colon, a line number).
WHERE = re.compile(r"[\w./!-]+\.[A-Za-z]\w*:\d+")


def serve_copy(root: Path) -> Path:
    """A served folder: notebooks/ copied, the sample at ../kb/samples, a hostile bundle; returns root."""
    shutil.copytree(ROOT / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.copytree(ROOT / "kb" / "samples" / SAMPLE, root / "kb" / "samples" / SAMPLE)
    hostile = root / "hostile" / "plog"
    hostile.mkdir(parents=True)
    (hostile / "plog-100_20260101100000000.log").write_text(HOSTILE, encoding="utf-8")
    return root


def _env(root: Path) -> dict:
    env = dict(os.environ)
    env.update(JUPYTER_CONFIG_DIR=str(root / "config"), JUPYTER_RUNTIME_DIR=str(root / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(root / "workspaces"), IPYTHONDIR=str(root / "ipython"),
               JUPYTER_CONFIG_PATH=str(ROOT / "config"), JUPYTER_PATH=str(ROOT / "config"),
               JUPYTER_PLATFORM_DIRS="1", MPLBACKEND="Agg")
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    """A Jupyter process serving `root`, its output in root/NAME.log, stopped by its own pid."""

    def __init__(self, cmd: list[str], cwd: Path, root: Path, name: str, ready) -> None:
        self.log = root / f"{name}.log"
        self.fh = open(self.log, "wb")
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=_env(root), stdout=self.fh, stderr=subprocess.STDOUT)
        self.url = ""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stop()
                raise AssertionError(f"{name} exited with {self.proc.returncode}:\n{self.tail()}")
            if ready():
                return
            time.sleep(0.3)
        self.stop()
        raise AssertionError(f"{name} did not start in {START_TIMEOUT} s:\n{self.tail()}")

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def kernels(self) -> list[int]:
        """The pids of the kernels this server runs (its ipykernel children, read from /proc)."""
        out = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                cmd = (entry / "cmdline").read_bytes()
            except (OSError, IndexError, ValueError):
                continue
            if parent == self.proc.pid and b"ipykernel" in cmd:
                out.append(int(entry.name))
        return out

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.fh.close()


def start_lab(root: Path) -> Server:
    """JupyterLab on the served notebooks; `.url` opens the triage notebook."""
    port, token = _free_port(), secrets.token_hex(16)
    root_flag = ["--allow-root"] if os.geteuid() == 0 else []
    server = Server([sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
                     f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
                     f"--ServerApp.root_dir={root / 'notebooks'}", *LAB_FLAGS, *root_flag],
                    root / "notebooks", root, "jupyterlab",
                    lambda: _http_ok(f"http://127.0.0.1:{port}/api/status?token={token}"))
    server.url = f"http://127.0.0.1:{port}/lab/tree/01_triage.ipynb?token={token}"
    return server


def start_voila(root: Path, notebook: str = "01_triage.ipynb") -> Server:
    """Voila serving a notebook (the triage one by default) as an app (it has no status API: the open port says
    it is up)."""
    port, token = _free_port(), secrets.token_hex(16)
    server = Server([sys.executable, "-m", "voila", notebook, "--no-browser", f"--port={port}",
                     "--Voila.ip=127.0.0.1", f"--token={token}"], root / "notebooks", root, "voila",
                    lambda: _port_open(port))
    server.url = f"http://127.0.0.1:{port}/?token={token}"
    return server


def new_page(browser):
    """A page at the engineer's screen size that lets no request leave the machine (each one tried is kept in
    `page.outside`) and records any JavaScript dialog (an executed alert) in `page.dialogs`."""
    page = browser.new_page(viewport=VIEWPORT)
    page.outside, page.dialogs = [], []

    def guard(route) -> None:
        url = route.request.url
        if urlsplit(url).hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            page.outside.append(url)
            route.abort()
    page.route("**/*", guard)
    page.on("websocket", lambda ws: None if urlsplit(ws.url).hostname in LOCAL_HOSTS else page.outside.append(ws.url))
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    return page


# -- driving the app ------------------------------------------------------------------------------------------
def app_root(page):
    """The app's root element."""
    return page.locator(".casebook-app").first


def wait_for_app(page) -> None:
    page.locator(".casebook-diagnosis").wait_for(timeout=WIDGET_TIMEOUT)


def open_bundle(page, path: Path | str, diagnosis: str) -> None:
    """Type a path in the Bundle box, press Open, and wait for the header to name the new diagnosis and the walk to
    stand at its first step (the two arrive as separate widget updates: a step read between them is the last case's)."""
    app = app_root(page)
    app.locator("input[placeholder^='plog folder'], input[placeholder^='plog 目录']").fill(str(path))
    app.locator(".widget-button", has_text=re.compile(r"^\s*(Open|打开)\s*$")).first.click()
    page.locator(".casebook-diagnosis", has_text=diagnosis).wait_for(timeout=WIDGET_TIMEOUT)
    label = app.locator(".widget-label", has_text=re.compile(r"^\d/\d"))
    page.wait_for_function("el => el.innerText.startsWith('1/')", arg=label.element_handle(), timeout=WIDGET_TIMEOUT)


def in_view_counts(page) -> dict:
    """What the step on screen shows before anything folded is opened: question inputs, leading causes, and
    whether more questions and folded parts wait behind a click."""
    return page.evaluate("""() => {
        const app = document.querySelector('.casebook-app');
        const shown = (sel) => [...app.querySelectorAll(sel)].filter(e => e.offsetParent !== null
            && !e.closest('details:not([open])')).length;
        return {
            questions: shown('.casebook-questions .widget-dropdown, .casebook-questions .widget-toggle-buttons, ' +
                             '.casebook-questions .widget-text'),
            causes: shown('.casebook-cause'),
            more: app.querySelectorAll('.casebook-more-questions').length,
            folds: app.querySelectorAll('details.casebook-fold:not([open])').length,
        };
    }""")


def drawn_over(page, selectors: list[str]) -> list[str]:
    """Elements of the page drawn over one another: for each element a selector names, points of its visible
    part where the topmost element is not inside it (another element covers it), and pairs of those elements
    whose boxes intersect. Empty when nothing overlaps."""
    return page.evaluate("""(selectors) => {
        const out = [];
        const boxes = [];
        for (const sel of selectors) {
            for (const el of document.querySelectorAll(sel)) {
                if (el.offsetParent === null) continue;
                const r = el.getBoundingClientRect();
                if (r.width < 2 || r.height < 2) continue;
                // what it draws: its box, and its text where the text runs out of the box
                const range = document.createRange();
                range.selectNodeContents(el);
                const t = range.getBoundingClientRect();
                boxes.push([sel, el, {left: Math.min(r.left, t.left || r.left), right: Math.max(r.right, t.right),
                                      top: Math.min(r.top, t.top || r.top), bottom: Math.max(r.bottom, t.bottom)}]);
                const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
                for (let fx = 0.1; fx < 1; fx += 0.2) for (let y = top + 2; y < bottom - 2; y += 12) {
                    const x = r.left + fx * r.width;
                    const hit = document.elementFromPoint(x, y);
                    if (hit && !el.contains(hit) && !hit.contains(el))
                        out.push(`${sel} at (${Math.round(x)}, ${Math.round(y)}) under ` +
                                 `${hit.className || hit.tagName}: ${(hit.textContent || '').slice(0, 40)}`);
                }
            }
        }
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
            const [sa, a, ra] = boxes[i], [sb, b, rb] = boxes[j];
            if (a.contains(b) || b.contains(a)) continue;
            if (ra.left < rb.right - 1 && rb.left < ra.right - 1 && ra.top < rb.bottom - 1 && rb.top < ra.bottom - 1)
                out.push(`${sa} and ${sb} overlap: ${(a.textContent || '').slice(0, 30)} / ${(b.textContent || '').slice(0, 30)}`);
        }
        return out.slice(0, 10);
    }""", selectors)


def goto_step(page, n: int) -> None:
    """Click Back or Next until step n (1-based) is on screen."""
    app = app_root(page)
    label = app.locator(".widget-label", has_text=re.compile(r"^\d/\d"))
    while True:
        now = int(label.inner_text().split("/")[0])
        if now == n:
            break
        name = ("Next", "下一步") if now < n else ("Back", "上一步")
        app.locator(".widget-button", has_text=re.compile(f"^\\s*({'|'.join(name)})\\s*$")).click()
        page.wait_for_function("([el, want]) => el.innerText.startsWith(want)",
                               arg=[label.element_handle(), f"{now + (1 if now < n else -1)}/"])


def set_language(page, lang: str) -> None:
    """Press en or 中文 and wait until the step label speaks it."""
    app_root(page).get_by_role("button", name="中文" if lang == "zh" else "en", exact=True).click()
    page.wait_for_function("([el, zh]) => /[\\u4e00-\\u9fff]/.test(el.innerText) === zh",
                           arg=[app_root(page).locator(".widget-label", has_text=re.compile(r"^\d/\d"))
                                .element_handle(), lang == "zh"])


def reading(page) -> dict:
    """What the step on screen shows: its conclusion, findings, evidence file:lines and every table cell
    of the app (hidden ones too), and the first question's place on the screen."""
    return page.evaluate("""() => {
        const app = document.querySelector('.casebook-app');
        const text = (sel) => [...app.querySelectorAll(sel)].map(e => e.textContent.trim());
        const ask = app.querySelector('.casebook-questions .widget-dropdown, .casebook-questions ' +
                                      '.widget-toggle-buttons, .casebook-questions .widget-text');
        const box = ask ? ask.getBoundingClientRect() : null;
        return {
            conclusion: text('.casebook-conclusion').join(' '),
            findings: text('.casebook-findings li'),
            cited: [...app.querySelectorAll('[data-where]')].map(e => e.dataset.where),
            cells: text('td'),
            // the evidence as shown: burst headings and excerpts, not the whole lines a click opens
            prose: text('.casebook-conclusion, .casebook-findings, .casebook-where, .casebook-cite summary, ' +
                        'div.casebook-cite').join('\\n'),
            question: box ? {top: box.top, bottom: box.bottom, height: innerHeight} : null,
        };
    }""")


def scroll_app_to_top(page) -> None:
    """Scroll so the app's first line is at the top of the window (or of the notebook's panel)."""
    app_root(page).evaluate("el => el.scrollIntoView({block: 'start'})")


def overflowing_tables(page, width: int = PANEL) -> list[str]:
    """Tables of the app (the files table opened) wider than the app at `width` pixels."""
    return page.evaluate("""(width) => {
        const app = document.querySelector('.casebook-app');
        const old = app.style.width;
        app.style.width = width + 'px';
        const right = app.getBoundingClientRect().right;
        const wide = [...app.querySelectorAll('table')]
            .filter(t => t.offsetParent !== null && t.getBoundingClientRect().right > right + 1)
            .map(t => t.textContent.slice(0, 80));
        app.style.width = old;
        return wide;
    }""", width)


def repeated_wheres(r: dict) -> list[str]:
    """file:line that the evidence of one step cites twice, or that its conclusion, findings and evidence
    show twice (a table's row may point at a cited line: tables list, the evidence cites)."""
    twice = {w for w in r["cited"] if r["cited"].count(w) > 1}
    shown = WHERE.findall(r["prose"])
    return sorted(twice | {w for w in shown if shown.count(w) > 1})
