"""The expert's walk through a case, as data: symptom -> error code -> pc start -> topology -> root cause -> fix.

Each step holds plain text (findings, cited lines, questions); the CLI prints it and the widgets render it,
escaped. Nothing here formats HTML.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .addresses import hexs, mask48, offset
from .ranking import CONFIRMED, LIKELY
from .triage import Triage

STEP_KEYS = ("symptom", "error_code", "pc_start", "topology", "root_cause", "fix")
TITLES = {
    "symptom": ("Symptom", "现象"),
    "error_code": ("Error code", "错误码"),
    "pc_start": ("pc start / current", "pc start / current 分析"),
    "topology": ("Topology", "进程与设备拓扑"),
    "root_cause": ("Root cause", "根因"),
    "fix": ("Fix", "解决措施"),
}


@dataclass(frozen=True)
class Cited:
    """A log line shown as evidence."""

    file: str | None
    line: int | None
    text: str

    @property
    def where(self) -> str:
        """`file:line`, or the source when no line backs it."""
        return f"{self.file}:{self.line}" if self.file else "engineer"


@dataclass
class Step:
    """One step of the walk."""

    key: str
    title: str
    title_zh: str
    findings: list[str] = field(default_factory=list)
    cited: list[Cited] = field(default_factory=list)
    questions: list = field(default_factory=list)   #: ranking.Missing items the logs cannot answer
    tables: list = field(default_factory=list)      #: (caption, pandas.DataFrame) pairs shown under the findings
    figures: list = field(default_factory=list)     #: callables returning a matplotlib Figure, drawn on demand


def build(t: Triage) -> list[Step]:
    """The six steps for the current state of the case."""
    steps = [Step(k, *TITLES[k]) for k in STEP_KEYS]
    by = {s.key: s for s in steps}
    _symptom(t, by["symptom"])
    _error_code(t, by["error_code"])
    _pc_start(t, by["pc_start"])
    _topology(t, by["topology"])
    _root_cause(t, by["root_cause"])
    _fix(t, by["fix"])
    return steps


def _symptom(t: Triage, s: Step) -> None:
    log, ev = t.log, t.evidence
    s.findings.append(f"Read {len(log.files)} files, {log.lines} lines ({log.lines_unparsed} kept unparsed), "
                      f"{ev.error_lines} error lines.")
    if ev.first_error is None:
        s.findings.append("No error line in the bundle: ask for the debug plogs of the failing run "
                          "(rotation may have deleted the oldest file).")
        return
    e = ev.first_error
    s.findings.append(f"First error at {e.time or 'unknown time'} (pid {e.pid}, device {e.device}"
                      + (f", code {e.code}" if e.code else "") + ").")
    s.cited.append(Cited(e.file, e.line, e.text))
    for f in ev.aicore_faults[:3]:
        s.findings.append(f"AI Core fault on device {f.device} (serial {f.serial}, cores {f.cores}) in kernel "
                          f"{f.kernel or 'unknown'}" + (f" (op {f.op})" if f.op else "") + ".")
        s.cited.append(Cited(f.file, f.line, f.refs[0].text if f.refs else ""))
    later = [e2 for e2 in ev.first_errors if (e2.file, e2.line) != (e.file, e.line)]
    if later:
        s.findings.append(f"{len(later)} other process or device first errors follow; later lines are treated as fallout.")


def _error_code(t: Triage, s: Step) -> None:
    ev = t.evidence
    codes = sorted({c.code for c in ev.codes})
    if codes:
        s.findings.append("Codes seen: " + ", ".join(codes) + ".")
    for code in codes:
        page = t.kb.codes.get(code)
        if page:
            s.findings.append(f"{code}: {page.meaning}")
    for f in ev.aicore_faults[:3]:
        if f.errcode:
            triple = ", ".join(hexs(x) for x in f.errcode)
            s.findings.append(f"errcode:({triple}) decodes to " + (", ".join(f.error_bits) or "no bit set: "
                                                                    "timeout or trap error") + ".")
        elif f.error_code is not None:
            s.findings.append(f"error code = {hexs(f.error_code)} decodes to "
                              + (", ".join(f.error_bits) or "nothing; with 0 look at the extend info") + ".")
        for bit in f.error_bits:
            page = t.kb.codes.get(bit)
            if page:
                s.findings.append(f"{bit}: {page.meaning}")
        if f.error_str:
            s.findings.append(f"errorStr: {f.error_str}")
        if f.ret_code:
            page = t.kb.codes.get(f.ret_code)
            s.findings.append(f"retCode {f.ret_code}" + (f": {page.meaning}" if page else "."))
        s.cited += [Cited(r.file, r.line, r.text) for r in f.refs if "errcode:" in r.text or "retCode" in r.text]


def _pc_start(t: Triage, s: Step) -> None:
    faults = t.evidence.aicore_faults
    if not faults:
        s.findings.append("No AI Core fault report: the pc start check does not apply.")
        return
    for f in faults[:3]:
        if f.pc_start_raw is None or f.current_raw is None:
            continue
        s.findings.append(f"Device {f.device}, serial {f.serial}: pc start {hexs(mask48(f.pc_start_raw))} "
                          f"(logged {hexs(f.pc_start_raw)}), current {hexs(mask48(f.current_raw))}, offset "
                          f"{hexs(offset(f.pc_start_raw, f.current_raw))}, binSize {hexs(f.bin_size) or 'not logged'}.")
        if f.pc:
            s.findings.append(f"Verdict: {f.pc.verdict}. {f.pc.reason}")
            if f.pc.collect:
                s.findings.append(f"To collect: {f.pc.collect}")
        s.cited.append(Cited(f.file, f.line, f.refs[0].text if f.refs else ""))


def _topology(t: Triage, s: Step) -> None:
    topo = t.evidence.topology
    for p in topo.processes:
        devs = ", ".join(f"device {d} (threads {', '.join(sorted(ts))})" for d, ts in sorted(p.devices.items()))
        s.findings.append(f"pid {p.pid}" + (f" on {p.node}" if p.node else "") + f": {devs}.")
        s.cited += [Cited(r.file, r.line, r.text) for r in p.refs[:8]]
    spmd = topo.single_process_multi_device
    if spmd is None:
        s.findings.append("No line shows which device each process set: whether one process drives several "
                          "cards is unknown until the engineer says.")
    else:
        s.findings.append("One process drives several devices from distinct threads." if spmd
                          else "Each process drives a single device.")
    fact = t.facts.get("single_process_multi_device")
    if fact is not None and fact.source == "engineer":
        s.findings.append(f"The engineer says: single_process_multi_device = {fact.value}.")
    s.questions = [q for q in t.questions if q.fact == "single_process_multi_device"]


def _root_cause(t: Triage, s: Step) -> None:
    if not t.candidates:
        s.findings.append("No known case matches this evidence. Keep the first error and its codes, and ask a senior "
                          "engineer or add a draft case.")
    for h in t.candidates:
        s.findings.append(f"{h.case.id}: {h.verdict} (score {h.score:.2f}) - {h.case.title}")
        for i in h.for_:
            s.findings.append(f"  for [{i.id}]: {i.why or ''}")
        for i in h.against:
            s.findings.append(f"  against [{i.id}]: {i.text} - {i.why or ''}")
        for m in h.missing:
            s.findings.append(f"  missing: {m.fact}" + ("" if m.required else " (optional)"))
        s.cited += [Cited(i.file, i.line, i.text) for i in h.for_ + h.against if i.file]
    d = t.diagnosis
    s.findings.append(f"Diagnosis: {d.case.id} ({d.verdict})." if d else "Diagnosis: none confirmed or likely yet.")
    s.questions = t.questions


def _fix(t: Triage, s: Step) -> None:
    d = t.diagnosis
    if d is None:
        s.findings.append("No diagnosis yet: answer the open questions, or collect what the earlier steps ask for.")
        return
    labels = (("workaround", "Workaround now"), ("fix", "Real fix"), ("version_advice", "Versions"),
              ("confirm", "How to confirm the fix"))
    for key, label in labels:
        if d.case.fix.get(key):
            s.findings.append(f"{label}: {d.case.fix[key]}")
    if d.verdict == LIKELY:
        s.findings.append("The diagnosis is likely, not confirmed: settle the open questions before changing the job.")
    elif d.verdict == CONFIRMED:
        s.findings.append("Confirmed by the logs and the answers given.")
