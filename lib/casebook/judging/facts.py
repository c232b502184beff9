"""Which facts hold for a case: from the logs, then the engineer's answers, then documented defaults."""
from __future__ import annotations

from ..evidence.items import Evidence, Fact
from ..knowledge.messages import Note
from ..knowledge.vocabulary import UNSET, FactError, normalize


def resolve(evidence: Evidence, answers: dict[str, object] | None = None) -> dict[str, Fact]:
    """All known facts: from the logs, then the engineer's answers (which win), then documented defaults."""
    facts: dict[str, Fact] = {}
    for name, fact in evidence.facts.items():
        try:
            facts[name] = Fact(name, normalize(name, fact.value), "log", fact.file, fact.line, fact.note)
        except FactError:
            continue  # a value the fact does not take ("TASK_QUEUE_ENABLE: unknown") says nothing
    spmd = evidence.topology.single_process_multi_device
    if spmd is not None:
        proof = next((p for p in evidence.topology.processes if p.drives_several_devices == spmd and p.refs), None)
        ref = proof.refs[-1] if proof else None
        note = (Note("fact.spmd_proof", pid=proof.pid, devices=sorted(proof.devices or proof.physical_devices))
                if proof else None)
        facts["single_process_multi_device"] = Fact("single_process_multi_device", spmd, "log",
                                                    ref.file if ref else None, ref.line if ref else None, note)
    for name, value in (answers or {}).items():
        facts[name] = Fact(name, normalize(name, value), "engineer")
    _apply_queue_default(facts)
    return facts


def _apply_queue_default(facts: dict[str, Fact]) -> None:
    """`unset` TASK_QUEUE_ENABLE means level 1, unless ASCEND_LAUNCH_BLOCKING=1 turned the queue off."""
    tq = facts.get("TASK_QUEUE_ENABLE")
    blocking = facts.get("ASCEND_LAUNCH_BLOCKING")
    if tq is not None and tq.value == UNSET:
        if blocking is not None and blocking.value == "1":
            facts["TASK_QUEUE_ENABLE"] = Fact("TASK_QUEUE_ENABLE", "0", "default", note=Note("fact.queue_off_by_blocking"))
        else:
            facts["TASK_QUEUE_ENABLE"] = Fact("TASK_QUEUE_ENABLE", "1", "default", note=Note("fact.queue_default"))
    if blocking is not None and blocking.value == UNSET:
        facts["ASCEND_LAUNCH_BLOCKING"] = Fact("ASCEND_LAUNCH_BLOCKING", "0", "default", note=Note("fact.blocking_default"))
