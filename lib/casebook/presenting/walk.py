"""The expert's walk through a case, as data: symptom -> error code -> pc start -> topology -> root cause -> fix.

A step reads in the order of its fields: the conclusion in one sentence, the open questions, the findings
behind the conclusion, tables and figures, then the evidence, each `file:line` once. Every sentence comes
from the message catalog in the walk's language (`en` or `zh`); text quoted from a log stays as logged,
between backticks. The CLI prints a step and the widgets render it escaped; nothing here formats HTML.
"""
from __future__ import annotations

import re
from dataclasses import replace
from ..evidence.items import AicoreFault, CodeSighting
from ..judging.comparison import healthy_pair
from ..judging.triage import Triage
from ..knowledge.addresses import hexs, mask48, offset
from ..knowledge.errcode import NO_BIT_TEXT
from ..knowledge.messages import EN, LANGS, ZH, name, say, words
from . import hypotheses, tables
from .citation import Cited, cited
from .step import Step, kind_words, place

STEP_KEYS = ("symptom", "error_code", "pc_start", "topology", "root_cause", "fix")
#: Where the register values sit in an AI Core report line.
_PC_FOCUS = re.compile(r"pc start:?\s*\S+.*?current:?\s*[0-9a-fA-Fx]+|pc start:?\s*\S+")
_BITS_FOCUS = re.compile(r"errcode:\s*\([^)]*\)|error code\s*=\s*\S+|retCode=\S+|AIC_ERROR\S*|error bit list\S*")


def title(key: str, lang: str = EN) -> str:
    """A step's title in one language."""
    return say(lang, f"step.{key}")


#: (English, Chinese) title of each step.
TITLES = {k: (title(k, EN), title(k, ZH)) for k in STEP_KEYS}


def build(t: Triage, lang: str = EN) -> list[Step]:
    """The six steps for the current state of the case, worded in `lang` (en or zh)."""
    if lang not in LANGS:
        raise ValueError(f"the walk is worded in {' or '.join(LANGS)}, not {lang!r}")
    steps = [Step(k, title(k, lang), title(k, ZH), lang) for k in STEP_KEYS]
    by = {s.key: s for s in steps}
    _symptom(t, by["symptom"])
    _error_code(t, by["error_code"])
    _pc_start(t, by["pc_start"])
    _topology(t, by["topology"])
    hypotheses.root_cause(t, by["root_cause"])
    hypotheses.fix(t, by["fix"])
    for s in steps:
        s.cited = [quoting(t, c) for c in s.cited]
    return steps


def quoting(t: Triage, c: Cited) -> Cited:
    """The cited line with the original file and line it quotes, when it is a grep-quoted line of a capture."""
    src = t.log.quoted_line(c.file, c.line) if c.file and c.line is not None else None
    return replace(c, src_file=src[0], src_line=src[1]) if src else c


def figure(caption: str, draw: str, *args):
    """A figure drawn on demand by the plots function named `draw`, with the caption renderers show under it."""
    def make():
        from . import plots  # matplotlib loads only when a figure is drawn, not for every walk
        return getattr(plots, draw)(*args)
    make.caption = caption
    # the same drawing of the same evidence: lets a renderer keep the image across rebuilds of the walk
    make.key = (draw, caption, tuple(id(a) for a in args))
    return make


def fault_cite(f: AicoreFault, focus=_PC_FOCUS) -> Cited:
    """The fault's own report line, with the part that matters marked."""
    ref = next((r for r in f.refs if (r.file, r.line) == (f.file, f.line)), f.refs[0] if f.refs else None)
    return cited(ref.file, ref.line, ref.text, focus) if ref else Cited(f.file, f.line, "")


def _symptom(t: Triage, s: Step) -> None:
    log, ev = t.log, t.evidence
    s.add("symptom.read", files=len(log.files), lines=log.lines, unparsed=log.lines_unparsed, errors=ev.error_lines)
    s.findings.extend(_gap(s, g) for g in log.rotation)   # the first error may be in a file rotated away
    if ev.first_error is None and not ev.incidents:
        s.conclusion = s.say("symptom.none")
        s.add("symptom.none.ask")
        return
    # the first burst that stands on its own and is not a harmless line (a driver's "not supported")
    first = next((i for i in ev.incidents if i.role == "cause" and i.kind != "benign"),
                 ev.incidents[0] if ev.incidents else None)
    if first is not None:
        s.conclusion = s.say("symptom.conclusion", kind=kind_words(s, first.kind),
                             where=place(s, first.device, first.rank, first.node, first.pid),
                             time=first.first.time or s.say("time.unknown"))
    else:
        e = ev.first_error
        s.conclusion = s.say("symptom.conclusion.first_error", where=place(s, e.device, None, e.node, e.pid),
                             time=e.time or s.say("time.unknown"))
    if ev.first_error is not None:
        e = ev.first_error
        s.add("symptom.first_error", time=e.time or s.say("time.unknown"), where=place(s, e.device, None, None, e.pid),
              code=s.say("symptom.code", code=e.code) if e.code else "")
        s.cite(cited(e.file, e.line, e.text, e.code))
    for f in ev.aicore_faults[:3]:
        known = ([s.say("symptom.serial", serial=f.serial)] if f.serial is not None else []) + (
            [s.say("symptom.cores" if len(f.cores) > 1 else "symptom.core", cores=", ".join(map(str, f.cores)))]
            if f.cores else [])
        s.add("symptom.fault", where=place(s, f.device), kernel=f.kernel or s.say("kernel.unknown"),
              detail=s.say("symptom.detail", detail=s.say("list.sep").join(known)) if known else "",
              op=s.say("symptom.op", op=f.op) if f.op else "")
        s.cite(fault_cite(f))
    for i in ev.incidents:   # where each burst starts; the table lists them in the same order
        s.cite(cited(i.first.file, i.first.line, i.first.text, i.first.code))
    causes = [i for i in ev.incidents if i.role == "cause"]
    consequences = [i for i in ev.incidents if i.role == "consequence"]
    if ev.incidents:
        s.add("symptom.incidents", n=len(ev.incidents), causes=len(causes), consequences=len(consequences))
        for i in consequences[:3]:
            earlier = getattr(i.because, "values", {})   # the incident it follows; its first line is cited below
            s.add("symptom.consequence", where=place(s, i.device, i.rank), kind=kind_words(s, i.kind),
                  after=words(s.lang, earlier["kind"]) if earlier.get("kind") else s.say("symptom.a_failure"),
                  there=place(s, earlier.get("device")), time=earlier.get("time") or s.say("time.unknown"))
        s.tables.append((s.say("table.incidents"), tables.incidents(ev.incidents, s.lang)))
        if len(ev.incidents) > 1:   # a timeline of one burst shows nothing the table does not
            s.figures.append(figure(s.say("figure.timeline"), "timeline", ev.incidents))
    fallout = sum(i.roles.get("fallout", 0) + i.roles.get("wrapper", 0) for i in ev.incidents)
    if fallout:
        s.add("symptom.fallout", n=fallout)
    versions = [s.say("symptom.version", name=n, value=t.facts[n].value,
                      note=s.say("symptom.version_note", note=words(s.lang, t.facts[n].note)) if t.facts[n].note else "")
                for n in ("cann_version", "npu_driver_version", "firmware_version", "torch_npu_version", "soc_version")
                if n in t.facts]
    if versions:
        s.add("symptom.versions", versions=s.say("list.sep").join(versions))


def _gap(s: Step, g) -> str:
    """A process whose oldest files may have been rotated away, in words."""
    who = (s.say("rotation.pid", pid=g.pid) if g.pid is not None else
           s.say("rotation.device", device=g.device) if g.device is not None else s.say("rotation.process"))
    signs = ([s.say("rotation.continues")] if g.continues else []) + (
        [s.say("rotation.full", files=g.files, limit=g.limit, source=s.say(f"rotation.{g.source}"))] if g.full else [])
    return s.say("rotation.gap", path=g.path, who=who, folder=g.folder, why=s.say("list.semi").join(signs))


def _error_code(t: Triage, s: Step) -> None:
    ev = t.evidence
    first: dict[str, CodeSighting] = {}   # each code's first sighting: what named it, and where
    for c in ev.codes:
        first.setdefault(c.code, c)
    codes = sorted(first)
    faults = ev.aicore_faults[:3]
    bits = list(dict.fromkeys(b for f in faults for b in f.error_bits))
    if bits:
        s.conclusion = s.say("error_code.conclusion.bits", bits=", ".join(bits))
    elif codes:
        s.conclusion = s.say("error_code.conclusion.codes", codes=", ".join(codes))
    else:
        s.conclusion = s.say("error_code.conclusion.none")
    if codes:
        s.add("error_code.seen", codes=", ".join(codes))
    unknown = []
    for code in codes:   # each code's meaning once, here; the fault's bits have theirs in the bits table
        text = tables.code_meaning(t, code, s.lang, first[code].family)
        if text:
            s.add("error_code.meaning", code=code, meaning=text)
        else:
            unknown.append(code)
    if unknown:
        s.add("error_code.no_page", codes=", ".join(unknown))
    for code in codes:   # where each code is first seen
        c = first[code]
        s.cite(cited(c.file, c.line, c.text, c.code))
    for f in faults:
        _fault_bits(t, s, f, set(codes))


def _fault_bits(t: Triage, s: Step, f: AicoreFault, said: set[str] = frozenset()) -> None:
    """What one fault's error registers decode to, and where they are logged."""
    names = ", ".join(f.error_bits)
    if f.errcode:
        triple = ", ".join(hexs(x) for x in f.errcode)
        s.add("error_code.triple", triple=triple,
              bits=names or s.say("error_code.no_bit", text=NO_BIT_TEXT))
    elif f.error_bit_list:
        s.add("error_code.bit_list", bits_logged=f.error_bit_list, bits=names or s.say("error_code.no_950_bit"))
    elif f.error_code is not None:
        s.add("error_code.register", code=hexs(f.error_code), bits=names or s.say("error_code.zero"))
    if f.error_str:
        s.add("error_code.error_str", text=f.error_str)
    if f.ret_code in said:   # a code the step has explained already is named, not explained again
        s.add("error_code.ret_code_said", code=f.ret_code)
    elif f.ret_code:
        text = tables.code_meaning(t, f.ret_code, s.lang, "retcode")
        s.add("error_code.ret_code", code=f.ret_code, meaning=s.say("error_code.colon", text=text) if text else "")
    s.findings += [words(s.lang, n) for n in f.notes if getattr(n, "msg_id", "").startswith("bits.")]
    table = tables.error_bits(f, s.lang, t)
    if not table.empty:
        s.tables.append((s.say("table.bits", where=place(s, f.device) + (
            s.say("table.serial", serial=f.serial) if f.serial is not None else "")), table))
    for r in f.refs:
        if _BITS_FOCUS.search(r.text):
            s.cite(cited(r.file, r.line, r.text, _BITS_FOCUS))


def _pc_start(t: Triage, s: Step) -> None:
    faults = [f for f in t.evidence.aicore_faults[:3] if f.pc_start_raw is not None and f.current_raw is not None]
    if not t.evidence.aicore_faults:
        s.conclusion = s.say("pc.conclusion.no_fault")
        return
    if not faults:
        s.conclusion = s.say("pc.conclusion.no_registers")
        return
    head = faults[0]
    s.conclusion = s.say(f"pc.conclusion.{head.pc.verdict if head.pc else 'unknown'}",
                         offset=hexs(offset(head.pc_start_raw, head.current_raw)))
    for f in faults:
        label = place(s, f.device) + (s.say("table.serial", serial=f.serial) if f.serial is not None else "")
        s.add("pc.values", where=label, cores=len(f.cores), pc=hexs(mask48(f.pc_start_raw)),
              logged=hexs(f.pc_start_raw), current=hexs(mask48(f.current_raw)),
              offset=hexs(offset(f.pc_start_raw, f.current_raw)),
              bin_size=hexs(f.bin_size) if f.bin_size else s.say("pc.not_logged"))
        if f.pc:
            s.add("pc.verdict" if f.pc.verdict != "unknown" else "pc.verdict.open",
                  verdict=name(s.lang, "pc_verdict", f.pc.verdict), code=f.pc.verdict, reason=words(s.lang, f.pc.reason))
            if f.pc.collect:
                s.add("pc.collect", what=words(s.lang, f.pc.collect))
        s.findings += [words(s.lang, n) for n in f.notes if not getattr(n, "msg_id", "").startswith("bits.")]
        s.findings += [f"  `{i}`" for i in f.instructions]
        s.tables.append((s.say("table.pc", where=label), tables.pc(f, s.lang)))
        s.figures.append(figure(s.say("figure.address_map", where=label), "address_map", f))
        s.cite(fault_cite(f))


def _topology(t: Triage, s: Step) -> None:
    topo = t.evidence.topology
    spmd = topo.single_process_multi_device
    fact = t.facts.get("single_process_multi_device")
    value = fact.value if fact is not None else spmd
    s.conclusion = s.say({True: "topology.conclusion.several", False: "topology.conclusion.single"}.get(
        value, "topology.conclusion.unknown"), processes=len(topo.processes))
    s.questions = [q for q in t.questions if q.fact == "single_process_multi_device"]
    quiet = []
    for p in topo.processes:
        parts = [s.say("topology.device_threads", device=d, threads=", ".join(sorted(ts)))
                 for d, ts in sorted(p.devices.items())]
        parts += [s.say("topology.physical_device_threads", device=d, threads=", ".join(sorted(ts)))
                  for d, ts in sorted(p.physical_devices.items())]
        parts += [s.say("topology.rank_on", rank=r, device=d) if d is not None else s.say("topology.rank", rank=r)
                  for r, d in sorted(p.ranks.items())]
        parts += [s.say("topology.device_path", device=d, path=path) for d, path in sorted(p.path_devices.items())]
        if not parts:   # a process the text shows without naming its device: counted below, in one line
            quiet.append(p)
            continue
        s.add("topology.process", pid=p.pid, node=s.say("topology.on", node=p.node) if p.node else "",
              parts=s.say("list.semi").join(parts))
        for r in p.refs[:4]:
            s.cite(cited(r.file, r.line, r.text, re.compile(r"device_?[iI]d[=:\s]*\d+|set device \d+|device\s*\[?\d+")))
    if quiet:
        s.add("topology.quiet", n=len(quiet), pids=s.say("list.sep").join(
            str(p.pid) + (s.say("topology.on", node=p.node) if p.node else "") for p in quiet))
    if spmd is None:
        s.add("topology.unknown")
    if fact is not None and fact.source == "engineer":
        s.add("topology.engineer", value=s.say("word.yes" if fact.value else "word.no"))
    _ranks(topo.ranks, s)
    pair = healthy_pair(t)   # a failing rank beside a healthy one: `casebook diff --ranks` is at hand
    if pair is not None:
        s.add("topology.compare_ranks", bad=pair[0], good=pair[1], path=" ".join(map(str, t.log.paths)))


def _ranks(view, s: Step) -> None:
    if not view.ranks and not view.links and not view.collectives and not view.detected:
        return
    if view.order:
        s.add("ranks.order", ranks=s.say("list.sep").join(
            s.say("ranks.at", rank=r.rank, time=r.first_error.time or s.say("time.unknown")) for r in view.order))
    for link in view.links:
        s.add("ranks.link" if link.rank is not None else "ranks.link_unranked", rank=link.rank,
              node=s.say("topology.on", node=link.node) if link.node else "", peer=link.peer,
              ip=f" ({link.peer_ip})" if link.peer_ip else "", status=link.status)
        s.cite(cited(link.file, link.line, link.text, link.status))
    if view.blamed:
        top = max(view.blamed.values())
        s.add("ranks.blamed", ranks=", ".join(str(r) for r, n in sorted(view.blamed.items()) if n == top), n=top)
    if view.missing:
        s.add("ranks.missing", ranks=", ".join(map(str, view.missing)))
    for d in view.detected:
        s.add("ranks.detected", server=d.server, device=d.device, peer_server=d.peer_server, peer_device=d.peer_device)
        s.cite(cited(d.file, d.line, d.text, "fails to connect to dstRank"))
    for kind, ranks in hypotheses.rank_pointers(view):
        if kind != "detected":   # said just above, with both ends
            s.add(f"ranks.{kind}", ranks=ranks)
    s.findings += [words(s.lang, n) for n in view.clock_skew]
    if view.ranks:
        s.tables.append((s.say("table.ranks"), tables.ranks(view, s.lang)))
    if view.collectives:
        s.tables.append((s.say("table.collectives"), tables.collectives(view, s.lang)))
