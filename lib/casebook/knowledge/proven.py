"""Which cases are proven on real tickets: the cases the triage names, rightly, for at least one real capture.

A case proved only on the sample written with it proves what its author already knew; a real capture whose source
states that cause, read right, is the evidence that it generalises. The list is data (kb/proven.yaml), written by
`casebook kb accuracy FOLDER --write-proven` from the triage of the captures, and a test of the capture set holds it
to what the triage answers today.
"""
from __future__ import annotations

from pathlib import Path

import yaml

#: The file of the proven cases, beside cases/ and families/.
FILE = "proven.yaml"
HEADER = ("# Cases right on at least one real capture (tests/captures): case id -> the captures whose stated cause\n"
          "# it is and that the triage names it for. Written by `casebook kb accuracy tests/captures --write-proven`;\n"
          "# tests/test_captures.py checks it against the triage of every capture.\n")


def load(root: Path) -> dict[str, tuple[str, ...]]:
    """case id -> the capture folders it is proven on; empty when the file is absent."""
    path = root / FILE
    if not path.is_file():
        return {}
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {str(case): tuple(str(c) for c in captures or ()) for case, captures in (doc.get("cases") or {}).items()}


def dump(proven: dict[str, tuple[str, ...]]) -> str:
    """The file's text, cases and captures sorted (a rewrite with nothing new changes no line)."""
    body = {"cases": {case: sorted(proven[case]) for case in sorted(proven)}}
    return HEADER + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=120)
