"""A support case in progress: the bundle read, its evidence, the engineer's answers and the ranked causes."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable

from ..evidence import errors, statements
from ..evidence.items import Evidence, Fact
from ..evidence.registry import KEEP, extract_evidence
from ..knowledge import compat
from ..knowledge.kb import KnowledgeBase, load_kb
from ..knowledge.vocabulary import normalize
from ..reading.bundle import Pasted
from ..reading.limits import Limits
from ..reading.plog import read_plog
from ..reading.table import LogTable
from .facts import resolve as resolve_facts
from .families import FamilyVerdict, judge_families, supported_family
from .observed import Observed, error_lines, observations
from .ranking import RULED_OUT, Hypothesis, diagnosis, explained_lines, rank
from .readings import read_case
from .unexplained import Template, coverage


@dataclass
class Triage:
    """Everything known about one case; `answer()` re-ranks with a new fact from the engineer."""

    log: LogTable
    evidence: Evidence
    kb: KnowledgeBase
    answers: dict[str, object] = field(default_factory=dict)
    facts: dict[str, Fact] = field(default_factory=dict)
    candidates: list[Hypothesis] = field(default_factory=list)
    families: list[FamilyVerdict] = field(default_factory=list)   #: every family whose signatures match, best first
    #: coverage() of the current candidates, kept until the next rerank (the JSON and the walk both read it)
    _covered: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # the observations depend on the evidence only; answers change facts, not what the logs show
        # the error lines, and the lines that state a cause in words at any level (evidence/statements.py)
        whole = self.log.whole
        said = sorted(set(errors.positions(whole)).union(statements.positions(whole)))
        self._observed = Observed(observations(self.evidence, error_lines(whole, said)), self.kb.needles)
        self.rerank()

    def rerank(self) -> None:
        """Recompute facts, hypotheses and families from the evidence and the answers so far."""
        self.facts = resolve_facts(self.evidence, self.answers, compat.tables(self.kb.root))
        self.candidates = rank(self.kb, self.evidence, self.facts, self._observed)
        self.families = judge_families(self.kb, self._observed, self.facts, self.candidates)
        self._covered = None

    @property
    def family(self) -> FamilyVerdict | None:
        """The symptom family the evidence supports (also when no root cause is known yet)."""
        return supported_family(self.families, self.diagnosis)

    def answer(self, name: str, value: object) -> None:
        """Record the engineer's answer (None forgets it) and re-rank."""
        if value is None:
            self.answers.pop(name, None)
        else:
            self.answers[name] = normalize(name, value)
        self.rerank()

    @property
    def diagnosis(self) -> Hypothesis | None:
        """The best confirmed or likely hypothesis."""
        return diagnosis(self.candidates)

    def coverage(self) -> tuple[set[tuple[str, int]], list[Template]]:
        """The error lines the confirmed and likely cases explain, and the templates of the rest."""
        if self._covered is None:
            self._covered = coverage(errors.records(self.log.whole), explained_lines(self.candidates),
                                     self.evidence.aicore_faults)
        return self._covered

    @property
    def questions(self) -> list:
        """Open questions of the cases still in play, required ones first, each fact once."""
        seen, out = set(), []
        for h in self.candidates:
            if h.verdict == RULED_OUT:
                continue
            for m in sorted(h.missing, key=lambda m: not m.required):
                if m.fact not in seen:
                    seen.add(m.fact)
                    out.append(m)
        return out

    def candidate(self, case_id: str) -> Hypothesis | None:
        """The hypothesis for one case, if it is a candidate."""
        return next((h for h in self.candidates if h.case.id == case_id), None)


def triage(*paths: str | os.PathLike | Pasted, facts: dict[str, object] | None = None,
           kb: KnowledgeBase | None = None, objdump: str | os.PathLike | None = None,
           limits: Limits | None = None, engine: str = "local", scheduler: str | None = None,
           workers: int | None = None, progress: Callable[[int, int], None] | None = None) -> Triage:
    """Read the bundle(s), extract evidence and rank the known cases; `objdump` is the kernel's `objdump -d` text;
    `limits` bounds what archives may expand to; `engine`, `scheduler`, `workers` and `progress` say where and
    how the files are read (reading.plog.read_plog)."""
    answers = {k: normalize(k, v) for k, v in (facts or {}).items()}
    if objdump is None:
        log, evidence = read_case(*paths, limits=limits, engine=engine, scheduler=scheduler, workers=workers,
                                  progress=progress)
    else:   # the disassembly annotates the faults: a reading of its own, never a kept one
        from . import objdump as disassembly
        log = read_plog(*paths, keep=KEEP, limits=limits, engine=engine, scheduler=scheduler, workers=workers,
                        progress=progress)
        evidence = extract_evidence(log)
        disassembly.annotate(evidence.aicore_faults, disassembly.read(objdump))
    return Triage(log=log, evidence=evidence, kb=kb or load_kb(), answers=answers)
