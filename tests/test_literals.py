"""The literals a regex needs rule texts out exactly: never a text the regex matches."""
import re

import pytest
from casebook.judging.observed import Observation, Observed
from casebook.knowledge.kb import load_kb
from casebook.knowledge.literals import Haystack, Index, required, required_all
from casebook.reading.haystack import HELD, LINES, PAIRS
from casebook.reading.bundle import Pasted
from casebook.reading.plog import read_plog
from conftest import COLLECTIONS, SAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st


def _regex_signatures():
    """The regex signatures over text (messages): a code's values are a few short tokens a bundle, tested whole."""
    kb = load_kb()
    return [s for c in [*kb.cases.values(), *kb.families.values()] for s in [*c.signatures, *c.contradicted_by]
            if s.matcher == "regex" and s.field != "code"]


@pytest.mark.parametrize("pattern, alternatives, folded", [
    (r"Cannot find bin of op", ("Cannot find bin of op",), False),
    (r"stat for dump pc start,.*compare_fail_num=[1-9]\d*", ("stat for dump pc start,",), False),
    (r"lost heartbeat|Device not found", ("lost heartbeat", "Device not found"), False),
    (r"(?i)event_id[=:]\s*0x80c98000", ("0x80c98000",), True),
    (r"(?i)Stuck Occurred", ("stuck occurred",), True),
    (r"x(abc)+y", ("abc",), False),
    (r"a?b*", None, False),
    (r"foo|\d+", None, False),                               # one branch has no literal: nothing is required
    (r"(?i)µs", ("s",), True),                               # the micro sign also matches the Greek mu
    (r"EADDRINUSE|(?i:address in use)", ("eaddrinuse", "address in use"), True),   # a part that ignores case
    (r"(?i)端口\S*被占用", ("被占用",), True),                 # CJK characters have no case
])
def test_required_literals(pattern, alternatives, folded):
    need = required(pattern)
    assert (need.alternatives, need.folded) == (alternatives, folded) if alternatives else need is None


@pytest.mark.parametrize("pattern, every, folded", [
    (r"(?i)\bCANN(?:\s+|_)version\s*[:=]?\s*\d+", [("cann",), ("version",)], True),
    (r"Ascend-hdk-\w+-npu-(?:driver|firmware)[_-]\d", [("Ascend-hdk-",), ("-npu-",), ("driver", "firmware"), ("_", "-")],
     False),
    # a small class of literal characters, or an optional one, branches the run of literals around it
    (r"\bdriver[ _]version", [("driver version", "driver_version")], False),
    (r"(?i)\bsoc[ _]?version", [("socversion", "soc version", "soc_version")], True),
    (r"x?yz[abcdefghij]w", [("yz", "xyz"), ("w",)], False),
    (r"x(abc)+y|z", [("abc", "z")], False),                   # each branch's best, together
    (r"foo|\d+", [], False),                                  # a branch without a literal: nothing is required
    (r"(?:ab|ba)c", [("ab", "ba"), ("c",)], False),
    (r"EADDRINUSE|(?i:address in use)", [("eaddrinuse", "address in use")], True),
])
def test_every_part_of_a_regex_names_what_it_requires(pattern, every, folded):
    found = required_all(pattern)
    assert [need.alternatives for need in found] == every and all(need.folded == folded for need in found)
    # the best of them is what `required` names: the set whose shortest literal is longest
    best = max(every, key=lambda alts: min(map(len, alts))) if every else None
    assert (required(pattern).alternatives if every else required(pattern)) == best


def test_a_table_finds_the_records_holding_a_literal_once_for_every_family():
    log = read_plog(Pasted(b"[ERROR] x: aclnnCast failed\nversion=8.0\nnothing here\nVERSION 9\n", "t.log"))
    msgs = log.column("msg")
    hold = log.holding(("version", "aclnn"))
    assert [msgs[i] for i in hold] == [m for m in msgs if "version" in m or "aclnn" in m]
    assert len(hold) == 2 and log.holding(("version", "aclnn")) is hold and log.holding(("absent",)) == []
    assert Haystack(["abc", "ABC", "xbc"]).holding_any(("bc",)) == [0, 2]
    assert Haystack(["abc", "ABC", "xbc"]).holding_any(("abc",), folded=True) == [0, 1]


def test_a_haystack_folds_its_joined_texts_once_and_keeps_each_text_in_place():
    from casebook.reading.haystack import Haystack as Plain
    calls = []

    def lower(text):
        calls.append(text)
        return text.lower()

    hay = Plain(["Ab", "", "CD\u00e9", "x"], fold=lower)
    assert hay.holding_any(("cd", "ab"), folded=True) == [0, 2] and calls == ["Ab\n\nCD\u00e9\nx"]
    assert hay.holding_any(("cd\u00e9", "x"), folded=True) == [2, 3] and hay.holding_any(("CD\u00e9",)) == [2]
    assert hay.holding_any(("cd",)) == [] and len(calls) == 1
    # lower-casing makes two characters of U+0130: the texts are then folded one by one, and stay in place
    odd = Plain(["\u0130x", "Yz"], fold=str.lower)
    assert odd.holding_any(("yz",), folded=True) == [1] and odd.holding_any(("x",), folded=True) == [0]
    # starts counted anew: a search resumed at the next text's start finds no second text in the first one's tail
    odd = Plain(["\u0130\u0130", "ab"], fold=str.lower)
    assert odd.holding_any(("\u0307",), folded=True) == [0] and odd.holding_any(("\u0307ab",), folded=True) == []


def test_a_need_tested_within_some_texts_answers_as_the_whole_search_does():
    texts = ["CANN version 8.0", "driver Version: 24", "version only", "cann", "Firmware VERSION=7"]
    hay = Haystack(texts)
    for pattern in (r"(?i)version", r"cann|driver", r"(?i)firmware"):
        need = required(pattern)
        assert hay.holding(need, within=[0, 1, 2, 3, 4]) == hay.holding(need)
        assert hay.holding(need, within=[1, 3]) == [i for i in hay.holding(need) if i in (1, 3)]
    assert hay.holding(required(r"(?i)version"), within=[]) == []


def test_no_character_outside_a_cjk_needle_matches_it_ignoring_case():
    # a CJK needle stands in a folded text only if nothing but itself matches it under IGNORECASE
    for cp in (0x3001, 0x3002, 0x300C, 0x3400, 0x4E00, 0x53E3, 0x7AEF, 0x9FFF):
        pattern = re.compile(f"(?i){re.escape(chr(cp))}")
        assert [c for c in map(chr, range(0x110000)) if pattern.fullmatch(c)] == [chr(cp)]


def test_only_four_letters_outside_ascii_match_an_ascii_letter_ignoring_case_and_folding_maps_them():
    ascii_letters = re.compile(r"(?i)[a-z]")
    odd = [chr(cp) for cp in range(0x110000) if ascii_letters.fullmatch(chr(cp)) and not chr(cp).isascii()]
    assert odd == ["\u0130", "\u0131", "\u017f", "\u212a"]
    for ch in odd:
        (letter,) = [c for c in "abcdefghijklmnopqrstuvwxyz" if re.fullmatch(f"(?i){c}", ch)]
        assert re.search(f"(?i)x{letter}", f"aX{ch}b")
        assert required(f"(?i)x{letter}").may_match(f"aX{ch}b") and \
            Haystack(["none", f"aX{ch}b"]).holding(required(f"(?i)x{letter}")) == [1]


@pytest.mark.parametrize("pattern, exact", [
    (r"lost heartbeat|Device not found", True),
    (r"(?i)Stuck Occurred", True),
    (r"(ab|cd)", True),                                       # a group changes nothing a search answers
    (r"\bdriver[ _]version", False),                         # a word boundary is more than the literals
    (r"driver[ _]version", True),                             # two runs, both named
    (r"(?i)端口被占用|EADDRINUSE", True),
    (r"x(abc)+y", False),
    (r"(?:ab|ba)c", False),                                   # two requirements in turn: the regex tells
    (r"k[0-9]s", False),
    (r"ab?c", False),                                         # an optional character: kept to the regex
    (r"(?a)(?i)ask", False),                                  # ASCII folding is not the needles' folding
    (r"EADDRINUSE|(?i:address in use)", False),               # a part that ignores case folds the rest too
    (r"lost heartbeat|\d+", False),
])
def test_a_regex_of_literals_alone_is_answered_by_them(pattern, exact):
    need = required(pattern)
    assert (need is not None and need.exact) == exact


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="abcdeikmsxyzABCKS \u017f\u212a\u0130\u00b5\u03bc|.*0123()[]\n", max_size=12),
                max_size=6), st.sampled_from([r"ab|cd", r"(?i)ask", r"(?i)sk|KIM", r"(?i)xy|cde", r"(a[bc]|i)",
                                              r"(?i)端口|Ks"]))
def test_a_regex_of_literals_alone_matches_exactly_where_they_are(texts, pattern):
    need = required(pattern)
    assert need.exact
    for text in texts:
        assert need.may_match(text) == bool(re.search(pattern, text)), text
    truth = [i for i, t in enumerate(texts) if re.search(pattern, t)]
    assert Haystack(texts).holding(need) == truth


def test_folding_never_rules_out_a_match():
    for pattern, text in [(r"(?i)stuck", "STUC\u212a"), (r"(?i)ecc", "ECC"), (r"(?i)sdma", "\u017fDMA"),
                          (r"(?i)aicore", "A\u0130CORE"), (r"(?i)\u03bc", "\u00b5")]:
        need = required(pattern)
        assert re.search(pattern, text)
        assert need is None or need.may_match(text), (pattern, text)


def test_every_signature_gives_the_regexs_answer_on_every_error_message(corpus):
    texts = set()
    for path in [*(corpus / c for c in COLLECTIONS), *sorted(SAMPLES.glob("*/*"))]:
        texts.update(read_plog(path).errors()["msg"].dropna())
    texts = sorted(texts)
    hay = Haystack(texts)
    sigs = _regex_signatures()
    assert all(s.needles is not None for s in sigs)   # the shortcut applies to every signature of the KB
    matched = 0
    for s in sigs:
        truth = [i for i, t in enumerate(texts) if s.pattern.search(t)]
        assert [i for i, t in enumerate(texts) if s.test(t)] == truth, s.id
        assert set(truth) <= set(hay.holding(s.needles)), s.id
        matched += bool(truth)
    assert matched > len(sigs) // 2


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="abcdeikmsxyzABCKS \u017f\u212a\u0130\u00b5\u03bc|.*0123()[]", max_size=12),
                min_size=1, max_size=6), st.sampled_from([r"ab|cd", r"(?i)ask", r"(?i)x(bc)+y", r"k[0-9]s",
                                                          r"(?i)\u03bc|cde", r"a.*e", r"(?:ab|ba)c"]))
def test_haystack_finds_every_text_the_regex_matches(texts, pattern):
    need = required(pattern)
    truth = {i for i, t in enumerate(texts) if re.search(pattern, t)}
    assert need is None or truth <= set(Haystack(texts).holding(need))
    # the quick test says no only where no text holds an alternative
    assert need is None or Haystack(texts).may_hold(need) == bool(Haystack(texts).holding(need))


def test_observed_hits_are_those_of_testing_every_value():
    obs = [Observation("message", m, m, "f", n) for n, m in enumerate(
        ["rtKernelLaunch failed", "Heartbeat lost heartbeat", "ok", "LOST HEARTBEAT", "lost heart beat"], start=1)]
    for s in _regex_signatures():
        got = [g[0].value for g in Observed(obs).hits(s)]
        assert got == [o.value for o in obs if s.pattern.search(o.value)], s.id


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="abcdeikmsxyzABCKS \u017f\u212a\u0130\u00b5\u03bc|.*0123()[]", max_size=12),
                min_size=1, max_size=6))
def test_the_index_says_a_regex_may_match_exactly_where_its_own_literals_say_so(texts):
    needs = [n for p in (r"ab|cd", r"(?i)ask", r"(?i)x(bc)+y", r"k[0-9]s", r"(?i)\u03bc|cde", r"(?:ab|ba)c", r"(?i)cd")
             if (n := required(p)) is not None]
    index, hay = Index(needs), Haystack(texts)
    present = index.present(hay)
    assert all((id(n) in present.ids) == hay.may_hold(n) for n in needs)
    # and each requirement's literals the texts hold, no other
    assert all(present.of(n) == [a for a in n.alternatives if a in hay.joined(n.folded)] for n in needs)


def test_the_index_finds_the_same_literals_through_the_compiled_search_on_a_big_bundles_messages():
    from pathlib import Path
    kb = load_kb()
    index = kb.needles["message"]
    lines = sorted({line for f in sorted(Path(kb.root, "samples").glob("*/*/capture.txt"))
                    for line in f.read_text(errors="replace").splitlines() if line.strip()})
    hay = Haystack(lines)
    # the compiled search, both cases
    assert all(hay.compiled(500, f) for f in (False, True))
    present = index.present(hay)
    for folded in (False, True):
        joined = hay.joined(folded)
        every = {alt for need in index._known.values() if need.folded is folded for alt in need.alternatives}
        assert present.literals[folded] == {alt for alt in every if alt in joined}


def test_the_index_knows_its_own_requirements_after_a_pickle_and_no_equal_copy():
    import pickle
    needs = [required(r"lost heartbeat|Device not found"), required(r"(?i)Stuck Occurred")]
    index, copy_of = pickle.loads(pickle.dumps((Index(needs), needs)))
    assert all(index.knows(n) for n in copy_of)   # a kept knowledge base: its signatures and its index together
    assert not index.knows(required(r"lost heartbeat|Device not found"))   # equal, but not one it was made of
    assert index.present(Haystack(["the card lost heartbeat"])).ids == {id(copy_of[0])}


def test_observed_hits_with_the_knowledge_base_index_are_those_without_it():
    kb = load_kb()
    obs = [Observation("message", m, m, "f", n) for n, m in enumerate(
        ["rtKernelLaunch failed", "Heartbeat lost heartbeat", "ok", "LOST HEARTBEAT", "lost heart beat",
         "EZ9999: Inner Error!", "Tiling failed", "No module named 'torch_npu'"], start=1)]
    indexed, plain = Observed(obs, kb.needles), Observed(obs)
    sigs = [s for c in [*kb.cases.values(), *kb.families.values()] for s in [*c.signatures, *c.contradicted_by]
            if s.matcher == "regex" and s.field != "code"]
    assert kb.needles["message"].knows(next(s for s in sigs if s.field == "message").needles)
    assert [indexed.hits(s) for s in sigs] == [plain.hits(s) for s in sigs]


def test_a_needle_character_under_ignorecase_is_ascii_or_cjk_without_case_at_each_edge_of_its_range():
    from casebook.knowledge.literals import _literal
    inside = (0, 127, 0x3000, 0x303F, 0x3400, 0x4DBF, 0x4E00, 0x9FFF)
    outside = (128, 0x2FFF, 0x3040, 0x33FF, 0x4DC0, 0x4DFF, 0xA000, 0x10000)
    assert all(_literal(c, True) for c in inside) and not any(_literal(c, True) for c in outside)
    assert all(_literal(c, False) for c in inside + outside)


def test_an_atomic_group_requires_what_its_inside_requires():
    # re keeps "ab" as a prefix and [cd] after it
    assert [n.alternatives for n in required_all(r"(?>abc|abd)xy")] == [("abc", "abd"), ("xy",)]
    assert required_all(r"(?>kernel)\d") and required_all(r"(?>kernel)\d")[0].alternatives == ("kernel",)
    folded = required_all(r"(?i)(?>Kernel)")
    assert [(n.alternatives, n.folded) for n in folded] == [(("kernel",), True)]


_PIECE = st.sampled_from(["ver", "sion", "ab", "c", "é", "版本", "İ", "K", " ", "\n", "x", "abc", "ver\n"])
_NEEDLE = st.lists(st.sampled_from(["ver", "sion", "ab", "c", "é", "版本", "i", "k", "bc", "x"]), min_size=1,
                   max_size=3).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_PIECE, max_size=8).map("".join), max_size=20), st.lists(_NEEDLE, min_size=1, max_size=6),
       st.booleans())
def test_the_compiled_literal_search_finds_the_texts_each_literal_is_in(texts, needles, folded):
    from unittest import mock

    from casebook.reading import haystack
    # every size goes to the compiled search where it can take the texts (texts holding a newline, or literals under
    # three bytes, are found with str.find): the texts holding any literal, the literals held and where each is are
    # what the plain search of each text says
    with mock.patch.object(haystack, "_COMPILED_FROM", 0):
        hay = haystack.Haystack(texts)
        found, held, places = hay.holding_any(needles, folded), hay.held(needles, folded), hay.places(needles, folded)
    each = [t.lower() if folded else t for t in texts]
    assert found == [i for i, t in enumerate(each) if any(n in t for n in needles)]
    assert places == {n: [i for i, t in enumerate(each) if n in t] for n in needles}
    if all("\n" not in t for t in texts):
        assert held == {n for n in needles if places[n]}
    else:   # a text holding a newline: the joined texts are searched as one, which is what the plain search does
        assert held == {n for n in needles if n in "\n".join(each)}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from([b"ver", b"sion", b"ab", b"c", b"\xc3\xa9", b"x", b"\n"]), max_size=12)
                .map(b"".join), max_size=12).map(b"\n".join),
       st.lists(st.sampled_from([b"version", b"abc", b"sionab", b"\xc3\xa9x", b"xxx", b"cab"]), min_size=1, max_size=6))
def test_the_compiled_literal_searches_find_what_a_plain_search_finds(data, literals):
    from casebook.reading import _linescan
    lines = data.split(b"\n")
    # the lines holding one literal; (literal, line) for each literal each line holds, line by line; the literals held
    assert _linescan.find(data, tuple(literals), LINES) == [i for i, line in enumerate(lines)
                                                             if any(lit in line for lit in literals)]
    pairs = _linescan.find(data, tuple(literals), PAIRS)
    assert sorted(zip(pairs[1::2], pairs[::2])) == sorted((i, k) for i, line in enumerate(lines)
                                                            for k, lit in enumerate(literals) if lit in line)
    assert pairs[1::2] == sorted(pairs[1::2])
    assert _linescan.find(data, tuple(literals), HELD) == [k for k, lit in enumerate(literals) if lit in data]


@pytest.mark.parametrize("what,last", [(LINES, [1]), (HELD, [510]), (PAIRS, [510, 1])])
def test_the_compiled_literal_search_refuses_what_it_cannot_take(what, last):
    from casebook.reading import _linescan
    for literals, error in [((), ValueError), ((b"ab",), ValueError), (("abc",), TypeError),
                            (tuple(b"abc%d" % i for i in range(512)), ValueError)]:
        with pytest.raises(error):
            _linescan.find(b"abc", literals, what)
    with pytest.raises(ValueError):
        _linescan.find(b"abc", (b"abc",), 3)
    # 511 literals, the most it takes (the scan keeps one slot for the device literal)
    assert _linescan.find(b"x\nabc510\n", tuple(b"abc%03d" % i for i in range(511)), what) == last
