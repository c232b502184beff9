"""The triage JSON contract (design.md §5): build the object, and validate it against the shipped schema."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from ..evidence.items import AicoreFault, ErrorLine, RankView
from ..knowledge.addresses import hexs, mask48, msaicerr_offset, offset
from ..knowledge.errcode import meaning
from ..reading.entries import printable
from ..reading.table import LogTable
from .families import FamilyVerdict
from .ranking import Hypothesis
from .triage import Triage

SCHEMA_VERSION = 1


@lru_cache(maxsize=1)
def schema() -> dict:
    """The JSON Schema of `casebook triage --json`."""
    return json.loads(resources.files("casebook.knowledge").joinpath("data/triage.schema.json").read_text(encoding="utf-8"))


def validate(doc: dict) -> None:
    """Raise jsonschema.ValidationError if the object breaks the contract."""
    import jsonschema
    jsonschema.validate(doc, schema())


def _error(e: ErrorLine | None) -> dict | None:
    if e is None:
        return None
    return {"file": e.file, "line": e.line, "time": e.time, "pid": e.pid, "device": e.device, "code": e.code,
            "text": e.text, "src_file": e.src_file, "src_line": e.src_line}


def _quoted(log: LogTable, file: str | None, line: int | None) -> dict:
    """The original file and line a cited line of a capture quotes (both null when it quotes none)."""
    src = log.quoted_line(file, line) if file is not None and line is not None else None
    return {"src_file": src[0] if src else None, "src_line": src[1] if src else None}


def _fault(f: AicoreFault) -> dict:
    has_pc = f.pc_start_raw is not None and f.current_raw is not None
    return {
        "file": f.file, "line": f.line, "src_file": f.src_file, "src_line": f.src_line, "time": f.time,
        "device": f.device, "serial": f.serial, "cores": f.cores,
        "kernel": f.kernel, "op": f.op, "wording": f.wording,
        "pc_start": hexs(mask48(f.pc_start_raw)) if f.pc_start_raw is not None else None,
        "pc_start_raw": hexs(f.pc_start_raw),
        "current": hexs(mask48(f.current_raw)) if f.current_raw is not None else None,
        "current_raw": hexs(f.current_raw),
        "offset": hexs(offset(f.pc_start_raw, f.current_raw)) if has_pc else None,
        "bin_size": hexs(f.bin_size),
        "error_code": hexs(f.error_code),
        "errcode": [hexs(x) for x in f.errcode] if f.errcode else None,
        "error_bits": f.error_bits, "error_str": f.error_str, "ret_code": f.ret_code,
        "pc_verdict": f.pc.verdict if f.pc else "unknown",
        "pc_reason": f.pc.reason if f.pc else "",
        "pc_collect": f.pc.collect if f.pc else None,
        "evidence": [{"file": r.file, "line": r.line, "src_file": r.src_file, "src_line": r.src_line, "text": r.text}
                     for r in f.refs],
        "family": f.family, "stream_id": f.stream_id, "task_id": f.task_id,
        "pc_start_first": hexs(f.pc_start_first_raw),
        "offset_msaicerr": hexs(msaicerr_offset(f.pc_start_raw, f.current_raw)) if has_pc else None,
        "offset_agrees": (msaicerr_offset(f.pc_start_raw, f.current_raw) == offset(f.pc_start_raw, f.current_raw))
        if has_pc else None,
        "error_bit_list": f.error_bit_list, "error_meanings": {b: meaning(b) for b in f.error_bits},
        "pc_peers": [{"pc_start": hexs(pc), "where": where} for pc, where in f.pc_peers],
        "notes": f.notes, "instructions": f.instructions,
    }


def _ranks(v: RankView) -> dict:
    return {
        "rank_num": v.rank_num,
        "ranks": [{"rank": r.rank, "node": r.node, "pid": r.pid, "device": r.device, "ip": r.ip,
                   "first_error": _error(r.first_error)} for r in v.ranks],
        "order": [r.rank for r in v.order],
        "links": [{"node": x.node, "pid": x.pid, "rank": x.rank, "peer": x.peer, "peer_ip": x.peer_ip,
                   "status": x.status, "role": x.role, "file": x.file, "line": x.line, "time": x.time}
                  for x in v.links],
        "blamed": {str(k): n for k, n in sorted(v.blamed.items())},
        "missing": v.missing, "clock_skew": v.clock_skew,
        "collectives": [{"process": f.process, "node": f.node, "group": f.group, "kind": f.kind, "index": f.index,
                         "count": f.count, "dtype": f.dtype, "rank": f.rank, "file": f.file, "line": f.line,
                         "time": f.time} for f in v.collectives],
        "behind": v.behind, "waits": {str(k): p for k, p in v.waits.items()}, "wait_ends": v.wait_ends,
        "wait_loop": v.wait_loop,
        "detected": [{"server": d.server, "device": d.device, "peer_server": d.peer_server,
                      "peer_device": d.peer_device, "file": d.file, "line": d.line, "time": d.time}
                     for d in v.detected],
    }


def _hypothesis(h: Hypothesis, log: LogTable) -> dict:
    return {
        "case": h.case.id, "title": h.case.title, "verdict": h.verdict, "score": h.score,
        "for": [{"id": i.id, "text": i.text, "file": i.file, "line": i.line, **_quoted(log, i.file, i.line),
                 "why": i.why} for i in h.for_],
        "against": [{"id": i.id, "text": i.text, "file": i.file, "line": i.line, **_quoted(log, i.file, i.line),
                     "why": i.why} for i in h.against],
        "family": h.case.family or None,
        "missing": [{"fact": m.fact, "ask": m.ask, "required": m.required} for m in h.missing],
        "fix": h.case.fix,
    }


def to_dict(t: Triage, similar: list[dict] | tuple = ()) -> dict:
    """The triage result as the contract's JSON object; `similar` holds the case memory's matches (their
    as_dict()), which the memory stage, above this one, looks up."""
    log, ev = t.log, t.evidence
    explained, unexplained = t.coverage()
    return {
        "schema": SCHEMA_VERSION,
        "input": {
            "paths": [printable(p) for p in log.paths], "file_count": len(log.files), "bytes": log.bytes,
            "lines": log.lines, "lines_unparsed": log.lines_unparsed,
            "files": [{"path": f.path, "role": f.role, "node": f.node, "rank": f.rank, "device": f.device,
                       "pid": f.pid, "lines": f.lines, "unparsed": f.unparsed, "first_time": f.first_time,
                       "last_time": f.last_time, "skipped": f.skipped, "warnings": f.warnings} for f in log.files],
            "sources": [{"path": q.path, "captured_in": q.captured_in, "role": q.role, "node": q.node, "rank": q.rank,
                         "device": q.device, "pid": q.pid, "first_time": q.first_time, "last_time": q.last_time}
                        for q in log.sources],
        },
        "first_error": _error(ev.first_error),
        "first_errors": [_error(e) for e in ev.first_errors],
        "aicore_faults": [_fault(f) for f in ev.aicore_faults],
        "topology": {
            "processes": [{"node": p.node, "pid": p.pid, "devices": sorted(p.devices),
                           "threads": {str(d): sorted(ts) for d, ts in sorted(p.devices.items())},
                           "ranks": {str(r): d for r, d in sorted(p.ranks.items())},
                           "path_devices": sorted(p.path_devices)}
                          for p in ev.topology.processes],
            "single_process_multi_device": ev.topology.single_process_multi_device,
            "ranks": _ranks(ev.topology.ranks),
        },
        "incidents": [{"node": i.node, "rank": i.rank, "device": i.device, "pid": i.pid, "first": _error(i.first),
                       "cascade": i.cascade, "last_time": i.last_time, "kind": i.kind, "role": i.role,
                       "because": i.because, "roles": i.roles} for i in ev.incidents],
        "facts": {name: {"value": f.value, "source": f.source, "file": f.file, "line": f.line,
                         **_quoted(log, f.file, f.line), "note": f.note} for name, f in sorted(t.facts.items())},
        "coverage": {"error_lines": ev.error_lines, "explained": len(explained)},
        "unexplained": [{"template": u.template, "count": u.count, "file": u.file, "line": u.line, "time": u.time,
                         "text": u.text} for u in unexplained],
        "candidates": [_hypothesis(h, log) for h in t.candidates],
        "diagnosis": t.diagnosis.case.id if t.diagnosis else None,
        "family": _family(t.family),
        "similar": list(similar),
    }


def _family(v: FamilyVerdict | None) -> dict | None:
    if v is None:
        return None
    q = v.next_question
    return {"id": v.family.id, "title": v.family.title, "verdict": v.verdict, "open_causes": v.open_causes,
            "next_question": {"fact": q.fact, "ask": q.ask} if q else None,
            "most_often": dict(zip(("case", "n", "of"), v.most_often)) if v.most_often else None}
