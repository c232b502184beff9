"""Where a match can start (reading/firsts.py), and the grammar trying on a line only the rules that can read it."""
import re

import pytest
from casebook.reading import grammar
from casebook.reading.fields import BlockState
from casebook.reading.firsts import MOST_CHARS, Start, start, starts
from conftest import CORPUS, ROOT
from hypothesis import given
from hypothesis import strategies as st

STARTS = grammar.STARTS


@pytest.mark.parametrize("pattern,expected", [
    (r"^\s*Traceback", Start(frozenset("T"), spaces=True)),
    (r"\[PID: ?\d+\]", Start(frozenset("["))),
    (r"(?:ab|\s+c|\d)", Start(frozenset("a"), spaces=True, digits=True)),
    (r"a*b?c", Start(frozenset("abc"))),
    (r"\w+=", Start(word=True)),
    (r"\S+ FAILED", Start(nonspace=True)),
    (r"(?=x)y|z{0}w", Start(frozenset("yw"))),   # a lookahead and a repeat of none are zero-width
    (r"[A-C_][a-z]", Start(frozenset("ABC_"))),
    (r"(?>ab)|(?P<x>c)+", Start(frozenset("ac"))),
    (r"x?", Start(frozenset("x"), empty=True)),
    (r"\b", Start(empty=True)),
])
def test_the_start_of_a_pattern(pattern, expected):
    assert start(re.compile(pattern)) == expected


def test_a_pattern_is_read_with_the_flags_it_was_compiled_with():
    # verbose: its spaces and comment are no characters of a match
    assert start(re.compile(r" [ab] c  # a letter, then c", re.VERBOSE)) == Start(frozenset("ab"))


@pytest.mark.parametrize("pattern", [r".x", r"[^a]", r"(?i)abc", r"(?i:a)b", r"\Dx", r"\W", r"(a)?(?(1)b|c)", r"[^\s]",
                                     rf"[\u0000-\u{MOST_CHARS:04x}]"])
def test_a_start_it_cannot_tell_is_none(pattern):
    assert start(re.compile(pattern)) is None
    assert starts((re.compile("a"), re.compile(pattern))) is None


def test_a_start_admits_the_first_characters_of_its_classes():
    s = Start(frozenset("["), spaces=True)
    assert s.admits("[") and s.admits(" ") and s.admits("\t") and s.admits("\u3000")
    assert not s.admits("") and not s.admits("a") and not s.admits("]")
    assert Start(digits=True).admits("٣") and not Start(digits=True).admits("x")   # \d is any decimal digit
    assert Start(word=True).admits("é") and Start(word=True).admits("_") and not Start(word=True).admits("-")
    assert Start(nonspace=True).admits("-") and not Start(nonspace=True).admits("\u3000")
    assert Start(empty=True).admits("") and Start(empty=True).admits("?")
    assert starts((re.compile("a"), re.compile(r"\s"))) == Start(frozenset("a"), spaces=True)


def _lines() -> list[str]:
    """Every line of the corpus, the capture set and the knowledge base's samples, and each with another first
    character in front (a space, a tab, an ideographic space, a digit, a letter, a bracket)."""
    files = [p for p in (*CORPUS.rglob("*"), *(ROOT / "tests" / "captures").rglob("capture.txt"),
                         *(ROOT / "kb" / "samples").rglob("*")) if p.is_file() and p.suffix in ("", ".txt", ".log")]
    lines = {line for p in files for line in p.read_text(encoding="utf-8", errors="replace").splitlines()}
    return sorted(lines | {f"{c}{line}" for line in list(lines)[:3000] for c in (" ", "\t", "\u3000", "7", "x", "[")})


LINES = _lines()


def test_every_pattern_of_a_rule_starts_where_its_start_says():
    assert len(LINES) > 30000 and len(STARTS) == 26 and set(STARTS) <= {name for name, _ in grammar.OTHER_RULES}
    for name, patterns in STARTS.items():
        s = starts(patterns)
        assert s is not None and not s.empty, name   # each gate names where its lines start
        missed = [line for line in LINES if not s.admits(line[:1]) and any(p.match(line) for p in patterns)]
        assert missed == [], name


def _states() -> list[BlockState]:
    """A fresh block state, and a busy one: in a block and a traceback, after `[Error]:`, inside a report (which
    report matters only to rules without starts)."""
    busy = BlockState()
    busy.in_block, busy.in_python, busy.npu_error, busy.report, busy.code = True, True, True, "error", "EZ9999"
    return [BlockState(), busy]


def test_a_rule_with_starts_reads_only_lines_its_patterns_match_in_any_state():
    rules = dict(grammar.OTHER_RULES)
    for name, patterns in STARTS.items():
        for state in _states():
            read = [line for line in LINES if rules[name](line, _copy(state)) is not None]
            assert all(any(p.match(line) for p in patterns) for line in read), name


def _copy(state: BlockState) -> BlockState:
    new = BlockState()
    new.__dict__.update(state.__dict__)
    return new


@given(st.lists(st.sampled_from(LINES[::97] + ["", " ", "[", "]", "\t"]), max_size=30))
def test_the_gated_grammar_reads_a_sequence_of_lines_as_trying_every_rule_does(lines):
    every = tuple(rule for _, rule in grammar.OTHER_RULES)
    gated, plain = BlockState(), BlockState()
    for line in lines:
        a = grammar.parse_other(line, gated)
        rules = grammar._rules_for
        try:
            grammar._rules_for = lambda first: every
            b = grammar.parse_other(line, plain)
        finally:
            grammar._rules_for = rules
        assert (a, vars(gated)) == (b, vars(plain)), line
