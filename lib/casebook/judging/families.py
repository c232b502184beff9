"""Symptom families: which family the evidence places the failure in, which of its root causes are still open, and
the question that best splits them.

A family is judged like a case that has only signatures. Its open causes are its root-cause cases that no fact
rules out, best first. The next question is the unknown fact whose answer is expected to remove the most
probability mass from the open causes: each open cause weighs its score (a small prior when none of its own
evidence matched), an answer removes the causes it would rule out (an `against` that holds, a `requires` that
fails), and the answers of a fact count as equally likely.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..evidence.items import Fact
from ..knowledge import priors
from ..knowledge.kb import Family, KnowledgeBase, KnownCase
from ..knowledge.rules import Condition
from ..knowledge.vocabulary import FACTS, UNSET
from .observed import Observed
from .ranking import CONFIRMED, RULED_OUT, Hypothesis, Item, Missing, diagnosis, judge

#: Weight of an open cause none of whose own evidence matched: possible, but below any cause that has some.
PRIOR = 0.1


@dataclass
class FamilyVerdict:
    """The family the evidence supports, and how far down to a root cause it gets."""

    family: Family
    verdict: str
    score: float
    for_: list[Item] = field(default_factory=list)
    against: list[Item] = field(default_factory=list)
    open_causes: list[str] = field(default_factory=list)   #: cause ids not ruled out, best first
    questions: list[Missing] = field(default_factory=list)  #: unknown facts that split the open causes, best first
    most_often: tuple[str, int, int] | None = None  #: the open cause real reports state most: (case, n, of the family's)
    #: each open cause's mass: how well the evidence fits it times how often the family's real reports state it
    weights: dict[str, float] = field(default_factory=dict)

    @property
    def next_question(self) -> Missing | None:
        """The question whose answer is expected to remove the most of the open causes."""
        return self.questions[0] if self.questions else None


def _rules_out(case: KnownCase, fact: str, value: object) -> bool:
    """Would this answer rule the cause out (a fact against holds, or a required fact fails)?"""
    return (any(c.fact == fact and c.holds(value) for c in case.against)
            or any(c.fact == fact and not c.holds(value) for c in case.requires))


def _answers(fact: str, conditions: list[Condition]) -> list[object]:
    """The answers a fact can take, as far as the causes' conditions tell them apart."""
    spec = FACTS[fact]
    if spec.kind == "bool":
        return [True, False]
    if spec.choices:
        return [c for c in spec.choices if c != UNSET]
    seen: list[object] = []
    for cond in conditions:
        for v in (cond.value if cond.matcher == "in" else [cond.value]):
            if v not in seen:
                seen.append(v)
    return seen + ["(another value)"]


def separation(fact: str, causes: list[KnownCase], weights: dict[str, float]) -> tuple[float, float]:
    """How well an answer to `fact` separates `causes`: the expected product of the mass it rules out and the
    mass it keeps (zero when every answer keeps them all or removes them all), then the expected mass removed."""
    if fact not in FACTS:
        return 0.0, 0.0
    conditions = [c for case in causes for c in (*case.against, *case.requires) if c.fact == fact]
    answers = _answers(fact, conditions)
    total = sum(weights[case.id] for case in causes)
    removed = [sum(weights[case.id] for case in causes if _rules_out(case, fact, a)) for a in answers]
    return (sum(r * (total - r) for r in removed) / len(answers), sum(removed) / len(answers))


def _ask(fact: str, family: Family, causes: list[KnownCase]) -> Condition | None:
    """Where the question for a fact is worded: the family's own questions first, then a cause's."""
    for cond in family.questions:
        if cond.fact == fact:
            return cond
    for case in causes:
        for cond in (*case.requires, *case.supports):
            if cond.fact == fact and cond.ask:
                return cond
    return None


def split_questions(family: Family, causes: list[KnownCase], weights: dict[str, float],
                    facts: dict[str, Fact]) -> list[Missing]:
    """Unknown facts that split the open causes, ordered by the probability mass an answer is expected to
    remove (ties keep the order the family and its causes name them)."""
    named: list[str] = []
    for cond in (*family.questions, *(c for case in causes for c in (*case.against, *case.requires, *case.supports))):
        if cond.fact not in named and cond.fact not in facts:
            named.append(cond.fact)
    scored = []
    for order, fact in enumerate(named):
        conditions = [c for case in causes for c in (*case.against, *case.requires) if c.fact == fact]
        answers = _answers(fact, conditions)
        removed = [sum(weights[case.id] for case in causes if _rules_out(case, fact, a)) for a in answers]
        gain = sum(removed) / len(answers)   # the expected mass removed, each answer as likely
        ask = _ask(fact, family, causes)
        if gain > 0 and ask is not None:
            scored.append((-gain, order, Missing(fact, ask.ask or "", ask.ask_zh, required=False)))
    scored.sort(key=lambda s: s[:2])   # the order named is unique: two questions are never compared
    return [m for _, _, m in scored]


def judge_family(family: Family, kb: KnowledgeBase, obs: Observed, facts: dict[str, Fact],
                 hypotheses: list[Hypothesis], lead: Hypothesis | None = None) -> FamilyVerdict | None:
    """The family's verdict and its open causes, or None when none of its signatures match; `lead`, a diagnosis
    of this family, places the failure in it when its signatures do not (the family is then as sure as that
    cause, on the cause's evidence)."""
    h = judge(family, obs, {})
    if h is None and lead is not None:
        h = Hypothesis(family, lead.verdict, lead.score, for_=list(lead.for_))
    if h is None:
        return None
    judged = {x.case.id: x for x in hypotheses}
    causes = [kb.cases[c] for c in family.causes if c in kb.cases and kb.cases[c].status == "verified"]
    open_causes = [c for c in causes if not (c.id in judged and judged[c.id].verdict == RULED_OUT)
                   and not any(cond.holds(facts[cond.fact].value) for cond in c.against if cond.fact in facts)]
    rates = priors.load(kb.root)
    # how well the evidence fits a cause, raised by the share of the family's real reports that state it: the base
    # rate at most doubles a weight, so the evidence leads and the rate orders what the evidence leaves alike
    stated = max(rates.families.get(family.id, 0), 1)
    weights = {c.id: (max(judged[c.id].score, PRIOR) if c.id in judged else PRIOR) * (1 + rates.of(c.id) / stated)
               for c in open_causes}
    open_causes.sort(key=lambda c: (-weights[c.id], -rates.of(c.id), c.id))
    # the most frequent stated cause among those that lead (a cause the evidence put below others is not named)
    top = [c for c in open_causes if weights[c.id] == weights[open_causes[0].id]] if open_causes else []
    best = max(top, key=lambda c: rates.of(c.id), default=None)
    most_often = ((best.id, rates.of(best.id), rates.families.get(family.id, 0))
                  if best is not None and rates.of(best.id) else None)
    # a family has no facts of its own: nothing rules it out or leaves it likely, so it is confirmed or possible
    return FamilyVerdict(family, h.verdict, h.score, h.for_, h.against, [c.id for c in open_causes],
                         split_questions(family, open_causes, weights, facts), most_often, weights)


def judge_families(kb: KnowledgeBase, obs: Observed, facts: dict[str, Fact],
                   hypotheses: list[Hypothesis]) -> list[FamilyVerdict]:
    """Every family with a matching signature, best first."""
    found = [v for family in kb.families.values() if (v := judge_family(family, kb, obs, facts, hypotheses))]
    # a diagnosis is a sign of its family's symptom though the family's own wordings did not show; a family
    # whose own signs are sure is not displaced by a likely one, but a confirmed cause is as sure as they are
    lead = diagnosis(hypotheses)
    if (lead is not None and lead.case.family in kb.families
            and (lead.verdict == CONFIRMED
                 or not any(v.verdict == CONFIRMED and not v.family.fallback for v in found))
            and all(v.family.id != lead.case.family for v in found)):
        found.append(judge_family(kb.families[lead.case.family], kb, obs, facts, hypotheses, lead))
    # a family of generic signs comes after every other family the evidence places, however well its signs match
    return sorted(found, key=lambda v: (v.verdict != CONFIRMED, v.family.fallback, -v.score, v.family.id))


def supported_family(verdicts: list[FamilyVerdict], diagnosis: Hypothesis | None) -> FamilyVerdict | None:
    """The family the evidence supports: the diagnosis's own family when there is one, else the best family
    whose signatures match strongly."""
    if diagnosis is not None:
        own = next((v for v in verdicts if v.family.id == diagnosis.case.family), None)
        if own is not None:
            return own
    return next((v for v in verdicts if v.verdict == CONFIRMED), None)
