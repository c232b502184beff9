"""The JSON contract of the founding sample's triage, pinned against tests/golden/triage-founding.json (reviewed
by hand): the evidence parts whole; of the diagnosis, ids, places, verdicts and scores (the KB's prose is free)."""
import json
from pathlib import Path

import pytest
from casebook.judging.contract import to_dict, validate
from casebook.judging.triage import triage
from conftest import SAMPLES

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
    t.answer("TASK_QUEUE_ENABLE", " 1 ")
    assert (t.answers, t.candidate(case).verdict, t.questions[0].fact) == (
        {"TASK_QUEUE_ENABLE": "1"}, "confirmed", "failure_vanished_with_debug")
    t.answer("TASK_QUEUE_ENABLE", None)
    assert (t.answers, t.candidate(case).verdict) == ({}, "likely")
    t.answer("ASCEND_LAUNCH_BLOCKING", "1")
    assert (t.candidate(case).verdict, t.diagnosis) == ("ruled_out", None)
    # a ruled-out case asks nothing more
    assert "failure_vanished_with_debug" not in {m.fact for m in t.questions}
