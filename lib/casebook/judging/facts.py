"""Which facts hold for a case: from the logs, then the engineer's answers, then documented defaults."""
from __future__ import annotations

import dataclasses

from ..evidence.items import Evidence, Fact
from ..knowledge import compat
from ..knowledge.messages import Note
from ..knowledge.vocabulary import UNSET, FactError, normalize


def resolve(evidence: Evidence, answers: dict[str, object] | None = None,
            tables: dict[str, tuple[compat.Row, ...]] | None = None) -> dict[str, Fact]:
    """All known facts: from the logs, then the engineer's answers (which win), then documented defaults, then what
    the compatibility tables say of the versions known."""
    facts: dict[str, Fact] = {}
    for name, fact in evidence.facts.items():
        try:
            # read from the logs, or worked out from a documented default where the log lacks a value (the
            # collectives' event timeout against HCCL_EXEC_TIMEOUT's default)
            facts[name] = dataclasses.replace(fact, value=normalize(name, fact.value),
                                              source="default" if fact.source == "default" else "log")
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
    for name, fact in {**pairings(facts, tables or {}), **chips(facts, tables or {})}.items():
        facts.setdefault(name, fact)
    numpy = facts.get("numpy_version")
    if numpy is not None and "numpy_is_2" not in facts:
        facts["numpy_is_2"] = Fact("numpy_is_2", str(numpy.value).split(".")[0] == "2", "log", numpy.file, numpy.line)
    return facts


def pairings(facts: dict[str, Fact], tables: dict[str, tuple[compat.Row, ...]]) -> dict[str, Fact]:
    """Whether the torch and the CANN the job shows are those its torch_npu release is made for, each cited to the
    table row and its source; nothing when the release, or the other version, is not known."""
    npu = facts.get("torch_npu_version")
    row = compat.torch_npu_row(tables.get("torch-npu", ()), npu.value) if npu is not None else None
    if row is None:
        return {}
    out = {}
    for name, shown, listed in (("torch_matches_torch_npu", facts.get("torch_version"), [row.fields.get("torch")]),
                                ("cann_matches_torch_npu", facts.get("cann_version"), row.fields.get("cann") or [])):
        listed = [str(v) for v in listed if v]
        if shown is None or not listed:
            continue
        ok = any(compat.same_release(str(shown.value), v) for v in listed)
        out[name] = Fact(name, ok, "table", shown.file, shown.line,
                         Note("fact.from_table", release=row.fields.get("torch_npu"), listed=", ".join(listed),
                              table=f"kb/compat/{row.table}.yaml:{row.line}", source=row.source))
    return out


#: Facts the chip table answers: (fact, the fact naming the chip, the capability whose row answers it, or None when the
#: fact asks the chip's family, and that family).
CHIP_FACTS = (("device_is_atlas_310p", "soc_version", None, "310P"),
              ("compiler_target_chip_supported", "compiler_target_soc", "triton-ascend", None))


def chips(facts: dict[str, Fact], tables: dict[str, tuple[compat.Row, ...]]) -> dict[str, Fact]:
    """What the chip table says of the chips the job names: the family of the chip the runtime reports, and whether a
    kernel compiler's product supports the chip it was asked to build for, each cited to the table row and its source;
    nothing for a chip the table does not list."""
    rows = tables.get("chips", ())
    out = {}
    for name, named_by, capability, family in CHIP_FACTS:
        soc = facts.get(named_by)
        row = compat.chip_row(rows, soc.value, capability) if soc is not None else None
        if row is None:
            continue
        where = {"soc": soc.value, "chip": row.fields.get("chip"), "table": f"kb/compat/{row.table}.yaml:{row.line}",
                 "source": row.source}
        if capability is None:
            value, note = compat.chip_family(row) == family, Note("fact.chip_family", **where)
        else:
            value = bool(row.fields.get("supported"))
            note = Note("fact.chip_supports" if value else "fact.chip_lacks", capability=capability, **where)
        out[name] = Fact(name, value, "table", soc.file, soc.line, note)
    return out


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
