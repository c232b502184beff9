"""kb/README.md indexes every case as its file says: verified cases in one table, drafts apart."""
from __future__ import annotations

import re
import shutil

from casebook.knowledge.checks import check_index, index_table
from casebook.knowledge.kb import load_kb
from conftest import ROOT

README = ROOT / "kb" / "README.md"


def rows(text: str, start: str, end: str) -> list[list[str]]:
    """The data rows of the table between two markers, as cells."""
    block = text[text.index(start) + len(start):text.index(end)]
    lines = [ln for ln in block.strip().splitlines()[2:]]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", ln.strip())[1:-1]] for ln in lines]


def test_index_lists_every_verified_case_with_its_symptom_and_codes():
    kb = load_kb()
    table = rows(README.read_text(encoding="utf-8"), "<!-- index:start -->", "<!-- index:end -->")
    verified = sorted(c.id for c in kb.cases.values() if c.status == "verified")
    assert [r[0] for r in table] == verified and len(verified) >= 16
    for case_id, symptom, codes in table:
        case = kb.cases[case_id]
        assert symptom.replace("\\|", "|") == case.summary   # a pipe in the summary is escaped in its cell
        assert codes == (", ".join(case.codes) or "-")
    assert check_index(kb) == []


def test_drafts_are_listed_apart():
    kb = load_kb()
    drafts = rows(README.read_text(encoding="utf-8"), "<!-- drafts:start -->", "<!-- drafts:end -->")
    assert [r[0] for r in drafts] == sorted(c.id for c in kb.cases.values() if c.status == "draft")


def test_a_stale_index_is_reported_with_its_line(tmp_path):
    root = tmp_path / "kb"
    shutil.copytree(ROOT / "kb" / "cases", root / "cases")
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    n = next(i for i, ln in enumerate(lines) if ln.startswith("| npu-out-of-memory |"))
    lines[n] = "| npu-out-of-memory | something else | - |"
    (root / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = check_index(load_kb(root))
    assert [(p.file, p.line) for p in problems] == [("kb/README.md", n + 1)]
    assert "| npu-out-of-memory | RuntimeError" in problems[0].message


def test_an_index_row_for_a_removed_case_is_reported(tmp_path):
    root = tmp_path / "kb"
    shutil.copytree(ROOT / "kb" / "cases", root / "cases")
    (root / "cases" / "visible-devices-misconfigured.md").unlink()
    shutil.copy(README, root / "README.md")
    problems = check_index(load_kb(root))
    assert problems and "visible-devices-misconfigured" not in index_table(load_kb(root), "verified")
    assert all(p.file == "kb/README.md" and p.line > 1 for p in problems)
