"""What a capture's expect.yaml asks of a triage, and each miss in words (judging/expectations.py), on small
made-up captures and triage documents, by exact values."""
from __future__ import annotations

from pathlib import Path

import yaml

from casebook.judging.accuracy import Expected, Score
from casebook.judging.expectations import (CHECKS, _fault_misses, cause_miss, confirmed_miss, gaps, misses,
                                           reading_misses, write_gaps)
from conftest import ROOT

CAPTURE = "line one\nEZ9999: boom at the kernel\nline three\n"


def capture(tmp_path: Path, expect: dict, text: str = CAPTURE, name: str = "c") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "capture.txt").write_text(text, encoding="utf-8")
    (folder / "expect.yaml").write_text(yaml.safe_dump(expect), encoding="utf-8")
    return folder


def first(line: int, text: str, code: str | None = None, **more) -> dict:
    return {"line": line, "text": text, "code": code, **more}


def test_the_first_error_is_checked_by_its_line_its_words_and_its_code(tmp_path):
    folder = capture(tmp_path, {"first_error": {"line": 2, "contains": "boom", "code": "EZ9999"}})
    assert reading_misses(folder, {"first_error": first(2, "EZ9999: boom at the kernel", "EZ9999")}, set()) == []
    assert reading_misses(folder, {"first_error": first(3, "line three")}, set()) == [
        "first error read at line 3, not 2"]
    # the right line, but neither the record nor the capture's line holds the words
    absent = capture(tmp_path, {"first_error": {"line": 2, "contains": "kernel panic"}}, name="absent")
    assert reading_misses(absent, {"first_error": first(2, "other words")}, set()) == [
        "first error read at line 2, not 2"]
    assert reading_misses(absent, {"first_error": first(2, "a kernel panic")}, set()) == []
    # the words may be in the capture's line though the record's text is another (a grep paste cites its source)
    assert reading_misses(folder, {"first_error": first(9, "x", "EZ9999", capture_line=2)}, set()) == []
    assert reading_misses(folder, {"first_error": first(2, "boom", "EZ1001")}, set()) == [
        "the first error's code is not read: want EZ9999, read EZ1001"]
    assert reading_misses(folder, {"first_error": first(2, "boom")}, set()) == [
        "the first error's code is not read: want EZ9999, the record has none"]
    assert reading_misses(folder, {}, set()) == ["no first error found"]
    assert reading_misses(folder, {"first_error": None}, set()) == ["no first error found"]


def test_a_collections_first_error_is_checked_by_its_file_too(tmp_path):
    from casebook.judging.accuracy import capture_of
    folder = tmp_path / "collection"
    plog = folder / "capture" / "worker-0" / "plog-1.log"
    plog.parent.mkdir(parents=True)
    plog.write_text("[INFO] ok\n[ERROR] HCCL(1,python):2025-01-24-11:24:07.476.916 [x.cc:1]1 boom EI0006\n",
                    encoding="utf-8")
    (folder / "expect.yaml").write_text(yaml.safe_dump(
        {"first_error": {"file": "worker-0/plog-1.log", "line": 2, "contains": "boom"}}), encoding="utf-8")
    assert capture_of(folder) == folder / "capture" and capture_of(tmp_path / "c") == tmp_path / "c" / "capture.txt"
    got = {"first_error": first(2, "other words", file="worker-0/plog-1.log")}
    assert reading_misses(folder, got, set()) == []   # the words are in that file's line
    assert reading_misses(folder, {"first_error": first(2, "boom", file="worker-1/plog-2.log")}, set()) == [
        "first error read in worker-1/plog-2.log:2, not worker-0/plog-1.log:2"]
    assert reading_misses(folder, {"first_error": first(1, "ok", file="worker-0/plog-1.log")}, set()) == [
        "first error read at line 1, not 2"]


def test_a_capture_without_a_first_error_wants_none_read(tmp_path):
    folder = capture(tmp_path, {"diagnosis": "undocumented"})
    assert reading_misses(folder, {"first_error": first(3, "line three")}, set()) == [
        "a first error read at line 3, where the capture shows none"]
    assert reading_misses(folder, {"first_error": None}, set()) == []
    # a line number past the capture's end reads as an empty line: the words are then not found
    folder = capture(tmp_path, {"first_error": {"line": 7, "contains": "boom"}}, name="short")
    assert reading_misses(folder, {"first_error": first(7, "no words", capture_line=7)}, set()) == [
        "first error read at line 7, not 7"]
    assert reading_misses(folder, {"first_error": first(0, "no words", capture_line=0)}, set()) == [
        "first error read at line 0, not 7"]


def test_codes_are_all_wanted_and_named_when_missed(tmp_path):
    folder = capture(tmp_path, {"codes": ["EZ9999", 507015, "0x26"]})
    assert reading_misses(folder, {}, {"EZ9999", "507015", "0x26", "EE1001"}) == []
    assert reading_misses(folder, {}, {"EZ9999"}) == ["codes not read: 507015, 0x26"]
    both = capture(tmp_path, {"codes": [507015], "first_error": {"line": 2, "contains": "boom"}}, name="both")
    assert reading_misses(both, {}, set()) == ["no first error found", "codes not read: 507015"]


def test_the_ai_core_fault_is_checked_field_by_field(tmp_path):
    want = {"kernel": "k_1", "op": "Add", "device": 3, "pc_start": "0x12c0", "current": "0x12d4",
            "errcode": ["0", "0x8000", "0"]}
    got = {"kernel": "k_1", "op": "Add", "device": 3, "pc_start_raw": "12C0", "current_raw": "0x12d4",
           "errcode": ["0x0", "0x8000", "0x0"]}
    assert _fault_misses(want, [got]) == []
    assert _fault_misses(want, []) == ["the AI Core fault report is not found"]
    wrong = {**got, "kernel": "k_2", "op": "Mul", "device": 0, "pc_start_raw": "0x12c4", "current_raw": "12d0",
             "errcode": [0, 0, 0]}
    assert _fault_misses(want, [wrong, got]) == [
        "the fault's kernel is k_2, not k_1", "the fault's op is Mul, not Add", "the fault's device is 0, not 3",
        "the fault's pc_start is 0x12c4, not 0x12c0", "the fault's current is 12d0, not 0x12d4",
        "the fault's errcode is (0, 0, 0), not ('0', '0x8000', '0')"]
    # only the fields the expectation names are checked
    assert _fault_misses({"op": "Add"}, [wrong]) == ["the fault's op is Mul, not Add"]
    folder = capture(tmp_path, {"aicore": {"op": "Add"}})
    assert reading_misses(folder, {"aicore_faults": [got]}, set()) == []
    assert reading_misses(folder, {"aicore_faults": None}, set()) == ["the AI Core fault report is not found"]
    assert reading_misses(capture(tmp_path, {"aicore": {}}, name="none"), {}, set()) == []


def score(right=False, got=None, family=None, confirmed=(), documented=True) -> Score:
    return Score("c", 1, documented, right, False, False, tuple(confirmed), got, family, ("a",))


def test_a_missed_cause_says_what_was_named_and_whether_a_case_covers_it():
    want = Expected("c", ("a", "b"), "fam", 1, "the cause")
    assert cause_miss(want, score(right=True, got="a"), {"a"}) is None
    assert cause_miss(want, score(got="x"), {"b"}) == "the case exists; the triage names x"
    assert cause_miss(want, score(family="fam"), set()) == (
        "no case of the knowledge base covers a; the triage names no diagnosis (fam)")
    assert cause_miss(want, score(), {"z"}) == (
        "no case of the knowledge base covers a; the triage names no diagnosis (no family)")
    silent = Expected("c", ("undocumented",), None, 1, "")
    assert cause_miss(silent, score(got="x", documented=False), set()) == (
        "the source names no cause, but the triage names x")


def test_a_wrong_confirmed_case_is_named_with_its_verb():
    assert confirmed_miss(score()) is None
    assert confirmed_miss(score(confirmed=["x"])) == "x is confirmed"
    assert confirmed_miss(score(confirmed=["x", "y"])) == "x, y are confirmed"


def test_the_misses_of_a_capture_by_check(tmp_path):
    folder = capture(tmp_path, {"diagnosis": "a", "family": "fam", "codes": ["EZ9999"]})
    doc = {"diagnosis": "b", "family": {"id": "fam"}, "first_error": None,
           "candidates": [{"case": "b", "verdict": "confirmed"}]}
    assert misses(folder, doc, {"EZ9999"}, {"a", "b"}) == {"cause": "the case exists; the triage names b",
                                                          "confirmed_wrong": "b is confirmed"}
    right = {"diagnosis": "a", "candidates": [{"case": "a", "verdict": "confirmed"}]}
    assert misses(folder, right, set(), {"a"}) == {"reading": "codes not read: EZ9999"}
    assert misses(folder, right, {"EZ9999"}, {"a"}) == {}
    assert CHECKS == ("cause", "confirmed_wrong", "reading")


def test_the_gaps_of_real_captures_and_the_file_they_are_written_to(tmp_path):
    captures = ROOT / "tests" / "captures"
    known = yaml.safe_load((captures / "known-gaps.yaml").read_text(encoding="utf-8"))
    names = ["04-pta-2021-shell-aicpu-timeout-0x28", "03-pta-doc-init-acl-500001"]
    found = gaps([captures / n for n in names])
    assert set(found) == {"cause", "confirmed_wrong", "reading", "codes"}
    for check in CHECKS:
        assert found[check] == {n: known[check][n] for n in names if n in known[check]}, check
    assert found["cause"]["03-pta-doc-init-acl-500001"].startswith("the source names no cause")
    assert found["codes"] == sorted(found["codes"])
    path = tmp_path / "known-gaps.yaml"
    path.write_text("# what is missed\n# second line\nold: body\n", encoding="utf-8")
    write_gaps(path, {"codes": ["X1"], "reading": {"b": "r"}, "cause": {"z": "late", "a": "early"},
                      "confirmed_wrong": {}})
    assert path.read_text(encoding="utf-8") == (
        "# what is missed\n# second line\ncodes:\n- X1\ncause:\n  a: early\n  z: late\nconfirmed_wrong: {}\n"
        "reading:\n  b: r\n")
    fresh = tmp_path / "fresh.yaml"
    write_gaps(fresh, {"codes": [], "reading": {}, "cause": {}, "confirmed_wrong": {}})
    assert fresh.read_text(encoding="utf-8") == "codes: []\ncause: {}\nconfirmed_wrong: {}\nreading: {}\n"


def test_the_gaps_name_each_expected_code_no_catalog_explains_once_in_order(tmp_path):
    """A code a capture shows that the knowledge base does not explain is a gap of the knowledge base itself."""
    one = capture(tmp_path, {"diagnosis": "undocumented", "codes": ["EZ9999", "ZZ0002"]}, name="one")
    two = capture(tmp_path, {"diagnosis": "undocumented", "codes": ["ZZ0001", "ZZ0002"]}, name="two")
    assert gaps([one, two])["codes"] == ["ZZ0001", "ZZ0002"]


def test_the_gaps_file_keeps_chinese_reasons_readable(tmp_path):
    """A reason quoting a Chinese log line is written as it reads, not as escapes, so a diff of the file is read."""
    path = tmp_path / "known-gaps.yaml"
    write_gaps(path, {"codes": [], "reading": {"c": "未读到 EZ9999"}, "cause": {}, "confirmed_wrong": {}})
    assert path.read_text(encoding="utf-8") == (
        "codes: []\ncause: {}\nconfirmed_wrong: {}\nreading:\n  c: 未读到 EZ9999\n")
