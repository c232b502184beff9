"""The knowledge base loads clean, and every problem in a bad file is reported with its file and line."""
import csv
import hashlib
import os
import pickle
import re
import shutil
from dataclasses import replace

import yaml
from casebook.cli import main
from casebook.judging.observed import Observation
from casebook.judging.ranking import CONFIRMED, POSSIBLE, judge
from casebook.judging.triage import triage
from casebook.knowledge.checks import (check, check_bit_cases, check_case_ids, check_chinese, check_code_links,
                                      check_code_pages, check_drafts, check_families, check_index, check_references,
                                      check_samples, index_table)
from casebook.knowledge.kb import CodePage, Family, KnowledgeBase, KnownCase, Problem, default_root, load_kb
from casebook.knowledge.rules import Condition, Signature
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
    def line_of(fragment):
        return next(i for i, l in enumerate(lines, start=1) if fragment in l)
    case, renamed = "task-queue-shared-cache-race", "kb/cases/renamed.md"
    assert [(p.file, p.line, p.message) for p in check(root)] == [
        ("kb/cases/broken.md", 4, "front matter is not valid YAML: did not find expected ',' or ']'"),
        (renamed, line_of("colour: red"), "unknown key 'colour'"),
        (renamed, line_of("severity: urgent"), "severity must be one of low, medium, high, critical, not 'urgent'"),
        # a signature's problems stand on its "- id:" line
        (renamed, line_of("field: error_bitz") - 1, "field must be one of aicore_fault, error_bits, op, kernel, code, "
                                                    "message, function, source, pc_verdict, rejected, rejected_rule, fact, not 'error_bitz'"),
        (renamed, line_of('regex: "^(Flash"') - 2, "regex does not compile: missing ), unterminated subpattern at "
                                                   "position 1"),
        (renamed, 2, f"id '{case}' differs from the file name 'renamed'"),
        (renamed, 1, "family 'aicore-exception' has no page kb/families/aicore-exception.md"),
        *[(renamed, 1, f"code '{c}' has no page kb/codes/{c}.md and no table row")
          for c in ("EZ9999", "507015", "0x26", "CCU_BUS_ERR")],
        (renamed, 1, f"verified case has no positive sample (kb/samples/{case}/positive-<name>/)"),
        (renamed, 1, f"verified case has no negative sample (kb/samples/{case}/negative-<name>/)"),
        ("kb/cases/broken.md", 1, "draft case: write signatures, fix.workaround, fix.confirm, references, then verify "
                                  "it with samples"),
        ("kb/README.md", 1, "kb/README.md is missing")]


def test_kb_check_command_exits_1_on_problems(tmp_path, capsys):
    root, _ = _bad_kb(tmp_path)
    assert main(["kb", "check", "--root", str(root)]) == 1
    assert "problem(s)" in capsys.readouterr().out


# --- the sixteen cases, the code pages, and the rules added with them -------------------------------

CASE_IDS = {"task-queue-shared-cache-race", "aicore-out-of-range-access", "aicore-kernel-execution-timeout",
            "aicore-illegal-instruction", "aicpu-kernel-rejects-input", "hccl-notify-wait-timeout", "hccl-socket-timeout",
            "roce-cqe-link-error", "npu-out-of-memory", "driver-memory-allocation-failure", "device-heartbeat-lost",
            "hbm-ecc-hardware-fault", "op-binary-not-found", "aclnn-tiling-unsupported-shape",
            "visible-devices-misconfigured", "sdma-unmapped-address"}
ECODES = {"EZ9999", "EZ1001", "EE9999", "EE1001", "EE1002", "EH9999", "EI0002", "EI0006", "EI0011", "EI0013",
          "EL0001", "EL0004", "E19999"}
RUNTIME = {"107022", "207001", "507010", "507013", "507015", "507018", "507035", "507048", "507053", "507054",
           "507899"}
RETCODES = {"0x25", "0x26", "0x27", "0x28", "0x2a", "0x2b", "0x2c", "0x2f", "0x30", "0x31", "0x32", "0x33", "0x34",
            "0x35", "0x58", "0x5a", "0x5b", "0x5c", "0x5d", "0x7b"}


def test_the_sixteen_cases_are_verified_and_complete():
    kb = load_kb()
    assert CASE_IDS <= set(kb.cases)   # the founding sixteen stay; every verified case added since must be complete too
    for case in kb.cases.values():
        assert case.status == "verified" and case.title_zh and case.summary and case.references, case.id
        assert case.severity and case.action and case.signatures and {"workaround", "confirm"} <= set(case.fix)
        assert any(s.key for s in case.signatures), case.id
        assert list(case.sections)[:6] == ["Symptom", "Root cause", "How to confirm", "Fix", "Confirming the fix",
                                           "References"], case.id


def test_code_pages_cover_the_issue_list():
    kb = load_kb()
    assert ECODES <= {c for c, p in kb.codes.items() if p.kind == "ecode"}
    assert RUNTIME <= {c for c, p in kb.codes.items() if p.kind == "runtime"}
    assert RETCODES <= {c for c, p in kb.codes.items() if p.kind == "retcode"}
    assert kb.codes["0x2a"].table == "retcodes" and kb.codes["0x26"].table is None   # 0x26 keeps its own page


def test_every_error_bit_has_a_meaning_of_ours():
    kb = load_kb()
    with open(ROOT / "lib" / "casebook" / "knowledge" / "data" / "aicore-error-bits-910b.tsv", encoding="utf-8") as f:
        names = [r["name"] for r in csv.DictReader(f, delimiter="\t")]
    assert len(names) == 176
    for name in names:
        page = kb.codes[name]
        assert page.kind == "errcode_bit" and len(page.meaning) > 20, name
    row = kb.codes["MTE_GDMA_WRITE_OVERFLOW"]
    assert row.table == "errcode-bits" and row.extra["mask"] == "0x200000000" and row.extra["word"] == "a"
    assert "aicore-out-of-range-access" in row.cases and row.line > 1
    assert kb.codes["CCU_BUS_ERR"].table is None


def test_a_case_keyed_on_error_bits_alone_needs_a_fact_that_can_confirm_it():
    kb = load_kb()
    assert check_bit_cases(kb) == []
    illegal = kb.cases["aicore-illegal-instruction"]
    kb.cases[illegal.id] = replace(illegal, supports=[])
    assert [(p.file, p.line, p.message) for p in check_bit_cases(kb)] == [
        ("kb/cases/aicore-illegal-instruction.md", 1, "every key signature is an error bit, which names the kind of "
         "fault and not its cause: add a `requires` or `supports` fact that tells this cause from the others")]
    kb.cases[illegal.id] = replace(illegal, supports=[], requires=illegal.supports[:1])
    assert check_bit_cases(kb) == []
    trap = kb.cases["aicore-kernel-trap"]                     # keyed on its retCode, not on a bit: no fact needed
    kb.cases[trap.id] = replace(trap, supports=[])
    assert check_bit_cases(kb) == []
    family = kb.families["aicore-exception"]
    kb.families[family.id] = replace(family, signatures=illegal.signatures)
    assert [(p.file, p.line, p.message) for p in check_bit_cases(kb)] == [
        ("kb/families/aicore-exception.md", 1, "every key signature is an error bit, and a family has no fact to "
         "confirm it with: key it on the fault report or the code that places a failure in it")]


def test_a_table_row_out_of_step_is_reported_at_its_line(tmp_path):
    root = tmp_path / "kb"
    shutil.copytree(ROOT / "kb" / "cases", root / "cases")
    shutil.copytree(ROOT / "kb" / "codes", root / "codes")
    page = root / "codes" / "errcode-bits.md"
    lines = page.read_text(encoding="utf-8").splitlines()
    n = next(i for i, ln in enumerate(lines) if "`VEC_UB_WRAP_AROUND`" in ln)
    lines[n] = lines[n].replace("aicore-out-of-range-access", "npu-out-of-memory")
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = check_code_links(load_kb(root))
    assert ("kb/codes/errcode-bits.md", n + 1) in {(p.file, p.line) for p in problems}
    assert any("does not list case 'aicore-out-of-range-access'" in p.message for p in problems)
    assert any("lists case 'npu-out-of-memory'" in p.message for p in problems)


def test_sample_rules(tmp_path):
    kb = KnowledgeBase(root=tmp_path / "kb", families={"fam": Family("fam", "kb/families/fam.md")},
                       cases={"ok": KnownCase("ok", "kb/cases/ok.md", status="verified"),
                              "half": KnownCase("half", "kb/cases/half.md", status="verified"),
                              "draft": KnownCase("draft", "kb/cases/draft.md")})
    expects = {"ok/positive-a": "runs:\n- {diagnosis: ok, verdicts: {ok: confirmed}}\n",
               "ok/negative-b": "runs:\n- {diagnosis: null}\n",
               "ok/negative-c": "runs:\n- {diagnosis: [unclosed\n",
               "ok/positive-d": "runs: []\n",
               "half/positive-only": "runs:\n- {diagnosis: no-such-case, verdicts: {ghost: possible}}\n",
               "_unknown/odd": "runs:\n- {diagnosis: null}\n- {diagnosis: ok}\n",
               "fam/family-1": "runs:\n- {family: fam}\n",
               "fam/family-2": "runs:\n- {family: other, diagnosis: ok}\n",
               "fam/family-3": "runs:\n- {family: fam, diagnosis: ok}\n",
               "ok/positive-e": "- a list, not a mapping\n",
               "retired-case/positive-x": None}
    for rel, text in expects.items():
        (kb.root / "samples" / rel).mkdir(parents=True)
        if text is not None:
            (kb.root / "samples" / rel / "expect.yaml").write_text(text, encoding="utf-8")
    (kb.root / "samples" / "ok" / "notes.txt").write_text("a file, not a sample\n", encoding="utf-8")
    at = "kb/samples/{}/expect.yaml".format
    # a YAML error is named by the parser's first words and the line it stopped at
    assert [(p.file, p.line, p.message.split("\n")[0]) for p in check_samples(kb)] == [
        ("kb/samples/retired-case", 1, "samples of an unknown case or family"),
        ("kb/cases/half.md", 1, "verified case has no negative sample (kb/samples/half/negative-<name>/)"),
        (at("_unknown/odd"), 1, "run 2: a sample of an unknown failure expects no diagnosis"),
        (at("fam/family-2"), 1, "run 1 names unknown family 'other'"),
        (at("fam/family-2"), 1, "run 1: a family's sample expects no diagnosis and family: fam"),
        (at("fam/family-3"), 1, "run 1: a family's sample expects no diagnosis and family: fam"),
        (at("half/positive-only"), 1, "run 1 names unknown case 'no-such-case'"),
        (at("half/positive-only"), 1, "run 1 names unknown case 'ghost'"),
        (at("ok/negative-c"), 3, "not valid YAML: while parsing a flow sequence"),
        (at("ok/positive-d"), 1, "expect.yaml needs a non-empty 'runs' list"),
        (at("ok/positive-e"), 1, "expect.yaml needs a non-empty 'runs' list"),
        (at("retired-case/positive-x"), 1, "sample has no expect.yaml")]


def test_signature_schema_problems_carry_lines(tmp_path):
    root = tmp_path / "kb"
    (root / "cases").mkdir(parents=True)
    (root / "codes").mkdir()
    text = (ROOT / "kb" / "cases" / "hccl-socket-timeout.md").read_text(encoding="utf-8")
    text = text.replace("    group: link\n    key: true", "    group: link\n    colour: red\n    key: true", 1)
    text = text.replace('    why: "A rank logged its own device', '    note: "A rank logged its own device', 1)
    (root / "cases" / "hccl-socket-timeout.md").write_text(text, encoding="utf-8")
    kb = load_kb(root)
    lines = text.splitlines()
    first_sig = next(i for i, ln in enumerate(lines, 1) if ln.strip() == "- id: ei0006")
    contra = next(i for i, ln in enumerate(lines, 1) if ln.strip() == "- id: device_or_process_failure")
    found = {(p.line, p.message.split(" (")[0].split(" [")[0]) for p in kb.problems}
    assert (first_sig, "unknown signature key(s)") in found
    assert any(p.line == contra and "needs a 'why'" in p.message for p in kb.problems)


def test_a_term_stands_for_its_words_and_an_unknown_or_malformed_one_is_a_problem_at_its_line(tmp_path):
    root = tmp_path / "kb"
    (root / "cases").mkdir(parents=True)
    (root / "codes").mkdir()
    source = (ROOT / "kb" / "cases" / "python-package-version-incompatible.md").read_text(encoding="utf-8")
    (root / "cases" / "python-package-version-incompatible.md").write_text(source, encoding="utf-8")
    (sig,) = [s for s in load_kb(root).cases["python-package-version-incompatible"].signatures
              if s.id == "third_party_name_missing"]
    assert "<<" not in sig.value and "google\\.protobuf" in sig.value
    assert sig.pattern.search("ImportError: cannot import name 'is_npu_available' from 'accelerate.utils'")
    assert sig.pattern.search("AttributeError: 'tokenizers.AddedToken' object has no attribute 'special'")
    assert not sig.pattern.search("cannot import name 'x' from 'torch_npu.utils'")   # not a listed package

    unknown = source.replace("'<<third_party>>(?:\\\\.\\\\w+)+' object", "'<<packages>>(?:\\\\.\\\\w+)+' object", 1)
    assert unknown != source
    (root / "cases" / "python-package-version-incompatible.md").write_text(unknown, encoding="utf-8")
    line = next(i for i, ln in enumerate(unknown.splitlines(), 1) if ln.strip() == "- id: third_party_name_missing")
    assert (line, "regex names terms neither the document's `terms` nor the shared ones hold: packages") in {
        (p.line, p.message) for p in load_kb(root).problems}

    malformed = source.replace("  third_party: [", "  third-party: [", 1)
    (root / "cases" / "python-package-version-incompatible.md").write_text(malformed, encoding="utf-8")
    terms_line = next(i for i, ln in enumerate(malformed.splitlines(), 1) if ln == "terms:")
    messages = {(p.line, p.message) for p in load_kb(root).problems}
    assert (terms_line, "terms map a name (letters, digits, _) to a list of words") in messages


def test_a_shared_term_is_named_by_any_document_and_redefining_it_is_a_problem(tmp_path):
    root = tmp_path / "kb"
    (root / "cases").mkdir(parents=True)
    (root / "codes").mkdir()
    source = (ROOT / "kb" / "cases" / "python-package-not-installed.md").read_text(encoding="utf-8")
    assert "<<cann_python_packages>>" in source   # a shared term (knowledge/terms.py), not one of the document's
    (root / "cases" / "python-package-not-installed.md").write_text(source, encoding="utf-8")
    kb = load_kb(root)
    assert not kb.problems
    (sig,) = [s for s in kb.cases["python-package-not-installed"].signatures if s.id == "resolver_requirement_not_installed"]
    assert sig.pattern.search("spyder 5.2.2 requires pyqtwebengine<5.13, which is not installed.")
    assert not sig.pattern.search("te 0.4.0 requires decorator, which is not installed.")   # CANN's own package

    redefined = source.replace("codes: []", "terms:\n  cann_python_packages: [te]\ncodes: []", 1)
    assert redefined != source
    (root / "cases" / "python-package-not-installed.md").write_text(redefined, encoding="utf-8")
    terms_line = next(i for i, ln in enumerate(redefined.splitlines(), 1) if ln == "terms:")
    assert (terms_line, "term 'cann_python_packages' is a shared term (knowledge/terms.py): name it, do not redefine "
                        "it") in {(p.line, p.message) for p in load_kb(root).problems}


def _obs(*items) -> list[Observation]:
    return [Observation(f, v, str(v), "plog.log", i + 1) for i, (f, v) in enumerate(items)]


def test_grouped_alternatives_score_once_and_contradictions_cap_the_verdict():
    case = load_kb().cases["hccl-socket-timeout"]
    both = _obs(("code", "EI0006"), ("message", "| 1.2.3.4(1) | 1.2.3.5(0) | client | no connect |"))
    one = _obs(("message", "| 1.2.3.4(1) | 1.2.3.5(0) | client | no connect |"),
               ("message", "[Create][InnerComm]tag[x], created commHD fail"))
    h_both, h_one = judge(case, both, {}), judge(case, one, {})
    assert h_both.verdict == CONFIRMED and h_one.verdict == CONFIRMED
    assert h_one.score == 1.0 and h_both.score == 0.75        # the link group counts once: 3 of 4
    assert h_one.explains == {("plog.log", 1), ("plog.log", 2)}
    fallout = one + _obs(("message", "RuntimeError: NPU out of memory. Tried to allocate 3.91 GiB"))
    h = judge(case, fallout, {})
    assert h.verdict == POSSIBLE and [i.id for i in h.against] == ["device_or_process_failure"]
    assert judge(case, _obs(("message", "nothing to see")), {}) is None


def test_no_bit_set_is_an_observation():
    from casebook.evidence.items import AicoreFault
    from casebook.judging.observed import observations
    fault = AicoreFault(file="p.log", line=3, time=None, node=None, pid=1, device=0, serial=1, cores=[0],
                        wording="aicore error", pc_start_raw=None, current_raw=None, error_code=0, errcode=(0, 0, 0))
    base = triage(ROOT / "kb" / "samples" / "_unknown" / "scatter-list-size").evidence
    ev = replace(base, aicore_faults=[fault])
    obs = observations(ev, [])
    assert ("error_bits", "none") in {(o.field, o.value) for o in obs}


def small_checked_kb(tmp_path) -> KnowledgeBase:
    """A made-up knowledge base with one slip of each kind the per-rule checks look for, in a known order."""
    asked = Condition("TASK_QUEUE_ENABLE", "equals", "1", ask="queue?", ask_zh="队列?")
    fix = {"workaround": "w", "confirm": "c"}
    cases = {
        "draft-first": KnownCase("draft-first", "cases/draft-first.md", status="draft"),
        "ok": KnownCase("ok", "cases/ok.md", status="verified", family="fam", title_zh="好", summary_zh="好",
                        requires=[asked], fix=fix, fix_zh=fix, references=[{"url": "u"}]),
        "slips": KnownCase("slips", "cases/renamed.md", status="verified", family="", fix=fix, fix_zh={"confirm": "c"},
                           requires=[Condition("TASK_QUEUE_ENABLE", "equals", "1", ask="queue?")],
                           supports=[Condition("ASCEND_LAUNCH_BLOCKING", "equals", "1", ask="blocking?")]),
        "lost": KnownCase("lost", "cases/lost.md", status="verified", family="gone", title_zh="失", summary_zh="失",
                          references=[{"url": "u"}],
                          against=[Condition("single_process_multi_device", "equals", True, why="w")]),
        "draft-done": KnownCase("draft-done", "cases/draft-done.md", signatures=[Signature("s", "code", "equals", "1",
                                1, True, "w")], fix=fix, references=[{"url": "u"}]),
        "draft-half": KnownCase("draft-half", "cases/draft-half.md", signatures=[Signature("s", "code", "equals", "1",
                                1, True, "w")], fix={"workaround": " ", "confirm": "c"}, references=[{"url": "u"}]),
    }
    families = {"fam": Family("fam", "families/fam.md", title_zh="族", summary_zh="族", causes=["ok", "lost"],
                              questions=[Condition("torch_npu_version", "asks", None, "version?")]),
                "empty": Family("empty", "families/empty.md", title_zh="空", summary_zh="空", causes=["draft-first"])}
    codes = {"507015": CodePage("507015", "codes/507016.md"), "1041": CodePage("1041", "codes/hccl.md", table="hccl"),
             "EZ9999": CodePage("EZ9999", "codes/EZ9999.md")}
    return KnowledgeBase(root=tmp_path / "kb", cases=cases, families=families, codes=codes)


def test_each_rule_check_names_its_file_line_and_slip_exactly(tmp_path):
    kb = small_checked_kb(tmp_path)
    assert check_case_ids(kb) == [Problem("cases/renamed.md", 2, "id 'slips' differs from the file name 'renamed'")]
    assert check_families(kb) == [
        Problem("cases/renamed.md", 1, "a verified case names its family (family: <id>)"),
        Problem("cases/lost.md", 1, "family 'gone' has no page kb/families/gone.md"),
        Problem("cases/lost.md", 1, "fact 'single_process_multi_device' rules the case out but nothing asks for it: "
                                    "add a question to families/fam.md or an ask to the case"),
        Problem("families/empty.md", 1, "a family lists no verified root cause (no case names it)")]
    assert check_chinese(kb) == [Problem("cases/renamed.md", 1, f"no Chinese text: {m}") for m in (
        "title_zh", "summary_zh", "fix_zh.workaround", "ask_zh of TASK_QUEUE_ENABLE", "ask_zh of ASCEND_LAUNCH_BLOCKING")
    ] + [Problem("families/fam.md", 1, "no Chinese text: ask_zh of torch_npu_version")]
    assert check_code_pages(kb) == [Problem("codes/507016.md", 2, "code '507015' differs from the file name '507016'")]
    assert check_drafts(kb) == [
        Problem("cases/draft-first.md", 1, "draft case: write signatures, fix.workaround, fix.confirm, references, "
                                           "then verify it with samples"),
        Problem("cases/draft-half.md", 1, "draft case: write fix.workaround, then verify it with samples")]
    assert check_references(kb) == [Problem("cases/renamed.md", 1, "case has no references")]


FAMILY_PAGE = """---
id: fam
title: Fam title
title_zh: 族
summary: Fam summary
summary_zh: 族概要
signatures:
  - {id: s1, field: message, contains: boom, weight: 2, why: w, group: g}
contradicted_by:
  - {id: nope, field: code, equals: "1", why: elsewhere}
questions:
  - {fact: TASK_QUEUE_ENABLE, ask: "queue?", ask_zh: "队列?"}
references:
  - {title: T, url: "https://example.org/t"}
---
## Symptom
sym

## How the causes differ
diff

## References
refs
"""
ODD_FAMILY_PAGE = "---\nid: other\ntitle: Odd\nreferences:\n  - {title: T, url: ftp://x}\n---\nno sections\n"
CASE_PAGE = """---
id: c
title: C title
title_zh: C 标题
status: verified
severity: high
action: fix-config
summary: C summary
summary_zh: C 概要
family: fam
components: [runtime, 2]
codes: ["507015", 0x26]
signatures:
  - {id: k, field: code, equals: "507015", weight: 3, key: true, why: code}
contradicted_by:
  - {id: x, field: message, regex: "^other", why: another}
requires:
  - {fact: single_process_multi_device, equals: true, ask: "one?", ask_zh: "一个?"}
against:
  - {fact: ASCEND_LAUNCH_BLOCKING, equals: "1", why: blocking}
supports:
  - {fact: TASK_QUEUE_ENABLE, in: ["1", "2"], ask: "queue?", ask_zh: "队列?", weight: 2, why: queued}
fix: {workaround: w, confirm: c}
fix_zh: {workaround: 绕, confirm: 证}
references:
  - {title: T, url: "https://example.org/c"}
---
## Symptom
s
## Root cause
r
## How to confirm
h
## Fix
f
## Confirming the fix
cf
## References
refs
"""
CODE_PAGE = ("---\ncode: \"507015\"\nkind: runtime\ntitle: AI Core exception\ntitle_zh: 异常\nmeaning: a kernel failed\n"
             "meaning_zh: 算子失败\ncases: [c]\nindex: 3\n---\nCode body.\n")


def test_a_small_knowledge_base_loads_field_by_field_with_its_problems(tmp_path):
    root = tmp_path / "kb"
    for rel, text in (("families/fam.md", FAMILY_PAGE), ("families/odd.md", ODD_FAMILY_PAGE),
                      ("cases/c.md", CASE_PAGE), ("cases/dup.md", "---\nid: c\n---\n"), ("codes/507015.md", CODE_PAGE)):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    kb = load_kb(root)
    fam, odd = kb.families["fam"], kb.families["other"]
    assert (fam.path, fam.title, fam.title_zh, fam.summary, fam.summary_zh, fam.causes) == (
        "kb/families/fam.md", "Fam title", "族", "Fam summary", "族概要", ["c"])
    assert fam.signatures == [Signature("s1", "message", "contains", "boom", 2, False, "w", "g")]
    assert fam.contradicted_by == [Signature("nope", "code", "equals", "1", 1, False, "elsewhere")]
    assert fam.questions == [Condition("TASK_QUEUE_ENABLE", "asks", None, "queue?", "队列?")]
    assert (fam.references, fam.sections) == ([{"title": "T", "url": "https://example.org/t"}],
                                              {"Symptom": "sym", "How the causes differ": "diff", "References": "refs"})
    assert fam.body.startswith("## Symptom\nsym\n")
    assert (odd.path, odd.title, odd.summary) == ("kb/families/odd.md", "Odd", "")
    c = kb.cases["c"]
    assert c.path == "kb/cases/dup.md"   # the later file of a duplicate id takes the place; the problem names both
    assert [(p.file, p.line, p.message) for p in kb.problems if p.file != "kb/cases/dup.md"] == [
        ("kb/families/odd.md", 1, "missing key 'signatures'"), ("kb/families/odd.md", 1, "missing key 'summary'"),
        ("kb/families/odd.md", 1, "missing key 'summary_zh'"), ("kb/families/odd.md", 1, "missing key 'title_zh'"),
        ("kb/families/odd.md", 2, "id 'other' differs from the file name 'odd'"),
        ("kb/families/odd.md", 5, "a reference needs a title and an http(s) url"),
        ("kb/families/odd.md", 7, "body lacks the section '## Symptom'"),
        ("kb/families/odd.md", 7, "body lacks the section '## How the causes differ'"),
        ("kb/families/odd.md", 7, "body lacks the section '## References'")]
    assert ("kb/cases/dup.md", 1, "duplicate id 'c' (also kb/cases/c.md)") in [
        (p.file, p.line, p.message) for p in kb.problems]
    page = kb.codes["507015"]
    assert (page.path, page.kind, page.title, page.title_zh, page.meaning, page.meaning_zh, page.cases, page.extra,
            page.body, page.table) == ("kb/codes/507015.md", "runtime", "AI Core exception", "异常", "a kernel failed",
                                       "算子失败", ["c"], {"index": 3}, "Code body.\n", None)


def test_a_case_page_loads_field_by_field(tmp_path):
    (tmp_path / "kb" / "cases").mkdir(parents=True)
    (tmp_path / "kb" / "cases" / "c.md").write_text(CASE_PAGE, encoding="utf-8")
    kb = load_kb(tmp_path / "kb")
    c = kb.cases["c"]
    assert (kb.problems, c.path, c.title, c.title_zh, c.status, c.severity, c.action, c.summary, c.summary_zh,
            c.family, c.components, c.codes) == (
        [], "kb/cases/c.md", "C title", "C 标题", "verified", "high", "fix-config", "C summary", "C 概要", "fam",
        ["runtime", "2"], ["507015", "38"])
    assert c.signatures == [Signature("k", "code", "equals", "507015", 3, True, "code")]
    assert [(s.id, s.matcher, s.value, s.why) for s in c.contradicted_by] == [("x", "regex", "^other", "another")]
    assert (c.requires, c.against, c.supports) == (
        [Condition("single_process_multi_device", "equals", True, "one?", "一个?")],
        [Condition("ASCEND_LAUNCH_BLOCKING", "equals", "1", why="blocking")],
        [Condition("TASK_QUEUE_ENABLE", "in", ["1", "2"], "queue?", "队列?", "queued", 2)])
    assert (c.fix, c.fix_zh, c.references) == ({"workaround": "w", "confirm": "c"}, {"workaround": "绕", "confirm": "证"},
                                               [{"title": "T", "url": "https://example.org/c"}])
    assert c.sections == {"Symptom": "s", "Root cause": "r", "How to confirm": "h", "Fix": "f",
                          "Confirming the fix": "cf", "References": "refs"}


def test_a_sparse_case_takes_the_defaults_and_a_bad_entry_is_named_at_its_own_line(tmp_path, monkeypatch):
    root = tmp_path / "kb"
    (root / "cases").mkdir(parents=True)
    (root / "families").mkdir()
    (root / "cases" / "sparse.md").write_text(
        "---\ntitle: null\nrequires:\n  - {fact: TASK_QUEUE_ENABLE, equals: '1', ask: q?}\n  - {fact: NOPE, equals: 1}\n"
        "fix: [not, a, mapping]\nfix_zh: {workaround: w, confirm: c, colour: red}\n---\nbody\n", encoding="utf-8")
    (root / "families" / "bare.md").write_text(
        "---\nsummary: null\nsignatures:\n  - {id: a, field: message, contains: x, why: w}\n  - {id: b, field: nope, "
        "equals: 1}\n---\n", encoding="utf-8")
    kb = load_kb(root)
    c, f = kb.cases["sparse"], kb.families["bare"]
    assert (c.title, c.status, c.severity, c.action, c.fix, c.fix_zh, c.body) == (
        "", "draft", "medium", "collect-more", {}, {"workaround": "w", "confirm": "c", "colour": "red"}, "body\n")
    assert [cond.fact for cond in c.requires] == ["TASK_QUEUE_ENABLE"]
    assert (f.id, f.summary, [s.id for s in f.signatures]) == ("bare", "", ["a"])
    must = "must map ['confirm', 'fix', 'version_advice', 'workaround'] (workaround and confirm required)"
    assert [(p.file, p.line, p.message.split(";")[0]) for p in kb.problems
            if not p.message.startswith(("missing key", "body lacks"))] == [
        ("kb/families/bare.md", 5, "field must be one of aicore_fault, error_bits, op, kernel, code, message, "
                                   "function, source, pc_verdict, rejected, rejected_rule, fact, not 'nope'"),
        ("kb/cases/sparse.md", 5, "unknown fact 'NOPE'"), ("kb/cases/sparse.md", 6, f"fix {must}"),
        ("kb/cases/sparse.md", 7, f"fix_zh {must}")]
    monkeypatch.setenv("CASEBOOK_KB", str(root))
    assert default_root() == root and load_kb().cases.keys() == {"sparse"}
    monkeypatch.delenv("CASEBOOK_KB")
    assert default_root() == ROOT / "kb"


TABLE_PAGE = """---
code: bits
kind: errcode_bit
title: Bits
meaning: the bits
cases: []
table: true
---
The bits, one row each.

| Name | Meaning | Cases | Word |
|---|:--|---|---|
| `CCU_ERR` | ccu broke | `c`, - | `a` |
| BAD | only two |
| UB_ERR | ub broke | - | b |

After the table, another one that is not read:

| a | b |
"""


def test_code_pages_table_rows_and_catalog_rows_load_with_their_lines(tmp_path):
    root = tmp_path / "kb"
    (root / "codes" / "tables").mkdir(parents=True)
    pages = {"bits.md": TABLE_PAGE,
             "plain.md": "---\ntitle: null\nkind: ecode\nmeaning: m\ncases: []\nindex: 1\nword: a\nmask: '0x1'\n"
                         "maps_to: X\nname: N\n---\n",
             "notable.md": "---\ncode: notable\nkind: ecode\ntitle: t\nmeaning: m\ncases: []\ntable: true\n---\n"
                           "no table\n",
             "badhead.md": "---\ncode: badhead\nkind: ecode\ntitle: t\nmeaning: m\ncases: []\ntable: true\n---\n"
                           "| code | meaning |\n|---|---|\n| A | a |\n"}
    for name, text in pages.items():
        (root / "codes" / name).write_text(text, encoding="utf-8")
    (root / "codes" / "tables" / "hccl-codes.tsv").write_text(
        "code\tname\tmeaning\tmeaning_zh\tcause\tsource\n1041\tSOCKET\tpeer never came\t对端未到\t\thttp://x.org/h\n"
        "\n1042\tX\tm\tz\t\tftp://x\n", encoding="utf-8")
    (root / "codes" / "tables" / "ge-codes.tsv").write_text("code name meaning\n", encoding="utf-8")
    kb = load_kb(root)
    ccu, ub = kb.codes["CCU_ERR"], kb.codes["UB_ERR"]
    assert (ccu.path, ccu.kind, ccu.title, ccu.meaning, ccu.cases, ccu.extra, ccu.line, ccu.table) == (
        "kb/codes/bits.md", "errcode_bit", "CCU_ERR", "ccu broke", ["c"], {"name": "CCU_ERR", "word": "a"}, 13, "bits")
    assert (ub.cases, ub.extra, ub.line) == ([], {"name": "UB_ERR", "word": "b"}, 15)
    plain = kb.codes["plain"]
    # a title or Chinese wording the page leaves out is empty (the English is shown instead), never a placeholder
    assert (plain.title, plain.title_zh, plain.kind, plain.meaning, plain.meaning_zh, plain.extra) == (
        "", "", "ecode", "m", "", {"index": 1, "word": "a", "mask": "0x1", "maps_to": "X", "name": "N"})
    row = kb.codes["1041"]
    assert (row.path, row.line, row.title, row.meaning, row.meaning_zh, row.table, row.extra) == (
        "kb/codes/tables/hccl-codes.tsv", 2, "SOCKET", "peer never came", "对端未到", "hccl-codes",
        {"cause": "", "source": "http://x.org/h"})
    assert [(p.file, p.line, p.message) for p in kb.problems if not p.message.startswith("missing key")] == [
        ("kb/codes/badhead.md", 9, "a table page's table needs a code (or name), a meaning and a cases column"),
        ("kb/codes/bits.md", 14, "table row has 2 cells, the header 4"),
        ("kb/codes/notable.md", 9, "a table page has no markdown table"),
        ("kb/codes/tables/hccl-codes.tsv", 4, "source is not an http(s) URL"),
        ("kb/codes/tables/ge-codes.tsv", 1,
         "the header must be the columns code, name, meaning, meaning_zh, cause, source separated by tabs")]


def test_a_code_two_catalogs_share_is_explained_by_the_row_of_the_catalog_that_named_it():
    """The page of `0x10` is the runtime's; named by the runtime's inner codes, the inner catalog's row explains it,
    as a page of that code."""
    from casebook.knowledge.codes import CodeRow
    row = CodeRow("0x10", "runtime_inner", "runtime-inner", "INNER_X", "an inner fault", "内部故障", "", "",
                  "kb/codes/tables/runtime-inner.tsv", 7)
    kb = KnowledgeBase(root=ROOT / "kb", codes={"0x10": CodePage("0x10", "kb/codes/x.md", kind="runtime")},
                       catalog=[row])
    assert kb.code_page("0x10", "runtime_inner") == CodePage(
        code="0x10", path="kb/codes/tables/runtime-inner.tsv", kind="runtime_inner", title="INNER_X",
        meaning="an inner fault", meaning_zh="内部故障", line=7)
    assert kb.code_page("0x10", "runtime") is kb.codes["0x10"] and kb.code_page("0x10", "ge") is None


def test_code_links_and_the_index_are_checked_against_the_cases_exactly(tmp_path):
    cases = {"a": KnownCase("a", "kb/cases/a.md", status="verified", codes=["507015", "EZ9999", "1041"],
                            summary="pipes | and\nlines"),
             "b": KnownCase("b", "kb/cases/b.md", status="verified", codes=[]),
             "d": KnownCase("d", "kb/cases/d.md", summary="a draft")}
    codes = {"507015": CodePage("507015", "kb/codes/507015.md", cases=["b", "ghost"], line=3),
             "1041": CodePage("1041", "kb/codes/tables/hccl-codes.tsv", table="hccl-codes")}
    kb = KnowledgeBase(root=tmp_path / "kb", cases=cases, codes=codes)
    assert [(p.file, p.line, p.message) for p in check_code_links(kb)] == [
        ("kb/codes/507015.md", 3, "'507015' does not list case 'a', which cites it"),
        ("kb/cases/a.md", 1, "code 'EZ9999' has no page kb/codes/EZ9999.md and no table row"),
        ("kb/codes/507015.md", 3, "'507015' lists case 'b', whose codes do not include it"),
        ("kb/codes/507015.md", 3, "'507015' lists unknown case 'ghost'")]
    assert index_table(kb, "verified") == (
        "| case | symptom | codes |\n|---|---|---|\n| a | pipes \\| and lines | 507015, EZ9999, 1041 |\n| b |  | - |")
    (tmp_path / "kb").mkdir()
    assert [(p.file, p.line, p.message) for p in check_index(kb)] == [("kb/README.md", 1, "kb/README.md is missing")]
    readme = tmp_path / "kb" / "README.md"
    readme.write_text("# KB\n<!-- index:start -->\n" + index_table(kb, "verified") + "\n| z | extra | - |\n"
                      "<!-- index:end -->\n\n<!-- drafts:start -->\n| case | symptom | codes |\n|---|---|---|\n"
                      "| d | another | - |\n<!-- drafts:end -->\n", encoding="utf-8")
    assert [(p.file, p.line, p.message) for p in check_index(kb)] == [
        ("kb/README.md", 7, "verified index has rows for no verified case"),
        ("kb/README.md", 13, "draft index row should read: | d | a draft | - |")]
    readme.write_text("# KB\n", encoding="utf-8")
    assert [p.line for p in check_index(kb)] == [1, 1]
    assert [p.message for p in check_index(kb)] == [
        "no verified index between <!-- index:start --> and <!-- index:end -->",
        "no draft index between <!-- drafts:start --> and <!-- drafts:end -->"]


def test_duplicates_between_pages_rows_and_families_and_a_missing_folder(tmp_path):
    root = tmp_path / "kb"
    for folder in ("codes", "cases", "families"):
        (root / folder).mkdir(parents=True)
    (root / "codes" / "bits.md").write_text(TABLE_PAGE, encoding="utf-8")
    own = "---\ncode: CCU_ERR\nkind: errcode_bit\ntitle: t\nmeaning: m\ncases: [x]\n---\n"
    (root / "codes" / "ccu.md").write_text(own, encoding="utf-8")
    (root / "codes" / "ccu2.md").write_text(own, encoding="utf-8")
    (root / "families" / "fam.md").write_text("---\nid: fam\n---\n", encoding="utf-8")
    (root / "cases" / "fam.md").write_text("---\nid: fam\n---\n", encoding="utf-8")
    kb = load_kb(root)
    assert [(p.file, p.line, p.message) for p in kb.problems if "duplicate" in p.message or "lists" in p.message] == [
        ("kb/cases/fam.md", 1, "duplicate id 'fam' (also kb/families/fam.md)"),
        ("kb/codes/ccu2.md", 1, "duplicate code 'CCU_ERR' (also kb/codes/ccu.md)"),
        ("kb/codes/bits.md", 13, "row of 'CCU_ERR' lists cases ['c'], its own page kb/codes/ccu2.md lists ['x']")]
    # the page keeps the code; the table's other row is the code's entry
    assert (kb.codes["CCU_ERR"].path, kb.codes["UB_ERR"].table) == ("kb/codes/ccu2.md", "bits")
    missing = load_kb(tmp_path / "nowhere")
    assert (missing.cases, missing.problems) == ({}, [Problem(str(tmp_path / "nowhere"), 0,
                                                              "knowledge base folder not found")])


def test_a_kept_copy_is_written_whole_and_only_the_newest_of_its_kind_stay(tmp_path, monkeypatch):
    from casebook.knowledge import cache
    monkeypatch.setenv("CASEBOOK_CACHE", str(tmp_path / "kept"))
    assert cache.folder() == tmp_path / "kept"
    monkeypatch.delenv("CASEBOOK_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.folder() == tmp_path / "home" / ".cache" / "casebook"
    where = tmp_path / "a" / "b"
    where.mkdir(parents=True)                         # kept() makes the folder, owner-only, before a copy is kept
    for n, name in enumerate(["kb-6", "kb-5", "kb-4", "kb-3", "kb-2", "formats-1", "kb-1"]):
        cache._keep(where / f"{name}.pickle", {"n": n}, b"k" * 32)
        os.utime(where / f"{name}.pickle", ns=(n, n))   # the later written, the newer, whatever the name
    # kb-6 and kb-5 are the oldest knowledge-base copies; the formats copy is of another kind and stays
    assert sorted(p.name for p in where.iterdir()) == ["formats-1.pickle", "kb-1.pickle", "kb-2.pickle",
                                                       "kb-3.pickle", "kb-4.pickle"]
    data = (where / "kb-1.pickle").read_bytes()
    body = data[len(cache.MAGIC) + hashlib.sha256().digest_size:]   # the copy's magic, its signature, its pickle
    assert data.startswith(cache.MAGIC) and pickle.loads(body) == {"n": 6} and body[1] == pickle.HIGHEST_PROTOCOL
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder would be", encoding="utf-8")
    cache._keep(blocked / "kb-1.pickle", {}, b"k" * 32)   # nothing written, nothing raised
    assert blocked.read_text(encoding="utf-8") == "a file where the folder would be"


def test_a_kept_copy_is_keyed_by_the_name_size_and_time_of_every_file_it_reads(tmp_path):
    """A case page renamed (same size, same time) is another knowledge base; a sample added is not, loading does
    not read the samples."""
    from casebook.knowledge import cache
    root = tmp_path / "kb"
    (root / "cases").mkdir(parents=True)
    (root / "samples").mkdir()
    (root / "cases" / "a.md").write_text("hello", encoding="utf-8")
    os.utime(root / "cases" / "a.md", ns=(7, 7))
    before = cache.key(root)
    assert cache._stamp(root, cache.UNREAD) == [(os.path.join("cases", "a.md"), 5, 7)]
    (root / "samples" / "new.txt").write_text("a sample", encoding="utf-8")
    assert cache.key(root) == before
    (root / "cases" / "a.md").rename(root / "cases" / "b.md")
    assert cache._stamp(root, cache.UNREAD) == [(os.path.join("cases", "b.md"), 5, 7)]
    assert cache.key(root) != before


def test_a_key_others_could_read_or_a_short_one_another_process_removed_is_made_anew(tmp_path, monkeypatch):
    """The key signs the copies that get unpickled: one readable by others is not trusted, and a bad key that a
    process making its own removed meanwhile is no error."""
    import stat
    from casebook.knowledge import cache
    monkeypatch.setenv("CASEBOOK_CACHE", str(tmp_path / "kept"))
    top = cache.folder()
    assert cache._private(top)
    key = top / cache.KEY
    key.write_bytes(b"k" * 32)
    os.chmod(key, 0o644)
    made = cache._secret(top)
    assert len(made) == 32 and made != b"k" * 32 and key.read_bytes() == made
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    key.write_bytes(b"short")

    gone = []

    def read_then_gone(path, closed=0, real=cache._read):
        found = real(path, closed)
        if not gone:   # the other process removes the short key right after this one read it
            gone.append(path.unlink())
        return found
    monkeypatch.setattr(cache, "_read", read_then_gone)
    again = cache._secret(top)
    assert len(again) == 32 and key.read_bytes() == again and gone == [None]


def test_a_fact_signature_names_a_yes_or_no_fact_of_the_vocabulary_with_its_value(tmp_path):
    root = tmp_path / "kb"
    (root / "cases").mkdir(parents=True)
    (root / "codes").mkdir()
    source = (ROOT / "kb" / "cases" / "oom-memory-held-outside-job.md").read_text(encoding="utf-8")
    good = 'equals: "oom_card_held_outside_job=true"'
    assert good in source
    (root / "cases" / "oom-memory-held-outside-job.md").write_text(source, encoding="utf-8")
    kb = load_kb(root)
    assert not kb.problems
    (sig,) = [s for s in kb.cases["oom-memory-held-outside-job"].signatures if s.id == "job_holds_little_of_full_card"]
    assert sig.test("oom_card_held_outside_job=true") and not sig.test("oom_card_held_outside_job=false")
    line = next(i for i, ln in enumerate(source.splitlines(), 1) if ln.strip() == "- id: job_holds_little_of_full_card")
    for bad, problem in (('equals: "oom_card_held_outside_job"', "as name=true or name=false"),
                         ('equals: "no_such_fact=true"', "not 'no_such_fact'"),
                         ('equals: "torch_npu_version=true"', "not 'torch_npu_version'")):   # a version is no yes/no
        (root / "cases" / "oom-memory-held-outside-job.md").write_text(source.replace(good, bad), encoding="utf-8")
        assert any(p.line == line and problem in p.message for p in load_kb(root).problems), bad
