"""The message flow of a run: every line of every file reduced to a template, per process, and where two runs part.

A template is the line with its variable parts masked: every run of digits with what follows it in a number,
a time, an address or a version (`2026-05-04-09:00:00.123`, `0x1f80`, `10.0.0.1`, `8.0.RC3`), and long hex
hashes (`kernel_name=MatMul_5f3a9c…`). The mask is cruder than the unexplained-error miner's (unexplained.py,
a parse tree over the error lines alone, line by line): it runs over every line of both bundles, INFO lines included,
as one substitution over each file's bytes, about 3 µs a line. A code inside a word is masked with the rest
(`EZ9999` is `EZ<*>`): the flow compares the shapes of lines, the facts and the error lines compare the values.

Files are grouped into streams, one per process and log folder, keyed so that the streams of two runs pair up
although their pids differ: by rank where the bundle names it, else by device, else by the process's place
among its node's processes in pid order. A stream's files are joined in the order they were rotated.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..evidence.items import Evidence
from ..reading.bundle import ROLE_DEVICE_LOG, ROLE_HOST_PLOG, LogFile
from ..reading.encoding import as_read, split_lines
from ..reading.entries import MEMBER_SEP
from ..reading.fields import seconds
from ..reading.plog import plog_time_of
from ..reading.table import LogTable
from ..reading.rotation import order_key

#: Every digit made a 0 first (bytes.translate runs at memory speed), so that the mask starts at a literal 0, which
#: the regex engine finds by a fast search instead of trying a class of characters at every byte.
_DIGITS = bytes.maketrans(b"123456789", b"000000000")
MASK = re.compile(rb"0[0-9a-fA-FxX.:-]*")
#: What a masked part shows as in a template.
HOLE = b"<*>"
#: A hash that starts with a letter (`_f3a9…`) leaves its first letters before the hole; they go with it.
_LEADING_HEX = re.compile(rb"(?<![A-Za-z0-9])[a-f]{1,15}<\*>")
#: A template keeps this many bytes of its line: a longer line is a dump, and its head says what it is.
TEMPLATE_BYTES = 400


@dataclass(frozen=True)
class Line:
    """One line of a run, cited: where it is, what it says, when."""

    file: str
    line: int
    text: str
    time: str | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


class Vocabulary(dict):
    """Masked line -> template id, shared by the two runs compared. A masked line seen for the first time is
    brought to its template (a hash's leading letters dropped) here, once; `marked[id]` says whether the
    template names a setting or a step time."""

    def __init__(self) -> None:
        super().__init__()
        self.templates: dict[bytes, int] = {}
        self.marked: list[bool] = []

    def __missing__(self, masked: bytes) -> int:
        template = _LEADING_HEX.sub(HOLE, masked[:TEMPLATE_BYTES])
        i = self.templates.get(template)
        if i is None:
            i = self.templates[template] = len(self.templates)
            self.marked.append(bool(_WORDS.search(template)))
        self[masked] = i
        return i

    def texts(self) -> list[str]:
        """Template texts by id."""
        return [k.decode("utf-8", errors="replace") for k in self.templates]


def mask(data: bytes) -> bytes:
    """Text with its variable parts masked (each line keeps its place)."""
    return MASK.sub(HOLE, data.translate(_DIGITS))


@dataclass
class Stream:
    """The files one process (or one device, one capture) wrote into one log folder, read as one sequence of
    template ids."""

    key: tuple                 #: what pairs it with a stream of the other run
    label: str                 #: the key in words: `rank 3, host plog (debug)`
    files: list[LogFile] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)   #: index of each file's first line in `ids`
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    rank: int | None = None

    def where(self, i: int) -> tuple[str, int]:
        """The file and line (1-based) of position `i`."""
        k = int(np.searchsorted(self.starts, i, side="right")) - 1
        return self.files[k].path, i - self.starts[k] + 1


@dataclass
class Flow:
    """One run's streams, their template ids drawn from a vocabulary shared with the run it is compared with."""

    log: LogTable
    streams: dict[tuple, Stream]
    vocabulary: Vocabulary
    #: path -> setting name (or `python_version`) -> (value, line): the first value each file shows
    settings: dict[str, dict[str, tuple[str, int]]] = field(default_factory=dict)
    #: path -> (line, seconds) of each step or iteration time the file shows
    steps: dict[str, list[tuple[int, float]]] = field(default_factory=dict)

    def line(self, file: str, line: int) -> Line:
        """A cited line of the run, its text read back from the file."""
        raw = self.log.raw_line(file, line)
        text = raw.decode("utf-8", errors="replace")
        return Line(file, line, text, plog_time_of(text))

    def start(self, stream: Stream) -> str | None:
        """The first time the stream's files show."""
        times = [f.first_time for f in stream.files if f.first_time]
        return min(times) if times else None


def _masked_path(path: str) -> str:
    """A path with its numbers masked, and without the archive it came in (`good.tar.gz!/`): the same file of
    two runs, one given as a folder and one as an archive, pairs up."""
    inner = path.split(MEMBER_SEP, 1)[-1]
    return mask(inner.encode("utf-8", errors="replace")).decode("utf-8", errors="replace")


def keys(log: LogTable, evidence: Evidence) -> dict[str, tuple[tuple, str, int | None]]:
    """path -> (stream key, label, rank) of every file read."""
    rank_of = {(r.node, r.pid): r.rank for r in evidence.topology.ranks.ranks if r.pid is not None}
    # nodes pair by their place in name order (two runs' host names differ); a label names the node
    nodes = sorted({f.node for f in log.files if f.node})
    pids: dict[str, list[int]] = {}
    for f in log.files:
        if f.pid is not None:
            pids.setdefault(f.node or "", []).append(f.pid)
    order = {node: sorted(set(p)) for node, p in pids.items()}
    out = {}
    for f in log.files:
        if f.skipped:
            continue
        rank = f.rank if f.rank is not None else rank_of.get((f.node, f.pid))
        # the key holds the node's place, the label its name
        at = f"node {nodes.index(f.node) + 1}, " if f.node and len(nodes) > 1 else ""
        named = f"{f.node}, " if f.node and len(nodes) > 1 else ""
        if f.role in (ROLE_HOST_PLOG, ROLE_DEVICE_LOG) and rank is not None:
            who = f"rank {rank}"
        elif f.role in (ROLE_HOST_PLOG, ROLE_DEVICE_LOG) and f.pid is not None:
            who = f"process {order[f.node or ''].index(f.pid) + 1}"
        elif f.role == ROLE_DEVICE_LOG and f.device is not None:
            who = f"device {f.device}"
        else:   # a capture, a dump, a device's OS log: its path, numbers masked, says which it is
            who = _masked_path(f.path) + (f" (device {f.device})" if f.device is not None else "")
        if who.startswith("rank "):
            at = named = ""   # a rank is one in the whole job
        kind = f.role.replace("_", " ") + (f" ({f.sort})" if f.sort else "")
        out[f.path] = ((at + who, f.role, f.sort or ""), f"{named}{who}, {kind}", rank)
    return out


def read(log: LogTable, evidence: Evidence, vocabulary: Vocabulary) -> Flow:
    """Every line of the run's files as template ids, per stream; new templates are added to `vocabulary`."""
    known = keys(log, evidence)
    streams: dict[tuple, Stream] = {}
    parts: dict[tuple, list[np.ndarray]] = {}
    flow_settings: dict[str, dict[str, tuple[str, int]]] = {}
    flow_steps: dict[str, list[tuple[int, float]]] = {}
    for f in sorted((f for f in log.files if f.path in known), key=order_key):
        key, label, rank = known[f.path]
        s = streams.setdefault(key, Stream(key, label, rank=rank))
        ids, settings, steps = _scan(f, vocabulary)
        if settings:
            flow_settings[f.path] = settings
        if steps:
            flow_steps[f.path] = steps
        s.starts.append(sum(len(a) for a in parts.get(key, [])))
        s.files.append(f)
        parts.setdefault(key, []).append(ids)
    for key, arrays in parts.items():
        streams[key].ids = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int32)
    return Flow(log, streams, vocabulary, flow_settings, flow_steps)


def _scan(f: LogFile, vocabulary: Vocabulary) -> tuple[np.ndarray, dict, list]:
    """The template id of each line of one file, in order (its lines numbered as the reader numbers them), the
    settings it shows and its step times: only the lines of templates that name one are read for values."""
    try:
        with open(f.source, "rb") as fh:
            data = as_read(fh.read())
    except OSError:   # gone since it was read: the flow has no lines of it, the counts say so
        return np.zeros(0, dtype=np.int32), {}, []
    ids = np.asarray([vocabulary[k] for k in split_lines(mask(data))], dtype=np.int32)
    wanted = [i for i, m in enumerate(vocabulary.marked) if m]
    rows = np.flatnonzero(np.isin(ids, wanted)) if wanted else ()
    settings: dict[str, tuple[str, int]] = {}
    steps = []
    if len(rows):
        raw = split_lines(data)
        for i in rows.tolist():
            for m in SETTING.finditer(raw[i]):
                name = (m["name"] or m["option"]).decode("ascii")
                settings.setdefault(name, (m["value"].decode("utf-8", errors="replace"), i + 1))
            for m in PYTHON.finditer(raw[i]):
                settings.setdefault("python_version", ((m["v"] or m["banner"]).decode("ascii"), i + 1))
            for m in STEP.finditer(raw[i]):
                value = float(m["v"])
                steps.append((i + 1, value / 1000 if m["unit"] == b"ms" or m["ms"] else value))
    return ids, settings, steps


#: Settings the flow reads from every line, whatever its level: environment variables of the runtime, HCCL,
#: torch_npu and the launcher, and the launcher's options.
_NAMES = (rb"(?:HCCL|ASCEND|PYTORCH_NPU|TASK_QUEUE|PER_STREAM|MASTER|RANK_TABLE)_[A-Z0-9_]*[A-Z0-9]|WORLD_SIZE"
          rb"|RANK_SIZE")
_OPTIONS = rb"--(?:nproc_per_node|nnodes|node_rank|master_port|master_addr)"
SETTING = re.compile(rb"(?<![\w-])(?:export\s+)?(?:(?P<name>" + _NAMES + rb")\s*(?:=|:|\bis\b)|(?P<option>"
                     + _OPTIONS + rb")[= ])\s*['\"]?(?P<value>[^\s,;\]\)'\"]+)")
#: Step and iteration times as training scripts print them: `step_time 3.02s`, `time per step: 1.2`,
#: Megatron's `elapsed time per iteration (ms): 350.2`.
STEP = re.compile(rb"(?:step[_ ]time|time per (?:step|iteration))(?P<ms> \(ms\))?\s*[:=]?\s*(?P<v>\d+(?:\.\d+)?)"
                  rb"\s*(?P<unit>ms|s)?(?![\w.])", re.I)
#: The Python a job ran: the interpreter's banner, or the site-packages of the paths in a traceback.
PYTHON = re.compile(rb"\bpython(?P<v>\d\.\d+)/(?:site|dist)-packages|\bPython (?P<banner>\d\.\d+\.\d+)\b")
#: What a template holding a setting, the Python version or a step time contains (values masked, names not).
_WORDS = re.compile(rb"(?<![\w-])(?:" + _NAMES + rb"|" + _OPTIONS + rb")|step[_ ]time|time per (?:step|iteration)"
                    rb"|python<\*>/(?:site|dist)-packages|\bPython <\*>", re.I)


@dataclass(frozen=True)
class Departure:
    """Where the bad run's stream first parts from the good run's: what each printed at that point, and the last
    line they had in common before it."""

    stream: str              #: the bad run's stream, in words
    kind: str                #: `new`: the bad run printed a template the good run never printed;
                             #: `missing`: the good run printed one here that the bad run never printed
    template: str            #: the template the runs part on
    good: Line | None        #: what the good run printed at that point (None: its stream had ended)
    bad: Line | None         #: what the bad run printed there (None: its stream had ended)
    common_good: Line | None = None   #: the last line both printed before it, in the good run
    common_bad: Line | None = None    #: and in the bad run
    good_after_s: float | None = None   #: seconds from the good stream's first time to `good`
    bad_after_s: float | None = None    #: seconds from the bad stream's first time to `bad`
    position: int = 0        #: the bad stream's lines before the point (ranks departures of several streams)


def _after(start: str | None, line: Line | None) -> float | None:
    a, b = seconds(start), seconds(line.time if line else None)
    return round(b - a, 3) if a is not None and b is not None else None


def _counterpart(src: np.ndarray, dst: np.ndarray, i: int) -> tuple[int | None, int]:
    """Of position `i` of `src` (where it parts), the position in `dst` of the last line both printed before it
    (the same template, as many times), and the position in `dst` just after that."""
    if i == 0:
        return None, 0
    t = src[i - 1]
    k = int(np.count_nonzero(src[:i] == t))
    hits = np.flatnonzero(dst == t)
    if len(hits) == 0:
        return None, 0
    j = int(hits[min(k, len(hits)) - 1])
    return j, j + 1


def depart(good: Flow, g: Stream, bad: Flow, b: Stream, texts: list[str]) -> Departure | None:
    """The first place the bad stream parts from the good one, or None when each prints only templates the other
    prints too."""
    gi, bi = g.ids, b.ids
    new = np.flatnonzero(~np.isin(bi, gi))
    gone = np.flatnonzero(~np.isin(gi, bi))
    if not len(new) and not len(gone):
        return None
    options = []
    if len(new):   # the bad run printed something the good run never did
        i = int(new[0])
        common, at = _counterpart(bi, gi, i)
        options.append((i, 0, "new", int(bi[i]), at, i, common, i - 1 if i else None))
    if len(gone):  # the good run printed something here the bad run never did
        j = int(gone[0])
        common, at = _counterpart(gi, bi, j)
        options.append((at, 1, "missing", int(gi[j]), j, at, j - 1 if j else None, common))
    position, _, kind, template, g_at, b_at, g_common, b_common = min(options)

    def cite(flow: Flow, s: Stream, i: int | None) -> Line | None:
        return flow.line(*s.where(i)) if i is not None and 0 <= i < len(s.ids) else None

    good_line, bad_line = cite(good, g, g_at), cite(bad, b, b_at)
    return Departure(stream=b.label, kind=kind, template=texts[template], good=good_line, bad=bad_line,
                     common_good=cite(good, g, g_common), common_bad=cite(bad, b, b_common),
                     good_after_s=_after(good.start(g), good_line), bad_after_s=_after(bad.start(b), bad_line),
                     position=position)
