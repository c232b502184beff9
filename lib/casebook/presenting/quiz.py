"""A training quiz over the KB samples: the answer hidden, one question per step of the walk, graded and explained.

The sample and the order of the choices come from a seed, so the same seed gives the same quiz (nbval
compares its outputs). Questions are built from the library's own evidence: the first error line, the
decoded errcode bits, the pc verdict and the ranking; a step that does not apply to a sample is left out.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path

from ..evidence.first_error import ordered
from ..judging.triage import Triage, triage
from ..knowledge.addresses import PC_VERDICTS, hexs
from ..knowledge.errcode import bit_table
from ..knowledge.kb import KnowledgeBase, load_kb
from .citation import Cited

NONE_OF_THEM = "none of the known cases"
ROOT_OPEN = "root cause still open"
_CHOICES = 4
_SHOWN = 140   # characters of a log line shown in a choice


@dataclass(frozen=True)
class Question:
    """One question: what is asked, the choices, the right one, and why."""

    key: str                 #: first_failure, error_bit, pc_start, family, case
    step: str                #: the walk step it trains
    prompt: str
    choices: tuple[str, ...]
    answer: str
    explanation: str
    shown: tuple[Cited, ...] = ()   #: log lines shown with the question


@dataclass(frozen=True)
class Grade:
    """The verdict on one answer."""

    key: str
    given: str
    correct: bool
    answer: str
    explanation: str


@dataclass
class Quiz:
    """A quiz over one sample; `answer()` grades, `score` counts."""

    sample: Path
    questions: list[Question]
    triage: Triage
    grades: dict[str, Grade] = field(default_factory=dict)

    def question(self, key: str) -> Question:
        """The question with this key."""
        for q in self.questions:
            if q.key == key:
                return q
        raise KeyError(f"no question {key!r}; questions: {', '.join(q.key for q in self.questions)}")

    def answer(self, key: str, choice: str) -> Grade:
        """Grade one answer (a later answer to the same question replaces the earlier one)."""
        q = self.question(key)
        if choice not in q.choices:
            raise ValueError(f"{choice!r} is not one of the choices of {key}")
        g = Grade(key, choice, choice == q.answer, q.answer, q.explanation)
        self.grades[key] = g
        return g

    @property
    def score(self) -> tuple[int, int]:
        """(right answers, questions)."""
        return sum(g.correct for g in self.grades.values()), len(self.questions)

    @property
    def finished(self) -> bool:
        """Every question answered."""
        return len(self.grades) == len(self.questions)

    def reveal(self) -> str:
        """The sample's name and the case it belongs to: shown only when the quiz is over."""
        return f"{self.sample.parent.name}/{self.sample.name}"


def samples(kb: KnowledgeBase | None = None) -> list[Path]:
    """Every sample folder of the knowledge base (one with an expect.yaml), sorted."""
    root = (kb or load_kb()).root / "samples"
    return sorted(p.parent for p in root.glob("*/*/expect.yaml"))


def pick_sample(rng: random.Random, kb: KnowledgeBase, cases: list[str] | None = None) -> Path:
    """The sample the generator picks among those of `cases` (default: every case). Each sample draws a number
    from the generator's key and its own name, and the highest wins: a seed keeps its sample as samples are
    added to the knowledge base, unless the new one wins."""
    pool = [p for p in samples(kb) if cases is None or p.parent.name in cases]
    if not pool:
        raise ValueError(f"{kb.root / 'samples'}: no samples to quiz on" + (f" for {', '.join(cases)}" if cases else ""))
    key = rng.getrandbits(64)
    return max(pool, key=lambda p: hashlib.sha256(f"{key}:{p.parent.name}/{p.name}".encode()).digest())


def make_quiz(seed: int, kb: KnowledgeBase | None = None, sample: str | Path | None = None,
              cases: list[str] | None = None) -> Quiz:
    """A quiz over the sample the seed picks (among the samples of `cases`, default all), or the one given."""
    kb = kb or load_kb()
    rng = random.Random(seed)
    if sample is None:
        sample = pick_sample(rng, kb, cases)
    t = triage(sample, kb=kb)
    qs = [q for q in (_first_failure(t, rng), _error_bit(t, rng), _pc_start(t), _family(t, kb), _case(t, kb)) if q]
    return Quiz(Path(sample), qs, t)


def _line_choice(file: str, line: int, text: str) -> str:
    text = " ".join(text.split())
    return f"{file}:{line}  {text[:_SHOWN]}{'…' if len(text) > _SHOWN else ''}"


def _first_failure(t: Triage, rng: random.Random) -> Question | None:
    first = t.evidence.first_error
    if first is None:
        return None
    lines = ordered(t.log.whole)
    right = _line_choice(first.file, first.line, first.text)
    seen, others = {right}, []
    for e in lines:
        c = _line_choice(e.file, e.line, e.text)
        if c not in seen and (e.file, e.line) != (first.file, first.line):
            seen.add(c)
            others.append(c)
    # distractors from the whole run, the last ones included: they are the loudest lines of a cascade
    picks = rng.sample(others, min(_CHOICES - 1, len(others)))
    choices = picks + [right]
    rng.shuffle(choices)
    why = (f"The first error line of the case is {first.file}:{first.line} ({first.time or 'no time'}). The others come "
           "later: they are fallout of the first failure (or copies of it on the screen), not its cause.")
    return Question("first_failure", "symptom", "Which line is the first failure?", tuple(choices), right, why)


def _error_bit(t: Triage, rng: random.Random) -> Question | None:
    fault = next((f for f in t.evidence.aicore_faults if f.error_bits), None)
    if fault is None:
        return None
    right = fault.error_bits[0]
    names = [b.name for b in bit_table() if b.name not in fault.error_bits]
    choices = rng.sample(names, _CHOICES - 1) + [right]
    rng.shuffle(choices)
    code = (f"errcode:({', '.join(hexs(x) for x in fault.errcode)})" if fault.errcode
            else f"error code = {hexs(fault.error_code)}")
    bit = next(b for b in bit_table() if b.name == right)
    page = t.kb.codes.get(right)
    why = (f"{code}: word {bit.word}, mask {hexs(bit.mask)} is index {bit.index}, {right}."
           + (f" {page.meaning}" if page else ""))
    shown = tuple(Cited(r.file, r.line, r.text) for r in fault.refs if "errcode:" in r.text or "error code" in r.text)
    return Question("error_bit", "error_code", f"The fault reports {code}. Which error bit does it set?",
                    tuple(choices), right, why, shown[:2])


def _pc_start(t: Triage) -> Question | None:
    fault = next((f for f in t.evidence.aicore_faults if f.pc is not None), None)
    if fault is None or fault.pc_start_raw is None:
        return None
    shown = tuple(Cited(r.file, r.line, r.text) for r in fault.refs
                  if "pc start" in r.text or "binSize" in r.text or "kernel addr" in r.text)
    return Question("pc_start", "pc_start", "Is pc start consistent with current for this fault?", PC_VERDICTS,
                    fault.pc.verdict, fault.pc.reason, shown[:3])


def _verdicts(t: Triage, ids: list[str]) -> str:
    parts = [f"{h.case.id} is {h.verdict} (score {h.score:.2f})"
             + (f": {h.against[0].why.rstrip('.')}" if h.against and h.against[0].why else "")
             for h in t.candidates if h.case.id in ids]
    return "; ".join(parts) if parts else "No known cause has evidence of its own here."


def _family(t: Triage, kb: KnowledgeBase) -> Question | None:
    if t.family is None:
        return None
    f = t.family
    shown = ", ".join(i.text[:80] for i in f.for_[:2])
    why = f"{f.family.title}: its signs show ({shown})." if shown else f"{f.family.title}."
    return Question("family", "root_cause", "Which symptom family does this failure belong to?",
                    tuple(sorted(kb.families)) + (NONE_OF_THEM,), f.family.id, why)


def _case(t: Triage, kb: KnowledgeBase) -> Question:
    d = t.diagnosis
    f = t.family
    if f is not None:
        # walk down the tree: among this family's known causes, which one (or none yet)?
        causes = sorted(f.family.causes)
        answer = d.case.id if d is not None and d.case.id in causes else ROOT_OPEN
        why = _verdicts(t, causes)
        if answer == ROOT_OPEN:
            q = f.next_question
            why += f". Nothing tells the {len(f.open_causes)} open causes apart yet" + (
                f"; the first question to ask: {q.ask}" if q else ".")
        # the prompt names no family: the question before it asks which one it is
        return Question("case", "root_cause",
                        "Among the known causes of that family, which one fits (before any question is answered)?",
                        tuple(causes) + (ROOT_OPEN,), answer, why)
    ids = [h.case.id for h in t.candidates]
    why = _verdicts(t, ids)
    if d is None:
        why += ". No case is confirmed or likely, so the answer is none of the known cases."
    return Question("case", "root_cause", "Which known case explains this failure (before any question is answered)?",
                    tuple(sorted(ids)) + (NONE_OF_THEM,), d.case.id if d else NONE_OF_THEM, why)
