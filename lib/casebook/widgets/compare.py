"""CompareApp: a good run beside a bad one in the notebook: two bundle boxes (the triage app's opener), or one
bundle and two ranks, a language, and the comparison as the command line prints it. BesidePanel: in the triage
app, the case opened before offered as the good run beside the one open now."""
from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Callable

import ipywidgets as w

from ..judging.comparison import Comparison, compare, compare_ranks, default_ranks, ranks_in
from ..judging.triage import Triage
from ..knowledge.kb import KnowledgeBase
from ..knowledge.messages import EN, LANGS, say
from ..presenting.comparison import lines
from .opener import BundleOpener

BUNDLES, RANKS = "bundles", "ranks"


class CompareApp:
    """Open the good and the bad run (or one bundle and pick two ranks), then Compare."""

    def __init__(self, *, kb: KnowledgeBase | None = None, lang: str = EN) -> None:
        self.runs: dict[str, Triage | None] = {"good": None, "bad": None}
        self.comparison: Comparison | None = None
        self.good = BundleOpener(lambda t: self._opened("good", t), kb=kb)
        self.bad = BundleOpener(lambda t: self._opened("bad", t), kb=kb)
        self.mode = w.ToggleButtons(options=[(BUNDLES, BUNDLES), (RANKS, RANKS)], value=BUNDLES)
        self.language = w.Dropdown(options=[("English", "en"), ("中文", "zh")], value=lang)
        self.bad_rank = w.Dropdown(options=[])
        self.good_rank = w.Dropdown(options=[])
        self.compare_button = w.Button(icon="columns", button_style="primary")
        self.good_label, self.bad_label = w.HTML(), w.HTML()
        self.status = w.HTML()
        self.result = w.HTML()
        self.ranks_box = w.HBox([self.bad_rank, self.good_rank])
        self.good_box = w.VBox([self.good_label, self.good.widget])
        self.widget = w.VBox([w.HBox([self.mode, self.language]), self.good_box,
                              w.VBox([self.bad_label, self.bad.widget]), self.ranks_box,
                              self.compare_button, self.status, self.result])
        self._relabelling = False
        self.mode.observe(lambda _: self._relabelling or self._show_mode(), names="value")
        self.language.observe(lambda _: self._relabel(), names="value")
        self.compare_button.on_click(lambda _: self.compare())
        self._relabel()
        self._show_mode()

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    @property
    def lang(self) -> str:
        return self.language.value if self.language.value in LANGS else EN

    def open(self, good: str | Path, bad: str | Path) -> None:
        """Open both runs by path (the notebook's parameters)."""
        self.mode.value = BUNDLES
        self.good._open([good])
        self.bad._open([bad])

    def open_ranks(self, bundle: str | Path, bad_rank: int, good_rank: int) -> None:
        """Open one bundle and pick its failing and healthy rank."""
        self.mode.value = RANKS
        self.bad._open([bundle])
        self.bad_rank.value, self.good_rank.value = bad_rank, good_rank

    def _opened(self, side: str, t: Triage) -> None:
        self.runs[side] = t
        ranks = [(f"rank {r}", r) for r in ranks_in(t)] if side == "bad" else None
        if ranks is not None:
            self.bad_rank.options = ranks
            self.good_rank.options = ranks
            picked = default_ranks(t)
            if picked is not None:
                self.bad_rank.value, self.good_rank.value = picked
        self.result.value = ""
        self.comparison = None

    def compare(self) -> Comparison | None:
        """Compare what is open; the text shows below, the record is kept in `comparison`."""
        good, bad = self.runs["good"], self.runs["bad"]
        if self.mode.value == RANKS:
            if bad is None or self.bad_rank.value is None or self.good_rank.value is None:
                return self._refuse("ui.compare.need_ranks")
            try:
                self.comparison = compare_ranks(bad, self.bad_rank.value, self.good_rank.value)
            except ValueError as e:
                self.status.value = f"<span style='color:#b00'>{escape(str(e))}</span>"
                return None
        else:
            if good is None or bad is None:
                return self._refuse("ui.compare.need_both")
            self.comparison = compare(good, bad, good_label=", ".join(good.log.paths),
                                      bad_label=", ".join(bad.log.paths))
        self.status.value = ""
        self._render()
        return self.comparison

    def _refuse(self, msg_id: str) -> None:
        self.status.value = f"<span style='color:#b00'>{escape(say(self.lang, msg_id))}</span>"
        return None

    def _render(self) -> None:
        if self.comparison is not None:
            text = "\n".join(lines(self.comparison, self.lang))
            self.result.value = f"<pre style='font-size:12px; line-height:1.35'>{escape(text)}</pre>"

    def _show_mode(self) -> None:
        ranks = self.mode.value == RANKS
        self.good_box.layout.display = "none" if ranks else None
        self.ranks_box.layout.display = None if ranks else "none"
        self._relabel()

    def _relabel(self) -> None:
        lang = self.lang
        mode, self._relabelling = self.mode.value, True
        try:   # new labels reset the selection: the mode shown stays the mode chosen
            self.mode.options = [(say(lang, "ui.compare.bundles"), BUNDLES), (say(lang, "ui.compare.ranks"), RANKS)]
            self.mode.value = mode
        finally:
            self._relabelling = False
        self.mode.description = say(lang, "ui.compare.mode")
        self.language.description = say(lang, "ui.language")
        self.bad_rank.description = say(lang, "ui.compare.bad_rank")
        self.good_rank.description = say(lang, "ui.compare.good_rank")
        self.compare_button.description = say(lang, "ui.compare.run")
        self.good_label.value = f"<b>{escape(say(lang, 'ui.compare.good'))}</b>"
        bad = "ui.compare.bundle" if self.mode.value == RANKS else "ui.compare.bad"
        self.bad_label.value = f"<b>{escape(say(lang, bad))}</b>"
        self.good.relabel(lang)
        self.bad.relabel(lang)
        self._render()


def _shown(t: Triage) -> str:
    return ", ".join(map(str, t.log.paths))


class BesidePanel:
    """The triage app's offer of a comparison: once a second bundle is opened, the first is at hand as the good run."""

    def __init__(self, current: Callable[[], Triage | None]) -> None:
        self.current = current
        self.previous: Triage | None = None
        self.comparison: Comparison | None = None
        self.button = w.Button(icon="columns")
        self.result = w.HTML()
        self.widget = w.VBox([self.button, self.result])
        self.button.on_click(lambda _: self.compare())
        self.lang = EN
        self.widget.layout.display = "none"

    def new_case(self, previous: Triage | None) -> None:
        """A case is open; the one open before it (None for the first, or the same bundle again) is offered."""
        now = self.current()
        same = previous is not None and now is not None and list(previous.log.paths) == list(now.log.paths)
        self.previous = None if same else previous
        self.comparison = None
        self.result.value = ""
        self.widget.layout.display = None if self.previous is not None else "none"
        self.relabel(self.lang)

    def compare(self) -> Comparison | None:
        """The case opened before (good) beside the one open now (bad); the text shows below the button."""
        now = self.current()
        if self.previous is None or now is None:
            return None
        self.comparison = compare(self.previous, now, good_label=_shown(self.previous), bad_label=_shown(now))
        self._render()
        return self.comparison

    def relabel(self, lang: str) -> None:
        self.lang = lang if lang in LANGS else EN
        if self.previous is not None:
            self.button.description = say(self.lang, "ui.compare.previous", path=_shown(self.previous))
            self.button.tooltip = self.button.description
        self._render()

    def _render(self) -> None:
        if self.comparison is not None:
            text = "\n".join(lines(self.comparison, self.lang))
            self.result.value = f"<pre style='font-size:12px; line-height:1.35'>{escape(text)}</pre>"
