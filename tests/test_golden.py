"""Golden files: the records read from tests/golden/*.log equal the *.json beside them (reviewed by hand)."""
import json
from pathlib import Path

from casebook.reading.plog import read_plog

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
