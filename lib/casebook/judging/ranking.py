"""Hypotheses: each known case scored against the evidence and the facts, with for / against / missing.

Verdicts (design.md §5): `ruled_out` when a fact against holds; `confirmed` when the key signatures match
strongly and every required fact holds; `likely` when they match, nothing is against and some required
facts are still unknown; `possible` when some signature matches. A fact the logs do not show is unknown,
never evidence against. A case whose key signatures are all error bits is `confirmed` only when one of its
required or supporting facts holds: the bit says what kind of fault the core met, not which cause made it.
Nor is a case `confirmed` when a sibling of its family, itself confirmed or likely, reads every line its own
signatures read and no fact of the case holds: the logs do not tell the two apart, so it is `likely`, scored as
before, with that sibling named against it.

Signatures of one `group` are alternatives (two wordings of one message, a code and its text): the group
counts once, with the weight of its best match. A `contradicted_by` signature that matches is log evidence
that the errors are fallout of another failure (a device fault before a collective timeout) or have
another cause: it is listed under `against` and keeps the case at `possible` at most.

A case only its family's signs place is weighed as if it named one unit of its own, so its siblings tie whatever
number of signatures each names, and how often each is the stated cause of real reports orders them. A cause of a
`fallback` family (generic signs: any Python error of a kind) is `possible` at most beside another family's sure
signs: its error is read as that failure's fallout.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from ..evidence.items import ErrorLine, Evidence, Fact, Incident
from ..knowledge import priors
from ..knowledge.kb import Family, KnowledgeBase, KnownCase
from ..knowledge.rules import Condition, Signature, bits_only, scoring_units
from .observed import Observation, Observed

CONFIRMED, LIKELY, POSSIBLE, RULED_OUT = "confirmed", "likely", "possible", "ruled_out"
#: The id of the item against a case that a strong sibling's own signatures read every line of (its text: that case).
SIBLING = "sibling_reads_same_lines"
#: The id of the item against a generic family's cause when another family's own signs hold (its text: that family).
FALLOUT = "fallout_of_another_family"
_VERDICT_FACTOR = {CONFIRMED: 1.0, LIKELY: 0.8, POSSIBLE: 0.5, RULED_OUT: 0.05}
#: The weight a case that only its family's signs place is taken to have of its own (a signature's heaviest).
UNPLACED_OWN_WEIGHT = 3


@dataclass(frozen=True)
class Item:
    """A piece of evidence for or against a hypothesis."""

    id: str
    text: str
    file: str | None
    line: int | None
    why: str | None = None


@dataclass(frozen=True)
class Missing:
    """A fact still unknown, with the question that would settle it."""

    fact: str
    ask: str
    ask_zh: str | None = None
    required: bool = True


@dataclass
class Hypothesis:
    """One known case, judged."""

    case: KnownCase
    verdict: str
    score: float
    for_: list[Item] = field(default_factory=list)
    against: list[Item] = field(default_factory=list)
    missing: list[Missing] = field(default_factory=list)
    explains: set[tuple[str, int]] = field(default_factory=set)   #: (file, line) of every line a signature matched
    #: (file, line) of the lines the case's own signatures matched (its family's left out), and whether a fact of the
    #: case holds: together, what could tell it from a sibling
    own_lines: frozenset[tuple[str, int]] = frozenset()
    fact_holds: bool = False


#: Codes of which a failed task shows exactly one: the task scheduler's retCodes. A case that names some is told by
#: them; the log showing others and none of the case's counts against it (a kernel that ended with retCode 0x26
#: did not time out, whatever its errorStr says). The runtime's 507xxx codes are not exclusive: the layers
#: above a failed task report it with codes of their own (507011, 507046 at a stream or device sync).
EXCLUSIVE_KINDS = {"retCode": re.compile(r"0x[0-9a-f]{2}")}


def excluded_codes(case: KnownCase, obs: Observed) -> list[Item]:
    """The log's codes of a kind the case's code signatures name, when none of the case's own is among them."""
    named = [v for s in case.signatures if s.field == "code" and s.matcher in ("equals", "in")
             for v in (s.value if s.matcher == "in" else [s.value])]
    seen = obs.groups.get("code", {})
    out = []
    for kind, pattern in EXCLUSIVE_KINDS.items():
        own = {str(v) for v in named if pattern.fullmatch(str(v))}
        logged = [group[0] for code, group in seen.items() if pattern.fullmatch(str(code))]
        if own and logged and not any(str(o.value) in own for o in logged):
            first = logged[0]
            out.append(Item(f"excluded_{kind.replace(' ', '_')}", first.text, first.file, first.line,
                            f"the log's {kind} {first.value} is none of this case's ({', '.join(sorted(own))})"))
    return out


def _fact_item(cond: Condition, fact: Fact, why: str | None) -> Item:
    note = f" ({fact.note})" if fact.note else ""
    return Item(cond.fact, f"{cond.fact} = {fact.value} [{fact.source}]{note}", fact.file, fact.line, why)


def _units(signatures: list[Signature], inherited: tuple[Signature, ...] = ()) -> dict[str, list[Signature]]:
    """Signatures by scoring unit; a family's signatures are one unit, so belonging to the family counts once
    however many of its signs show."""
    out = scoring_units(signatures)
    if inherited:
        out["@family"] = list(inherited)
    return out


def judge(case: KnownCase, obs: Observed | list[Observation], facts: dict[str, Fact],
          inherited: tuple[Signature, ...] = ()) -> Hypothesis | None:
    """The hypothesis for one case, or None when none of its signatures match; `inherited` are the signatures of
    the case's family, which place it among the family's causes without telling it from its siblings."""
    if not isinstance(obs, Observed):
        obs = Observed(obs)
    own = [(s, o) for s in case.signatures if (o := obs.first(s))]
    family = [(s, o) for s in inherited if (o := obs.first(s))]
    if not own and not family:
        return None
    matched = own + family
    signatures = [*case.signatures, *inherited]
    units = _units(case.signatures, inherited)
    hit = {s.id for s, _ in matched}
    signed = sum(max(s.weight for s in sigs) for sigs in units.values())
    total = signed
    got = sum(max((s.weight for s in sigs if s.id in hit), default=0) for sigs in units.values())
    h = Hypothesis(case, POSSIBLE, 0.0)
    h.for_ = [Item(s.id, o.text, o.file, o.line, s.why) for s, o in matched]
    h.explains = set().union(*(obs.lines(s) for s in signatures))
    h.own_lines = frozenset().union(*(obs.lines(s) for s, _ in own))
    contradicted = [(s, o) for s in case.contradicted_by if (o := obs.first(s))]
    h.against = [Item(s.id, o.text, o.file, o.line, s.why) for s, o in contradicted]
    excluded = excluded_codes(case, obs)   # the log's own codes speak against the case as a contradiction does
    h.against += excluded
    ruled_out = False
    for cond in case.against:
        fact = facts.get(cond.fact)
        if fact is not None and cond.holds(fact.value):
            ruled_out = True
            h.against.append(_fact_item(cond, fact, cond.why))
    required_known, required_unknown, required_failing = [], [], []
    for cond in case.requires:
        fact = facts.get(cond.fact)
        if fact is None:
            required_unknown.append(cond)
            h.missing.append(Missing(cond.fact, cond.ask or "", cond.ask_zh))
        elif cond.holds(fact.value):
            required_known.append(cond)
            h.for_.append(_fact_item(cond, fact, "required fact holds"))
        else:
            required_failing.append(cond)
            if cond.fact not in {a.id for a in h.against}:
                h.against.append(_fact_item(cond, fact, f"required: {cond.fact} {cond.matcher} {cond.value}"))
    supported = False
    for cond in case.supports:
        fact = facts.get(cond.fact)
        if fact is None:   # unknown: neither for nor against, so it stays out of the total too
            h.missing.append(Missing(cond.fact, cond.ask or "", cond.ask_zh, required=False))
            continue
        total += cond.weight
        if cond.holds(fact.value):
            supported = True
            got += cond.weight
            h.for_.append(_fact_item(cond, fact, cond.why))
    key_units = [sigs for sigs in units.values() if any(s.key for s in sigs if s not in inherited)]
    # a root cause needs evidence of its own (a signature or a required fact that holds), not just its family's
    distinct = bool(own) or bool(required_known)
    strong = (all(any(s.id in hit for s in sigs) for sigs in key_units) and got * 2 >= total and not contradicted
              and not excluded and distinct)
    h.fact_holds = bool(required_known) or supported
    # which bit fired names a kind of fault, not which of its causes: that takes a fact of the case that holds
    settled = not bits_only(case.signatures) or h.fact_holds
    # a line that its family's own signs do not surround may belong to any failure that prints it ("No such file or
    # directory" of a compiler, not of a data loader): the cause is not settled before the family shows
    settled = settled and (not inherited or bool(family) or any(s.places for s, _ in own) or h.fact_holds)
    # a sign its siblings print too does not tell the case from them: one of its own, or a fact, must
    settled = settled and (any(not s.shared for s, _ in own) or h.fact_holds)
    if ruled_out:
        h.verdict = RULED_OUT
    elif strong and not required_unknown and not required_failing and settled:
        h.verdict = CONFIRMED
    elif strong and not required_failing:
        h.verdict = LIKELY
    else:
        h.verdict = POSSIBLE
    if not h.fact_holds and all(s.shared for s, _ in own) and (not own or h.verdict == POSSIBLE):
        # placed by its family's signs alone, or only possible on signs its siblings print too, a case is weighed as
        # if it named one unit of its own and matched none: siblings then tie whatever number of signatures each
        # names, and how often each is the stated cause orders them
        total += max((s.weight for s in inherited), default=0) + UNPLACED_OWN_WEIGHT - signed
        got = max((s.weight for s, _ in family), default=0) or max(s.weight for s, _ in own)   # a shared sign places it
    # total > 0: a signature matched, and every signature weighs 1 to 3
    h.score = round(got / total * _VERDICT_FACTOR[h.verdict], 3)
    return h


def rank(kb: KnowledgeBase, evidence: Evidence, facts: dict[str, Fact], obs: Observed) -> list[Hypothesis]:
    """Every case with a matching signature (its own or its family's), best first; `obs` holds the evidence's
    observations (made once per bundle: answers change facts, not what the logs show)."""
    causes = [i for i in evidence.incidents if i.role == "cause"]
    timed = sorted((i for i in causes if i.first.time), key=lambda i: i.first.time)
    # an incident without a time (a screen capture's line) cannot be ordered: nothing is known to come before it
    untimed = {(i.first.file, i.first.line) for i in causes if not i.first.time}
    hyps = []
    for case in kb.cases.values():
        family = kb.families.get(case.family)
        h = judge(case, obs, facts, tuple(family.signatures) if family else ())
        if h is None:
            continue
        if h.verdict == CONFIRMED and timed and untimed.isdisjoint(h.explains) \
                and not explains_incident(h, timed[0], timed):
            _unexplained_first_cause(h, timed[0].first)
        hyps.append(h)
    generic = [h for h in hyps if h.verdict in (CONFIRMED, LIKELY) and _in_fallback_family(kb, h)]
    placed = next((f for f in kb.families.values() if not f.fallback and (v := judge(f, obs, {}))
                   and v.verdict == CONFIRMED), None) if generic else None
    for h in generic if placed is not None else ():
        _fallout_of(h, placed)
    strong = [h for h in hyps if h.verdict in (CONFIRMED, LIKELY)]
    for h in strong:
        if h.verdict == CONFIRMED and not h.fact_holds and h.own_lines:
            _not_told_apart(h, strong)
    # equal scores are told apart by how often each case is the stated cause of real reports
    rates = priors.load(kb.root)
    return sorted(hyps, key=lambda h: (-h.score, -rates.of(h.case.id), h.case.id))


#: Two incidents this close on one device or in one process are one failure seen from two sides (a device log
#: line and the runtime's report of it).
SAME_FAILURE_S = 5.0


def explains_incident(h: Hypothesis, incident: Incident, incidents: list[Incident]) -> bool:
    """Does the hypothesis explain this incident's first line, or that of a cause incident of the same failure?"""
    start = datetime.fromisoformat(incident.first.time)
    for other in incidents:
        if (other.first.file, other.first.line) not in h.explains:
            continue
        if other is incident:
            return True
        same_place = ((incident.device is not None and other.device == incident.device)
                      or (incident.pid is not None and other.pid == incident.pid))
        if same_place and abs((datetime.fromisoformat(other.first.time) - start).total_seconds()) <= SAME_FAILURE_S:
            return True
    return False


def _not_told_apart(h: Hypothesis, hyps: list[Hypothesis]) -> None:
    """A confirmed case whose every line the own signatures of a strong sibling (of `hyps`, the confirmed and likely
    ones) read too is likely at most: the log does not tell the two apart, and no fact of the case does."""
    sibling = next((o for o in hyps if o is not h and o.case.family == h.case.family and h.own_lines <= o.own_lines),
                   None)
    if sibling is None:
        return
    h.verdict = LIKELY   # its score stays: its lines still weigh as they did, they just do not decide between the two
    h.against.append(Item(SIBLING, sibling.case.id, None, None,
                          f"{sibling.case.id}, of the same family, reads every line this case reads: the logs do not "
                          "tell the two apart"))


def _in_fallback_family(kb: KnowledgeBase, h: Hypothesis) -> bool:
    family = kb.families.get(h.case.family or "")
    return family is not None and family.fallback


def _lower(h: Hypothesis, verdict: str) -> None:
    """Give the hypothesis a lower verdict, its score rescaled from the factor it was scored with to the new one."""
    h.score = round(h.score / _VERDICT_FACTOR[h.verdict] * _VERDICT_FACTOR[verdict], 3)
    h.verdict = verdict


def _fallout_of(h: Hypothesis, family: Family) -> None:
    """A cause of a family of generic signs is possible at most beside the sure signs of another family: its Python
    error is that failure's fallout (a None left by a compiler that failed), not a defect of its own."""
    _lower(h, POSSIBLE)
    h.against.append(Item(FALLOUT, family.id, None, None,
                          f"the signs of {family.id} hold: the error this case reads is read as that failure's fallout"))


def _unexplained_first_cause(h: Hypothesis, first: ErrorLine) -> None:
    """A case that leaves the earliest cause unexplained is likely at most: something failed before what it explains."""
    _lower(h, LIKELY)
    h.against.append(Item("earliest_cause", first.text, first.file, first.line,
                          "the bundle's earliest failure is not among the lines this case explains"))


def explained_lines(hypotheses: list[Hypothesis]) -> set[tuple[str, int]]:
    """(file, line) of the lines the confirmed and likely hypotheses account for."""
    out: set[tuple[str, int]] = set()
    for h in hypotheses:
        if h.verdict in (CONFIRMED, LIKELY):
            out |= h.explains | {(i.file, i.line) for i in h.for_ if i.file is not None}
    return out


def diagnosis(hypotheses: list[Hypothesis]) -> Hypothesis | None:
    """The best confirmed or likely hypothesis, else None."""
    return next((h for h in hypotheses if h.verdict in (CONFIRMED, LIKELY)), None)
