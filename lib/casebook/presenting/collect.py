"""The collect-more request: what to ask the customer for, derived from what the case still misses.

Each ask names the thing to collect, why this case needs it (the evidence that is missing), and how to
get it (commands and environment variables of CANN and torch_npu). Nothing is asked for that the bundle
already holds.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..judging.triage import Triage
from ..knowledge.addresses import UNKNOWN as PC_UNKNOWN
from ..knowledge.messages import EN, Note, say, words
from ..knowledge.vocabulary import FACTS
from ..reading.bundle import ROLE_DEVICE_LOG, ROLE_HOST_PLOG

@dataclass(frozen=True)
class Ask:
    """One thing to collect."""

    what: str              #: worded by the catalog (a Note): shown in the report's language
    why: str
    how: tuple[str, ...]   #: commands or settings, one per line


@dataclass
class CollectRequest:
    """Everything to ask the customer for, in the order it is worth collecting."""

    asks: list[Ask]

    def to_markdown(self, lang: str = EN) -> str:
        """The request as Markdown in `lang`, ready to paste into a ticket."""
        if not self.asks:
            return say(lang, "ask.nothing") + "\n"
        out = [say(lang, "ask.intro"), ""]
        for n, a in enumerate(self.asks, start=1):
            out.append(f"{n}. **{words(lang, a.what)}** — {words(lang, a.why)}")
            if a.how:
                out.append("")
                out.append("   ```sh")
                out += [f"   {h}" for h in a.how]
                out.append("   ```")
            out.append("")
        return "\n".join(out)

    def to_text(self) -> str:
        """The request as plain text."""
        out = []
        for n, a in enumerate(self.asks, start=1):
            out.append(f"{n}. {a.what}: {a.why}")
            out += [f"     $ {h}" for h in a.how]
        return "\n".join(out) + ("\n" if out else say(EN, "ask.nothing") + "\n")


def build(t: Triage) -> CollectRequest:
    """The collect-more request for the current state of the case."""
    asks: list[Ask] = []
    log, ev = t.log, t.evidence
    roles = {f.role for f in log.files if not f.skipped}
    levels = log.levels_seen()
    info_seen = bool(levels & {"INFO", "DEBUG"})
    if ev.first_error is None:
        asks.append(Ask(Note("ask.plogs"), Note("ask.plogs.why"),
                        ("tar czf plog.tar.gz ~/ascend/log        # or the folder set in ASCEND_PROCESS_LOG_PATH",)))
    if ROLE_HOST_PLOG not in roles:
        asks.append(Ask(Note("ask.host_plogs"), Note("ask.host_plogs.why"),
                        ("ls ~/ascend/log/debug/plog ~/ascend/log/run/plog",)))
    faults = ev.aicore_faults
    if any(f.pc is None or f.pc.verdict == PC_UNKNOWN for f in faults) or (faults and not info_seen):
        asks.append(Ask(Note("ask.info_level"), Note("ask.info_level.why"),
                        ("export ASCEND_MODULE_LOG_LEVEL=RUNTIME=1   # or ASCEND_GLOBAL_LOG_LEVEL=1 for every module",
                         "export ASCEND_HOST_LOG_FILE_NUM=100        # keep the early lines from being rotated away")))
    elif faults and any(f.pc and f.pc.collect for f in faults):
        asks.append(Ask(Note("ask.more_logs"), next(f.pc.collect for f in faults if f.pc and f.pc.collect), ()))
    if ev.topology.single_process_multi_device is None:
        asks.append(Ask(Note("ask.launch"), Note("ask.launch.why"),
                        ("the launch command (torchrun / msrun / mp.spawn / a single python process with threads)",
                         "export ASCEND_MODULE_LOG_LEVEL=RUNTIME=1   # logs each thread's set-device call")))
    if faults and ROLE_DEVICE_LOG not in roles:
        asks.append(Ask(Note("ask.device_logs"), Note("ask.device_logs.why"),
                        ("msnpureport        # exports the device logs (hisi_logs, message) to the current folder",
                         "asys collect       # or CANN's collector: logs and environment in one folder")))
    missing = list(t.questions)
    env_facts = [q for q in missing if q.fact in FACTS and q.fact.isupper()]
    if env_facts:
        names = ", ".join(q.fact for q in env_facts)
        asks.append(Ask(Note("ask.environment"), Note("ask.environment.why", names=names),
                        ("env | grep -E 'ASCEND|TASK_QUEUE|HCCL|PYTORCH_NPU' | sort",
                         "# and how the launch script sets them, if it does")))
    if any(q.fact == "torch_npu_version" for q in missing) or (ev.aicore_faults and "torch_npu_version" not in t.facts):
        asks.append(Ask(Note("ask.versions"), Note("ask.versions.why"),
                        ("pip list 2>/dev/null | grep -i -E 'torch|npu|cann'",
                         "cat /usr/local/Ascend/ascend-toolkit/latest/version.cfg")))
    if any(q.fact == "failure_vanished_with_debug" for q in missing):
        asks.append(Ask(Note("ask.debug_switches"), Note("ask.debug_switches.why"),
                        ("ASCEND_LAUNCH_BLOCKING=1 <the same launch command>",)))
    if faults or ev.incidents:
        asks.append(Ask(Note("ask.health"), Note("ask.health.why"),
                        ("npu-smi info", "npu-smi info -t health -i <card id>")))
    return CollectRequest(asks)
