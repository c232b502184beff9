"""The root-cause and fix steps of the walk: the ranked known cases, the family the evidence stops at, the
questions that split what is left, how much of the errors the matched cases explain, and the fix.

The root-cause step opens with the diagnosis, or, without one, with the symptom family and how many of its
known causes are still open; its questions follow at once, the one that best splits the open causes first.
"""
from __future__ import annotations

import re

from ..judging.families import PRIOR, separation
from ..judging.ranking import CONFIRMED, LIKELY, RULED_OUT, SIBLING, Hypothesis, Item, Missing
from ..judging.triage import Triage
from ..knowledge.kb import KnownCase
from ..knowledge.messages import EN, Note, pick, say, words
from ..knowledge.rules import Signature
from ..knowledge.vocabulary import FACTS
from . import tables
from .citation import cited
from .step import Cause, Fold, Step, line_text

#: Keys of a case's fix, in the order the fix step shows them.
FIX_KEYS = ("workaround", "fix", "version_advice", "confirm")
#: Causes the root-cause step sets side by side with their evidence; the rest get one line each, folded away.
LEADING = 3


def verdict_words(lang: str, verdict: str) -> str:
    """A verdict in words (confirmed, likely, possible, ruled out)."""
    return say(lang, f"verdict.{verdict}")


def leading(t: Triage) -> list[tuple[KnownCase, Hypothesis | None, float]]:
    """The causes the root-cause step sets side by side, best first, at most LEADING: the diagnosis and the
    candidates after it, or, with no diagnosis, the open causes of the family; each with its weight."""
    d, family = getattr(t, "diagnosis", None), getattr(t, "family", None)
    judged = {h.case.id: h for h in getattr(t, "candidates", [])}
    if d is None and family is not None and family.open_causes:
        out = [(t.kb.cases[c], judged.get(c), max(judged[c].score, PRIOR) if c in judged else PRIOR)
               for c in family.open_causes if c in t.kb.cases]
    else:
        out = [(h.case, h, h.score) for h in judged.values() if h.verdict != RULED_OUT]
    return out[:LEADING]


def masses(t: Triage, lead: list[tuple[KnownCase, Hypothesis | None, float]]) -> dict[str, float]:
    """The weight each leading cause has when questions are ordered: the family's mass of an open cause (the
    evidence times how often real reports state it) when the family leads, else the cause's own weight."""
    family = getattr(t, "family", None)
    open_masses = family.weights if getattr(t, "diagnosis", None) is None and family is not None else {}
    return {c.id: open_masses.get(c.id, w) for c, _, w in lead}


def questions(t: Triage) -> list[Missing]:
    """The root-cause step's questions, each fact once: the one whose answer best separates the leading causes
    first; among equals, the family's most splitting one, then those of the cases in play as ranking orders them,
    then the family's other splitting questions."""
    family = getattr(t, "family", None)
    first = [family.next_question] if family is not None and family.next_question is not None else []
    rest = family.questions[1:] if family is not None else []
    seen, out = set(), []
    for q in [*first, *t.questions, *rest]:
        if q.fact not in seen:
            seen.add(q.fact)
            out.append(q)
    lead = leading(t) if hasattr(t, "kb") else []
    if len(out) > 1 and lead:
        causes, weights = [c for c, _, _ in lead], masses(t, lead)
        score = {q.fact: separation(q.fact, causes, weights) for q in out}
        out.sort(key=lambda q: (-score[q.fact][0], -score[q.fact][1]))   # stable: equals keep the order above
    return out


def signatures(t: Triage, h: Hypothesis) -> dict[str, Signature]:
    family = t.kb.families.get(h.case.family)
    sigs = [*h.case.signatures, *h.case.contradicted_by, *(family.signatures if family else ())]
    return {s.id: s for s in sigs}


def _focus(sig: Signature | None):
    """What an item's signature matched in its line: the regex, or the literal it looked for."""
    if sig is None:
        return None
    if sig.matcher == "regex":
        return sig.pattern
    if sig.matcher == "in":
        return re.compile("|".join(re.escape(str(v)) for v in sig.value))
    return str(sig.value) if not isinstance(sig.value, bool) else None


def is_fact(t: Triage, item: Item) -> bool:
    """Is this item a fact (from the logs or the engineer) rather than a matched log line?"""
    return item.id in t.facts and item.text.startswith(f"{item.id} = ")


def asks(t: Triage) -> dict[str, tuple[str, str | None]]:
    """How the knowledge base asks for each fact it asks about: (English, Chinese), the families' wording first."""
    out: dict[str, tuple[str, str | None]] = {}
    conditions = [c for f in t.kb.families.values() for c in f.questions]
    conditions += [c for case in t.kb.cases.values() for c in (*case.requires, *case.supports, *case.against)]
    for c in conditions:
        if c.ask and (c.fact not in out or (c.ask_zh and not out[c.fact][1])):
            out[c.fact] = (c.ask, c.ask_zh)
    return out


def answer_words(lang: str, value: object) -> str:
    """A fact's value as a reader says it: Yes or No for a yes/no fact, the value itself otherwise."""
    if isinstance(value, bool):
        return say(lang, "root.answer.yes" if value else "root.answer.no")
    return str(value)


def fact_words(t: Triage, lang: str, item: Item, asked: dict | None = None) -> str:
    """A fact item in words: the question it answers (or what it states), the answer, its source and note."""
    fact = t.facts[item.id]
    ask, ask_zh = (asked if asked is not None else asks(t)).get(item.id, (None, None))
    values = dict(answer=answer_words(lang, fact.value), source=say(lang, f"source.{fact.source}"),
                  note=say(lang, "root.fact_note", note=words(lang, fact.note)) if fact.note else "")
    if ask and (lang == EN or ask_zh):
        return say(lang, "root.answered", question=pick(lang, ask, ask_zh), **values)
    spec = FACTS.get(item.id)
    text = spec.doc.rstrip(".") + ":" if spec is not None and lang == EN else item.id
    return say(lang, "root.holds", text=text.rstrip(":"), **values)


def reason(t: Triage, lang: str, kind: str, item: Item, sig: Signature | None, asked: dict) -> str:
    """Why an item speaks for or against a cause, as a sentence: the knowledge base's reason in English, the
    fact with its answer, or what the logs show."""
    if is_fact(t, item):
        return fact_words(t, lang, item, asked)
    if item.id == SIBLING and item.text in t.kb.cases:
        other = t.kb.cases[item.text]
        return say(lang, "root.shows.sibling", id=other.id, title=pick(lang, other.title, other.title_zh))
    if item.why and lang == EN:
        return item.why
    if isinstance(item.text, Note):
        return words(lang, item.text)
    focus = _focus(sig)
    hit = (focus.search(item.text) if isinstance(focus, re.Pattern) else
           re.search(re.escape(focus), item.text) if focus else None)
    if hit and 0 < len(hit.group(0)) <= 80:
        # the fragment goes between backticks: one of its own (glibc's version `X') would end the quote early; the
        # line itself is cited whole under the finding
        return say(lang, f"root.shows.{kind}", match=hit.group(0).strip().replace("`", "'"))
    if sig is not None and sig.field == "aicore_fault":
        return say(lang, "root.shows.fault")
    return say(lang, "root.shows.line")


def _cause(t: Triage, s: Step, case: KnownCase, h: Hypothesis | None, asked: dict) -> Cause:
    """One leading cause beside the others: its reasons for and against, each once, and what is still unknown;
    the lines behind them are cited."""
    verdict = h.verdict if h is not None else "possible"
    out = Cause(case.id, pick(s.lang, case.title, case.title_zh), verdict_words(s.lang, verdict))
    if h is None:   # an open cause none of whose own evidence matched: what would settle it is all there is
        out.missing = list(dict.fromkeys(pick(s.lang, c.ask, c.ask_zh) for c in case.requires
                                         if c.ask and c.fact not in t.facts))
        return out
    sigs = signatures(t, h)
    for kind, items, into in (("for", h.for_, out.for_), ("against", h.against, out.against)):
        for i in items:
            text = reason(t, s.lang, kind, i, sigs.get(i.id), asked)
            if text not in into:
                into.append(text)
            if i.file and i.line:
                # a fact's or a derived value's item words it; the evidence shows the line itself
                derived = is_fact(t, i) or isinstance(i.text, Note)
                line = line_text(t, i.file, i.line) if derived else i.text
                if line is not None:
                    s.cite(cited(i.file, i.line, line, None if derived else _focus(sigs.get(i.id))))
    out.missing = list(dict.fromkeys(s.ask(m) for m in sorted(h.missing, key=lambda m: not m.required)))
    return out


def _open_among(msg_id: str, causes: list[str]) -> str:
    """The wording for a family with several, one or no open causes left."""
    return msg_id + {0: "_none", 1: "_one"}.get(len(causes), "")


def root_cause(t: Triage, s: Step) -> None:
    """Fill the root-cause step: the conclusion, the question that best splits the leading causes, the leading
    causes side by side, then every candidate and the unexplained errors folded away."""
    d, family = t.diagnosis, getattr(t, "family", None)
    in_play = [h for h in t.candidates if h.verdict != RULED_OUT]
    if d is not None:
        s.conclusion = s.say("root.conclusion.diagnosis", title=pick(s.lang, d.case.title, d.case.title_zh),
                             id=d.case.id, verdict=verdict_words(s.lang, d.verdict))
    elif family is not None:
        s.conclusion = s.say(_open_among("root.conclusion.family", family.open_causes),
                             family=pick(s.lang, family.family.title, family.family.title_zh), n=len(family.open_causes))
    elif in_play:
        s.conclusion = s.say("root.conclusion.possible", n=len(in_play))
    else:
        s.conclusion = s.say("root.conclusion.none")
    s.questions = questions(t)
    lead = leading(t)
    asked = asks(t)
    s.causes = [_cause(t, s, case, h, asked) for case, h, _ in lead]
    if d is None and len(lead) > 1 and lead[0][2] == lead[1][2]:
        _tie(t, s, lead)
    if family is not None:
        s.add("root.family", family=pick(s.lang, family.family.title, family.family.title_zh), id=family.family.id,
              verdict=verdict_words(s.lang, family.verdict), n=len(family.open_causes))
        if d is None and family.most_often:
            case, n, of = family.most_often
            s.add("root.most_often", case=case, n=n, of=of)
    _rank_to_read(t, s)
    if not t.candidates and family is None:
        s.add("root.no_case")
    if t.candidates:
        s.folds.append(_all_candidates(t, s, family))
    _coverage(t, s)


def rank_pointers(view) -> list[tuple[str, str]]:
    """What the ranks' own reports point at, the most telling first: (detected | behind | loop | chain_end, the ranks
    or cards). HCCL's own detection of where failed link setups start comes first; a loop of waits says more than
    where chains end, so only one of the two is said."""
    out = [("detected", [f"{d.peer_server}/{d.peer_device}" for d in view.detected])] if view.detected else []
    if view.behind:
        out.append(("behind", view.behind))
    if view.wait_loop:
        out.append(("loop", view.wait_loop))
    elif view.wait_ends:
        out.append(("chain_end", view.wait_ends))
    return [(kind, ", ".join(map(str, items))) for kind, items in out]


def _rank_to_read(t: Triage, s: Step) -> None:
    """Where the ranks' own reports point, said beside the cause (the topology step shows how each was read)."""
    for kind, ranks in rank_pointers(t.evidence.topology.ranks)[:1]:
        s.add(f"root.rank.{kind}", ranks=ranks)


def _tie(t: Triage, s: Step, lead: list) -> None:
    """Say that the leading causes cannot be told apart yet, and the question that would tell them apart."""
    tied = [case.id for case, _, w in lead if w == lead[0][2]]
    quoted = [f"`{c}`" for c in tied]
    names = (s.say("root.tie.pair", a=quoted[0], b=quoted[1]) if len(quoted) == 2 else
             s.say("root.tie.many", some=s.say("list.sep").join(quoted[:-1]), last=quoted[-1]))
    causes = {c.id: c for c, _, _ in lead}
    weights = {c: 1.0 for c in tied}
    splitting = [q for q in s.questions if separation(q.fact, [causes[c] for c in tied], weights)[0] > 0]
    if splitting:
        s.add("root.tie", causes=names, question=s.ask(splitting[0]))
    else:
        s.add("root.tie.none", causes=names)


def _all_candidates(t: Triage, s: Step, family) -> Fold:
    """Every candidate in one line, best first, with the family's open causes that have no evidence of their own."""
    n = len(t.candidates)
    fold = Fold("candidates", s.say("root.all_candidates", n=n) if n != 1 else s.say("root.all_candidates_one"))
    for h in t.candidates:
        fold.findings.append(s.say("root.candidate", id=h.case.id, verdict=verdict_words(s.lang, h.verdict),
                                   score=f"{h.score:.2f}", title=pick(s.lang, h.case.title, h.case.title_zh)))
    judged = {h.case.id for h in t.candidates}
    rest = [c for c in (family.open_causes if family is not None else []) if c not in judged]
    if rest:
        fold.findings.append(s.say("root.family_rest", causes=", ".join(rest)))
    return fold


def _coverage(t: Triage, s: Step) -> None:
    """How many error lines the confirmed and likely cases explain (a fault's own dump with its fault), and the
    rest grouped by template, folded away."""
    explained, rest = t.coverage()
    s.add("root.coverage", explained=len(explained), errors=t.evidence.error_lines)
    if rest:
        fold = Fold("unexplained", s.say("root.unexplained_fold", n=len(rest)))
        fold.findings.append(s.say("root.unexplained", n=len(rest), template=rest[0].template, count=rest[0].count))
        fold.tables.append((s.say("table.unexplained"), tables.unexplained(rest, s.lang)))
        # each template's first line as logged, unless the step's evidence cites it already
        fold.cited = [c for c in (cited(u.file, u.line, line_text(t, u.file, u.line) or u.text) for u in rest)
                      if not s.cites(c)]
        s.folds.append(fold)


def fix(t: Triage, s: Step) -> None:
    """Fill the fix step: the diagnosed case's workaround, real fix, version advice and how to confirm it."""
    d, family = t.diagnosis, getattr(t, "family", None)
    if d is None:
        if family is not None:
            s.conclusion = s.say(_open_among("fix.conclusion.family", family.open_causes), n=len(family.open_causes),
                                 family=pick(s.lang, family.family.title, family.family.title_zh))
        else:
            s.conclusion = s.say("fix.conclusion.none")
        s.add("fix.none")
        return
    s.conclusion = s.say("fix.conclusion." + ("confirmed" if d.verdict == CONFIRMED else "likely"),
                         title=pick(s.lang, d.case.title, d.case.title_zh))
    for key in FIX_KEYS:
        if d.case.fix.get(key):
            s.add(f"fix.{key}", text=pick(s.lang, d.case.fix[key], d.case.fix_zh.get(key)))
    if d.verdict == LIKELY:
        s.add("fix.likely")
