"""A solved case told as a lesson: each step of the walk beside the knowledge base's reason it matters.

The reasons are the case's own data (signature and fact `why` texts, its Symptom / Root cause / Fix
sections), so the lesson changes when the case file does; nothing here is written for one sample.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..judging.triage import Triage
from . import walk

#: Which signature fields a step's evidence speaks to.
STEP_SIGNATURES = {"symptom": ("aicore_fault", "message", "kernel", "op"), "error_code": ("error_bits", "code"),
                   "pc_start": ("pc_verdict",)}
#: Which facts a step settles (the others are settled at the root cause).
STEP_FACTS = {"topology": ("single_process_multi_device",)}
#: Which sections of the case page a step quotes.
STEP_SECTIONS = {"symptom": ("Symptom",), "root_cause": ("Root cause", "How to confirm"),
                 "fix": ("Fix", "Confirming the fix")}


@dataclass
class Lesson:
    """One step of the walk and why its evidence matters for the case."""

    step: walk.Step
    reasons: list[str] = field(default_factory=list)           #: "seen: ..." / "not seen: ..." lines
    sections: list[tuple[str, str]] = field(default_factory=list)   #: (heading, Markdown) from the case page

    def to_text(self, width: int = 160) -> str:
        """The step as plain text: what the logs show, the cited lines, and why it matters."""
        s = self.step
        out = [f"== {s.title} / {s.title_zh}", *[f"  {f}" for f in s.findings]]
        for c in s.causes:   # the leading causes, one block each: what speaks for and against, what is unknown
            out.append(f"  {s.say('root.cause', title=c.title, id=c.id, verdict=c.verdict)}")
            out += [f"    {s.say('root.cause.line', label=s.say(f'root.cause.{key}'), text=text)}" for key, texts in
                    (("for", c.for_), ("against", c.against), ("missing", c.missing)) for text in texts]
        out += [f"    > {c.where}: {c.text[:width]}" for c in s.cited[:4]]
        out += ["  Why it matters:", *[f"  - {r}" for r in self.reasons]] if self.reasons else []
        return "\n".join(out)


def lessons(t: Triage, case_id: str) -> list[Lesson]:
    """The walk of this triage, each step with the case's reasons; raises KeyError for an unknown case."""
    case = t.kb.cases[case_id]
    h = t.candidate(case_id)
    seen = {i.id for i in h.for_} if h else set()
    out = []
    for step in walk.build(t):
        lesson = Lesson(step)
        for s in case.signatures:
            if s.field in STEP_SIGNATURES.get(step.key, ()):
                lesson.reasons.append(f"{'seen' if s.id in seen else 'not seen'} [{s.id}]: {s.why}")
        facts = STEP_FACTS.get(step.key)
        if step.key == "root_cause":
            settled = {f for names in STEP_FACTS.values() for f in names}
            conds = [c for c in case.requires + case.against + case.supports if c.fact not in settled]
        else:
            conds = [c for c in case.requires + case.against + case.supports if facts and c.fact in facts]
        for fact_name in dict.fromkeys(c.fact for c in conds):
            lesson.reasons.append(_fact_reason(case, fact_name, t.facts.get(fact_name)))
        lesson.sections = [(name, case.sections[name]) for name in STEP_SECTIONS.get(step.key, ())
                           if case.sections.get(name)]
        out.append(lesson)
    return out


def _fact_reason(case, name: str, fact) -> str:
    """What one fact means for the case, given its value (or that it is still unknown)."""
    if fact is None:
        ask = next((c.ask for c in case.requires + case.supports if c.fact == name and c.ask), None)
        if ask:
            return f"{name} unknown: the logs do not say, so the walk asks. {ask}"
        against = next((c for c in case.against if c.fact == name), None)
        return f"{name} unknown; if it held it would rule the case out: {against.why if against else ''}".rstrip(": ")
    state = f"{name} = {fact.value} ({fact.source})"
    against = next((c for c in case.against if c.fact == name and c.holds(fact.value)), None)
    if against:
        return f"{state} rules the case out: {against.why}"
    required = next((c for c in case.requires if c.fact == name), None)
    if required:
        return f"{state}: {'a required fact that holds' if required.holds(fact.value) else 'a required fact that fails'}."
    support = next((c for c in case.supports if c.fact == name and c.holds(fact.value)), None)
    return f"{state}: {support.why}" if support else f"{state}: no weight either way."
