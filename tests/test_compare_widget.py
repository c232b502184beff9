"""CompareApp driven the way an engineer drives it: paths typed, buttons clicked, values picked."""
from __future__ import annotations

from casebook.knowledge.messages import ZH
from casebook.widgets import CompareApp
from casebook.widgets.compare import BUNDLES, RANKS
from conftest import CORPUS
from test_comparison import RANK3, edit, pair

LOST = "[ERROR] HCCL(11190,python3):2023-01-31-02:59:00.000.000 [transport.cc:88][21503]link to rank 5 lost"


def test_two_bundle_boxes_then_compare(tmp_path):
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    edit(bad / RANK3, 2, insert=LOST)
    app = CompareApp()
    app.compare_button.click()
    assert "Open the good run and the bad run first." in app.status.value and app.comparison is None
    app.good.path_box.value = str(good)
    app.good.open_button.click()
    app.bad.path_box.value = str(bad)
    app.bad.open_button.click()
    app.compare_button.click()
    c = app.comparison
    assert c is not None and c.first.bad.where == f"{RANK3}:2"
    assert "Message flow" in app.result.value and f"{RANK3}:2" in app.result.value
    assert "[transport.cc:88][21503]link to rank 5" in app.result.value
    app.language.value = "zh"
    assert "消息流" in app.result.value and app.compare_button.description == "比较"


def test_log_markup_in_a_compared_line_is_text(tmp_path):
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    edit(bad / RANK3, 2, insert=LOST + " <script>alert(1)</script>")
    app = CompareApp()
    app.open(good, bad)
    app.compare_button.click()
    assert "&lt;script&gt;" in app.result.value and "<script>" not in app.result.value


def test_one_bundle_and_two_ranks():
    app = CompareApp()
    app.mode.value = RANKS
    assert app.good_box.layout.display == "none" and app.ranks_box.layout.display is None
    assert "The bundle" in app.bad_label.value
    app.bad.path_box.value = str(CORPUS / "modelarts-8rank-job")
    app.bad.open_button.click()
    assert [v for _, v in app.bad_rank.options] == list(range(8))
    # every rank failed: the first to fail, beside the next rank
    assert (app.bad_rank.value, app.good_rank.value) == (0, 1)
    app.bad_rank.value, app.good_rank.value = 3, 0
    app.compare_button.click()
    c = app.comparison
    assert (c.good, c.bad) == ("rank 0", "rank 3") and c.first.stream == "rank 3, host plog (debug)"
    assert "Bad run: rank 3" in app.result.value
    app.mode.value = BUNDLES
    assert app.good_box.layout.display is None and app.ranks_box.layout.display == "none"


def test_the_triage_app_offers_the_case_opened_before_as_the_good_run(tmp_path):
    from casebook.widgets import TriageApp
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    edit(bad / RANK3, 2, insert=LOST)
    app = TriageApp(folder=tmp_path / "cases")
    app.open(good)
    assert app.beside.widget.layout.display == "none"   # nothing opened before: nothing offered
    app.open(good)
    assert app.beside.widget.layout.display == "none"   # the same bundle again is no second run
    app.open(bad)
    assert app.beside.widget.layout.display != "none" and str(good) in app.beside.button.description
    app.beside.button.click()
    c = app.beside.comparison
    assert c is not None and c.first.bad.where == f"{RANK3}:2" and f"{RANK3}:2" in app.beside.result.value
    app.language.value = ZH
    assert "消息流" in app.beside.result.value and "之前打开的案例" in app.beside.button.description
    app.open(good)   # a new case: the last comparison is gone, the bad run is now the one offered
    assert app.beside.result.value == "" and str(bad) in app.beside.button.description
