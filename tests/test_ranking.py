"""The verdict rules of ranking.judge, each pinned by exact values on small made-up cases."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from casebook.evidence.items import ErrorLine, Fact, Incident
from casebook.judging.observed import CONTINUED, Observation, Observed, error_lines
from casebook.judging.ranking import (CONFIRMED, FALLOUT, LIKELY, POSSIBLE, RULED_OUT, SAME_FAILURE_S, Item, Missing,
                                      diagnosis, explained_lines, judge, rank)
from casebook.knowledge.kb import KnowledgeBase, KnownCase
from casebook.knowledge.rules import Condition, Signature
from casebook.reading.table import LogTable, Record


def sig(id: str, value: str, weight: int = 1, key: bool = False, group: str = "") -> Signature:
    return Signature(id, "message", "contains", value, weight, key, f"why {id}", group)


def obs(*texts: str) -> list[Observation]:
    return [Observation("message", t, t, "plog.log", i + 1) for i, t in enumerate(texts)]


def fact(name: str, value) -> Fact:
    return Fact(name, value, "engineer")


def case(*signatures: Signature, requires=(), against=(), supports=(), contradicted=()) -> KnownCase:
    return KnownCase(id="c", path="kb/cases/c.md", signatures=list(signatures), requires=list(requires),
                     against=list(against), supports=list(supports), contradicted_by=list(contradicted))


KEY = sig("key", "alpha", weight=3, key=True)
SIDE = sig("side", "beta", weight=1)
ONE_PROCESS = Condition("single_process_multi_device", "equals", True, ask="one process?")
QUEUE_ON = Condition("TASK_QUEUE_ENABLE", "in", ["1", "2"], ask="queue?", weight=2)


def test_score_is_matched_weight_over_total_times_the_verdict_factor():
    h = judge(case(KEY, SIDE), obs("alpha", "beta"), {})
    assert (h.verdict, h.score) == (CONFIRMED, 1.0)
    h = judge(case(KEY, SIDE), obs("alpha"), {})
    assert (h.verdict, h.score) == (CONFIRMED, 0.75)          # 3 of 4, factor 1.0
    h = judge(case(KEY, SIDE, requires=[ONE_PROCESS]), obs("alpha"), {})
    assert (h.verdict, h.score) == (LIKELY, 0.6)              # 3 of 4, factor 0.8
    h = judge(case(KEY, SIDE), obs("beta"), {})
    assert (h.verdict, h.score) == (POSSIBLE, 0.125)          # 1 of 4, factor 0.5
    h = judge(case(KEY, SIDE, against=[Condition("single_process_multi_device", "equals", False, why="no")]),
              obs("alpha", "beta"), {"single_process_multi_device": fact("single_process_multi_device", False)})
    assert (h.verdict, h.score) == (RULED_OUT, 0.05)          # 4 of 4, factor 0.05


def test_strong_needs_every_key_unit_and_half_the_weight():
    heavy = sig("heavy", "gamma", weight=3)
    # the key matched but 3 of 7 is under half: possible
    assert judge(case(KEY, heavy, sig("x", "delta")), obs("alpha"), {}).verdict == POSSIBLE
    # exactly half is enough
    assert judge(case(KEY, heavy), obs("alpha"), {}).verdict == CONFIRMED
    # everything but the key: possible, whatever the weight
    assert judge(case(KEY, heavy, SIDE), obs("gamma", "beta"), {}).verdict == POSSIBLE


def test_a_group_scores_once_with_its_best_match():
    a, b = sig("a", "alpha", weight=3, key=True, group="g"), sig("b", "beta", weight=1, group="g")
    h = judge(case(a, b, SIDE := sig("side", "gamma")), obs("beta", "gamma"), {})
    assert h.score == pytest.approx(round(2 / 4 * 1.0, 3))   # group g counts 1 (its best match), side 1; total 3 + 1
    assert h.verdict == CONFIRMED                              # the key group matched through its alternative


def test_required_facts_unknown_give_likely_known_give_confirmed_failing_give_possible():
    c = case(KEY, requires=[ONE_PROCESS])
    assert judge(c, obs("alpha"), {}).verdict == LIKELY
    assert [m.fact for m in judge(c, obs("alpha"), {}).missing] == ["single_process_multi_device"]
    yes = {"single_process_multi_device": fact("single_process_multi_device", True)}
    assert judge(c, obs("alpha"), yes).verdict == CONFIRMED
    no = {"single_process_multi_device": fact("single_process_multi_device", False)}
    h = judge(c, obs("alpha"), no)
    # a required fact that fails and is not mirrored by an `against` keeps the case possible, shown against it
    assert h.verdict == POSSIBLE and [i.id for i in h.against] == ["single_process_multi_device"]
    assert "required" in h.against[0].why


def test_a_sign_its_siblings_share_makes_a_case_likely_and_a_sign_of_its_own_or_a_fact_confirms_it():
    shared = Signature("code", "message", "contains", "alpha", 3, True, "why code", "unit", True)
    own = sig("own", "beta", weight=3, key=True, group="unit")
    c = case(shared, own)
    h = judge(c, obs("alpha"), {})
    assert (h.verdict, h.score) == (LIKELY, 0.8)   # the group of key signs matched whole, at the likely factor
    assert judge(c, obs("alpha", "beta"), {}).verdict == CONFIRMED
    assert judge(c, obs("beta"), {}).verdict == CONFIRMED
    # a supporting fact that holds settles it as one of its own signs does
    backed = case(shared, supports=[Condition("single_process_multi_device", "equals", True, ask="one?")])
    yes = {"single_process_multi_device": fact("single_process_multi_device", True)}
    assert judge(backed, obs("alpha"), {}).verdict == LIKELY
    assert judge(backed, obs("alpha"), yes).verdict == CONFIRMED
    # a shared sign that is not key adds its weight beside a sign of its own, and alone settles nothing either
    side = Signature("side", "message", "contains", "beta", 1, False, "why side", "", True)
    assert judge(case(KEY, side), obs("alpha", "beta"), {}).verdict == CONFIRMED
    assert judge(case(side), obs("beta"), {}).verdict == LIKELY


def test_ruled_out_wins_over_everything_else():
    against = Condition("TASK_QUEUE_ENABLE", "equals", "0", why="queue off")
    h = judge(case(KEY, SIDE, against=[against]), obs("alpha", "beta"),
              {"TASK_QUEUE_ENABLE": fact("TASK_QUEUE_ENABLE", "0")})
    assert h.verdict == RULED_OUT and h.against[-1].why == "queue off"


def test_a_contradiction_caps_the_verdict_at_possible():
    contra = Signature("other", "message", "contains", "lost heartbeat", 1, False, "device went first")
    h = judge(case(KEY, SIDE, contradicted=[contra]), obs("alpha", "beta", "Device[1] lost heartbeat"), {})
    assert h.verdict == POSSIBLE and [(i.id, i.line) for i in h.against] == [("other", 3)]


def test_an_unknown_supporting_fact_does_not_count_against_the_case():
    c = case(KEY, SIDE, supports=[QUEUE_ON])
    unknown = judge(c, obs("alpha"), {})
    assert unknown.score == 0.75 and unknown.verdict == CONFIRMED            # total stays 4 while the fact is unknown
    assert [(m.fact, m.required) for m in unknown.missing] == [("TASK_QUEUE_ENABLE", False)]
    holds = judge(c, obs("alpha"), {"TASK_QUEUE_ENABLE": fact("TASK_QUEUE_ENABLE", "1")})
    assert holds.score == round(5 / 6, 3)                                      # 3 + 2 of 4 + 2
    fails = judge(c, obs("alpha"), {"TASK_QUEUE_ENABLE": fact("TASK_QUEUE_ENABLE", "0")})
    assert fails.score == 0.5                                                  # 3 of 4 + 2: known and not holding


def test_family_signatures_place_a_cause_but_do_not_make_it_likely():
    family = (Signature("fam", "message", "contains", "aicore exception", 1, True, "family"),)
    c = case(KEY, requires=[ONE_PROCESS])
    h = judge(c, obs("aicore exception"), {}, family)
    assert h is not None and h.verdict == POSSIBLE          # only the family shows: no evidence of its own
    assert judge(c, obs("aicore exception"), {"single_process_multi_device":
                                              fact("single_process_multi_device", True)}, family).verdict == POSSIBLE
    h = judge(c, obs("aicore exception", "alpha"), {}, family)
    assert (h.verdict, h.score) == (LIKELY, 0.8)            # own key + the family unit: 4 of 4, factor 0.8
    assert judge(c, obs("nothing"), {}, family) is None


def test_causes_only_their_family_places_score_alike_whatever_number_of_signatures_each_names():
    family = (Signature("fam", "message", "contains", "aicore exception", 2, True, "family"),)
    few = case(KEY)
    many = case(KEY, sig("k2", "gamma", 3, True), sig("k3", "delta", 3, True), SIDE)
    scores = {judge(c, obs("aicore exception"), {}, family).score for c in (few, many)}
    assert scores == {round(2 / (2 + 3) * 0.5, 3)}          # the family's unit over it and one heaviest own unit
    h = judge(many, obs("aicore exception", "gamma"), {}, family)
    assert h.score == round(5 / 12 * 0.5, 3)                # a sign of its own: weighed on its own units again


def test_a_cause_only_possible_on_signs_its_siblings_print_too_scores_as_one_its_family_places():
    """A weak sign every cause of the family prints (a link's socket timeout) does not put a cause whose own sign
    and fact are missing ahead of the siblings only the family places."""
    family = (Signature("fam", "message", "contains", "aicore exception", 1, True, "family"),)
    waits = Signature("waits", "message", "contains", "beta", 1, False, "why waits", "waits", True)
    specific = case(KEY, waits, requires=[ONE_PROCESS])
    placed = judge(case(KEY), obs("aicore exception", "beta"), {}, family)
    h = judge(specific, obs("aicore exception", "beta"), {}, family)
    assert h.verdict == POSSIBLE and h.score == placed.score == round(1 / (1 + 3) * 0.5, 3)
    # without the family's sign the shared sign places it, as a family's sign would
    assert judge(specific, obs("beta"), {}).score == round(1 / 3 * 0.5, 3)
    # its own key sign or its fact weighs it on its own units again
    assert judge(specific, obs("aicore exception", "alpha", "beta"), {}, family).score == 0.8
    one = {"single_process_multi_device": fact("single_process_multi_device", True)}
    assert judge(specific, obs("aicore exception", "beta"), one, family).score == round(2 / 5 * 0.5, 3)


def bit(id: str, value, weight: int = 3, key: bool = True, group: str = "") -> Signature:
    return Signature(id, "error_bits", "in" if isinstance(value, list) else "equals", value, weight, key,
                     f"why {id}", group)


def bits(*names: str) -> list[Observation]:
    return [Observation("error_bits", n, f"errcode {n}", "plog.log", 10 + i) for i, n in enumerate(names)]


REPLAY = Condition("single_op_replay_fails", "equals", True, ask="replay?", weight=2)


def test_error_bits_alone_make_a_case_likely_and_a_fact_of_the_case_that_holds_confirms_it():
    c = case(bit("bits", ["CCU_ILLEGAL_INSTR", "VEC_INSTR_UNDEF"]), SIDE, supports=[REPLAY])
    h = judge(c, bits("CCU_ILLEGAL_INSTR") + obs("beta"), {})
    assert (h.verdict, h.score) == (LIKELY, 0.8)             # 4 of 4, factor 0.8: which bit fired is not the cause
    assert [(m.fact, m.required) for m in h.missing] == [("single_op_replay_fails", False)]
    yes = judge(c, bits("CCU_ILLEGAL_INSTR"), {"single_op_replay_fails": fact("single_op_replay_fails", True)})
    assert (yes.verdict, yes.score) == (CONFIRMED, round(5 / 6, 3))   # 3 + 2 of 4 + 2
    no = judge(c, bits("CCU_ILLEGAL_INSTR"), {"single_op_replay_fails": fact("single_op_replay_fails", False)})
    assert (no.verdict, no.score) == (LIKELY, 0.4)           # known and not holding: 3 of 6, still strong, factor 0.8
    required = case(bit("bits", "CCU_ADDR_ERR"), requires=[ONE_PROCESS])
    assert judge(required, bits("CCU_ADDR_ERR"), {"single_process_multi_device":
                                                  fact("single_process_multi_device", True)}).verdict == CONFIRMED


def test_a_bit_grouped_with_its_text_is_still_a_bit_and_another_key_unit_lifts_the_rule():
    grouped = case(bit("b", "VEC_INSTR_ILLEGAL_CFG", group="g"),
                   sig("t", "instruction parameter", 3, key=True, group="g"))
    assert judge(grouped, obs("The VEC instruction parameter is invalid"), {}).verdict == LIKELY
    with_op = case(bit("b", "MTE_ERR_ADDR_MISALIGN"), sig("op", "MoeDistributeDispatch", 3, key=True))
    assert judge(with_op, bits("MTE_ERR_ADDR_MISALIGN") + obs("MoeDistributeDispatch"), {}).verdict == CONFIRMED
    # a side signature of another field does not: the key evidence is still the bit alone
    assert judge(case(bit("b", "MTE_L1_ECC"), SIDE), bits("MTE_L1_ECC") + obs("beta"), {}).verdict == LIKELY


def test_no_bit_set_is_not_a_bit_and_a_timeout_is_judged_on_its_code():
    timeout = case(bit("none", "none"), sig("code", "retCode=0x25", 2))
    assert judge(timeout, bits("none") + obs("retCode=0x25"), {}).verdict == CONFIRMED


# --- ranking the cases of a knowledge base ---------------------------------------------------------------


def incident(file: str, line: int, time: str | None, device: int | None = None, pid: int | None = None,
             role: str = "cause") -> Incident:
    first = ErrorLine(file, line, time, None, pid, device, None, f"{file}:{line}")
    return Incident(node=None, rank=None, device=device, pid=pid, first=first, cascade=0, last_time=time, role=role)


def ranked(*cases: KnownCase, incidents=(), texts=("alpha", "beta")) -> list:
    kb = KnowledgeBase(root=Path("kb"), cases={c.id: c for c in cases})
    return rank(kb, SimpleNamespace(incidents=list(incidents)), {}, Observed(obs(*texts)))


def named(id: str, *signatures: Signature, family: str = "", **kw) -> KnownCase:
    c = case(*signatures, **kw)
    c.id, c.family = id, family
    return c


def test_cases_rank_by_score_then_id_and_unmatched_cases_are_left_out():
    hs = ranked(named("b", KEY), named("a", KEY), named("c", KEY, SIDE, sig("z", "zeta", weight=5)),
                named("d", sig("n", "nothing")))
    # a and b read the same line, so neither is told from the other: both likely, their scores kept
    assert [(h.case.id, h.verdict, h.score) for h in hs] == [("a", LIKELY, 1.0), ("b", LIKELY, 1.0),
                                                           ("c", POSSIBLE, 0.222)]
    assert diagnosis(hs).case.id == "a"
    assert diagnosis(hs[2:]) is None


def test_a_generic_familys_cause_is_fallout_beside_another_familys_sure_signs():
    from casebook.knowledge.kb import Family
    generic = Family("generic", "families/generic.md", fallback=True,
                     signatures=[Signature("py", "message", "contains", "Error", 1, True, "any error")])
    compile_ = Family("compile", "families/compile.md",
                      signatures=[Signature("cc", "message", "contains", "error: op", 1, True, "a compiler's error")])
    none_read = named("none-read", sig("none", "NoneType", weight=3, key=True), family="generic")
    kb = KnowledgeBase(root=Path("kb"), cases={"none-read": none_read},
                       families={"generic": generic, "compile": compile_})

    def judged(*texts):
        (h,) = rank(kb, SimpleNamespace(incidents=[]), {}, Observed(obs(*texts)))
        return h
    alone = judged("AttributeError: 'NoneType' object has no attribute 'group'")
    assert alone.verdict == CONFIRMED and all(i.id != FALLOUT for i in alone.against)
    beside = judged("AttributeError: 'NoneType' object has no attribute 'group'", "error: op operands' shapes differ")
    # the compiler's failure explains the None: possible, with its score at the possible factor, and the family named
    assert (beside.verdict, beside.score) == (POSSIBLE, round(alone.score / 1.0 * 0.5, 3))
    assert [(i.id, i.text) for i in beside.against] == [(FALLOUT, "compile")]


def test_a_case_is_confirmed_only_when_something_tells_it_from_a_sibling_that_reads_its_lines():
    wide = sig("wide", "alph", weight=3, key=True)   # reads every line KEY reads

    def ids(hs):
        return [(h.case.id, h.verdict, h.score) for h in hs]

    hs = ranked(named("a", KEY, family="f"), named("b", wide, family="f"))
    assert ids(hs) == [("a", LIKELY, 1.0), ("b", LIKELY, 1.0)]
    assert [(i.id, i.text) for i in hs[0].against] == [("sibling_reads_same_lines", "b")]
    # another family's case reading the line is no sibling
    assert ids(ranked(named("a", KEY, family="f"), named("b", wide, family="g"))) == [
        ("a", CONFIRMED, 1.0), ("b", CONFIRMED, 1.0)]
    # a line of its own (beta) that the sibling does not read tells a apart; every line of b is one a reads too,
    # so b is the one left likely
    hs = ranked(named("a", KEY, SIDE, family="f"), named("b", wide, family="f"))
    assert ids(hs) == [("a", CONFIRMED, 1.0), ("b", LIKELY, 1.0)]
    # a fact of the case that holds tells it apart
    one = Condition("single_process_multi_device", "equals", True, ask="one process?", weight=1)
    kb = KnowledgeBase(root=Path("kb"), cases={c.id: c for c in (named("a", KEY, family="f", supports=[one]),
                                                                   named("b", wide, family="f"))})
    hs = rank(kb, SimpleNamespace(incidents=[]), {"single_process_multi_device": fact("single_process_multi_device", True)},
              Observed(obs("alpha", "beta")))
    assert ids(hs) == [("a", CONFIRMED, 1.0), ("b", LIKELY, 1.0)]
    # a sibling whose own key signature is not all there (possible) is no strong alternative
    hs = ranked(named("a", KEY, family="f"), named("b", wide, sig("k2", "omega", weight=3, key=True), family="f"))
    assert ids(hs) == [("a", CONFIRMED, 1.0), ("b", POSSIBLE, 0.25)]
    # a sibling ruled out by a fact is no open cause
    gone = Condition("single_process_multi_device", "equals", True, why="ruled out")
    kb = KnowledgeBase(root=Path("kb"), cases={c.id: c for c in (named("a", KEY, family="f"),
                                                                   named("b", wide, family="f", against=[gone]))})
    hs = rank(kb, SimpleNamespace(incidents=[]), {"single_process_multi_device": fact("single_process_multi_device", True)},
              Observed(obs("alpha", "beta")))
    assert ids(hs) == [("a", CONFIRMED, 1.0), ("b", RULED_OUT, 0.05)]


T0 = "2026-03-14T10:00:00"


def test_a_confirmed_case_that_leaves_the_earliest_cause_unexplained_is_likely():
    earliest = incident("other.log", 5, T0, device=1)
    hs = ranked(named("a", KEY), incidents=[earliest, incident("plog.log", 1, "2026-03-14T10:00:30", device=3)])
    (h,) = hs
    assert (h.verdict, h.score) == (LIKELY, 0.8)
    assert [(i.id, i.file, i.line) for i in h.against] == [("earliest_cause", "other.log", 5)]
    # consequences and incidents after the explained one do not count
    hs = ranked(named("a", KEY), incidents=[incident("other.log", 5, T0, device=1, role="consequence"),
                                            incident("plog.log", 1, "2026-03-14T10:00:30", device=3)])
    assert (hs[0].verdict, hs[0].score) == (CONFIRMED, 1.0)
    # an untimed cause the case explains (a screen capture's line) cannot be ordered: no demotion
    hs = ranked(named("a", KEY), incidents=[earliest, incident("plog.log", 1, None)])
    assert hs[0].verdict == CONFIRMED


@pytest.mark.parametrize("later,place,verdict", [
    ("2026-03-14T10:00:05", {"device": 1}, CONFIRMED), ("2026-03-14T10:00:05.001", {"device": 1}, LIKELY),
    ("2026-03-14T10:00:05", {"pid": 7}, CONFIRMED), ("2026-03-14T10:00:01", {"device": 2}, LIKELY)])
def test_one_failure_seen_from_two_sides_within_five_seconds(later, place, verdict):
    earliest = incident("device.log", 9, T0, device=1, pid=7)
    seen = incident("plog.log", 1, later, **place)
    assert ranked(named("a", KEY), incidents=[earliest, seen])[0].verdict == verdict
    assert SAME_FAILURE_S == 5.0


def test_explained_lines_are_those_of_confirmed_and_likely_cases_only():
    c = named("a", KEY, requires=[ONE_PROCESS])
    sure = judge(c, obs("alpha", "beta"), {"single_process_multi_device": Fact("single_process_multi_device", True,
                                                                                 "logs", "topo.log", 12)})
    maybe = judge(named("b", SIDE, sig("w", "omega", weight=5)), obs("alpha", "beta"), {})
    assert (sure.verdict, maybe.verdict) == (CONFIRMED, POSSIBLE)
    assert explained_lines([sure, maybe]) == {("plog.log", 1), ("topo.log", 12)}
    assert explained_lines([maybe]) == set()


def test_a_demoted_score_is_rounded_to_three_places_and_the_against_item_cites_the_earliest_line():
    c = named("a", sig("key", "alpha", weight=2, key=True), sig("miss", "gamma"))   # 2 of 3: 0.667 confirmed
    earliest = incident("other.log", 5, T0, device=1)
    (h,) = ranked(c, incidents=[earliest, incident("plog.log", 1, "2026-03-14T10:00:30", device=3)])
    assert (h.verdict, h.score) == (LIKELY, 0.534)   # 0.667 × 0.8 = 0.5336
    assert h.against == [Item("earliest_cause", "other.log:5", "other.log", 5,
                              "the bundle's earliest failure is not among the lines this case explains")]


def test_a_fact_item_shows_the_value_its_source_and_a_note_when_there_is_one():
    c = case(KEY, supports=[QUEUE_ON])
    plain = judge(c, obs("alpha"), {"TASK_QUEUE_ENABLE": Fact("TASK_QUEUE_ENABLE", "1", "engineer")})
    noted = judge(c, obs("alpha"), {"TASK_QUEUE_ENABLE": Fact("TASK_QUEUE_ENABLE", "2", "default", "env.sh", 3,
                                                              "the documented default")})
    assert [(i.id, i.text, i.file, i.line) for i in plain.for_[1:]] == [
        ("TASK_QUEUE_ENABLE", "TASK_QUEUE_ENABLE = 1 [engineer]", None, None)]
    assert [(i.id, i.text, i.file, i.line) for i in noted.for_[1:]] == [
        ("TASK_QUEUE_ENABLE", "TASK_QUEUE_ENABLE = 2 [default] (the documented default)", "env.sh", 3)]


def test_the_items_for_against_and_missing_carry_each_reason_and_question():
    contra = Signature("contra", "message", "contains", "gamma", 1, False, "points elsewhere")
    c = case(KEY, requires=[ONE_PROCESS, Condition("TASK_QUEUE_ENABLE", "equals", "1", ask="queue?", ask_zh="队列?")],
             supports=[Condition("failure_vanished_with_debug", "equals", True, ask="vanished?", ask_zh="消失?"),
                       Condition("ASCEND_LAUNCH_BLOCKING", "equals", "0", ask="blocking?", why="no blocking")],
             contradicted=[contra])
    facts = {"single_process_multi_device": fact("single_process_multi_device", True),
             "ASCEND_LAUNCH_BLOCKING": fact("ASCEND_LAUNCH_BLOCKING", "0")}
    h = judge(c, obs("alpha", "gamma"), facts)
    assert [(i.id, i.file, i.line, i.why) for i in h.for_] == [
        ("key", "plog.log", 1, "why key"), ("single_process_multi_device", None, None, "required fact holds"),
        ("ASCEND_LAUNCH_BLOCKING", None, None, "no blocking")]
    assert [(i.id, i.file, i.line, i.why) for i in h.against] == [("contra", "plog.log", 2, "points elsewhere")]
    # an unknown supporting fact does not stop the ones after it from counting
    assert h.missing == [Missing("TASK_QUEUE_ENABLE", "queue?", "队列?"),
                         Missing("failure_vanished_with_debug", "vanished?", "消失?", required=False)]
    unasked = judge(case(KEY, requires=[Condition("TASK_QUEUE_ENABLE", "equals", "1")],
                         supports=[Condition("ASCEND_LAUNCH_BLOCKING", "equals", "0")]), obs("alpha"), {})
    assert unasked.missing == [Missing("TASK_QUEUE_ENABLE", ""), Missing("ASCEND_LAUNCH_BLOCKING", "", required=False)]


def test_a_required_fact_that_holds_is_evidence_of_its_own_beside_the_family_and_an_unmatched_family_counts():
    family = (Signature("fam", "message", "contains", "aicore exception", 1, True, "family"),)
    c = case(sig("key", "never", weight=1, key=False), requires=[ONE_PROCESS])
    h = judge(c, obs("aicore exception"), {"single_process_multi_device": fact("single_process_multi_device", True)},
              family)
    assert (h.verdict, h.score) == (CONFIRMED, 0.5)   # the family's unit and the held fact: 1 of 2, confirmed
    # the family's unit is in the total even when none of its signs show; and without them the case is not settled
    alone = judge(case(KEY), obs("alpha"), {}, family)
    assert (alone.verdict, alone.score) == (LIKELY, 0.6)


def test_a_key_line_its_family_does_not_surround_is_likely_at_most():
    """'No such file or directory' of a compiler is not a data loader's: a case is confirmed on its key line only when
    a sign of its family shows too, or a fact of its own holds."""
    family = (Signature("fam", "message", "contains", "DataLoader worker", 1, True, "family"),)
    shared = case(sig("key", "No such file", weight=3), sig("ctx", "Caught", weight=1, key=False))
    assert judge(shared, obs("fatal error: acl/acl.h: No such file or directory"), {}, family).verdict == LIKELY
    assert judge(shared, obs("Caught OSError in DataLoader worker process 0", "No such file or directory"), {},
                 family).verdict == CONFIRMED
    held = case(sig("key", "No such file", weight=3), requires=[ONE_PROCESS])
    assert judge(held, obs("No such file"), {"single_process_multi_device": fact("single_process_multi_device", True)},
                 family).verdict == CONFIRMED
    assert judge(shared, obs("No such file"), {}, ()).verdict == CONFIRMED   # a case of no family: its own lines


def test_a_sign_that_places_its_family_settles_the_case_without_the_familys_signs():
    """A media unit's own argument check is printed by no other kind of failure: a signature marked `places` puts
    the case in its family itself, so its line confirms the case where an unmarked one would leave it likely."""
    family = (Signature("fam", "message", "contains", "DataLoader worker", 1, True, "family"),)
    placing = Signature("key", "message", "contains", "cropWidth", 3, True, "why key", places=True)
    assert judge(case(placing), obs("cropWidth(1290) should not be bigger than width(1280)!"), {},
                 family).verdict == CONFIRMED
    unmarked = Signature("key", "message", "contains", "cropWidth", 3, True, "why key")
    assert judge(case(unmarked), obs("cropWidth(1290) should not be bigger than width(1280)!"), {},
                 family).verdict == LIKELY
    # placing is no licence against the rest of the rules: a shared sign that places still settles nothing alone
    both = Signature("key", "message", "contains", "cropWidth", 3, True, "why key", shared=True, places=True)
    assert judge(case(both), obs("cropWidth(1290) should not be bigger than width(1280)!"), {},
                 family).verdict == LIKELY


def test_a_retcode_the_case_does_not_name_keeps_it_from_confirmed():
    """A kernel that ended with retCode 0x26 did not time out, whatever its errorStr says; with 0x25 it did."""
    from casebook.judging.observed import Observation, Observed
    from casebook.judging.ranking import judge
    from casebook.knowledge.kb import load_kb
    case = load_kb().cases["aicore-kernel-execution-timeout"]

    def seen(code):
        return Observed([Observation("aicore_fault", True, "fault", "plog", 1),
                         Observation("error_bits", "none", "errcode:(0, 0, 0)", "plog", 2),
                         Observation("code", code, f"retCode={code}, [timeout or trap error]", "plog", 3),
                         Observation("message", f"retCode={code}, [timeout or trap error]",
                                     f"retCode={code}, [timeout or trap error]", "plog", 3)])

    timeout, trap = judge(case, seen("0x25"), {}), judge(case, seen("0x26"), {})
    assert not any(i.id == "excluded_retCode" for i in timeout.against)
    assert trap.verdict == "possible" and [i.why for i in trap.against if i.id == "excluded_retCode"] == [
        "the log's retCode 0x26 is none of this case's (0x25, 0x30)"]
    assert timeout.verdict in ("confirmed", "likely")


def test_no_sample_confirms_a_case_against_the_retcodes_it_names():
    import yaml
    from pathlib import Path
    from casebook.judging.ranking import EXCLUSIVE_KINDS
    from casebook.judging.triage import triage
    root = Path(__file__).resolve().parents[1] / "kb" / "samples"
    retcode = EXCLUSIVE_KINDS["retCode"]
    bad = []
    for expect in sorted(root.glob("*/*/expect.yaml")):
        t = triage(expect.parent, facts=(yaml.safe_load(expect.read_text(encoding="utf-8"))["runs"][0].get("facts")
                                         or {}))
        logged = {c.code for c in t.evidence.codes if retcode.fullmatch(str(c.code))}
        for h in t.candidates:
            named = {str(v) for s in h.case.signatures if s.field == "code" and s.matcher in ("equals", "in")
                     for v in (s.value if s.matcher == "in" else [s.value]) if retcode.fullmatch(str(v))}
            if h.verdict == "confirmed" and named and logged and not named & logged:
                bad.append((expect.parent.name, h.case.id))
    assert bad == []


def test_the_bare_lines_right_after_an_error_go_on_its_message():
    """A message with newlines of its own (the graph engine's reason per op store) is read whole; a bare line after
    an INFO line, after a gap, in another file or past CONTINUED lines is not."""
    rows = [("a.log", 1, "plog", "ERROR", "GetDNNEngineName: assign engine failed ... Op store name is tbe-custom."),
            ("a.log", 2, "unparsed", None, "The dtype, format or shape of input in op desc is not supported in op store"),
            *[("a.log", 3 + i, "unparsed", None, f"more {i}") for i in range(CONTINUED)],
            ("a.log", 10, "plog", "INFO", "Epoch 3 done"),
            ("a.log", 11, "unparsed", None, "a bare line after an INFO line"),
            ("a.log", 12, "plog", "ERROR", "second error"),
            ("a.log", 14, "unparsed", None, "after a gap"),
            ("b.log", 15, "unparsed", None, "another file")]
    log = LogTable([], [], [Record(file, line, kind, level=level, msg=msg) for file, line, kind, level, msg in rows])
    assert [r.line for r in error_lines(log)] == [1, 2, 3, 4, 12]


def test_only_a_function_a_header_names_is_observed_beside_the_message():
    """A line whose header names no function (None, an empty name) gives its message alone: no `function` value a
    signature could match by accident."""
    from casebook.judging.observed import observations
    errors = [Record(file, line, "plog", msg=msg, func=func) for file, line, msg, func in
              [("a.log", 1, "boom", "bs_done_exception_proc_timeout"), ("a.log", 2, "two", None),
               ("a.log", 3, "three", ""), ("b.log", 4, "four", None)]]
    got = observations(SimpleNamespace(aicore_faults=[], codes=[], rejections=[], facts={}), errors)
    assert got == [Observation("message", "boom", "boom", "a.log", 1),
                   Observation("function", "bs_done_exception_proc_timeout", "boom", "a.log", 1),
                   Observation("message", "two", "two", "a.log", 2),
                   Observation("message", "three", "three", "a.log", 3),
                   Observation("message", "four", "four", "b.log", 4)]


def test_the_function_a_header_names_is_evidence_where_the_message_is_only_values(tmp_path):
    """The task scheduler's timeout handler names the failure; its message is a list of values."""
    from casebook.judging.triage import triage
    line = ("[ERROR] TSCH(-1,null):2022-11-17-08:14:52.330.118 31 (cpuid:0) ai_core_dispatcher.c:1012 "
            "bs_done_exception_proc_timeout: slot_id=0,TS_ctrl=0x4,exception_core_list=0x0,current core usage=0x1,"
            "AI_CORES_COUNT=2, fault_task=7\n")
    (tmp_path / "device.log").write_text(line, encoding="utf-8")
    t = triage(tmp_path / "device.log")
    h = next(h for h in t.candidates if h.case.id == "aicore-kernel-execution-timeout")
    assert {"tsch_timeout_handler", "tsch_timeout_fault"} <= {i.id for i in h.for_}
    assert h.verdict == LIKELY   # the device's record alone: nothing of the family's on the host side
    assert t.diagnosis is h


def test_the_code_position_an_error_line_names_is_observed_as_its_source():
    from casebook.judging.observed import observations
    errors = [Record("b.log", 7, "console", msg="error: use of undeclared identifier 'PIPE_FIX'",
                     src="pto-isa/include/pto/common/event.hpp:232"),
              Record("b.log", 9, "console", msg="no position", src=None)]
    got = observations(SimpleNamespace(aicore_faults=[], codes=[], rejections=[], facts={}), errors)
    assert Observation("source", "pto-isa/include/pto/common/event.hpp:232", errors[0].msg, "b.log", 7) in got
    assert [o.field for o in got if o.line == 9] == ["message"]


def test_a_complaint_that_names_what_the_op_accepts_is_also_observed_as_its_rule():
    """`rejected` is every complaint's aspect; `rejected_rule` only that of a complaint naming its allowed values."""
    from casebook.evidence.items import Rejection
    from casebook.judging.observed import observations
    named = Rejection(op="aclnnFoo", aspect="shape", param="head dim", value="512", allowed=("64", "128"),
                      file="a.log", line=3, text="head dim 512 is not support, only support 64, 128")
    bare = Rejection(op=None, aspect="shape", param="params", value=None, allowed=(), file="a.log", line=9,
                     text="params shape is invalid.")
    # the value it must take is another tensor's of the same call: the inputs disagree, no rule of the op is named
    relative = Rejection(op="aclnnBatchMatMul", aspect="shape", param="tensor", value="[3,64,67]",
                         allowed=("be same with output's shape[[1,64,67]]",), file="a.log", line=12,
                         text="Input tensor's shape[[3,64,67]] should be same with output's shape[[1,64,67]].")
    ev = SimpleNamespace(aicore_faults=[], codes=[], rejections=[named, bare, relative], facts={})
    got = [(o.field, o.value, o.line) for o in observations(ev, [])]
    assert got == [("rejected", "shape", 3), ("rejected_rule", "shape", 3), ("rejected", "shape", 9),
                   ("rejected", "shape", 12)]


@pytest.mark.parametrize("allowed, rule", [
    ("be equal except merge axis,shapes:[[1, 3, 80, 80, 2, ], [1, 3, 40, 40, 81, ], ]", False),   # ATC's ConcatD
    ("be equal to tensor 0 [11]", False),
    ("be equal to batch size(2)", False),
    ("be equal to the last element of the query's actual sequence lengths(9)", False),
    ("be consistent with x1's", False),
    ("be equal to [8142,8,64,128]", True),      # a shape the op names: its rule
    ("be one of [64, 128, 256]", True),
])
def test_an_allowed_value_that_is_another_input_of_the_call_states_no_rule(allowed, rule):
    from casebook.evidence.items import Rejection
    r = Rejection(op="Concat_243", aspect="shape", param="input", value=None, allowed=(allowed,), file="a.log", line=4,
                  text=f"the input shape dims should {allowed}")
    assert r.states_rule() is rule


def test_a_message_a_paste_broke_over_two_lines_is_also_read_whole():
    from casebook.judging.observed import observations
    errors = [Record("a.txt", 1, "console", level="ERROR", msg="when query's layout is TND, T(1) should be equal to the "
                                                                   "last element"),
              Record("a.txt", 2, "unparsed", msg="of the query's actual sequence lengths(9)."),
              Record("a.txt", 5, "unparsed", msg="not the next line")]
    got = [(o.value, o.line) for o in observations(SimpleNamespace(aicore_faults=[], codes=[], rejections=[], facts={}), errors)
           if o.field == "message"]
    # the joined message comes after every line alone: a sign that one line shows by itself is cited by that line
    assert got == [(errors[0].msg, 1), (errors[1].msg, 2), (errors[2].msg, 5),
                   (errors[0].msg + " of the query's actual sequence lengths(9).", 1)]


def test_a_fault_report_without_an_error_bit_speaks_against_the_raced_launch_cache(tmp_path):
    # the founding sample as it is, and with every errcode triple zeroed: a kernel that met no bad access
    import shutil
    from casebook.judging.triage import triage
    from casebook.knowledge.kb import load_kb
    kb = load_kb()
    sample = kb.root / "samples" / "task-queue-shared-cache-race" / "positive-error-level"
    assert triage(sample, kb=kb).diagnosis.case.id == "task-queue-shared-cache-race"
    copy = tmp_path / "no-bit"
    shutil.copytree(sample, copy)
    zeroed = 0
    for path in copy.rglob("*.log"):
        text = path.read_text(encoding="utf-8")
        zeroed += text.count("errcode:(0, 0x8000, 0)")
        path.write_text(text.replace("errcode:(0, 0x8000, 0)", "errcode:(0, 0, 0)"), encoding="utf-8")
    assert zeroed
    race = triage(copy, kb=kb).candidate("task-queue-shared-cache-race")
    assert race.verdict == POSSIBLE and "fault_without_error_bit" in [a.id for a in race.against]
