"""`make probe`'s round-two scenarios each hold (each builds its own input and runs `casebook` in processes of its
own), and the probe reports a scenario whose promise fails instead of passing over it."""
from pathlib import Path

import pytest
from casebook.bench import hostile, probe


@pytest.mark.parametrize("scenario", hostile.SCENARIOS, ids=[s.name for s in hostile.SCENARIOS])
def test_each_scenario_holds(scenario, tmp_path):
    # memory is make probe's to measure: a child's peak starts from its parent's, and the test process is large
    outcome = scenario.run(tmp_path)
    assert outcome.held, outcome.said
    assert outcome.seconds < probe.MAX_SECONDS * 4


def test_the_items_are_the_nine_of_round_two():
    assert sorted(s.item for s in hostile.SCENARIOS) == list(range(1, 10))


def test_a_promise_that_fails_is_reported(tmp_path, monkeypatch, capsys):
    # a check that sees what it looks for: redaction that leaves the values visible must not hold
    monkeypatch.setattr(hostile, "SENSITIVE", {"plain word": ("visible-value", "visible-value")})
    outcome = hostile.redaction(tmp_path)
    assert not outcome.held and "1 left visible" in outcome.said
    table = probe.scenario_table([(hostile.SCENARIOS[4], outcome)])
    assert "| NO |" in table


def test_a_report_that_reaches_the_terminal_is_counted(tmp_path):
    run = hostile.measure(["-c", "import sys; sys.stdout.write('\\x1b]0;t\\x07')"], folder=tmp_path)
    assert hostile.OBEYED.findall(run.out + run.err)
