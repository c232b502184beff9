"""Golden files: the records read from tests/golden/*.log equal the *.json beside them (reviewed by hand), and the
triage of every corpus collection and KB sample its reviewed digest."""
import json
from collections import Counter
from pathlib import Path

from casebook.judging.contract import to_dict
from casebook.judging.triage import triage
from casebook.reading.plog import read_plog
from conftest import COLLECTIONS, SAMPLES

GOLDEN = Path(__file__).parent / "golden"


def records_of(path: Path) -> list[dict]:
    """The log table of one file as plain dicts (None for absent fields)."""
    df = read_plog(path).records
    return [{k: (None if v is None or v != v else (int(v) if k in ("line", "pid") else v)) for k, v in row.items()}
            for row in df.to_dict("records")]


def test_forms_match_the_golden_records():
    expected = json.loads((GOLDEN / "forms.json").read_text(encoding="utf-8"))
    assert records_of(GOLDEN / "forms.log") == expected


def test_hostile_text_matches_the_golden_records_and_warnings():
    """encodings.log: a byte-order mark, CRLF, GBK, invalid UTF-8, NUL bytes, a cut UTF-8 tail."""
    path = GOLDEN / "encodings.log"
    expected = json.loads((GOLDEN / "encodings.json").read_text(encoding="utf-8"))
    log = read_plog(path)
    (f,) = log.files
    assert records_of(path) == expected["records"]
    assert (f.encoding, f.warnings) == (expected["encoding"], expected["warnings"])
    assert {str(k): v.hex() for k, v in f.raw_lines.items()} == expected["raw_lines"]
    # every line's bytes come back exactly, whether kept or re-read
    assert b"\n".join(log.raw_line(f.path, n) for n in range(1, f.lines + 1)) == path.read_bytes()


# The triage of every corpus collection and KB sample, reduced to what its reading decides, equals
# triage-digests.json: a faster or leaner reading must not change what a triage finds. Written by
# `python tests/test_golden.py --write`, reviewed as a diff.
DIGESTS = GOLDEN / "triage-digests.json"
ROOT = Path(__file__).resolve().parents[1]


def bundles() -> list[str]:
    """The corpus collections and the KB sample folders, as paths relative to the project."""
    corpus = [f"tests/corpus/{name}" for name in COLLECTIONS]
    return corpus + sorted(p.relative_to(ROOT).as_posix() for p in SAMPLES.glob("*/*") if p.is_dir())


def digest(doc: dict) -> dict:
    """The fields of a triage's JSON that its reading decides: the input's accounting, where the errors, faults
    and incidents are, and what is concluded from them (the wording of findings and fixes left out)."""
    def at(d):
        return None if d is None else [d["file"], d["line"], d.get("src_file"), d.get("src_line")]
    i = doc["input"]
    return {
        "input": {"file_count": i["file_count"], "bytes": i["bytes"], "lines": i["lines"],
                  "lines_unparsed": i["lines_unparsed"], "sources": i.get("sources"),
                  "files": [[f["path"], f["role"], f["node"], f["rank"], f["device"], f["pid"], f["lines"],
                             f["unparsed"], f["first_time"], f["last_time"], f["skipped"], f["warnings"]]
                            for f in i["files"]]},
        "first_error": doc["first_error"],
        "first_errors": [at(e) + [e["code"]] for e in doc["first_errors"]],
        "aicore_faults": [at(a) + [a["device"], a["kernel"], a["error_bits"], a["cores"]]
                          for a in doc["aicore_faults"]],
        "topology": [[p["node"], p["pid"], p["devices"], sorted(p["threads"])] for p in doc["topology"]["processes"]]
        + [doc["topology"]["ranks"]["order"]],
        "incidents": [[n["kind"], n["node"], n["rank"], n["device"], n["pid"], at(n["first"]), n["cascade"], n["roles"]]
                      for n in doc["incidents"]],
        "facts": {k: [v["value"], v["source"]] + (at(v) if v.get("file") else []) for k, v in doc["facts"].items()},
        "coverage": doc["coverage"],
        "unexplained": [[u["template"], u["count"], u["file"], u["line"]] for u in doc["unexplained"]],
        "candidates": [[c["case"], c["verdict"], c["score"]] for c in doc["candidates"][:5]],
        "verdicts": dict(sorted(Counter(c["verdict"] for c in doc["candidates"]).items())),
        "cited": sorted({(e["file"], e["line"]) for c in doc["candidates"] for e in c["for"] + c["against"]
                         if e.get("file")}),
        "diagnosis": doc["diagnosis"],
        "family": doc["family"] and [doc["family"]["id"], doc["family"]["verdict"]],
    }


def digest_of(bundle: str, kb) -> dict:
    """The digest of one bundle's triage, read from the project folder as the command line would."""
    doc = to_dict(triage(ROOT / bundle, kb=kb))
    doc["input"]["paths"] = [bundle]
    return json.loads(json.dumps(digest(doc)))   # tuples as lists, as read back from the file


def test_every_bundle_triages_to_its_reviewed_digest():
    from casebook.knowledge.kb import load_kb
    expected = json.loads(DIGESTS.read_text(encoding="utf-8"))
    assert sorted(expected) == sorted(bundles())
    kb = load_kb()
    changed = {}
    for b in bundles():
        now = digest_of(b, kb)
        if now != expected[b]:
            changed[b] = [k for k in now if now[k] != expected[b].get(k)]
    assert not changed, f"{len(changed)} triage(s) differ from {DIGESTS.name} (bundle: fields): {changed}"


if __name__ == "__main__":
    import sys
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_golden.py --write   (rewrites golden/triage-digests.json)")
    from casebook.knowledge.kb import load_kb
    kb = load_kb()
    DIGESTS.write_text("{\n" + ",\n".join(f"{json.dumps(b)}: {json.dumps(digest_of(b, kb), ensure_ascii=False)}"
                                          for b in bundles()) + "\n}\n", encoding="utf-8")
