"""Every signature and every contradicted_by of every KB case fires on a named line (file and line) of a KB sample or
of a real capture: a signature no log shows firing is unproved, whatever its regex looks like."""

import yaml
from casebook.judging.accuracy import capture_of
from casebook.knowledge.kb import load_kb
from conftest import ROOT, SAMPLES, triaged

CAPTURES = ROOT / "tests" / "captures"

#: Signatures whose line is known from a public source but in no log the samples and captures can carry yet: each
#: stays listed until a sample or capture shows it firing (the test fails when one fires, so the list only shrinks)
UNPROVED = {
    ("aicore-icache-data-corruption", "icache_event"):
        "event 0x80C98000 is known from Huawei's fault-diagnosis rules (ascend-faultdiag kg-config.json: "
        "'event_id=0x80c98000', 'event_id:  [0x80c98000]'), not from a log file whose lines are public",
    ("aicpu-kernel-rejects-input", "aicore_first"):
        "no public log shows an AI CPU failure after an AI Core fault in one bundle",
    ("shared-library-not-on-loader-path", "dcmi"):
        "the Ascend Docker Runtime prints dlerror() ('libdcmi.so: cannot open shared object file: ...', "
        "DcmiInitDl in mind-cluster) to the container runtime's stderr; no public log shows where it lands",
}


def bundles() -> list[tuple]:
    """Each KB sample with its first run's facts (the run the sample tests share), then each capture."""
    out = []
    for case in sorted(p for p in SAMPLES.iterdir() if p.is_dir()):
        for sample in sorted(p for p in case.iterdir() if p.is_dir()):
            runs = yaml.safe_load((sample / "expect.yaml").read_text(encoding="utf-8"))["runs"]
            out.append((sample, runs[0].get("facts") or {}))
    return out + [(capture_of(folder), {}) for folder in sorted(p for p in CAPTURES.iterdir() if p.is_dir())]


def test_every_signature_fires_on_a_named_line():
    kb = load_kb()
    fired = set()
    for path, facts in bundles():
        for c in triaged(path, facts)["candidates"]:
            fired |= {(c["case"], e["id"]) for e in c["for"] + c["against"] if e.get("file") and e.get("line")}
    declared = {(case.id, s.id) for case in kb.cases.values() for s in (*case.signatures, *case.contradicted_by)}
    assert len(declared) > 400 and set(UNPROVED) <= declared   # the knowledge base was read; no stale entry
    missing = sorted(declared - fired - set(UNPROVED))
    assert not missing, f"{len(missing)} signatures fire on no line of a sample or a capture:\n  " + "\n  ".join(
        f"{case}: {sig}" for case, sig in missing)
    proved = sorted(set(UNPROVED) & fired)
    assert not proved, f"these fire now, take them off UNPROVED: {proved}"
