"""The triage app's case memory: "Seen before" at the root-cause step, Save to memory and the resolution form,
driven as a person would (.value and .click())."""
from casebook.judging.triage import triage
from casebook.memory.recall import open_memory
from casebook.widgets.memory_form import MemoryPanel
from casebook.widgets.triage_app import TriageApp
from conftest import SAMPLES
from memories import thread

BUNDLE = SAMPLES / "task-queue-shared-cache-race" / "positive-info"


def test_save_resolve_and_see_it_before_at_the_root_cause(tmp_path):
    db, folder = str(tmp_path / "m.db"), tmp_path / "threads"
    thread(folder, "tq-race", codes=["EZ9999"], first_error="nothing alike", case="task-queue-shared-cache-race",
           title="Shared cache race with the task queue on")
    t = triage(BUNDLE)
    panel = MemoryPanel(lambda: t, db, folder)
    panel.load()
    assert "tq-race" in panel.seen.value and "Shared cache race" in panel.seen.value
    panel.resolve_button.click()
    assert "Save the case to the memory first" in panel.status.value
    panel.redact.value = True
    panel.save_button.click()
    case_id = panel.case_id
    assert case_id and case_id in panel.status.value
    panel.inputs["cause"].value = "two streams shared one cache"
    panel.inputs["fix"].value = "TASK_QUEUE_ENABLE=0"
    panel.inputs["who"].value = "chen"
    panel.resolve_button.click()
    assert "saved" in panel.status.value
    with open_memory(db, folder) as store:
        saved = store.get(case_id)
    assert saved.resolution.as_dict() == {"cause": "two streams shared one cache", "fix": "TASK_QUEUE_ENABLE=0",
                                          "who": "chen"}
    panel.load()   # the same case opened again: the saved one is seen before, with its resolution
    assert panel.case_id is None and panel.inputs["cause"].value == ""
    assert f"team case {case_id}" in panel.seen.value and "TASK_QUEUE_ENABLE=0" in panel.seen.value
    panel.relabel("zh")
    assert panel.save_button.description == "保存到案例库" and "以前见过" in panel.seen.value


def test_the_app_shows_seen_before_only_at_the_root_cause(tmp_path):
    app = TriageApp(triage(BUNDLE), folder=tmp_path)
    assert app.memory.widget in app.widget.children or any(app.memory.widget in getattr(c, "children", ())
                                                           for c in app.widget.children)
    app.goto("root_cause")
    assert app.memory.seen.layout.display is None
    app.goto("symptom")
    assert app.memory.seen.layout.display == "none"
    assert app.memory.save_button.description == "Save to memory"


def test_a_memory_that_cannot_be_used_says_so_in_the_panel(tmp_path):
    db = tmp_path / "m.db"
    db.write_bytes(b"no database here\n" * 200)
    t = triage(BUNDLE)
    panel = MemoryPanel(lambda: t, str(db), tmp_path / "threads")
    panel.load()
    assert "damaged" in panel.status.value and panel.seen.value == ""
    panel.save_button.click()
    assert "damaged" in panel.status.value
