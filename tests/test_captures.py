"""The real-capture set (tests/captures): what customers paste into tickets, read like the plogs it came from.

Each capture's expect.yaml names its first error (line and a literal of it), every code in it, the AI Core fault
fields where a fault report is present, and the documented root cause. Each capture is a test of its own: its first
error and codes are read, its documented cause is the diagnosis (no diagnosis where the source names none), and
no other case is confirmed. What the kit does not get right yet is listed with its reason in
captures/known-gaps.yaml, each entry a strict xfail (docs/accuracy.md has the figures), in the words of
casebook.judging.expectations: `casebook kb accuracy tests/captures --write-gaps` writes it anew, for review.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from casebook.judging.accuracy import capture_of, read_expected, score
from casebook.judging.contract import to_dict
from casebook.judging.expectations import cause_miss, confirmed_miss, reading_misses
from casebook.judging.triage import triage
from casebook.knowledge.kb import load_kb

CAPTURES = Path(__file__).resolve().parent / "captures"
FOLDERS = sorted(p for p in CAPTURES.iterdir() if p.is_dir())
KB = load_kb()
NO_CAUSE = ("undocumented", "no-failure")

#: What is not right yet, by check: capture folder -> reason (strict xfails).
GAPS = yaml.safe_load((CAPTURES / "known-gaps.yaml").read_text(encoding="utf-8"))
KNOWN_GAPS: dict[str, str] = GAPS["reading"]
#: The parse rate of the lines that carry text, per collection round: the captures gathered before the batches,
#: and the batches read at first sight (docs/accuracy.md).
PARSED = {0: 0.995, 1: 0.87, 2: 0.51, 3: 0.82, 4: 0.54, 5: 0.68, 6: 0.52, 7: 0.46, 8: 0.53, 9: 0.58, 10: 0.71, 11: 0.55, 12: 0.58}


def _marked(check: str):
    """The capture folders, each a strict xfail with its reason where `check` lists it."""
    return [pytest.param(f, marks=pytest.mark.xfail(strict=True, reason=GAPS[check][f.name]))
            if f.name in GAPS[check] else f for f in FOLDERS]


def expect(folder: Path) -> dict:
    return yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def results() -> dict[str, tuple]:
    """Every capture triaged once: (triage, JSON)."""
    out = {}
    for folder in FOLDERS:
        t = triage(capture_of(folder), kb=KB)
        out[folder.name] = (t, to_dict(t))
    return out


def test_the_set_is_large_and_varied():
    kinds = {expect(f)["kind"] for f in FOLDERS}
    assert len(FOLDERS) >= 30 and len(kinds) >= 10
    assert all((f / "SOURCE.md").is_file() and "http" in (f / "SOURCE.md").read_text(encoding="utf-8") for f in FOLDERS)


def test_the_known_gaps_name_captures_that_exist():
    names = {f.name for f in FOLDERS}
    assert [n for check in ("reading", "cause", "confirmed_wrong") for n in GAPS[check] if n not in names] == []


@pytest.mark.parametrize("folder", _marked("reading"), ids=lambda f: f.name)
def test_first_error_and_codes(results, folder):
    t, doc = results[folder.name]
    assert reading_misses(folder, doc, {c.code for c in t.evidence.codes}) == []


@pytest.mark.parametrize("batch", sorted(PARSED))
def test_the_lines_that_carry_text_are_parsed(results, batch):
    folders = [f for f in FOLDERS if read_expected(f).batch == batch]
    text = sum(int(results[f.name][1]["input"]["lines"]) - _blank(f) for f in folders)
    unparsed = sum(int(results[f.name][1]["input"]["lines_unparsed"]) for f in folders)
    assert folders and 1 - unparsed / text >= PARSED[batch], f"{unparsed} of {text} lines with text kept unparsed"


def _blank(folder: Path) -> int:
    given = capture_of(folder)
    files = sorted(p for p in given.rglob("*") if p.is_file()) if given.is_dir() else [given]
    return sum(1 for f in files for line in f.read_text(encoding="utf-8", errors="replace").splitlines()
               if not line.strip())


def test_every_expected_id_is_a_case_or_names_a_cause_the_knowledge_base_lacks():
    """An expected id that misspells a case would silently count as a cause the knowledge base lacks."""
    cases = set(KB.cases)
    near = [(f.name, want) for f in FOLDERS for want in read_expected(f).cases
            if want not in cases and any(want.replace("-", "") == c.replace("-", "") for c in cases)]
    assert near == []
    families = set(KB.families)
    assert [(f.name, read_expected(f).family) for f in FOLDERS
            if read_expected(f).family is not None and read_expected(f).family not in families] == []


@pytest.mark.parametrize("folder", _marked("cause"), ids=lambda f: f.name)
def test_the_documented_cause_is_the_diagnosis(results, folder):
    want = read_expected(folder)
    assert cause_miss(want, score(want, results[folder.name][1]), set(KB.cases)) is None


@pytest.mark.parametrize("folder", _marked("confirmed_wrong"), ids=lambda f: f.name)
def test_no_other_case_is_confirmed(results, folder):
    assert confirmed_miss(score(read_expected(folder), results[folder.name][1])) is None


def test_the_first_sight_table_counts_each_batch():
    from casebook.knowledge.stats import first_sight
    table = first_sight(KB.root)
    counts = {b: sum(1 for f in FOLDERS if read_expected(f).batch == b) for b in {r["batch"] for r in table}}
    assert [(r["batch"], r["n"]) for r in table] == sorted(counts.items())
    assert all(0 <= r["right"] <= r["family"] <= r["n"] and r["top3"] <= r["n"] for r in table)


def test_the_proven_cases_are_those_the_triage_gets_right(results):
    """kb/proven.yaml (`kb stats`' cases_proven_real) holds exactly the cases named rightly for a real capture."""
    from casebook.judging.accuracy import proven
    from casebook.knowledge import proven as proven_file
    scores = [score(read_expected(f), results[f.name][1]) for f in FOLDERS]
    assert proven_file.load(KB.root) == proven(scores), "rewrite it: casebook kb accuracy tests/captures --write-proven"
