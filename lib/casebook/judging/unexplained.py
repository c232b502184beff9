"""Errors no matched case explains, grouped into templates, and draft cases made from a template.

Only ERROR lines (and error-block lines) are grouped (templates.py), never the whole log: the grouping is far
slower than the targeted regexes the rest of the reader uses, and INFO lines would drown the errors in clusters.
Variable tokens (addresses, numbers, ids, times, IPs, paths) are masked before mining, so that one
message logged on eight devices is one template with a count of eight.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..reading.table import Record
from .templates import Miner

#: (regex, mask name), applied in order; the mask shows as `<NAME>` in a template.
MASKS = (
    (r"\d{4}-\d\d-\d\d[-T ]\d\d:\d\d:\d\d(?:[.,]\d+)*", "TIME"),
    (r"(?:\d{1,3}\.){3}\d{1,3}(?:%\w+)?", "IP"),
    (r"0x[0-9a-fA-F]+", "HEX"),
    (r"(?<![\w/])(?:/[\w.\-]+)+/?", "PATH"),
    (r"\b[0-9a-f]{16,}\b", "HASH"),
    # numbers, but not the six-digit runtime codes (507015) nor digits inside names (EZ9999, GatherV2)
    (r"(?<![\w.])(?![1-5]\d{5}(?![\w.]))-?\d+(?:\.\d+)?(?![\w.])", "NUM"),
)
#: Banners and table borders of HCCL's link table carry no message of their own.
_DECORATION = re.compile(r"^\s*(?:_{3,}|\|?\s*-{3,}|\|\s*$)")
#: What a fault's own report goes on to log: its kernel arguments, its registers, the module banner the runtime
#: prints before each part, the task and kernel it names again.
DUMP = re.compile(r"\[AIC_INFO\]|args (?:after|before) execute|report error module_type=|AICORE_INFO|"
                  r"kernel_name=|Kernel task happen error|Task exception!|"
                  r"\b[A-Za-z_]{2,}\w*\s*[=:]\s*0x[0-9a-fA-F]+(?:\s*,\s*[A-Za-z_]\w*\s*[=:]\s*0x[0-9a-fA-F]+)+")
#: Lines before the first line of a fault's report, and after its last, that can still be part of its dump: the
#: runtime prints the dump again when the stream synchronize that waited on the task fails.
DUMP_BEFORE, DUMP_AFTER = 8, 64


@dataclass(frozen=True)
class Template:
    """A group of unexplained error lines that differ only in their variable tokens."""

    template: str
    count: int
    file: str          #: first occurrence, by time
    line: int
    time: str | None
    text: str          #: the first line as logged


def mine(errors: list[Record], explained: set[tuple[str, int]] = frozenset()) -> list[Template]:
    """Templates of the error lines not in `explained`, most frequent first (then by first time)."""
    # by time, the untimed lines (a capture's) last
    rows = sorted(errors, key=lambda r: (r.time is None, r.time or "", r.file, r.line))
    miner = Miner(MASKS, similarity=0.5)
    first: dict[int, tuple] = {}
    for file, line, time, msg in ((r.file, r.line, r.time, r.msg) for r in rows):
        if (file, line) in explained or not str(msg).strip() or _DECORATION.match(str(msg)):
            continue
        group = miner.add(str(msg).strip())
        first.setdefault(id(group), (file, line, time, str(msg).strip()))
    out = [Template(g.template, g.size, *first[id(g)]) for g in miner.groups]
    return sorted(out, key=lambda t: (-t.count, t.time or "~", t.file, t.line))


def dump_lines(errors: list[Record], faults) -> dict[tuple[str, int], object]:
    """The error lines that belong to a fault's own dump, each with its fault: in a file of the fault's report,
    from DUMP_BEFORE lines before it to DUMP_AFTER after, and shaped like a dump (arguments, registers, the
    runtime's banners)."""
    spans: dict[str, list[tuple[int, int, object]]] = {}
    for f in faults:
        lines: dict[str, list[int]] = {}
        for r in f.refs:
            if r.file and r.line is not None:
                lines.setdefault(r.file, []).append(r.line)
        for file, ns in lines.items():
            spans.setdefault(file, []).append((min(ns) - DUMP_BEFORE, max(ns) + DUMP_AFTER, f))
    out: dict[tuple[str, int], object] = {}
    if not spans:
        return out
    for file, line, msg in ((r.file, r.line, r.msg) for r in errors if r.file in spans):
        fault = next((f for lo, hi, f in spans[file] if lo <= line <= hi), None)
        if fault is not None and DUMP.search(str(msg)):
            out[(file, line)] = fault
    return out


def coverage(errors: list[Record], explained: set[tuple[str, int]], faults) -> tuple[set, list[Template]]:
    """The error lines the matched cases explain, a fault's own dump with its fault when the fault is explained,
    and the templates of the rest; a fault's dump is never a template of its own."""
    explained = explained & {(r.file, r.line) for r in errors}
    dumps = dump_lines(errors, faults)
    told = {id(f) for key, f in dumps.items() if key in explained}
    explained |= {key for key, f in dumps.items() if id(f) in told}
    return explained, mine(errors, explained | set(dumps))


def template_regex(template: str) -> str:
    """A regex matching the lines of a template: literal text kept, each mask a run of non-spaces, and any run
    of spaces as it was logged (a template keeps single spaces between tokens)."""
    parts = re.split(r"(<[A-Z]+>|<\*>)", template)
    out = []
    for p in parts:
        if re.fullmatch(r"<[A-Z]+>|<\*>", p):
            out.append(r"\S+")
        elif p:
            out.append(r"\s+".join(re.escape(w) for w in re.split(r"\s+", p)))
    return "".join(out)


def draft_case(t: Template, case_id: str) -> str:
    """The text of a draft case file (`status: draft`) for this template, for an author to finish."""
    if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", case_id):
        raise ValueError(f"case id {case_id!r}: use lowercase words joined by '-'")
    front = {
        "id": case_id,
        "title": f"Draft: {t.template[:100]}",
        "title_zh": "",
        "status": "draft",
        "severity": "medium",
        "action": "collect-more",
        "summary": f"Unexplained error seen {t.count} time(s): {t.template[:160]}",
        "components": [],
        "codes": [],
        "signatures": [{"id": "template", "field": "message", "regex": template_regex(t.template), "key": True,
                        "weight": 3, "why": "The error lines this draft was made from."}],
        "requires": [],
        "against": [],
        "fix": {"workaround": "", "confirm": ""},   # left empty: `kb check` reports the draft until they are written
        "references": [],
    }
    where = f"{t.file}:{t.line}" + (f" at {t.time}" if t.time else "")
    body = f"""
## Symptom

{t.count} unexplained error line(s) of this form, first at {where}:

```
{t.text}
```

Template: `{t.template}`

## Root cause

Not known yet. This draft was made from an error that no case of the knowledge base explained.

## How to confirm

Not written yet.

## Fix

Not written yet.

## Confirming the fix

Not written yet.

## References

None yet; a verified case cites public sources.
"""
    import yaml   # a draft is written on request; a triage never needs PyYAML
    return "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=110) + "---\n" + body


def write_draft(t: Template, case_id: str, kb_root: str | Path) -> Path:
    """Write the draft as `<kb_root>/cases/<case_id>.md`; an existing case is never overwritten."""
    path = Path(kb_root) / "cases" / f"{case_id}.md"
    if path.exists():
        raise FileExistsError(f"{path}: a case with this id exists")
    path.write_text(draft_case(t, case_id), encoding="utf-8")
    return path
