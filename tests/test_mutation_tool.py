"""The mutation run's own arithmetic: the sample it draws, the interval it prints, and its report of a folder."""
import json

import mutation
import pytest


def test_the_sample_is_the_same_for_the_same_mutants_and_seed():
    known = [(f"casebook.m.x_f__mutmut_{i}", "not checked") for i in range(50)]
    first = mutation.drawn(known, 10, seed=1)
    assert first == mutation.drawn(list(reversed(known)), 10, seed=1) == sorted(first)
    assert len(set(first)) == 10 and set(first) <= {k for k, _ in known}
    assert mutation.drawn(known, 10, seed=2) != first
    assert mutation.drawn(known, 80, seed=1) == sorted(k for k, _ in known)


def test_a_changed_function_leaves_the_rest_of_the_sample_as_it_was():
    known = [(f"casebook.m.x_f__mutmut_{i}", "not checked") for i in range(200)]
    first = set(mutation.drawn(known, 40, seed=1))
    # the function mutated first changes: its mutants are others now; the ones of every other function drawn stay
    changed = [(f"casebook.a.x_g__mutmut_{i}", "not checked") for i in range(30)] + known[20:]
    again = set(mutation.drawn(changed, 40, seed=1))
    kept = first - {f"casebook.m.x_f__mutmut_{i}" for i in range(20)}
    assert kept <= again and len(again) == 40


@pytest.mark.parametrize("killed, tested, low, high", [(50, 100, 40.4, 59.6), (100, 100, 96.3, 100.0),
                                                        (0, 10, 0.0, 27.8), (0, 0, 0.0, 100.0)])
def test_the_interval_is_wilsons(killed, tested, low, high):
    got = mutation.interval(killed, tested)
    assert got == pytest.approx((low, high), abs=0.05)


def test_a_sampled_folder_reports_its_score_and_interval_last(tmp_path, capsys):
    meta = tmp_path / "mutants" / "src" / "casebook" / "reading" / "scan.py.meta"
    meta.parent.mkdir(parents=True)
    codes = {f"casebook.reading.scan.x_f__mutmut_{i}": 1 for i in range(8)}
    codes |= {"casebook.reading.scan.x_f__mutmut_8": 0, "casebook.reading.scan.x_f__mutmut_9": -24,
              "casebook.reading.scan.x_f__mutmut_10": None, "casebook.reading.scan.x_f__mutmut_11": -9}
    meta.write_text(json.dumps({"exit_code_by_key": codes}), encoding="utf-8")
    assert mutation.report(tmp_path, {}, diff=False) == pytest.approx(900 / 11)
    out = capsys.readouterr().out.splitlines()
    assert "  lib/casebook/reading/scan.py: 12 mutants, 11 tested, 9 killed (1 signal SIGKILL, 1 survived, " \
           "1 timeout)" in out
    assert "tested: 11; killed by a failing test: 8, by their time: 1, ended by a signal (not counted as killed): 1; " \
           "not tested: 1" in out
    assert out[-2].startswith("sample: 11 of 12 mutants tested, 1 drawn not yet; the score of every mutant lies in ")
    assert out[-2].endswith("only once every mutant drawn is tested (the cheapest are tested first)")
    assert out[-1] == "mutation score: 81.8%"
    # a sample counts its own mutants only, and a complete one gives its interval without a caveat
    pool = {f"casebook.reading.scan.x_f__mutmut_{i}" for i in (0, 1, 8, 11)}
    assert mutation.report(tmp_path, {}, diff=False, pool=pool) == pytest.approx(50.0)
    out = capsys.readouterr().out.splitlines()
    assert "  lib/casebook/reading/scan.py: 4 mutants, 4 tested, 2 killed (1 signal SIGKILL, 1 survived)" in out
    assert "mutants: 4, a sample of 12 (2 killed, 1 signal SIGKILL, 1 survived)" in out
    assert out[-2] == "sample: 4 of 12 mutants tested; the score of every mutant lies in 15.0-85.0% (95%)"
    assert out[-1] == "mutation score: 50.0%"


def test_a_mutants_run_starts_with_the_packages_caches_empty():
    """mutmut forks each mutant's run from the process that ran the clean tests: what they cached is forgotten."""
    from casebook.evidence import codes
    from conftest import forget_caches
    codes.codes_in("EZ9999: Inner Error!")
    assert codes.codes_in.cache_info().currsize >= 1
    assert forget_caches() >= 10 and codes.codes_in.cache_info().currsize == 0
