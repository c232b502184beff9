"""The founding case as a lesson: each step's reasons come from the case file and follow the evidence."""
from casebook.judging.triage import triage
from casebook.presenting.lesson import lessons
from conftest import SAMPLES

CASE = "task-queue-shared-cache-race"


def test_steps_carry_the_case_reasons_marked_seen_or_not():
    ls = lessons(triage(SAMPLES / CASE / "positive-error-level"), CASE)
    by = {x.step.key: x for x in ls}
    assert list(by) == ["symptom", "error_code", "pc_start", "topology", "root_cause", "fix"]
    assert any(r.startswith("seen [ccu_bus_err]") for r in by["error_code"].reasons)
    # at ERROR level there is no binSize: the pc signature is not seen, and the walk says so
    assert any(r.startswith("not seen [pc_mismatch]") for r in by["pc_start"].reasons)
    assert by["topology"].reasons[0].startswith("single_process_multi_device unknown")
    assert [h for h, _ in by["fix"].sections] == ["Fix", "Confirming the fix"]
    assert "Why it matters:" in by["error_code"].to_text()


def test_a_fact_against_is_explained():
    ls = lessons(triage(SAMPLES / CASE / "negative-process-per-card"), CASE)
    topo = next(x for x in ls if x.step.key == "topology")
    assert "rules the case out" in topo.reasons[0]
