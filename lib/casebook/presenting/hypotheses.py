"""The root-cause and fix steps of the walk: the ranked known cases, the family the evidence stops at, the
questions that split what is left, how much of the errors the matched cases explain, and the fix.

The root-cause step opens with the diagnosis, or, without one, with the symptom family and how many of its
known causes are still open; its questions follow at once, the one that best splits the open causes first.
"""
from __future__ import annotations

import re

from ..judging.ranking import CONFIRMED, LIKELY, RULED_OUT, Hypothesis, Item, Missing, explained_lines
from ..judging.triage import Triage
from ..judging.unexplained import mine
from ..knowledge.messages import EN, Note, pick, say, words
from ..knowledge.rules import Signature
from . import tables
from .citation import cited
from .step import Step, line_text

#: Keys of a case's fix, in the order the fix step shows them.
FIX_KEYS = ("workaround", "fix", "version_advice", "confirm")
#: Candidates whose evidence the root-cause step lists in detail; the rest get one line each.
DETAILED = 3
#: Unexplained templates whose first line the root-cause step cites.
UNEXPLAINED_CITED = 5


def verdict_words(lang: str, verdict: str) -> str:
    """A verdict in words (confirmed, likely, possible, ruled out)."""
    return say(lang, f"verdict.{verdict}")


def questions(t: Triage) -> list[Missing]:
    """The root-cause step's questions: the family's most splitting one first, then those of the cases in play
    as ranking orders them, then the family's other splitting questions; each fact once."""
    family = getattr(t, "family", None)
    first = [family.next_question] if family is not None and family.next_question is not None else []
    rest = family.questions[1:] if family is not None else []
    seen, out = set(), []
    for q in [*first, *t.questions, *rest]:
        if q.fact not in seen:
            seen.add(q.fact)
            out.append(q)
    return out


def _signatures(t: Triage, h: Hypothesis) -> dict[str, Signature]:
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


def fact_words(t: Triage, lang: str, item: Item) -> str:
    """A fact item in words: its value, where the value comes from, and the note on it."""
    fact = t.facts[item.id]
    return say(lang, "root.fact", fact=item.id, value=fact.value, source=say(lang, f"source.{fact.source}"),
               note=say(lang, "root.fact_note", note=words(lang, fact.note)) if fact.note else "")


def _evidence(t: Triage, s: Step, kind: str, item: Item) -> str:
    """One line of evidence for or against a case: a signature's id, or a fact with its value and source."""
    what = fact_words(t, s.lang, item) if is_fact(t, item) else f"[{item.id}]"
    # a signature's `why` is the knowledge base's English; in Chinese the id and its cited line speak
    why = s.say("root.why", why=item.why) if item.why and s.lang == EN else ""
    return s.say(f"root.{kind}", what=what, why=why)


def _candidate(t: Triage, s: Step, h: Hypothesis, detailed: bool) -> None:
    """A candidate in one line; the best few with their evidence, and every case's reasons against."""
    s.add("root.candidate", id=h.case.id, verdict=verdict_words(s.lang, h.verdict), score=f"{h.score:.2f}",
          title=pick(s.lang, h.case.title, h.case.title_zh))
    sigs = _signatures(t, h)
    shown = [("against", i) for i in h.against]
    if detailed and h.verdict != RULED_OUT:
        shown += [("for", i) for i in h.for_]
    seen = set()
    # without the knowledge base's English `why`, a case's plain signature ids share one line
    ids = [f"[{i.id}]" for kind, i in shown if kind == "for" and not is_fact(t, i)] if s.lang != EN else []
    if ids:
        s.add("root.for_ids", ids=", ".join(dict.fromkeys(ids)))
    for kind, i in shown:
        if (kind, i.id) in seen:
            continue
        seen.add((kind, i.id))
        if not (ids and kind == "for" and not is_fact(t, i)):
            s.findings.append(_evidence(t, s, kind, i))
        if i.file and i.line:
            # a fact's or a derived value's item words it; the evidence shows the line itself
            derived = is_fact(t, i) or isinstance(i.text, Note)
            text = line_text(t, i.file, i.line) if derived else i.text
            if text is not None:
                s.cite(cited(i.file, i.line, text, None if derived else _focus(sigs.get(i.id))))
    if detailed and h.verdict != RULED_OUT:
        for m in h.missing:
            s.add("root.missing" if m.required else "root.missing_optional", fact=m.fact)


def _open_among(msg_id: str, causes: list[str]) -> str:
    """The wording for a family with several, one or no open causes left."""
    return msg_id + {0: "_none", 1: "_one"}.get(len(causes), "")


def root_cause(t: Triage, s: Step) -> None:
    """Fill the root-cause step."""
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
    if family is not None:
        s.add("root.family", family=pick(s.lang, family.family.title, family.family.title_zh), id=family.family.id,
              verdict=verdict_words(s.lang, family.verdict),
              causes=", ".join(family.open_causes) or s.say("root.no_open_cause"))
        if d is None and family.most_often:
            case, n, of = family.most_often
            s.add("root.most_often", case=case, n=n, of=of)
    if not t.candidates:
        s.add("root.no_case")
    for n, h in enumerate(t.candidates):
        _candidate(t, s, h, detailed=n < DETAILED)
    _coverage(t, s)


def _coverage(t: Triage, s: Step) -> None:
    """How many error lines the confirmed and likely cases explain, and the rest grouped by template."""
    errors = t.log.errors()
    explained = explained_lines(t.candidates) & set(zip(errors["file"], errors["line"].astype(int)))
    s.add("root.coverage", explained=len(explained), errors=t.evidence.error_lines)
    rest = mine(errors, explained)
    if rest:
        s.add("root.unexplained", n=len(rest), template=rest[0].template, count=rest[0].count)
        s.tables.append((s.say("table.unexplained"), tables.unexplained(rest, s.lang)))
        for u in rest[:UNEXPLAINED_CITED]:
            s.cite(cited(u.file, u.line, line_text(t, u.file, u.line) or u.template))


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
