"""The knowledge base loads clean, and every problem in a bad file is reported with its file and line."""
import re

from casebook.cli import main
from casebook.kb import load_kb
from casebook.kb_checks import check
from conftest import ROOT

GOOD_CASE = (ROOT / "kb" / "cases" / "task-queue-shared-cache-race.md").read_text(encoding="utf-8")


def test_project_kb_is_clean_and_complete():
    kb = load_kb()
    assert kb.problems == []
    case = kb.cases["task-queue-shared-cache-race"]
    assert case.title_zh and case.status == "verified"
    assert {"EZ9999", "507015", "0x26", "CCU_BUS_ERR"} <= set(kb.codes)
    assert list(case.sections)[:5] == ["Symptom", "Root cause", "How to confirm", "Fix", "Confirming the fix"]
    assert "TASK_QUEUE_ENABLE=2" in case.fix["workaround"]
    assert check() == []


def test_kb_check_command_exits_0_on_the_project_kb(capsys):
    assert main(["kb", "check"]) == 0
    assert "0 problem(s)" in capsys.readouterr().out


def _bad_kb(tmp_path):
    (tmp_path / "kb" / "cases").mkdir(parents=True)
    (tmp_path / "kb" / "codes").mkdir()
    text = GOOD_CASE.replace("field: error_bits", "field: error_bitz", 1).replace('regex: "^FlashAttention"',
                                                                                   'regex: "^(Flash"', 1)
    text = text.replace("severity: high", "severity: urgent\ncolour: red")
    (tmp_path / "kb" / "cases" / "renamed.md").write_text(text, encoding="utf-8")
    (tmp_path / "kb" / "cases" / "broken.md").write_text("---\nid: broken\ntitle: [unclosed\n---\n", encoding="utf-8")
    return tmp_path / "kb", text.splitlines()


def test_problems_carry_file_and_line(tmp_path):
    root, lines = _bad_kb(tmp_path)
    problems = check(root)
    by_msg = {p.message.split(" ")[0] + p.message[-12:]: p for p in problems}
    def line_of(fragment):
        return next(i for i, l in enumerate(lines, start=1) if fragment in l)
    found = {(p.file, p.line) for p in problems}
    assert ("kb/cases/renamed.md", line_of("severity: urgent")) in found
    assert ("kb/cases/renamed.md", line_of("colour: red")) in found
    sig_line = line_of("field: error_bitz") - 1        # the signature item starts on its "- id:" line
    assert any(p.line == sig_line and "field must be one of" in p.message for p in problems)
    assert any("regex does not compile" in p.message for p in problems)
    assert any(p.file == "kb/cases/renamed.md" and "differs from the file name" in p.message for p in problems)
    assert any(p.file == "kb/cases/broken.md" and "not valid YAML" in p.message and p.line >= 2 for p in problems)
    assert any("has no page kb/codes/EZ9999.md" in p.message for p in problems)
    assert all(re.match(r"^kb/\S+:\d+: ", str(p)) for p in problems), by_msg


def test_kb_check_command_exits_1_on_problems(tmp_path, capsys):
    root, _ = _bad_kb(tmp_path)
    assert main(["kb", "check", "--root", str(root)]) == 1
    assert "problem(s)" in capsys.readouterr().out
