"""The JSON contract of the founding sample's triage, pinned against tests/golden/triage-founding.json (reviewed
by hand): the evidence parts whole; of the diagnosis, ids, places, verdicts and scores (the KB's prose is free)."""
import json
from pathlib import Path

import pytest
from casebook.evidence.items import AicoreFault
from casebook.judging.contract import _fault, _hypothesis, _quoted, to_dict, validate
from casebook.judging.ranking import Hypothesis, Item, Missing
from casebook.judging.triage import triage
from casebook.knowledge.addresses import PcVerdict
from casebook.knowledge.kb import KnownCase
from conftest import ROOT, SAMPLES

GOLDEN = Path(__file__).parent / "golden" / "triage-founding.json"
FOUNDING = SAMPLES / "task-queue-shared-cache-race" / "positive-info"


def pinned(doc: dict) -> dict:
    """What the golden file holds of a triage document."""
    def items(c, key):
        return [[i["id"], i["file"], i["line"]] for i in c[key]]
    top = doc["candidates"][0]
    return {"input": {k: doc["input"][k] for k in ("file_count", "bytes", "lines", "lines_unparsed")},
            "first_error": doc["first_error"], "aicore_faults": doc["aicore_faults"], "topology": doc["topology"],
            "facts": doc["facts"], "coverage": doc["coverage"], "diagnosis": doc["diagnosis"],
            "incidents": doc["incidents"],
            "top": {"case": top["case"], "verdict": top["verdict"], "score": top["score"], "for": items(top, "for"),
                    "against": items(top, "against"), "missing": [m["fact"] for m in top["missing"]]},
            "family": {k: doc["family"][k] for k in ("id", "verdict")}}


@pytest.mark.parametrize("facts,name", [({"TASK_QUEUE_ENABLE": "1"}, "answered"), ({}, "unanswered")])
def test_the_founding_triage_matches_its_golden_document(facts, name):
    doc = to_dict(triage(FOUNDING, facts=facts))
    validate(doc)
    assert pinned(json.loads(json.dumps(doc))) == json.loads(GOLDEN.read_text(encoding="utf-8"))[name]


def test_answers_rerank_and_can_be_taken_back():
    t = triage(FOUNDING)
    case = "task-queue-shared-cache-race"
    assert t.candidate(case).verdict == "likely" and t.candidate("no-such-case") is None
    # the best candidate's questions first, required before optional, each fact once
    asked = [(m.fact, m.required) for m in t.questions]
    assert asked[:2] == [("TASK_QUEUE_ENABLE", True), ("failure_vanished_with_debug", False)]
    assert len({f for f, _ in asked}) == len(asked)
    t.answer("failure_vanished_with_debug", None)   # forgetting what was never answered changes nothing
    assert t.answers == {} and t.candidate(case).verdict == "likely"
    t.answer("TASK_QUEUE_ENABLE", " 1 ")
    assert (t.answers, t.candidate(case).verdict, t.questions[0].fact) == (
        {"TASK_QUEUE_ENABLE": "1"}, "confirmed", "failure_vanished_with_debug")
    t.answer("TASK_QUEUE_ENABLE", None)
    assert (t.answers, t.candidate(case).verdict) == ({}, "likely")
    t.answer("ASCEND_LAUNCH_BLOCKING", "1")
    assert (t.candidate(case).verdict, t.diagnosis) == ("ruled_out", None)
    # a ruled-out case asks nothing more
    assert "failure_vanished_with_debug" not in {m.fact for m in t.questions}


class Quoting:
    """A capture that quotes one original line: cap.txt line 3 is plog-1.log line 1187."""

    def quoted_line(self, file, line):
        return {("cap.txt", 3): ("plog-1.log", 1187), ("cap.txt", 4): (None, 12)}.get((file, line))


def test_a_cited_line_names_the_original_it_quotes_and_only_a_placed_one_is_looked_up():
    assert _quoted(Quoting(), "cap.txt", 3) == {"src_file": "plog-1.log", "src_line": 1187}
    assert _quoted(Quoting(), "cap.txt", 4) == {"src_file": None, "src_line": 12}
    assert _quoted(Quoting(), "cap.txt", 5) == {"src_file": None, "src_line": None}
    # a derived item (no file, or no line) is not looked up at all
    for file, line in ((None, 3), ("cap.txt", None), (None, None)):
        assert _quoted(object(), file, line) == {"src_file": None, "src_line": None}


def fault(**kw) -> AicoreFault:
    return AicoreFault("dev.log", 7, None, None, None, 2, None, [], "aicore error", **kw)


def test_a_fault_without_both_pc_registers_has_no_offset_and_an_unknown_verdict():
    bare = _fault(fault(pc_start_raw=None, current_raw=None, error_code=None))
    assert {k: bare[k] for k in ("pc_start", "current", "offset", "offset_msaicerr", "offset_agrees", "pc_verdict",
                                 "pc_reason", "pc_collect", "pc_start_first", "pc_peers")} == {
        "pc_start": None, "current": None, "offset": None, "offset_msaicerr": None, "offset_agrees": None,
        "pc_verdict": "unknown", "pc_reason": "", "pc_collect": None, "pc_start_first": None, "pc_peers": []}
    # one register alone is shown, masked to 48 bits, and still makes no offset
    start = _fault(fault(pc_start_raw=0xFF00_1000_0000_1000, current_raw=None, error_code=None,
                         pc_start_first_raw=0x1000_0000_0800, pc_peers=[(0x1000_0000_2000, "dev.log:9")]))
    assert (start["pc_start"], start["pc_start_raw"], start["current"], start["offset"], start["offset_agrees"]) == (
        "0x100000001000", "0xff00100000001000", None, None, None)
    assert (start["pc_start_first"], start["pc_peers"]) == (
        "0x100000000800", [{"pc_start": "0x100000002000", "where": "dev.log:9"}])
    current = _fault(fault(pc_start_raw=None, current_raw=0x1000_0000_1040, error_code=None))
    assert (current["pc_start"], current["current"], current["offset"], current["offset_msaicerr"]) == (
        None, "0x100000001040", None, None)
    judged = PcVerdict("outside", "the offset is past the binary", "the kernel's .o")
    both = _fault(fault(pc_start_raw=0x1000_0000_1000, current_raw=0x1000_0000_1040, error_code=None, pc=judged))
    assert (both["offset"], both["offset_msaicerr"], both["offset_agrees"]) == ("0x40", "0x40", True)
    assert (both["pc_verdict"], both["pc_reason"], both["pc_collect"]) == (
        "outside", "the offset is past the binary", "the kernel's .o")


class Read(Exception):
    """Raised by a stand-in reader with what it was given."""


def test_triage_hands_its_reading_options_to_the_reader(monkeypatch):
    from casebook.evidence.registry import KEEP
    from casebook.judging import triage as module

    def reader(*paths, **options):
        raise Read(paths, options)
    monkeypatch.setattr(module, "read_case", reader)
    monkeypatch.setattr(module, "read_plog", reader)
    limits, progress = object(), print
    given = {"limits": limits, "engine": "dask", "scheduler": "tcp://s:8786", "workers": 3, "progress": progress}
    with pytest.raises(Read) as kept:
        triage("bundle", **given)
    assert kept.value.args == (("bundle",), given)
    # with a disassembly the bundle is read anew, keeping what the evidence needs
    with pytest.raises(Read) as fresh:
        triage("bundle", objdump="k.txt", **given)
    assert fresh.value.args == (("bundle",), {"keep": KEEP, **given})


def test_a_hypothesis_cites_the_original_lines_of_a_capture_for_and_against():
    c = KnownCase("c", "cases/c.md", title="A case", family="fam", fix={"workaround": "w", "confirm": "c"})
    h = Hypothesis(c, "likely", 0.8, for_=[Item("s", "seen", "cap.txt", 3, "why s")],
                   against=[Item("t", "other", "cap.txt", 4, "why t")], missing=[Missing("f", "f?", required=False)])
    assert _hypothesis(h, Quoting()) == {
        "case": "c", "title": "A case", "verdict": "likely", "score": 0.8,
        "for": [{"id": "s", "text": "seen", "file": "cap.txt", "line": 3, "src_file": "plog-1.log", "src_line": 1187,
                 "why": "why s"}],
        "against": [{"id": "t", "text": "other", "file": "cap.txt", "line": 4, "src_file": None, "src_line": 12,
                     "why": "why t"}],
        "family": "fam", "missing": [{"fact": "f", "ask": "f?", "required": False}],
        "fix": {"workaround": "w", "confirm": "c"}}
    c.family = ""
    assert _hypothesis(h, Quoting())["family"] is None


CAPTURE = ROOT / "tests" / "captures" / "32-rebuilt-grep-rn-aicore-dcache-ecc" / "capture.txt"


def test_a_grep_capture_names_the_file_it_quotes_and_its_first_error_the_original_line():
    doc = to_dict(triage(CAPTURE))
    validate(doc)
    plog = "plog/plog-402118_20240819112602337.log"
    assert doc["input"]["sources"] == [{"path": plog, "captured_in": "capture.txt", "role": "host_plog", "node": None,
                                        "rank": None, "device": None, "pid": 402118,
                                        "first_time": "2024-08-19T11:27:44.506218",
                                        "last_time": "2024-08-19T11:27:44.506261"}]
    assert [(e["file"], e["line"], e["src_file"], e["src_line"]) for e in doc["first_errors"]] == [
        ("capture.txt", 2, plog, 58)]
    # the two lines the diagnosis explains are out of the unexplained list, and so is the third: the runtime's
    # banner of the fault's own report goes with the fault
    assert (doc["coverage"], [(u["line"], u["template"]) for u in doc["unexplained"]]) == (
        {"error_lines": 3, "explained": 3}, [])
    assert (doc["diagnosis"], doc["family"]["id"], doc["family"]["next_question"]["fact"]) == (
        "aicore-hardware-fault", "hardware", "fails_on_other_cards")
    top = doc["candidates"][0]
    assert (top["family"], top["for"][0]["src_file"], top["for"][0]["src_line"]) == ("hardware", plog, 60)
