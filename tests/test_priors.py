"""Base rates from the real captures: counted from the causes their sources state, kept as data, used to order
causes of equal score and named by an open family."""
import yaml
from casebook.judging.accuracy import capture_folders
from casebook.judging.contract import to_dict
from casebook.judging.triage import triage
from casebook.knowledge import priors
from casebook.knowledge.kb import load_kb
from conftest import ROOT

KB = load_kb()
FAMILIES_OF = {c.id: c.family for c in KB.cases.values()}


def test_counts_take_the_stated_cause_its_accepted_ids_and_the_family():
    got = priors.count([{"diagnosis": "npu-out-of-memory", "family": "memory-allocation"},
                        {"diagnosis": "a-slug", "accept": ["npu-out-of-memory"], "family": "memory-allocation"},
                        {"diagnosis": "another-slug", "family": "none"},
                        {"diagnosis": "undocumented", "family": "memory-allocation"},
                        {"diagnosis": "device-heartbeat-lost"}], FAMILIES_OF)
    assert got.cases == {"device-heartbeat-lost": 1, "npu-out-of-memory": 2}
    assert got.families == {"device-lost": 1, "memory-allocation": 2}


def test_the_shipped_priors_are_what_the_captures_state():
    wants = [yaml.safe_load((f / "expect.yaml").read_text(encoding="utf-8")) for f in
             capture_folders(ROOT / "tests" / "captures")]
    assert (KB.root / priors.FILE).read_text(encoding="utf-8") == priors.dump(priors.count(wants, FAMILIES_OF))
    assert priors.load(KB.root).of("aclnn-tiling-unsupported-shape") >= 5


def test_an_open_family_names_its_most_frequent_cause():
    folder = ROOT / "tests" / "captures" / "356-ascend-docs-llamafactory-sampling-507018"
    doc = to_dict(triage(folder / "capture.txt", kb=KB))
    rates = priors.load(KB.root)
    assert doc["diagnosis"] is None
    assert doc["family"]["most_often"] == {"case": "aicpu-kernel-rejects-input", "n": rates.of(
        "aicpu-kernel-rejects-input"), "of": rates.families["aicpu-exception"]}
    assert doc["family"]["open_causes"][0] == "aicpu-kernel-rejects-input"


def test_a_knowledge_base_without_priors_counts_none(tmp_path):
    assert priors.load(tmp_path) == priors.Priors() and priors.Priors().of("x") == 0
