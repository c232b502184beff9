"""What a real capture's expect.yaml says a correct reading finds, and what a triage misses of it, in words.

The capture tests assert that nothing is missed; the known gaps (tests/captures/known-gaps.yaml) hold, per capture
and check, the misses of today in these same words.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from .accuracy import Expected, Score, capture_of, read_expected, score


def expected(folder: Path) -> dict:
    """The capture's expect.yaml as data."""
    return yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8")) or {}


def _line(folder: Path, no: int, file: str | None = None) -> str:
    """Line `no` of the capture's text, or of the file `file` of its collection."""
    path = capture_of(folder) / file if file else folder / "capture.txt"
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines() if path.is_file() else []
    return lines[no - 1] if 0 < no <= len(lines) else ""


def reading_misses(folder: Path, doc: dict, codes_seen: set[str]) -> list[str]:
    """What the reading missed of the expected first error, codes and AI Core fault: [] when it found them all.
    `doc` is the triage's JSON document, `codes_seen` the codes its evidence read."""
    want, out = expected(folder), []
    first, got = want.get("first_error"), doc.get("first_error")
    if first is None and got is not None:
        out.append(f"a first error read at line {got['line']}, where the capture shows none")
    elif first is not None and got is None:
        out.append("no first error found")
    elif first is not None:
        cited = got.get("capture_line", got["line"])   # a grep paste cites its source line; the capture's line too
        file = first.get("file")   # a collection's first error names its file too
        if file is not None and got.get("file") != file:
            out.append(f"first error read in {got.get('file')}:{cited}, not {file}:{first['line']}")
        elif cited != first["line"] or not (first["contains"] in got["text"]
                                            or first["contains"] in _line(folder, cited, file)):
            out.append(f"first error read at line {cited}, not {first['line']}")
        elif "code" in first and got.get("code") != str(first["code"]):
            out.append(f"the first error's code is not read: want {first['code']}, "
                       + (f"read {got['code']}" if got.get("code") else "the record has none"))
    missed = [str(c) for c in want.get("codes") or [] if str(c) not in codes_seen]
    if missed:
        out.append(f"codes not read: {', '.join(missed)}")
    fault = want.get("aicore")
    if fault:
        out += _fault_misses(fault, doc.get("aicore_faults") or [])
    return out


def _fault_misses(fault: dict, found: list[dict]) -> list[str]:
    if not found:
        return ["the AI Core fault report is not found"]
    f, out = found[0], []
    out += [f"the fault's {key} is {f[key]}, not {fault[key]}" for key in ("kernel", "op", "device")
            if key in fault and f[key] != fault[key]]
    out += [f"the fault's {key} is {f[f'{key}_raw']}, not {fault[key]}" for key in ("pc_start", "current")
            if key in fault and int(f[f"{key}_raw"], 16) != int(str(fault[key]), 16)]
    if "errcode" in fault and [int(str(x), 16) for x in f["errcode"]] != [int(str(x), 16) for x in fault["errcode"]]:
        out.append(f"the fault's errcode is {tuple(f['errcode'])}, not {tuple(fault['errcode'])}")
    return out


def cause_miss(want: Expected, s: Score, cases: set[str]) -> str | None:
    """Why the diagnosis is not the documented cause, or None when it is."""
    if s.right:
        return None
    named = f"names {s.got}" if s.got else f"names no diagnosis ({s.got_family or 'no family'})"
    if not want.documented:
        return f"the source names no cause, but the triage {named}"
    covered = [c for c in want.cases if c in cases]
    head = "the case exists" if covered else f"no case of the knowledge base covers {want.cases[0]}"
    return f"{head}; the triage {named}"


def confirmed_miss(s: Score) -> str | None:
    """Which other case is confirmed, or None."""
    return f"{', '.join(s.confirmed_wrong)} {'is' if len(s.confirmed_wrong) == 1 else 'are'} confirmed" \
        if s.confirmed_wrong else None


def misses(folder: Path, doc: dict, codes_seen: set[str], cases: set[str]) -> dict[str, str]:
    """check -> reason, for each of the capture tests' checks the triage does not pass: reading, cause,
    confirmed_wrong."""
    want = read_expected(folder)
    s = score(want, doc)
    out = {"reading": "; ".join(reading_misses(folder, doc, codes_seen)) or None,
           "cause": cause_miss(want, s, cases), "confirmed_wrong": confirmed_miss(s)}
    return {check: reason for check, reason in out.items() if reason}


#: The checks of the capture tests, in the known gaps' order.
CHECKS = ("cause", "confirmed_wrong", "reading")


def gaps(folders: list[Path], kb=None) -> dict[str, dict[str, str] | list[str]]:
    """check -> {capture folder: reason}: what the triage of each capture does not get right today; and `codes`,
    the codes the captures show that no catalog of the knowledge base explains."""
    from ..knowledge.kb import load_kb
    from .contract import to_dict
    from .triage import triage
    kb = kb or load_kb()
    out: dict[str, dict[str, str] | list[str]] = {check: {} for check in CHECKS}
    shown: set[str] = set()
    for folder in folders:
        t = triage(capture_of(folder), kb=kb)
        for check, reason in misses(folder, to_dict(t), {c.code for c in t.evidence.codes}, set(kb.cases)).items():
            out[check][folder.name] = reason
        shown |= {str(c) for c in expected(folder).get("codes") or []}
    out["codes"] = sorted(c for c in shown if not kb.explains(c))
    return out


def write_gaps(path: Path, found: dict) -> None:
    """Write the known gaps file anew, its opening comment kept."""
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    head = "".join(old.splitlines(keepends=True)[:next(
        (n for n, line in enumerate(old.splitlines()) if not line.startswith("#")), 0)])
    doc = {"codes": found["codes"]} | {check: dict(sorted(found[check].items())) for check in CHECKS}
    path.write_text(head + yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=118), encoding="utf-8")
