"""Signatures and fact conditions read from front matter, with every problem at its file and line, and the
matchers, by exact values."""
import pytest
from casebook.knowledge.document import KbDocument, sections
from casebook.knowledge.rules import Condition, Signature, condition, enum, signature
from casebook.knowledge.vocabulary import FACTS


def doc(tmp_path, front: str, body: str = "") -> KbDocument:
    path = tmp_path / "c.md"
    path.write_text(f"---\n{front}---\n{body}", encoding="utf-8")
    return KbDocument(path, "cases/c.md", [])


@pytest.mark.parametrize("matcher,value,observed,result", [
    ("equals", "0x26", "0x26", True), ("equals", "0x26", "0x2", False), ("in", ["a", "b"], "b", True),
    ("in", ["a", "b"], "c", False), ("contains", "lost", "heartbeat lost!", True), ("contains", 12, "a 123", True),
    ("contains", "x", "y", False), ("regex", r"^re\d+$", "re42", True), ("regex", r"^re\d+$", "are42", False),
    # a dot is a dot to equals and contains, any character to a regex
    ("equals", "a.c", "abc", False), ("contains", "a.c", "xabcx", False), ("regex", "a.c", "xabcx", True)])
def test_matchers(matcher, value, observed, result):
    assert Signature("s", "message", matcher, value, 1, False, "w").test(observed) is result


def test_a_signature_is_read_or_each_problem_named_at_its_line(tmp_path):
    d = doc(tmp_path, "signatures:\n- id: a\n  field: message\n  contains: boom\n  weight: 2\n  key: true\n"
                      "  why: w\n  group: g\n- {id: b, field: nope, equals: 1, regex: x, weight: 4}\n"
                      "- {field: code, regex: '(', weight: 0}\n- not a mapping\n- {id: c, field: op, in: [A], extra: 1}\n")
    got = [signature(d, i, raw) for i, raw in enumerate(d.data["signatures"])]
    assert got[0] == Signature("a", "message", "contains", "boom", 2, True, "w", "g")
    assert got[1:4] == [None, None, None] and got[4] == Signature("c", "op", "in", ["A"], 1, False, "", "")
    assert [(p.line, p.message) for p in d.problems] == [
        (10, "field must be one of aicore_fault, error_bits, op, kernel, code, message, function, source, pc_verdict, "
             "rejected, rejected_rule, fact, not 'nope'"),
        (10, "a signature has exactly one of equals, in, contains, regex"),
        (10, "weight is an integer from 1 to 3"),
        (11, "regex does not compile: missing ), unterminated subpattern at position 0"),
        (11, "weight is an integer from 1 to 3"),
        (11, "a signature needs an id"),
        (12, "a signature is a mapping"),
        (13, "unknown signature key(s) ['extra']")]
    d.problems.clear()
    assert signature(d, 4, {"id": "c", "field": "op", "in": ["A"]}, "contradicted_by") is not None
    assert [(p.line, p.message) for p in d.problems] == [
        (1, "an entry of contradicted_by needs a 'why' (what the match points to instead)")]
    d.problems.clear()
    # `weight: yes` is a slip, though bool is an int to Python
    assert signature(d, 4, {"id": "c", "field": "op", "in": ["A"], "weight": True}) is None
    assert [p.message for p in d.problems] == ["weight is an integer from 1 to 3"]


def test_a_condition_is_read_or_each_problem_named_at_its_line(tmp_path):
    d = doc(tmp_path, "requires:\n- {fact: TASK_QUEUE_ENABLE, in: ['1', '2'], ask: queue?, ask_zh: 队列?, weight: 2}\n"
                      "- {fact: NOPE, equals: 1}\n- {equals: 1}\n- {fact: ASCEND_LAUNCH_BLOCKING}\n"
                      "- {fact: ASCEND_LAUNCH_BLOCKING, equals: '1'}\n")
    raw = d.data["requires"]
    assert condition(d, "requires", 0, raw[0]) == Condition("TASK_QUEUE_ENABLE", "in", ["1", "2"], "queue?", "队列?",
                                                             None, 2)
    assert [condition(d, "requires", i, raw[i]) for i in (1, 2, 3)] == [None, None, None]
    assert condition(d, "requires", 4, raw[4]) == Condition("ASCEND_LAUNCH_BLOCKING", "equals", "1", weight=1)
    assert condition(d, "against", 4, raw[4]).why is None
    assert condition(d, "questions", 0, {"fact": "TASK_QUEUE_ENABLE", "ask": "q?", "ask_zh": "问?"}) == Condition(
        "TASK_QUEUE_ENABLE", "asks", None, "q?", "问?")
    condition(d, "questions", 4, raw[4])
    messages = [(p.line, p.message) for p in d.problems]
    # the facts a page may test, all named, so a misspelt one is fixed from the message
    assert messages[0] == (4, f"unknown fact 'NOPE'; known: {', '.join(FACTS)}")
    assert ", ".join(FACTS).startswith("single_process_multi_device, ")
    assert messages[1:] == [
        (5, "an entry of requires is a mapping with a 'fact'"),
        (6, "a fact test has exactly one of equals, in"),
        (7, "an entry of requires needs an 'ask' (the question the walk puts)"),
        (1, "an entry of against needs a 'why'"),   # no `against` section: the file's first line
        (1, "a question has a 'fact' and an 'ask' (and 'ask_zh'), and no equals / in")]


def test_a_supporting_facts_weight_is_1_to_3_and_a_bad_one_is_named_at_its_line(tmp_path):
    weights = ("weight: 3", "ask_zh: 队列?", "weight: heavy", "weight: 0", "weight: 4", "weight: yes")
    d = doc(tmp_path, "supports:\n" + "".join(f"- {{fact: TASK_QUEUE_ENABLE, equals: '1', ask: q?, {w}}}\n"
                                              for w in weights))
    # a weight that is not one loads as the default 1, with its problem, instead of stopping the load
    assert [condition(d, "supports", i, raw).weight for i, raw in enumerate(d.data["supports"])] == [3, 1, 1, 1, 1, 1]
    assert [(p.line, p.message) for p in d.problems] == [
        (5, "weight is an integer from 1 to 3, not 'heavy'"), (6, "weight is an integer from 1 to 3, not 0"),
        (7, "weight is an integer from 1 to 3, not 4"), (8, "weight is an integer from 1 to 3, not True")]
    unasked = doc(tmp_path, "x: 1\n")
    condition(unasked, "supports", 0, {"fact": "TASK_QUEUE_ENABLE", "equals": "1"})
    assert [p.message for p in unasked.problems] == ["an entry of supports needs an 'ask' (the question the walk puts)"]
    # a condition made in code weighs what one read without a weight does
    assert Condition("TASK_QUEUE_ENABLE", "equals", "1").weight == 1


def test_enums_and_lines_of_a_document(tmp_path):
    d = doc(tmp_path, "status: verified\nseverity: huge\nlist:\n- a\n- b\n", "\n## Symptom\nx\n\n## Fix\ny\n")
    assert enum(d, "status", ("draft", "verified"), "draft") == "verified"
    assert enum(d, "action", ("fix-config",), "fix-config") == "fix-config"
    assert enum(d, "severity", ("low", "high"), "low") == "huge"
    assert [(p.line, p.message) for p in d.problems] == [(3, "severity must be one of low, high, not 'huge'")]
    assert (d.line("list", 1), d.line("list", 7), d.line("nothing"), d.body_line) == (6, 4, 1, 8)
    assert sections(d.body) == {"Symptom": "x", "Fix": "y"}
    bad = doc(tmp_path, "a: [unclosed\n")
    assert [(p.line, p.message) for p in bad.problems] == [
        (3, "front matter is not valid YAML: did not find expected ',' or ']'")]
    assert bad.data == {}
    (tmp_path / "plain.md").write_text("no front matter\n", encoding="utf-8")
    plain = KbDocument(tmp_path / "plain.md", "plain.md", [])
    assert (plain.body, [(p.file, p.line, p.message) for p in plain.problems]) == ("no front matter\n", [
        ("plain.md", 1, "no YAML front matter (a file starts with a '---' line and the front matter ends with one)")])
    nested = doc(tmp_path, "a:\n  b: 1\n  c:\n    - x\n    - d: 2\n      e: 3\n")
    keys = (("a",), ("a", "b"), ("a", "c", 0), ("a", "c", 1, "d"), ("a", "c", 1, "e"), ("a", "z"))
    assert [nested.line(*k) for k in keys] == [2, 3, 5, 6, 7, 2]   # a key not there: its parent's line
    twice = doc(tmp_path, "a: 1\nsigs:\n  - id: x\n    why: one\n    why: two\na: 3\n")
    assert [(p.line, p.message) for p in twice.problems] == [
        (6, "key 'why' is given twice in one mapping; only its last value is kept"),
        (7, "key 'a' is given twice in one mapping; only its last value is kept")]
    assert twice.data == {"a": 3, "sigs": [{"id": "x", "why": "two"}]}
    listed = doc(tmp_path, "- a\n")
    assert [(p.line, p.message) for p in listed.problems] == [(2, "front matter must be a mapping")]
    assert listed.data == {} and listed.lines == {}


def test_a_signature_given_by_same_as_takes_the_test_of_the_signature_it_names(tmp_path):
    """`same_as: case#signature` reads the other case's pattern, written once; what the match means (id, why,
    weight) stays its own; a name that leads to no signature, or to another same_as, is a problem at its line."""
    import shutil
    from casebook.knowledge.kb import _read_kb
    from conftest import ROOT
    root = tmp_path / "kb"
    shutil.copytree(ROOT / "kb", root, ignore=shutil.ignore_patterns("samples"))
    kb = _read_kb(root)
    ours = next(s for s in kb.cases["plugin-out-of-sync-with-framework-api"].contradicted_by
                if s.id == "third_party_module_named")
    theirs = next(s for s in kb.cases["python-package-version-incompatible"].signatures
                  if s.id == "third_party_name_missing")
    assert (ours.field, ours.matcher, ours.value) == (theirs.field, theirs.matcher, theirs.value)
    assert ours.why != theirs.why and (ours.key, ours.weight, ours.places) == (False, 1, False)
    assert ours.test("ImportError: cannot import name 'HybridCache' from 'transformers'")
    case = root / "cases" / "plugin-out-of-sync-with-framework-api.md"
    text = case.read_text(encoding="utf-8")
    line = text.splitlines().index("    same_as: python-package-version-incompatible#third_party_name_missing") + 1
    for target in ("python-package-version-incompatible#no_such_signature", "no-such-case#x",
                   "plugin-out-of-sync-with-framework-api#third_party_module_named"):
        case.write_text(text.replace("python-package-version-incompatible#third_party_name_missing", target),
                        encoding="utf-8")
        problems = [str(p) for p in _read_kb(root).problems]
        # the problem is named at the entry's first line, the line before its same_as
        named = f"plugin-out-of-sync-with-framework-api.md:{line - 1}"
        assert any(named in p and "same_as" in p for p in problems), problems
    case.write_text(text.replace("    same_as:", "    field: message\n    same_as:"), encoding="utf-8")
    assert any("takes its test from it" in str(p) for p in _read_kb(root).problems)
