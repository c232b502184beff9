"""The facts a diagnosis rests on: their vocabulary, the engineer's answers, and documented defaults."""
from __future__ import annotations

from dataclasses import dataclass

from .evidence.items import Evidence, Fact

_TRUE = {"true", "yes", "y", "1", "是", "对"}
_FALSE = {"false", "no", "n", "0", "否", "不是"}
UNSET = "unset"


@dataclass(frozen=True)
class FactSpec:
    """What a fact means and which values it takes."""

    name: str
    kind: str                      #: bool or str
    doc: str
    choices: tuple[str, ...] = ()  #: allowed values of a str fact (empty: any)


FACTS = {s.name: s for s in (
    FactSpec("single_process_multi_device", "bool",
             "One process drives several devices, each from a thread of its own."),
    FactSpec("TASK_QUEUE_ENABLE", "str", "torch_npu task queue level; unset means the default 1.",
             ("0", "1", "2", UNSET)),
    FactSpec("ASCEND_LAUNCH_BLOCKING", "str", "1 launches ops synchronously and turns the task queue off.",
             ("0", "1", UNSET)),
    FactSpec("failure_vanished_with_debug", "bool",
             "The failure stopped once exception dump or ASCEND_LAUNCH_BLOCKING=1 was switched on."),
    FactSpec("torch_npu_version", "str", "Installed torch_npu version (pip show torch-npu)."),
    FactSpec("ASCEND_GLOBAL_LOG_LEVEL", "str", "Global plog level: 0 DEBUG, 1 INFO, 2 WARNING, 3 ERROR (default)."),
    FactSpec("ASCEND_RT_VISIBLE_DEVICES", "str", "Devices visible to the process (logical ids)."),
    FactSpec("ASCEND_HOST_LOG_FILE_NUM", "str", "Rotated plog files kept per process (default 10)."),
    FactSpec("HCCL_EXEC_TIMEOUT", "str", "HCCL execution timeout in seconds (default 1800)."),
    FactSpec("HCCL_CONNECT_TIMEOUT", "str", "HCCL link setup timeout in seconds (default 120)."),
    FactSpec("PER_STREAM_QUEUE", "str", "One task queue per stream (experimental)."),
    FactSpec("cann_version", "str", "Installed CANN version (version.info, install path or log line)."),
    FactSpec("npu_driver_version", "str", "Installed NPU driver version."),
    FactSpec("firmware_version", "str", "Installed NPU firmware version."),
    FactSpec("soc_version", "str", "Chip (SoC) name the runtime reports, e.g. Ascend910B3."),
    FactSpec("torch_version", "str", "Installed torch version (pip list / pip freeze)."),
    FactSpec("HCCL_BUFFSIZE", "str", "HCCL buffer size per communicator in MB (default 200)."),
    FactSpec("ASCEND_SLOG_PRINT_TO_STDOUT", "str", "1 sends the plog lines to the screen instead of files."),
    FactSpec("single_op_replay_fails", "bool",
             "Running the failing operator alone with the same shapes and tiling (msaicerr replay) fails too."),
    FactSpec("fails_on_other_cards", "bool", "The same job fails the same way when moved to other cards."),
    FactSpec("other_processes_on_card", "bool", "Other processes held memory on the failing card (npu-smi info)."),
    FactSpec("op_binaries_mismatch", "bool",
             "Operator binaries (custom ops, kernel packages, compile caches) were built for another CANN version."),
    FactSpec("peer_rank_exited_or_stalled", "bool",
             "A rank exited, hung or paused (data loading, checkpointing) before the others timed out."),
    FactSpec("link_flaps_seen", "bool", "The NPU network port shows link down/up events or growing error counters."),
)}


class FactError(ValueError):
    """An engineer's answer that the fact does not accept."""


def normalize(name: str, raw: object) -> object:
    """The typed value of an answer: bools from yes/no words, str facts checked against their choices."""
    spec = FACTS.get(name)
    if spec is None:
        raise FactError(f"unknown fact {name!r}; known: {', '.join(FACTS)}")
    if spec.kind == "bool":
        if isinstance(raw, bool):
            return raw
        word = str(raw).strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise FactError(f"{name} takes yes/no, not {raw!r}")
    value = str(raw).strip()
    if spec.choices and value.lower() not in spec.choices:
        raise FactError(f"{name} takes one of {', '.join(spec.choices)}, not {raw!r}")
    return value.lower() if value.lower() == UNSET else value


def parse_assignments(items: list[str]) -> dict[str, object]:
    """`["K=V", ...]` from the command line as a dict of normalized answers."""
    answers = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise FactError(f"--fact takes NAME=VALUE, not {item!r}")
        answers[name.strip()] = normalize(name.strip(), value)
    return answers


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
        note = (f"pid {proof.pid} uses devices {sorted(proof.devices)}" if proof else None)
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
            facts["TASK_QUEUE_ENABLE"] = Fact("TASK_QUEUE_ENABLE", "0", "default", note=(
                "unset, and ASCEND_LAUNCH_BLOCKING=1 turns the task queue off"))
        else:
            facts["TASK_QUEUE_ENABLE"] = Fact("TASK_QUEUE_ENABLE", "1", "default", note="unset: torch_npu's default is 1")
    if blocking is not None and blocking.value == UNSET:
        facts["ASCEND_LAUNCH_BLOCKING"] = Fact("ASCEND_LAUNCH_BLOCKING", "0", "default", note="unset: default 0")
