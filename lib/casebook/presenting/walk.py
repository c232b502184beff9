"""The expert's walk through a case, as data: symptom -> error code -> pc start -> topology -> root cause -> fix.

Each step holds plain text (findings, cited lines, questions); the CLI prints it and the widgets render it,
escaped. Nothing here formats HTML.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import pandas as pd

from ..evidence.items import AicoreFault
from ..judging.ranking import CONFIRMED, LIKELY, explained_lines
from ..judging.triage import Triage
from ..judging.unexplained import mine
from ..knowledge.addresses import hexs, mask48, msaicerr_offset, offset
from ..knowledge.errcode import NO_BIT_TEXT, decode_bit_list, decode_error_code, decode_triple, meaning

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
    src_file: str | None = None   #: the original file, when the line is a grep-quoted line of a capture
    src_line: int | None = None   #: the original line, likewise

    @property
    def where(self) -> str:
        """`file:line` (for a quoted line: the original, then the capture's line), or the source when no line
        backs it."""
        if not self.file:
            return "engineer"
        if self.src_line is None:
            return f"{self.file}:{self.line}"
        return f"{self.src_file or 'line'}:{self.src_line} (quoted at {self.file}:{self.line})"


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
    for s in steps:
        s.cited = [_quoting(t, c) for c in s.cited]
    return steps


def _quoting(t: Triage, c: Cited) -> Cited:
    """The cited line with the original file and line it quotes, when it is a grep-quoted line of a capture."""
    src = t.log.quoted_line(c.file, c.line) if c.file and c.line is not None else None
    return replace(c, src_file=src[0], src_line=src[1]) if src else c


def _figure(caption: str, draw: str, *args):
    """A figure drawn on demand by the plots function named `draw`, with the caption renderers show under it."""
    def make():
        from . import plots  # matplotlib loads only when a figure is drawn, not for every walk
        return getattr(plots, draw)(*args)
    make.caption = caption
    # the same drawing of the same evidence: lets a renderer keep the image across rebuilds of the walk
    make.key = (draw, caption, tuple(id(a) for a in args))
    return make


def _fault_cite(f: AicoreFault) -> Cited:
    """The fault's own report line, with the text that line holds."""
    ref = next((r for r in f.refs if (r.file, r.line) == (f.file, f.line)), f.refs[0] if f.refs else None)
    return Cited(ref.file, ref.line, ref.text) if ref else Cited(f.file, f.line, "")


def incidents_table(incidents: list) -> pd.DataFrame:
    """One row per incident: where, what kind, its first failure and how much followed it."""
    return pd.DataFrame([{"node": i.node or "", "rank": "" if i.rank is None else i.rank,
                          "device": "" if i.device is None else i.device, "pid": "" if i.pid is None else i.pid,
                          "kind": i.kind, "role": i.role, "first time": i.first.time or "",
                          "first line": f"{i.first.file}:{i.first.line}", "code": i.first.code or "",
                          "later lines": i.cascade} for i in incidents],
                        columns=["node", "rank", "device", "pid", "kind", "role", "first time", "first line", "code",
                                 "later lines"])


def _symptom(t: Triage, s: Step) -> None:
    log, ev = t.log, t.evidence
    s.findings.append(f"Read {len(log.files)} files, {log.lines} lines ({log.lines_unparsed} kept unparsed), "
                      f"{ev.error_lines} error lines.")
    s.findings.extend(log.rotation)   # the first error may be in a file the rotation deleted
    if ev.first_error is None and not ev.incidents:
        s.findings.append("No error line in the bundle: ask for the debug plogs of the failing run "
                          "(rotation may have deleted the oldest file).")
        return
    if ev.first_error is not None:
        e = ev.first_error
        s.findings.append(f"First error at {e.time or 'unknown time'} (pid {e.pid}, device {e.device}"
                          + (f", code {e.code}" if e.code else "") + ").")
        s.cited.append(Cited(e.file, e.line, e.text))
    for f in ev.aicore_faults[:3]:
        s.findings.append(f"AI Core fault on device {f.device} (serial {f.serial}, cores {f.cores}) in kernel "
                          f"{f.kernel or 'unknown'}" + (f" (op {f.op})" if f.op else "") + ".")
        s.cited.append(_fault_cite(f))
    if ev.incidents and ev.incidents[0].device is not None:
        i = ev.incidents[0]
        s.findings.append(f"Earliest incident: {i.kind.replace('_', ' ')} on device {i.device}"
                          + (f" (rank {i.rank})" if i.rank is not None else "") + (f" of {i.node}" if i.node else "")
                          + f" at {i.first.time or 'unknown time'}.")
        s.cited.append(Cited(i.first.file, i.first.line, i.first.text))
    causes = [i for i in ev.incidents if i.role == "cause"]
    consequences = [i for i in ev.incidents if i.role == "consequence"]
    if ev.incidents:
        s.findings.append(f"{len(ev.incidents)} incident(s) (bursts of errors per device and process): "
                          f"{len(causes)} stand on their own, {len(consequences)} follow another device's fault.")
        for i in consequences[:3]:
            s.findings.append(f"Device {i.device}" + (f" (rank {i.rank})" if i.rank is not None else "")
                              + f": its {i.kind.replace('_', ' ')} is a consequence: {i.because}.")
        s.tables.append(("Incidents, first failure first", incidents_table(ev.incidents)))
        if len(ev.incidents) > 1:   # a timeline of one burst shows nothing the table does not
            s.figures.append(_figure("Errors per device and process", "timeline", ev.incidents))
    fallout = sum(i.roles.get("fallout", 0) + i.roles.get("wrapper", 0) for i in ev.incidents)
    if fallout:
        s.findings.append(f"{fallout} later line(s) are fallout or wrappers of an earlier failure (507899, 107022, "
                          "synchronize calls, torch_npu ERRxxxxx, tracebacks) and are not causes.")
    versions = [f"{n} {t.facts[n].value}" + (f" ({t.facts[n].note})" if t.facts[n].note else "")
                for n in ("cann_version", "npu_driver_version", "firmware_version", "torch_npu_version", "soc_version")
                if n in t.facts]
    if versions:
        s.findings.append("Versions shown: " + "; ".join(versions) + ".")


def _error_code(t: Triage, s: Step) -> None:
    ev = t.evidence
    codes = sorted({c.code for c in ev.codes})
    if codes:
        s.findings.append("Codes seen: " + ", ".join(codes) + ".")
    rows = []
    for code in codes:
        page = t.kb.codes.get(code)
        if page:
            s.findings.append(f"{code}: {page.meaning}")
        family = next(c.family for c in ev.codes if c.code == code)
        rows.append({"code": code, "family": family, "meaning": page.meaning if page else "(no code page yet)",
                     "first seen": next(f"{c.file}:{c.line}" for c in ev.codes if c.code == code)})
    if rows:
        s.tables.append(("Codes in the error lines", pd.DataFrame(rows)))
    for f in ev.aicore_faults[:3]:
        if f.errcode:
            triple = ", ".join(hexs(x) for x in f.errcode)
            s.findings.append(f"errcode:({triple}) decodes to " + (", ".join(f.error_bits) or f"no bit set: {NO_BIT_TEXT}")
                              + ".")
        elif f.error_bit_list:
            s.findings.append(f"Ascend 950 error bit list {f.error_bit_list} decodes to "
                              + (", ".join(f.error_bits) or "no bit the 950 table names") + ".")
        elif f.error_code is not None:
            s.findings.append(f"error code = {hexs(f.error_code)} decodes to "
                              + (", ".join(f.error_bits) or "nothing: with 0 the bits are in the extend info") + ".")
        for bit in f.error_bits:
            page = t.kb.codes.get(bit)
            s.findings.append(f"{bit}: {page.meaning if page else meaning(bit)}")
        if f.error_str:
            s.findings.append(f"errorStr: {f.error_str}")
        if f.ret_code:
            page = t.kb.codes.get(f.ret_code)
            s.findings.append(f"retCode {f.ret_code}" + (f": {page.meaning}" if page else "."))
        s.findings += [n for n in f.notes if "bit" in n or "error code" in n]
        table = decode_table(f)
        if not table.empty:
            s.tables.append((f"Error bits of the fault on device {f.device}"
                             + (f", serial {f.serial}" if f.serial is not None else ""), table))
        s.cited += [Cited(r.file, r.line, r.text) for r in f.refs
                    if "errcode:" in r.text or "retCode" in r.text or "error code" in r.text or "AIC_ERROR" in r.text]


def decode_table(f: AicoreFault) -> pd.DataFrame:
    """One row per set error bit of a fault: where it sits in the report, its name and meaning."""
    if f.family == "david":
        named = dict(decode_bit_list(f.error_bit_list))
        return pd.DataFrame([{"bit": i, "name": named.get(i) or "(not in the 950 table)",
                              "meaning": meaning(named[i]) if named.get(i) else ""} for i in f.error_bit_list],
                            columns=["bit", "name", "meaning"])
    if f.errcode is not None:
        bits = decode_triple(*f.errcode)
        source = "errcode:(a, b, c)"
    else:
        bits = decode_error_code(f.error_code) if f.error_code else []
        source = "error code ="
    return pd.DataFrame([{"from": source, "word": b.word, "bit": b.bit, "mask": hexs(b.mask), "index": b.index,
                          "name": b.name, "meaning": meaning(b.name)} for b in bits],
                        columns=["from", "word", "bit", "mask", "index", "name", "meaning"])


def pc_table(f: AicoreFault) -> pd.DataFrame:
    """The pc arithmetic of one fault, one row per quantity, as logged and as computed."""
    has = f.pc_start_raw is not None and f.current_raw is not None
    rows = [
        ("pc start (logged)", hexs(f.pc_start_raw)),
        ("pc start (48-bit)", hexs(mask48(f.pc_start_raw)) if f.pc_start_raw is not None else None),
        ("current (logged)", hexs(f.current_raw)),
        ("current (48-bit)", hexs(mask48(f.current_raw)) if f.current_raw is not None else None),
        ("offset = current - pc start", hexs(offset(f.pc_start_raw, f.current_raw)) if has else None),
        ("msaicerr offset (low 20 bits)", hexs(msaicerr_offset(f.pc_start_raw, f.current_raw)) if has else None),
        ("the two offsets agree", (msaicerr_offset(f.pc_start_raw, f.current_raw)
                                   == offset(f.pc_start_raw, f.current_raw)) if has else None),
        ("binSize", hexs(f.bin_size) or "not logged"),
        ("kernel range", f"[{hexs(mask48(f.pc_start_raw))}, {hexs(mask48(f.pc_start_raw) + f.bin_size)})"
         if f.bin_size and f.pc_start_raw is not None else "unknown without binSize"),
        ("verdict", f.pc.verdict if f.pc else "unknown"),
    ]
    if f.pc_start_first_raw is not None:
        rows.insert(0, ("first pc start (outstanding)", hexs(f.pc_start_first_raw)))
    return pd.DataFrame([{"quantity": k, "value": "" if v is None else str(v)} for k, v in rows])


def _pc_start(t: Triage, s: Step) -> None:
    faults = t.evidence.aicore_faults
    if not faults:
        s.findings.append("No AI Core fault report: the pc start check does not apply.")
        return
    for f in faults[:3]:
        if f.pc_start_raw is None or f.current_raw is None:
            continue
        s.findings.append(f"Device {f.device}" + (f", serial {f.serial}" if f.serial is not None else "")
                          + f" ({len(f.cores)} core(s)): pc start {hexs(mask48(f.pc_start_raw))} "
                          f"(logged {hexs(f.pc_start_raw)}), current {hexs(mask48(f.current_raw))}, offset "
                          f"{hexs(offset(f.pc_start_raw, f.current_raw))}, binSize {hexs(f.bin_size) or 'not logged'}.")
        if f.pc:
            s.findings.append(f"Verdict: {f.pc.verdict}. {f.pc.reason}")
            if f.pc.collect:
                s.findings.append(f"To collect: {f.pc.collect}")
        s.findings += [n for n in f.notes if "bit" not in n and "error code" not in n]
        s.findings += f.instructions
        label = f"device {f.device}" + (f", serial {f.serial}" if f.serial is not None else "")
        s.tables.append((f"pc start / current of the fault on {label}", pc_table(f)))
        s.figures.append(_figure("Address map of the first AI Core fault" if f is faults[0] else
                                 f"Address map of the AI Core fault on {label}", "address_map", f))
        s.cited.append(_fault_cite(f))


def ranks_table(view) -> pd.DataFrame:
    """One row per rank: where it ran, when it first failed, and how often peers name it."""
    return pd.DataFrame([{"rank": r.rank, "node": r.node or "", "pid": r.pid, "device": r.device, "ip": r.ip or "",
                          "first error": r.first_error.time if r.first_error else "",
                          "named by peers": view.blamed.get(r.rank, 0)} for r in view.ranks],
                        columns=["rank", "node", "pid", "device", "ip", "first error", "named by peers"])


def _topology(t: Triage, s: Step) -> None:
    topo = t.evidence.topology
    for p in topo.processes:
        devs = ", ".join(f"device {d} (threads {', '.join(sorted(ts))})" for d, ts in sorted(p.devices.items()))
        ranks = ", ".join(f"rank {r}" + (f" on device {d}" if d is not None else "") for r, d in sorted(p.ranks.items()))
        paths = ", ".join(f"device {d} (its device-side log {path})" for d, path in sorted(p.path_devices.items()))
        s.findings.append(f"pid {p.pid}" + (f" on {p.node}" if p.node else "") + ": "
                          + "; ".join(x for x in (devs, ranks, paths) if x) + ".")
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
    _ranks(topo.ranks, s)
    s.questions = [q for q in t.questions if q.fact == "single_process_multi_device"]


def _ranks(view, s: Step) -> None:
    if not view.ranks and not view.links:
        return
    if view.order:
        s.findings.append("First error by rank, earliest first: " + ", ".join(
            f"rank {r.rank} at {r.first_error.time}" for r in view.order) + ".")
    for link in view.links:
        s.findings.append(f"Rank {link.rank if link.rank is not None else '?'}"
                          + (f" on {link.node}" if link.node else "") + f" names rank {link.peer}"
                          + (f" ({link.peer_ip})" if link.peer_ip else "") + f" as the remote side: {link.status}.")
        s.cited.append(Cited(link.file, link.line, link.text))
    if view.blamed:
        top = max(view.blamed.values())
        s.findings.append("Named by most peers: " + ", ".join(f"rank {r}" for r, n in sorted(view.blamed.items())
                                                             if n == top) + f" ({top} report(s)).")
    if view.missing:
        s.findings.append(f"Ranks missing from the bundle: {view.missing}; the rank at fault often logs nothing, "
                          "so ask for their logs.")
    s.findings += view.clock_skew
    if view.ranks:
        s.tables.append(("Ranks", ranks_table(view)))


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
    _coverage(t, s)
    s.questions = t.questions


def _coverage(t: Triage, s: Step) -> None:
    """How many error lines the confirmed and likely cases explain, and the rest grouped by template."""
    errors = t.log.errors()
    explained = explained_lines(t.candidates) & set(zip(errors["file"], errors["line"].astype(int)))
    s.findings.append(f"Coverage: the matched cases explain {len(explained)} of {t.evidence.error_lines} error lines.")
    rest = mine(errors, explained)
    if rest:
        s.findings.append(f"Unexplained: {len(rest)} template(s); the most frequent: {rest[0].template} "
                          f"({rest[0].count}x, first at {rest[0].file}:{rest[0].line}).")
        s.tables.append(("Unexplained error templates", pd.DataFrame(
            [{"count": u.count, "template": u.template, "first": f"{u.file}:{u.line}", "time": u.time} for u in rest])))


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
