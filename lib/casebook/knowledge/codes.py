"""The public error-code catalogs as data: one table per catalog under `kb/codes/tables/`, a row per code.

Each row gives the code as logged, its official name, its meaning in English and Chinese, the usual cause and
the source that defines it. A row with a malformed cell is reported with its file and line and left out.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from .document import Problem, table_rows

COLUMNS = ("code", "name", "meaning", "meaning_zh", "cause", "source")

#: Catalog (file stem) -> the code kind its rows have, in the order catalogs are loaded: when two catalogs
#: hold the same code string, the earlier one names it (retCodes and runtime codes are what logs show most).
CATALOGS = {
    "ecodes": "ecode",
    "runtime-codes": "runtime",
    "retcodes": "retcode",
    "acl-codes": "acl",
    "torch-npu-codes": "torch_npu",
    "device-event-ids": "device_event",
    "runtime-inner-codes": "runtime_inner",
    "hccl-codes": "hccl",
    "ge-codes": "ge",
    "aicpu-codes": "aicpu",
    "dcmi-codes": "dcmi",
    "bbox-exception-codes": "bbox_exception",
    "mindie-codes": "mindie",
}

#: The kinds a code read in a log line can be, by what named it there (evidence/codes.py): one string names a
#: different code in each catalog (`0x10` after `retCode=` is a task-scheduler code; after an analyzer report's
#: `code :` it is the AI Core error register, whose bits the error-bit table explains, no catalog's code).
KINDS_BY_SIGHTING = {
    "ecode": ("ecode",),
    "runtime": ("runtime", "acl", "hccl"),
    "retcode": ("retcode",),
    "pta": ("torch_npu",),
    "runtime_inner": ("runtime_inner",),
    "hccl": ("hccl",),
    "hccl_errno": ("hccl",),   # an HCCL errNo, whose low 16 bits are the HcclResult (hccl_result)
    "ge": ("ge",),
    "aicpu": ("aicpu",),
    "dcmi": ("dcmi",),
    "bbox_exception": ("bbox_exception",),
    "device_event": ("device_event",),
    "mindie": ("mindie",),
    "aicore_error": (),
}

#: How a code of each kind is spelled in a log line.
_SPELLING = {
    "ecode": re.compile(r"[EW][A-Z0-9]\d{4}"),   # W-codes are the error manager's warnings
    "runtime": re.compile(r"\d{1,6}"),
    "retcode": re.compile(r"0x[0-9a-f]+"),
    "acl": re.compile(r"\d{1,6}"),
    "torch_npu": re.compile(r"ERR\d{5}"),
    "device_event": re.compile(r"0x[0-9a-f]{8}"),
    "runtime_inner": re.compile(r"-?\d+|0x[0-9a-f]+"),
    "hccl": re.compile(r"\d{1,5}"),
    "hccl_errno": re.compile(r"0x0{0,9}50[0-3][0-9a-f]{4}"),
    "ge": re.compile(r"\d{10}"),                  # a GE status in decimal: ErrorNo: 1343242282(assign engine failed)
    "aicpu": re.compile(r"2\d{4}"),
    "dcmi": re.compile(r"-8\d{3}"),
    "bbox_exception": re.compile(r"0x[0-9a-f]{8}"),
    # MindIE's: product, component (two digits), level letter, six hex digits of the component's own code
    "mindie": re.compile(r"MIE\d\d[A-Z][0-9A-F]{6}"),
}


def is_hccl_errno(code: str) -> bool:
    """Whether a code as a log prints it is an HCCL errNo (`0x0000000005000006`)."""
    return _SPELLING["hccl_errno"].fullmatch(code.lower()) is not None


def hccl_result(errno: str) -> str:
    """The HcclResult an HCCL errNo carries: HCCL's log puts module 5 in bits 24-31, a submodule (HCCL, HCOM, CLTM,
    custom op) in bits 16-23 and the result below (`0x0000000005010001` is HCOM's HCCL_E_PARA, 1)."""
    return str(int(errno, 16) & 0xFFFF)


@dataclass(frozen=True)
class CodeRow:
    """One code of a public catalog."""

    code: str
    kind: str
    catalog: str
    name: str
    meaning: str
    meaning_zh: str
    cause: str
    source: str
    path: str      #: the table file, relative to the knowledge base's parent
    line: int


def load_tables(root: Path, problems: list[Problem]) -> list[CodeRow]:
    """Every row of every catalog table under `root/codes/tables`, in catalog order."""
    rows: list[CodeRow] = []
    folder = root / "codes" / "tables"
    known = {p.stem: p for p in folder.glob("*.tsv")} if folder.is_dir() else {}
    for stem in sorted(set(known) - set(CATALOGS)):
        problems.append(Problem(known[stem].relative_to(root.parent).as_posix(), 1,
                                f"unknown catalog {stem!r}; known: {', '.join(CATALOGS)}"))
    for catalog, kind in CATALOGS.items():
        if catalog in known:
            rows += _read(known[catalog], known[catalog].relative_to(root.parent).as_posix(), catalog, kind, problems)
    return rows


def _read(path: Path, rel: str, catalog: str, kind: str, problems: list[Problem]) -> list[CodeRow]:
    out: list[CodeRow] = []
    seen: dict[str, int] = {}
    for no, row in table_rows(path, rel, COLUMNS, problems):
        wrong = [f"{c} is empty" for c in ("code", "name", "meaning", "meaning_zh", "source") if not row[c]]
        if row["code"] and not _SPELLING[kind].fullmatch(row["code"]):
            wrong.append(f"code {row['code']!r} is not spelled as a {kind} code is logged")
        if row["source"] and not row["source"].startswith(("http://", "https://")):
            wrong.append("source is not an http(s) URL")
        if row["code"] in seen:
            wrong.append(f"code {row['code']!r} repeats line {seen[row['code']]}")
        if wrong:
            problems += [Problem(rel, no, w) for w in wrong]
            continue
        seen[row["code"]] = no
        out.append(CodeRow(kind=kind, catalog=catalog, path=rel, line=no, **row))
    return out


#: The runtime's words for a failure, as its error-reason line prints them (`rtStreamSynchronize execute failed,
#: reason=[sdma copy error]`), each with the runtime code the call returns and its source: the runtime's error map, or
#: for a wording of older releases a public log that prints it beside its code: data/runtime-reasons.tsv.
REASONS = "data/runtime-reasons.tsv"


@cache
def reason_rows() -> tuple[tuple[str, str, str, str], ...]:
    """The rows of the reasons table: (reason words, runtime code, its ACL_ERROR_RT_* name, source)."""
    lines = resources.files("casebook.knowledge").joinpath(REASONS).read_text(encoding="utf-8").splitlines()
    return tuple(tuple(line.split("\t")) for line in lines[1:] if line.strip())


@cache
def runtime_reasons() -> dict[str, str]:
    """reason words (lower case) -> the runtime code the failing call returns."""
    return {reason.lower(): code for reason, code, *_ in reason_rows()}
