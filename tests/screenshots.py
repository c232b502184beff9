"""`make screenshots`: each step of the walk over the bundled sample, in English and 中文, as the Voila app
shows it on a 1400×1000 screen, saved as docs/screenshots/<n>-<step>-<lang>.png for docs/screenshots.md; then
the root-cause step of a corpus collection whose cause is still open, as open-<n>-<step>-<lang>.png.

Not a test: it writes into the repository, so `make test` never runs it (pytest collects only test_*.py).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from browser import (CHROME_FLAGS, CHROMIUM, ROOT, VIEWPORT, app_root, goto_step, new_page, open_bundle,
                     scroll_app_to_top, serve_copy, set_language, start_voila, wait_for_app)
from casebook.presenting.walk import STEP_KEYS


#: A corpus collection whose cause is still open among its family's causes.
OPEN = "modelarts-8rank-job"
CORPUS = ROOT / "tests" / "corpus"
#: Time the page is given after a step's label changed, for the rest of the step's widgets to arrive.
SETTLE_MS = 1500


def _shot(page, n: int, shot: Path) -> Path:
    """Step n as the engineer's screen shows it, from the app's top."""
    goto_step(page, n)
    if STEP_KEYS[n - 1] == "root_cause":   # the label moves first; the step's body follows in its own message
        app_root(page).locator(".casebook-causes").first.wait_for()
    page.wait_for_timeout(SETTLE_MS)
    scroll_app_to_top(page)
    box = app_root(page).bounding_box()
    top = max(box["y"], 0)
    page.screenshot(path=str(shot), clip={"x": box["x"], "y": top, "width": box["width"],
                                          "height": min(box["height"], VIEWPORT["height"] - top)})
    return shot


def main(out: Path) -> list[Path]:
    """Serve the app from a temporary copy, walk the sample in both languages, save one image per step, then
    the root-cause step of a case still open."""
    from playwright.sync_api import sync_playwright
    out.mkdir(parents=True, exist_ok=True)
    saved = []
    with tempfile.TemporaryDirectory(prefix="casebook-screenshots-") as tmp:
        server = start_voila(serve_copy(Path(tmp)))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_FLAGS)
                page = new_page(browser)
                page.goto(server.url)
                wait_for_app(page)
                for lang in ("en", "zh"):
                    set_language(page, lang)
                    for n, key in enumerate(STEP_KEYS, start=1):
                        saved.append(_shot(page, n, out / f"{n}-{key}-{lang}.png"))
                set_language(page, "en")
                open_bundle(page, CORPUS / OPEN, "none confirmed or likely yet")
                n = STEP_KEYS.index("root_cause") + 1
                for lang in ("en", "zh"):
                    set_language(page, lang)
                    saved.append(_shot(page, n, out / f"open-{n}-root_cause-{lang}.png"))
                assert page.outside == [], f"requests that tried to leave the machine: {page.outside}"
                browser.close()
        finally:
            server.stop()
    return saved


if __name__ == "__main__":
    for path in main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
