"""Unexplained errors: Drain3 templates over ERROR lines only, masked, counted, first occurrence kept; draft
cases made from a template load, pass `kb check` and are indexed apart."""
from __future__ import annotations

import re
import shutil

import pytest
from casebook.judging.contract import to_dict, validate
from casebook.judging.triage import triage
from casebook.judging.unexplained import Template, draft_case, mine, template_regex, write_draft
from casebook.knowledge.checks import check, index_table
from casebook.knowledge.kb import load_kb
from casebook.presenting import walk
from casebook.reading.table import Record
from conftest import ROOT, SAMPLES


def errors(rows: list[tuple]) -> list[Record]:
    """Error records as evidence.errors.records gives them, from (file, line, time, msg)."""
    return [Record(file, line, "plog", level="ERROR", time=time, msg=msg) for file, line, time, msg in rows]


EIGHT = errors([(f"plog-{100 + d}.log", 7, f"2026-01-01T10:00:0{d}.000000",
                 f"[Wait][AllClientSocketEstab]errNo[0x000000000500000b] client : device[{d}] rank[{d}] get socket "
                 f"timeout, total[{d + 2}] remain[{d % 3}]") for d in range(8)]
               + [("plog-100.log", 9, "2026-01-01T09:59:59.000000", "Stream Synchronize failed, retCode=0x26."),
                  ("plog-101.log", 3, "2026-01-01T10:00:09.000000", "   ______________________________"),
                  ("plog-101.log", 4, None, "ErrCode=507015, desc=[aicore exception], InnerCode=0x7150026"),
                  ("plog-102.log", 4, None, "ErrCode=507035, desc=[vector core exception], InnerCode=0x7150031")])


SOCKET = ("[Wait][AllClientSocketEstab]errNo[<HEX>] client : device[<NUM>] rank[<NUM>] get socket timeout, "
          "total[<NUM>] remain[<NUM>]")
AICORE, VECTOR = ("ErrCode=507015, desc=[aicore exception], InnerCode=<HEX>",
                  "ErrCode=507035, desc=[vector core exception], InnerCode=<HEX>")


def test_lines_differing_in_variables_make_one_template():
    # most frequent first, then by first time (untimed last); the banner is no template; runtime codes stay as logged
    assert mine(EIGHT) == [
        Template(SOCKET, 8, "plog-100.log", 7, "2026-01-01T10:00:00.000000",
                 "[Wait][AllClientSocketEstab]errNo[0x000000000500000b] client : device[0] rank[0] get socket timeout, "
                 "total[2] remain[0]"),
        Template("Stream Synchronize failed, retCode=<HEX>.", 1, "plog-100.log", 9, "2026-01-01T09:59:59.000000",
                 "Stream Synchronize failed, retCode=0x26."),
        Template(AICORE, 1, "plog-101.log", 4, None, "ErrCode=507015, desc=[aicore exception], InnerCode=0x7150026"),
        Template(VECTOR, 1, "plog-102.log", 4, None, "ErrCode=507035, desc=[vector core exception], InnerCode=0x7150031")]


def test_decoration_and_explained_lines_are_left_out():
    assert [(t.template, t.count) for t in mine(EIGHT, explained={("plog-100.log", 9)})] == [
        (SOCKET, 8), (AICORE, 1), (VECTOR, 1)]


def test_template_regex_matches_its_lines():
    top = mine(EIGHT)[0]
    rx = re.compile(template_regex(top.template))
    assert all(rx.search(r.msg) for r in EIGHT[:8])
    assert not rx.search("ErrCode=507015, desc=[aicore exception]")


@pytest.fixture
def kb_copy(tmp_path):
    """A copy of the project's knowledge base (cases, codes, README; samples left out)."""
    root = tmp_path / "kb"
    for part in ("cases", "codes", "families"):
        shutil.copytree(ROOT / "kb" / part, root / part)
    shutil.copy(ROOT / "kb" / "README.md", root / "README.md")
    (root / "samples").mkdir()
    for case in (ROOT / "kb" / "samples").iterdir():   # the samples check only needs the folder names
        for sample in case.iterdir():
            (root / "samples" / case.name / sample.name).mkdir(parents=True)
            shutil.copy(sample / "expect.yaml", root / "samples" / case.name / sample.name / "expect.yaml")
    return root


def test_a_draft_from_a_template_loads_and_is_indexed_apart(kb_copy):
    top = mine(EIGHT)[0]
    path = write_draft(top, "hccl-client-socket-wait", kb_copy)
    kb = load_kb(kb_copy)
    case = kb.cases["hccl-client-socket-wait"]
    assert case.status == "draft" and not kb.problems
    assert case.signatures[0].field == "message" and re.search(str(case.signatures[0].value), top.text)
    assert "plog-100.log:7" in case.sections["Symptom"]
    problems = check(kb_copy)
    # a draft needs no samples yet; what it still lacks is reported as one problem of its own
    assert [p.message for p in problems if ("samples" in p.message or "references" in p.message)
            and not p.message.startswith("draft case:")] == []
    assert any(p.file == "kb/README.md" and "draft index" in p.message for p in problems)   # not indexed yet
    readme = kb_copy / "README.md"
    text = readme.read_text(encoding="utf-8")
    start, end = text.index("<!-- drafts:start -->"), text.index("<!-- drafts:end -->")
    readme.write_text(text[:start] + "<!-- drafts:start -->\n" + index_table(kb, "draft") + "\n" + text[end:])
    assert [(p.file, p.message) for p in check(kb_copy)] == [
        ("kb/cases/hccl-client-socket-wait.md",
         "draft case: write fix.workaround, fix.confirm, references, then verify it with samples")]
    assert "hccl-client-socket-wait" not in index_table(kb, "verified")
    with pytest.raises(FileExistsError, match=r"cases/hccl-client-socket-wait.md: a case with this id exists$"):
        write_draft(top, "hccl-client-socket-wait", kb_copy)
    assert path.name == "hccl-client-socket-wait.md"


def test_draft_ids_are_checked():
    with pytest.raises(ValueError, match="^case id 'Not An Id': use lowercase words joined by '-'$"):
        draft_case(Template("x <NUM>", 1, "f.log", 1, None, "x 1"), "Not An Id")


def test_triage_json_lists_unexplained_templates():
    sample = SAMPLES / "hccl-socket-timeout" / "negative-rank0-oom"
    doc = to_dict(triage(sample))
    validate(doc)
    cov, rest = doc["coverage"], doc["unexplained"]
    assert doc["diagnosis"] == "npu-out-of-memory"
    assert cov["explained"] >= 1 and rest
    assert sum(u["count"] for u in rest) <= cov["error_lines"] - cov["explained"]
    link = next(u for u in rest if "no connect" in u["template"])
    assert link["count"] == 7 and re.search(template_regex(link["template"]), link["text"])


def test_a_draft_case_text_exactly():
    t = Template("socket wait <NUM> ms", 2, "plog.log", 7, "2026-01-01T00:00:00", "socket wait 30 ms")
    assert draft_case(t, "socket-wait") == (
        "---\nid: socket-wait\ntitle: 'Draft: socket wait <NUM> ms'\ntitle_zh: ''\nstatus: draft\nseverity: medium\n"
        "action: collect-more\nsummary: 'Unexplained error seen 2 time(s): socket wait <NUM> ms'\ncomponents: []\n"
        "codes: []\nsignatures:\n- id: template\n  field: message\n  regex: socket\\s+wait\\s+\\S+\\s+ms\n  key: true\n"
        "  weight: 3\n  why: The error lines this draft was made from.\nrequires: []\nagainst: []\nfix:\n"
        "  workaround: ''\n  confirm: ''\nreferences: []\n---\n\n## Symptom\n\n2 unexplained error line(s) of this "
        "form, first at plog.log:7 at 2026-01-01T00:00:00:\n\n```\nsocket wait 30 ms\n```\n\nTemplate: "
        "`socket wait <NUM> ms`\n\n## Root cause\n\nNot known yet. This draft was made from an error that no case of "
        "the knowledge base explained.\n\n## How to confirm\n\nNot written yet.\n\n## Fix\n\nNot written yet.\n\n"
        "## Confirming the fix\n\nNot written yet.\n\n## References\n\nNone yet; a verified case cites public "
        "sources.\n")
    untimed = draft_case(Template("x <NUM>", 1, "f.log", 1, None, "x 1"), "x-1")
    assert "first at f.log:1:\n" in untimed
    long = draft_case(Template("w" * 300, 1, "f.log", 1, None, "w"), "long")
    assert f"title: 'Draft: {'w' * 100}'\n" in long and f"time(s): {'w' * 160}'\n" in long


def test_a_draft_keeps_chinese_as_it_is_and_folds_its_front_matter_past_110_columns():
    zh = draft_case(Template("设备 <NUM> 心跳丢失", 1, "f.log", 1, None, "设备 3 心跳丢失"), "heartbeat-lost")
    assert "title: 'Draft: 设备 <NUM> 心跳丢失'\n" in zh
    words = "x " + " ".join(["abcdefghij"] * 20)
    folded = draft_case(Template(words, 1, "f.log", 1, None, words), "wide")
    # the break falls at the first space past column 110
    assert ("summary: 'Unexplained error seen 1 time(s): x" + " abcdefghij" * 6 + "\n  abcdefghij") in folded


def test_blank_lines_are_no_template_and_a_timed_line_comes_before_an_untimed_one():
    rows = errors([("a.log", 1, None, "disk full on /data/x"),
                   ("b.log", 2, "2026-01-01T10:00:00", "disk full on /data/y"), ("b.log", 3, "2026-01-01T10:00:01", "   ")])
    assert mine(rows) == [Template("disk full on <PATH>", 2, "b.log", 2, "2026-01-01T10:00:00", "disk full on /data/y")]


def test_a_faults_own_dump_belongs_to_the_fault_and_other_errors_near_it_do_not():
    from types import SimpleNamespace

    from casebook.judging.unexplained import dump_lines
    fault = SimpleNamespace(refs=[SimpleNamespace(file="plog-1.log", line=100), SimpleNamespace(file="plog-1.log", line=104)])
    rows = errors([("plog-1.log", 95, None, "report error module_type=5, module_name=EZ9999, blockDim=48"),
                   ("plog-1.log", 106, None, "[AIC_INFO] args after execute: 2006, 0, 64, 0"),
                   ("plog-1.log", 140, None, "Stream Synchronize failed, retCode=0x26."),   # the fault's fallout
                   ("plog-1.log", 300, None, "[AIC_INFO] args after execute: 1, 2"),           # too far
                   ("plog-2.log", 106, None, "[AIC_INFO] args after execute: 1, 2")])          # another file
    assert set(dump_lines(rows, [fault])) == {("plog-1.log", 95), ("plog-1.log", 106)}
    assert dump_lines(rows, []) == {}
    # the span's edges: DUMP_BEFORE lines before the first line of the report and DUMP_AFTER after its last
    from casebook.judging.unexplained import DUMP_AFTER, DUMP_BEFORE
    edges = errors([("plog-1.log", 100 - DUMP_BEFORE, None, "[AIC_INFO] args before execute: 1"),
                    ("plog-1.log", 99 - DUMP_BEFORE, None, "[AIC_INFO] args before execute: 2"),
                    ("plog-1.log", 104 + DUMP_AFTER, None, "[AIC_INFO] args after execute: 3"),
                    ("plog-1.log", 105 + DUMP_AFTER, None, "[AIC_INFO] args after execute: 4")])
    assert set(dump_lines(edges, [fault])) == {("plog-1.log", 100 - DUMP_BEFORE), ("plog-1.log", 104 + DUMP_AFTER)}


def test_the_json_and_the_walk_state_one_coverage():
    t = triage(SAMPLES / "hccl-socket-timeout" / "negative-rank0-oom")
    explained, rest = t.coverage()
    doc = to_dict(t)
    assert doc["coverage"] == {"error_lines": t.evidence.error_lines, "explained": len(explained)}
    assert [(u["template"], u["count"]) for u in doc["unexplained"]] == [(u.template, u.count) for u in rest]
    root = next(s for s in walk.build(t) if s.key == "root_cause")
    said = f"the matched cases explain {len(explained)} of {t.evidence.error_lines} error lines"
    assert sum(said in f for f in root.findings) == 1
