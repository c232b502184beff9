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
