"""`make screenshots`: each step of the walk over the bundled sample, in English and 中文, as the Voila app
shows it on a 1400×1000 screen, saved as docs/screenshots/<n>-<step>-<lang>.png for docs/screenshots.md.

Not a test: it writes into the repository, so `make test` never runs it (pytest collects only test_*.py).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from browser import (CHROME_FLAGS, CHROMIUM, ROOT, VIEWPORT, app_root, goto_step, new_page, scroll_app_to_top,
                     serve_copy, set_language, start_voila, wait_for_app)
from casebook.presenting.walk import STEP_KEYS


def main(out: Path) -> list[Path]:
    """Serve the app from a temporary copy, walk the sample in both languages, and save one image per step."""
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
                        goto_step(page, n)
                        scroll_app_to_top(page)
                        box = app_root(page).bounding_box()   # the screen the engineer sees, from the app's top
                        top = max(box["y"], 0)
                        shot = out / f"{n}-{key}-{lang}.png"
                        page.screenshot(path=str(shot), clip={"x": box["x"], "y": top, "width": box["width"],
                                                              "height": min(box["height"], VIEWPORT["height"] - top)})
                        saved.append(shot)
                assert page.outside == [], f"requests that tried to leave the machine: {page.outside}"
                browser.close()
        finally:
            server.stop()
    return saved


if __name__ == "__main__":
    for path in main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
