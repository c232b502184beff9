"""Figures drawn behind the page: a step shows its text at once and its figures follow, drawn on one worker thread.

Drawing a figure costs 50–100 ms of matplotlib, several times what reading a ticket-sized bundle costs; the
engineer reads the conclusion while the figures are drawn. One lock keeps every drawing on one thread at a
time (matplotlib's figures are not thread-safe), and a new round (a new case, an answer, another language)
stops the one before it between two figures.
"""
from __future__ import annotations

import atexit
import gc
import threading
import time
import weakref
from collections.abc import Callable, Sequence

from .step_view import figure_png


class FigureDrawer:
    """Draws figures into a cache, now (`draw`) or on a worker thread (`start`); `wait` joins the worker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._round = 0
        self._worker: threading.Thread | None = None
        _DRAWERS.add(self)

    def draw(self, makes: Sequence, cache: dict) -> None:
        """Draw now every figure of `makes` that `cache` lacks."""
        for make in makes:
            with self._lock:
                figure_png(make, cache)

    def start(self, batches: Sequence[tuple[Sequence, Callable[[], None]]], cache: dict,
              failed: Callable[[str, Exception], None] | None = None) -> None:
        """Draw each batch's figures in order on the worker thread, calling the batch's callback after it; the
        round started before this one stops at its next figure. A figure that fails to draw is left out of the
        page (None in the cache) and `failed(caption, error)` is told."""
        self._round += 1
        todo = [(makes, done) for makes, done in batches if any(_missing(m, cache) for m in makes)]
        if not todo:
            return
        self._worker = threading.Thread(target=self._run, args=(self._round, todo, cache, failed), daemon=True,
                                        name="casebook-figures")
        self._worker.start()

    def _run(self, round_: int, todo: list, cache: dict, failed) -> None:
        time.sleep(0)   # hands the GIL back at once: the thread that started this one is showing a page
        for makes, done in todo:
            for make in makes:
                with self._lock:
                    if round_ != self._round:
                        return
                    try:
                        figure_png(make, cache)
                    except Exception as e:   # a thread's error reaches no one: the page says it instead
                        cache[getattr(make, "key", make)] = None
                        if failed is not None:
                            failed(str(getattr(make, "caption", "")), e)
            if round_ == self._round:
                done()
        # matplotlib leaves each figure it drew in reference cycles: collected here, behind the page, the collector's
        # full pass (100 ms and more beside a big bundle's reading) does not fall on the engineer's next click
        gc.collect()

    def stop(self) -> None:
        """Stop the worker after the figure it is drawing."""
        self._round += 1
        self.wait()

    def wait(self, timeout: float | None = None) -> None:
        """Return when the worker has drawn everything it was asked to (or stopped)."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)


_DRAWERS: weakref.WeakSet[FigureDrawer] = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    # a daemon thread still inside matplotlib's C++ when the interpreter ends aborts the process
    for drawer in list(_DRAWERS):
        drawer.stop()


def _missing(make, cache: dict) -> bool:
    key = getattr(make, "key", None)
    return key is None or key not in cache
