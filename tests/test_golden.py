"""Golden file: the records of tests/golden/forms.log equal tests/golden/forms.json (reviewed by hand)."""
import json
from pathlib import Path

from casebook.plog import read_plog

GOLDEN = Path(__file__).parent / "golden"


def records_of(path: Path) -> list[dict]:
    """The log table of one file as plain dicts (None for absent fields)."""
    df = read_plog(path).records
    return [{k: (None if v is None or v != v else (int(v) if k in ("line", "pid") else v)) for k, v in row.items()}
            for row in df.to_dict("records")]


def test_forms_match_the_golden_records():
    expected = json.loads((GOLDEN / "forms.json").read_text(encoding="utf-8"))
    assert records_of(GOLDEN / "forms.log") == expected
