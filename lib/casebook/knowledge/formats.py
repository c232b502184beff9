"""The format catalog: every message form an evidence family reads, one row each, as data (data/formats.tsv).

A row names its family and the part of the story the line tells (a fault report, a kernel name, a
set-device line, a link-table row, ...), the failure kind the cascade gives a line of that form, the
device-id space its `device` group is in, the module and level that log it, a literal the message must
hold, the regex (searched in the message after the slog header; its named groups are the values the family
takes), the values the regex takes from the example, the example itself, the CANN / torch_npu / HCCL
versions it comes from and its public source. The loader checks every row against its own example: a
catalog with a bad row does not load, and the error names the file and line of every bad row.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ..reading.grammar import number
from ..reading.scan import any_of
from . import cache
from .document import Problem
from .programs import Regex

PATH = "data/formats.tsv"
_DATA = Path(__file__).resolve().parent / "data"
#: A run of digits in a catalog regex (`\d+`) reads at most 18 digits, as ids and counts do everywhere in the
#: evidence (reading.grammar.MAX_DIGITS): a longer run is not a value and matches nothing.
_DIGITS = (r"\d+", r"\d{1,18}(?!\d)")
COLUMNS = ("family", "form", "part", "kind", "ids", "module", "level", "keep", "regex", "expect", "example",
           "versions", "source")

#: Family -> its parts: what a line of each part gives the family.
FAMILIES = {
    "aicore_fault": ("report", "outstanding", "extend", "extend_list", "extend_nonstars", "kernel", "launch",
                     "bin_size", "func_addr", "node", "analyzer"),
    "aicore_retcode": ("retcode", "code"),
    "aicpu_fault": ("report", "code"),
    "set_device": ("set", "rank", "failed"),
    "hccl_timeout": ("timeout", "peer", "code"),
    "hccl_link": ("row", "socket", "peer", "setup", "detect", "table", "code"),
    "task_exception": ("report", "code"),
    "device_heartbeat": ("report", "code"),
    "device_lost": ("report", "code"),
    "memory_alloc": ("report", "code"),
    "sdma": ("report", "code"),
    "ecc": ("report", "retcode", "hardware", "address", "code"),
    "device_event": ("ts_exception", "pcie", "history", "driver_exception"),
    "op_binary": ("report",),
    "tiling": ("report", "code"),
}
#: Failure kinds a row may give its lines in the cascade ("-": the line reports no failure of its own).
KINDS = ("aicore_exception", "aicpu_exception", "hwts_timeout", "heartbeat_lost", "device_lost", "sdma_error",
         "hardware_error", "out_of_memory", "hccl_timeout", "link_failure", "task_exception", "op_binary",
         "tiling_failure")
#: What a row's `device` group numbers: the id the job asked for, the driver's id after
#: ASCEND_RT_VISIBLE_DEVICES, or (-) what the line logs without saying which.
LOGICAL, PHYSICAL = "logical", "physical"
IDS = (LOGICAL, PHYSICAL, "-")
LEVELS = ("ERROR", "WARNING", "INFO", "EVENT", "DEBUG", "TRACE", "-")
#: Named groups a regex may use, so that every family reads the same name the same way.
GROUPS = ("device", "serial", "core_id", "core_type", "error_code", "errcode", "error_str", "pc_start",
          "pc_start_second", "current", "stream", "task", "kernel", "bin_size", "address", "ret_code", "code",
          "module", "tid", "rank", "rank_num", "ip", "peer", "peer_ip", "peer_device", "role", "status")


class FormatError(ValueError):
    """The catalog cannot be used; the message lists every bad row with its file and line."""


@dataclass(frozen=True)
class Form:
    """One message form: a row of the catalog."""

    family: str
    form: str
    part: str
    kind: str | None
    ids: str | None
    module: str
    level: str
    keep: str            #: a literal every line of this form holds (the reader keeps such lines in big files)
    regex: str           #: the pattern as compiled (the catalog's, digit runs bounded)
    expect: dict[str, str]
    example: str
    versions: str
    source: str
    row: int             #: line in the TSV
    groups: frozenset[str] = frozenset()   #: the regex's named groups
    #: the regex, which the catalog kept on disk keeps compiled (programs.py)
    compiled: Regex | None = field(default=None, compare=False, repr=False)

    @property
    def pattern(self) -> re.Pattern:
        """The compiled regex, made when a message first holds the form's literal: most forms of the catalog never
        meet a line of theirs in one bundle."""
        return self.compiled.pattern if self.compiled is not None else re.compile(self.regex)

    def read(self, text: str) -> dict[str, str] | None:
        """The values this form takes from one message (the named groups that matched), or None."""
        if self.keep not in text:
            return None
        m = self.pattern.search(text)
        return None if m is None else {k: v.strip() for k, v in m.groupdict().items() if v is not None}


@dataclass(frozen=True)
class Hit:
    """A message read by one form of the catalog."""

    form: Form
    values: dict[str, str]

    def int(self, group: str) -> int | None:
        """A numeric group as an int (decimal, or hex with 0x); None when absent, or for a decimal run longer than
        any id or count (a group a form reads with a looser pattern than `\\d+`, such as `\\w+`)."""
        v = self.values.get(group)
        return None if v is None else int(v, 16) if v.lower().startswith("0x") else number(v)


class Selection:
    """Some forms of the catalog, tried in the catalog's order."""

    def __init__(self, forms: tuple[Form, ...]):
        self.forms = forms
        # one search over all literals rejects most messages before any form's regex runs (with no form, the
        # empty pattern lets the empty loop say no)
        self._any = re.compile(any_of(f.keep for f in forms))

    def first(self, text: str) -> Hit | None:
        """The first form that reads the message."""
        if not self._any.search(text):
            return None
        for form in self.forms:
            values = form.read(text)
            if values is not None:
                return Hit(form, values)
        return None

    @property
    def keep(self) -> tuple[str, ...]:
        """The literals of these forms, each once, in catalog order."""
        return tuple(dict.fromkeys(f.keep for f in self.forms))


def parse(text: str, path: str = PATH) -> tuple[tuple[Form, ...], list[Problem]]:
    """Rows of a catalog text and the problems of its bad rows (which are left out)."""
    lines = text.splitlines()
    if not lines or tuple(lines[0].split("\t")) != COLUMNS:
        return (), [Problem(path, 1, f"the header must be the columns {', '.join(COLUMNS)} (tab-separated)")]
    forms, problems, seen = [], [], {}
    for row, cells in enumerate(csv.reader(lines[1:], delimiter="\t", quoting=csv.QUOTE_NONE), start=2):
        if not cells or not any(cells):
            continue
        if len(cells) != len(COLUMNS):
            problems.append(Problem(path, row, f"{len(cells)} cells, the catalog has {len(COLUMNS)} columns"))
            continue
        r = dict(zip(COLUMNS, cells))
        bad = _row_problems(r, seen.get((r["family"], r["form"])))
        seen.setdefault((r["family"], r["form"]), row)
        if bad:
            problems += [Problem(path, row, b) for b in bad]
            continue
        pattern = _compile(r["regex"])
        forms.append(Form(r["family"], r["form"], r["part"], None if r["kind"] == "-" else r["kind"],
                          None if r["ids"] == "-" else r["ids"], r["module"], r["level"], r["keep"],
                          pattern.pattern, _expect(r["expect"]), r["example"], r["versions"], r["source"],
                          row, frozenset(pattern.groupindex), Regex(pattern.pattern, pattern)))
    return tuple(forms), problems


def _compile(regex: str) -> re.Pattern:
    return re.compile(regex.replace(*_DIGITS))


def _expect(cell: str) -> dict[str, str]:
    pairs = [p.split("=", 1) for p in cell.split("; ") if p]
    return {k.strip(): v.strip() for k, v in pairs}


def _row_problems(r: dict[str, str], twin: int | None) -> list[str]:
    """What is wrong with one row: its vocabulary, its regex, and whether it reads its own example as stated."""
    out = []
    if twin is not None:
        out.append(f"form {r['form']!r} of {r['family']} is already on line {twin}")
    if r["family"] not in FAMILIES:
        return out + [f"unknown family {r['family']!r} (one of {', '.join(FAMILIES)})"]
    if r["part"] not in FAMILIES[r["family"]]:
        out.append(f"unknown part {r['part']!r} of {r['family']} (one of {', '.join(FAMILIES[r['family']])})")
    if r["kind"] != "-" and r["kind"] not in KINDS:
        out.append(f"unknown kind {r['kind']!r} (one of {', '.join(KINDS)}, or -)")
    if r["ids"] not in IDS:
        out.append(f"ids must be one of {', '.join(IDS)}")
    if r["level"] not in LEVELS:
        out.append(f"level must be one of {', '.join(LEVELS)}")
    if not re.match(r"https?://\S+$", r["source"]):
        out.append("the source must be the URL of a public source file or log")
    if not r["keep"] or r["keep"] not in r["example"]:
        out.append(f"the literal {r['keep']!r} is not in the example")
    if any(p.count("=") < 1 for p in r["expect"].split("; ") if p):
        out.append("expect is a list of group=value, separated by '; '")
    try:
        pattern = _compile(r["regex"])
    except re.error as e:
        return out + [f"bad regex: {e}"]
    unknown = set(pattern.groupindex) - set(GROUPS)
    if unknown:
        out.append(f"unknown group(s) {', '.join(sorted(unknown))} (the catalog's groups: {', '.join(GROUPS)})")
    if out:
        return out
    m = pattern.search(r["example"])
    if m is None:
        return [f"the regex does not match its example: {r['example'][:80]!r}"]
    got = {k: v.strip() for k, v in m.groupdict().items() if v is not None}
    want = _expect(r["expect"])
    if got != want:
        return [f"the example reads as {'; '.join(f'{k}={v}' for k, v in got.items())!r}, "
                f"expect says {r['expect']!r}"]
    return []


def _read() -> tuple[tuple[Form, ...], list[Problem]]:
    return parse(resources.files("casebook.knowledge").joinpath(PATH).read_text(encoding="utf-8"))


def _checked(_: Path) -> tuple[Form, ...]:
    """The catalog's forms, every row checked against its example; raises FormatError on a bad row."""
    forms, bad = _read()
    if bad:
        raise FormatError("\n".join(map(str, bad)))
    return forms


def problems() -> list[Problem]:
    """The bad rows of the catalog (`casebook kb check` lists them)."""
    return _read()[1]


@lru_cache(maxsize=1)
def catalog() -> tuple[Form, ...]:
    """Every form of the catalog, in its order; a catalog with bad rows raises FormatError. The checked catalog is
    kept on disk like the knowledge base (knowledge/cache.py, named by the package's files), so a new process
    does not check and compile every row again."""
    return cache.kept(_DATA, _checked, name="formats", kind=tuple)


@lru_cache(maxsize=64)
def select(family: str, *parts: str) -> Selection:
    """The forms of one family (of some of its parts), in the catalog's order."""
    if family not in FAMILIES or not set(parts) <= set(FAMILIES[family]):
        raise KeyError(f"{PATH} has no family {family!r} with parts {parts}")
    return Selection(tuple(f for f in catalog() if f.family == family and (not parts or f.part in parts)))


@lru_cache(maxsize=1)
def failures() -> Selection:
    """Every form whose lines report a failure of a known kind, for the cascade."""
    return Selection(tuple(f for f in catalog() if f.kind is not None))


@lru_cache(maxsize=1)
def codes() -> Selection:
    """Every form that names a return code (`ret_code`), for the codes of an error line."""
    return Selection(tuple(f for f in catalog() if "ret_code" in f.groups))


@lru_cache(maxsize=1)
def devices() -> Selection:
    """Every form with a `device` group in the job's own numbering (physical ids left out), for the
    error lines' device."""
    return Selection(tuple(f for f in catalog() if "device" in f.groups and f.ids != PHYSICAL))
