"""A good run beside a bad one: versions, settings, topology, where the message flow first parts, timing.

Two bundles ("it worked last week"), or two ranks of one bundle ("rank 3 died, the others are fine"). Each
difference is cited to its line on both sides where the logs show it. The facts come from the triage of each
run (evidence/versions.py, environment.py, attachments.py, topology.py, ranks.py); the message flow, the
settings any line shows and the step times come from one pass over every line of both runs (flow.py).
"""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from ..evidence.items import Evidence, Fact
from ..reading import attachments
from ..reading.bundle import ROLE_ENVIRONMENT
from ..reading.table import LogTable
from . import flow as flows
from .flow import Departure, Flow, Line, Stream
from .triage import Triage

VERSION, SETTING, TOPOLOGY = "version", "setting", "topology"
#: Templates listed of those only one run printed (the rest are counted).
LISTED = 20


@dataclass(frozen=True)
class Change:
    """One thing the two runs show differently; None where a run does not show it."""

    topic: str                #: version, setting or topology
    name: str                 #: `cann_version`, `HCCL_CONNECT_TIMEOUT`, `devices`
    good: str | None
    bad: str | None
    good_at: Line | None = None   #: the line the good run shows it on
    bad_at: Line | None = None


@dataclass(frozen=True)
class OneSided:
    """A template only one run printed: how often, and its first line."""

    template: str
    count: int
    at: Line


@dataclass(frozen=True)
class Steps:
    """The step or iteration times one run shows."""

    count: int
    median_s: float
    first: Line               #: the first line showing one


@dataclass(frozen=True)
class Run:
    """A run as the comparison reads it: its log table and evidence. A Triage has both; the command line reads a
    Run alone (readings.read_case), with no knowledge base loaded and nothing ranked."""

    log: LogTable
    evidence: Evidence


@dataclass
class Comparison:
    """Everything the good and the bad run show differently, each item cited on both sides."""

    good: str                 #: what was compared: the paths, or `rank 0`
    bad: str
    changes: list[Change] = field(default_factory=list)
    departures: list[Departure] = field(default_factory=list)   #: one per stream pair that parts, earliest first
    new: list[OneSided] = field(default_factory=list)    #: templates only the bad run printed, most frequent first
    gone: list[OneSided] = field(default_factory=list)   #: templates only the good run printed, most frequent first
    new_count: int = 0        #: all templates only the bad run printed (`new` lists the first LISTED)
    gone_count: int = 0
    unpaired: list[tuple[str, str]] = field(default_factory=list)   #: (good|bad, stream) with no counterpart
    good_steps: Steps | None = None
    bad_steps: Steps | None = None
    streams: int = 0          #: stream pairs compared
    lines: tuple[int, int] = (0, 0)   #: lines read of each run

    @property
    def first(self) -> Departure | None:
        """The first departure of all, or None."""
        return self.departures[0] if self.departures else None

    @property
    def same(self) -> bool:
        """The runs show no difference: facts, topology, streams and every template alike."""
        return not (self.changes or self.departures or self.new_count or self.gone_count or self.unpaired
                    or self.good_steps != self.bad_steps)

    def of(self, topic: str) -> list[Change]:
        """The changes of one topic."""
        return [c for c in self.changes if c.topic == topic]


def compare(good: Triage | Run, bad: Triage | Run, good_label: str | None = None,
            bad_label: str | None = None) -> Comparison:
    """The bad run beside the good one, two bundles."""
    vocabulary = flows.Vocabulary()
    gf = flows.read(good.log, good.evidence, vocabulary)
    bf = flows.read(bad.log, bad.evidence, vocabulary)
    out = Comparison(good=good_label or ", ".join(good.log.paths), bad=bad_label or ", ".join(bad.log.paths))
    out.changes = _changes(gf, good.evidence.facts, bf, bad.evidence.facts, None, None) + _topology(gf, good, bf, bad)
    _flow(out, gf, gf.streams, bf, bf.streams, vocabulary)
    return out


def ranks_in(t: Triage | Run) -> list[int]:
    """The ranks a bundle shows: named by its paths or by each process's own HCCL init line."""
    named = {f.rank for f in t.log.files if f.rank is not None}
    return sorted(named | {r.rank for r in t.evidence.topology.ranks.ranks})


def default_ranks(t: Triage | Run) -> tuple[int, int] | None:
    """The pair to compare first: the rank that failed first, and the lowest rank that shows no error (else the
    lowest other rank); None with fewer than two ranks."""
    known = ranks_in(t)
    if len(known) < 2:
        return None
    view = t.evidence.topology.ranks
    failed = [r.rank for r in view.order]
    bad = failed[0] if failed else known[-1]
    healthy = [r for r in known if r != bad and r not in failed]
    return bad, (healthy or [r for r in known if r != bad])[0]


def healthy_pair(t: Triage | Run) -> tuple[int, int] | None:
    """The rank that failed first and the lowest rank that shows no error, when the bundle has both: the pair a
    comparison of ranks is worth offering for; else None."""
    failed = [r.rank for r in t.evidence.topology.ranks.order]
    healthy = [r for r in ranks_in(t) if r not in failed]
    return (failed[0], healthy[0]) if failed and healthy else None


def compare_ranks(t: Triage | Run, bad_rank: int, good_rank: int) -> Comparison:
    """A failing rank beside a healthy one of the same bundle."""
    known = ranks_in(t)
    for r in (bad_rank, good_rank):
        if r not in known:
            shown = ", ".join(map(str, known)) if known else "none"
            raise ValueError(f"rank {r}: not in the bundle (ranks it shows: {shown})")
    vocabulary = flows.Vocabulary()
    f = flows.read(t.log, t.evidence, vocabulary)

    def of(rank: int) -> dict[tuple, Stream]:   # the rank's streams, keyed by what they are, not whose
        return {("rank" if s.key[0] == f"rank {rank}" else s.key[0], *s.key[1:]): s
                for s in f.streams.values() if s.rank == rank}

    g, b = of(good_rank), of(bad_rank)
    gfiles = {x.path for s in g.values() for x in s.files}
    bfiles = {x.path for s in b.values() for x in s.files}
    out = Comparison(good=f"rank {good_rank}", bad=f"rank {bad_rank}")
    facts = t.evidence.facts
    out.changes = _changes(f, facts, f, facts, gfiles, bfiles)
    _flow(out, f, g, f, b, vocabulary)
    return out


def _cite(flow: Flow, file: str | None, line: int | None) -> Line | None:
    if file is None or line is None:
        return None
    try:
        return flow.line(file, int(line))
    except (KeyError, ValueError, OSError):   # a fact from a file the flow cannot read back (a quoted source)
        return Line(file, int(line), "")


def _mine(facts: dict[str, Fact], files: set[str] | None) -> dict[str, Fact]:
    return {n: f for n, f in facts.items() if files is None or f.file in files}


def _shown(flow: Flow, facts: dict[str, Fact], files: set[str] | None) -> dict[str, tuple[str, str, int]]:
    """name -> (value, file, line) of every version and setting a run shows: the triage's facts, then what its
    attachments state (every variable of an env dump, every package of a pip list, CANN's version.info),
    then the first value any of its lines shows."""
    out = {n: (str(f.value), f.file, f.line) for n, f in _mine(facts, files).items()
           if (n.isupper() or n.endswith("_version")) and f.value is not None and f.file is not None}
    for f in flow.log.files:
        if f.role == ROLE_ENVIRONMENT and f.attachment and not f.skipped and (files is None or f.path in files):
            rows = flow.log.records[flow.log.records["file"] == f.path]
            for name, value, line in attachments.settings(f.attachment, zip(rows["line"], rows["msg"])):
                out.setdefault(name, (value, f.path, int(line)))
            if f.attachment == attachments.PIP:   # every package a pip list names, not only the torch ones
                for package, value, line in attachments.packages(zip(rows["line"], rows["msg"])):
                    out.setdefault(package.replace("-", "_") + "_version", (value, f.path, int(line)))
    for path, found in flow.settings.items():
        if files is None or path in files:
            for name, (value, line) in found.items():
                out.setdefault(name, (value, path, line))
    return out


def _changes(gf: Flow, good: dict[str, Fact], bf: Flow, bad: dict[str, Fact], gfiles, bfiles) -> list[Change]:
    """Versions (every `*_version`: CANN, driver, firmware, torch_npu, torch, NumPy, Python, the chip), then
    environment variables and launch options: whose value differs, or that one run shows and the
    other does not."""
    g, b = _shown(gf, good, gfiles), _shown(bf, bad, bfiles)
    out = []
    for name in sorted(set(g) | set(b), key=lambda n: (not n.endswith("_version"), n)):
        gv, bv = g.get(name), b.get(name)
        if (gv and gv[0]) != (bv and bv[0]):
            out.append(Change(VERSION if name.endswith("_version") else SETTING, name, gv and gv[0], bv and bv[0],
                              _cite(gf, *gv[1:]) if gv else None, _cite(bf, *bv[1:]) if bv else None))
    return out


def _topology(gf: Flow, good: Triage | Run, bf: Flow, bad: Triage | Run) -> list[Change]:
    """Nodes, processes, devices, threads, ranks and world size, as each run's lines prove them."""
    def shape(flow: Flow, t: Triage | Run) -> dict[str, tuple[str, Line | None]]:
        topo, view = t.evidence.topology, t.evidence.topology.ranks
        ref = next((p.refs[0] for p in topo.processes if p.refs), None)
        at = _cite(flow, ref.file, ref.line) if ref else None
        rank_ref = next((r.ref for r in view.ranks if r.ref), None)
        rank_at = _cite(flow, rank_ref.file, rank_ref.line) if rank_ref else None
        devices = sorted({d for p in topo.processes for d in (p.devices or p.physical_devices)})
        threads = sum(len(ts) for p in topo.processes for ts in p.devices.values())
        nodes = {f.node for f in t.log.files if f.node}
        return {"nodes": (str(len(nodes) or 1), None), "processes": (str(len(topo.processes)), at),
                "devices": (",".join(map(str, devices)), at), "threads": (str(threads), at),
                "ranks": (",".join(map(str, ranks_in(t))), rank_at),
                "world_size": (str(view.rank_num) if view.rank_num is not None else "", rank_at)}

    g, b = shape(gf, good), shape(bf, bad)
    return [Change(TOPOLOGY, name, g[name][0] or None, b[name][0] or None, g[name][1], b[name][1])
            for name in g if g[name][0] != b[name][0]]


def _one_sided(flow: Flow, streams: dict[tuple, Stream], ids: np.ndarray, texts: list[str]) -> list[OneSided]:
    """The templates `ids` of a run, most frequent first, each with its count and first line."""
    if not len(ids):
        return []
    wanted = set(ids.tolist())
    first: dict[int, tuple[str, int]] = {}
    counts: dict[int, int] = {}
    for s in streams.values():
        mask = np.isin(s.ids, ids)
        if not mask.any():
            continue
        seen, at, n = np.unique(s.ids[mask], return_index=True, return_counts=True)
        positions = np.flatnonzero(mask)
        for t, i, c in zip(seen.tolist(), at.tolist(), n.tolist()):
            counts[t] = counts.get(t, 0) + c
            first.setdefault(t, s.where(int(positions[i])))
    order = sorted(wanted, key=lambda t: (-counts.get(t, 0), first.get(t, ("", 0))))
    return [OneSided(texts[t], counts[t], flow.line(*first[t])) for t in order[:LISTED] if t in first]


def _steps(flow: Flow, streams: dict[tuple, Stream]) -> Steps | None:
    files = [f.path for s in streams.values() for f in s.files]
    found = [(path, line, v) for path in files for line, v in flow.steps.get(path, [])]
    if not found:
        return None
    return Steps(len(found), round(statistics.median(v for _, _, v in found), 4), flow.line(found[0][0], found[0][1]))


def _flow(out: Comparison, gf: Flow, g: dict[tuple, Stream], bf: Flow, b: dict[tuple, Stream],
          vocabulary: flows.Vocabulary) -> None:
    """The message flow and timing parts of the comparison."""
    texts = vocabulary.texts()
    pairs = [(g[k], b[k]) for k in b if k in g]
    # of the streams left, one of a kind on each side pair up: a capture named otherwise (`<stdin>`, a log
    # named by its date), a folder laid out otherwise
    left_g, left_b = [k for k in g if k not in b], [k for k in b if k not in g]
    for kind in {k[1:] for k in left_g}:
        gk, bk = [k for k in left_g if k[1:] == kind], [k for k in left_b if k[1:] == kind]
        if len(gk) == len(bk) == 1:
            pairs.append((g[gk[0]], b[bk[0]]))
            left_g.remove(gk[0])
            left_b.remove(bk[0])
    out.streams = len(pairs)
    out.unpaired = [("good", g[k].label) for k in left_g] + [("bad", b[k].label) for k in left_b]
    found = [d for gs, bs in pairs if (d := flows.depart(gf, gs, bf, bs, texts)) is not None]
    out.departures = sorted(found, key=lambda d: (d.bad_after_s is None, d.bad_after_s or 0.0, d.position, d.stream))
    gids = np.unique(np.concatenate([s.ids for s in g.values()] or [np.zeros(0, np.int32)]))
    bids = np.unique(np.concatenate([s.ids for s in b.values()] or [np.zeros(0, np.int32)]))
    new, gone = np.setdiff1d(bids, gids), np.setdiff1d(gids, bids)
    out.new_count, out.gone_count = len(new), len(gone)
    out.new, out.gone = _one_sided(bf, b, new, texts), _one_sided(gf, g, gone, texts)
    out.good_steps, out.bad_steps = _steps(gf, g), _steps(bf, b)
    out.lines = (sum(len(s.ids) for s in g.values()), sum(len(s.ids) for s in b.values()))


SCHEMA_VERSION = 1


def schema() -> dict:
    """The JSON Schema of `casebook diff --json`."""
    return json.loads(resources.files("casebook.knowledge").joinpath("data/diff.schema.json")
                      .read_text(encoding="utf-8"))


def validate(doc: dict) -> None:
    """Raise jsonschema.ValidationError if the object breaks the contract."""
    import jsonschema
    jsonschema.validate(doc, schema())


def _line(x: Line | None) -> dict | None:
    return None if x is None else {"file": x.file, "line": x.line, "text": x.text, "time": x.time}


def _one_sided_dict(listed: list[OneSided], count: int) -> dict:
    return {"count": count, "listed": [{"template": t.template, "count": t.count, "at": _line(t.at)} for t in listed]}


def _steps_dict(s: Steps | None) -> dict | None:
    return None if s is None else {"count": s.count, "median_s": s.median_s, "first": _line(s.first)}


def to_dict(c: Comparison) -> dict:
    """The comparison as the contract's JSON object."""
    d = c.first
    return {
        "schema": SCHEMA_VERSION, "good": c.good, "bad": c.bad, "same": c.same,
        "changes": [{"topic": x.topic, "name": x.name, "good": x.good, "bad": x.bad, "good_at": _line(x.good_at),
                     "bad_at": _line(x.bad_at)} for x in c.changes],
        "flow": {
            "streams": c.streams, "lines": {"good": c.lines[0], "bad": c.lines[1]},
            "unpaired": [{"side": side, "stream": s} for side, s in c.unpaired],
            "departures": [{"stream": x.stream, "kind": x.kind, "template": x.template, "good": _line(x.good),
                            "bad": _line(x.bad), "common_good": _line(x.common_good),
                            "common_bad": _line(x.common_bad), "good_after_s": x.good_after_s,
                            "bad_after_s": x.bad_after_s} for x in c.departures],
            "new": _one_sided_dict(c.new, c.new_count), "gone": _one_sided_dict(c.gone, c.gone_count),
        },
        "timing": {"good": _steps_dict(c.good_steps), "bad": _steps_dict(c.bad_steps),
                   "first_departure": None if d is None else {"good_after_s": d.good_after_s,
                                                              "bad_after_s": d.bad_after_s}},
    }
