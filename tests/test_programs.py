"""A regex kept in a pickle with its compiled program is the pattern `re.compile` makes, rebuilt without parsing."""
import pickle
import re
import shutil

import pytest
from casebook.knowledge import formats, programs
from casebook.knowledge import kb as kbmod
from casebook.knowledge.kb import default_root, load_kb
from casebook.knowledge.programs import Regex, program

PATTERNS = [r"(?i)lost heartbeat|Device (?P<n>\d+) not found", r"ctx is NULL", r"(?x) a \s+ b  # comment",
            r"(?s)x.*?y\Z", r"(?m)^\[ERROR\] (\w+)\((\d+),", r"端口\S*被占用", r"(a)(?P<b>b)?(?(1)c|d)", r""]


@pytest.mark.parametrize("source", PATTERNS)
def test_a_pickled_regex_is_rebuilt_from_its_program_as_re_compiles_it(source, monkeypatch):
    again = pickle.loads(pickle.dumps(Regex(source)))
    assert again._kept is not None   # the program came along

    def no_parsing(*args):
        raise AssertionError("the pattern was parsed again")
    monkeypatch.setattr(programs._parser, "parse", no_parsing)
    monkeypatch.setattr(re, "compile", no_parsing)
    pattern = again.pattern
    monkeypatch.undo()
    want = re.compile(source)
    # a Pattern compares its source, flags and program; the groups are the same too
    assert pattern == want and pattern.groupindex == want.groupindex and pattern.groups == want.groups
    for text in ("Device 7 not found", "LOST HEARTBEAT", "x\nzzy", "[ERROR] RUNTIME(12,", "端口 2222 被占用", "abc"):
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in want.finditer(text)]
    # pickled again after use: still with a program
    assert pickle.loads(pickle.dumps(again))._kept is not None


@pytest.mark.parametrize("damage", [
    lambda kept: (kept[0] + 1, *kept[1:]),                             # another matcher version
    lambda kept: (*kept[:2], kept[2][:-8], *kept[3:]),                 # a program cut short
    lambda kept: (*kept[:2], bytes(len(kept[2])), *kept[3:]),          # a program of zeros
    lambda kept: (*kept[:2], kept[2][:-1], *kept[3:]),                 # not a whole number of code words
])
def test_a_program_the_matcher_does_not_accept_compiles_the_source_instead(damage):
    source = PATTERNS[0]
    assert Regex(source, kept=damage(program(source))).pattern == re.compile(source)


def test_without_the_private_modules_nothing_is_kept_and_everything_compiles(monkeypatch):
    monkeypatch.setattr(programs, "_sre", None)
    assert program(PATTERNS[0]) is None
    again = pickle.loads(pickle.dumps(Regex(PATTERNS[0])))
    assert again._kept is None and again.pattern == re.compile(PATTERNS[0])


def test_a_kept_knowledge_base_and_catalog_rebuild_every_regex_as_re_compiles_it(tmp_path, monkeypatch):
    monkeypatch.setenv("CASEBOOK_CACHE", str(tmp_path / "kept"))
    root = tmp_path / "kb"
    shutil.copytree(default_root(), root, ignore=shutil.ignore_patterns("samples"))
    load_kb(root)
    monkeypatch.setattr(kbmod, "_read_kb", lambda r: pytest.fail("the knowledge base was parsed again"))
    kept = load_kb(root)
    sigs = [s for c in [*kept.cases.values(), *kept.families.values()] for s in [*c.signatures, *c.contradicted_by]
            if s.matcher == "regex"]
    assert len(sigs) > 400
    assert all(s.regex._kept is not None for s in sigs)   # none compiled on load: each is rebuilt when first used
    assert all(s.pattern == re.compile(str(s.value)) for s in sigs)
    formats.catalog.cache_clear()
    try:
        forms = formats.catalog()
        assert forms and all(f.pattern == re.compile(f.regex) for f in forms)
    finally:
        formats.catalog.cache_clear()
