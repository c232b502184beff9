"""A new root-cause case drafted from a solved ticket: the case page for its author to finish, and a regression
sample made of the lines the walk cited, redacted, with the engineer's answers as the sample's facts."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..judging.triage import Triage
from ..memory.case import Case
from ..judging.unexplained import template_regex
from ..reading.archive import MEMBER_SEP
from .redact import Redactor

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_NUMBERS = re.compile(r"0x[0-9a-fA-F]+|\d+")


@dataclass(frozen=True)
class Draft:
    """What `draft()` wrote."""

    case: Path      #: kb/cases/<id>.md
    sample: Path | None   #: kb/samples/<id>/positive-ticket/ (none for a draft from the case memory)
    lines: int      #: cited lines copied into the sample


def cited_lines(t: Triage) -> dict[str, list[int]]:
    """The (file -> lines) the walk cites: first errors, AI Core fault reports, incidents, the set-device lines of
    the topology, and the evidence of every hypothesis still in play."""
    ev = t.evidence
    refs = [(e.file, e.line) for e in ([ev.first_error] if ev.first_error else []) + list(ev.first_errors)]
    refs += [(r.file, r.line) for f in ev.aicore_faults for r in f.refs]
    refs += [(i.first.file, i.first.line) for i in ev.incidents]
    refs += [(r.file, r.line) for p in ev.topology.processes for r in p.refs]
    refs += [(i.file, i.line) for h in t.candidates for i in (*h.for_, *h.against)]
    out: dict[str, set[int]] = {}
    for file, line in refs:
        if file is not None and line is not None:
            out.setdefault(file, set()).add(int(line))
    return {f: sorted(lines) for f, lines in sorted(out.items())}


def case_id_for(t: Triage, family: str) -> str:
    """A draft id from the family and what failed first: `<family>-<code or op>-draft`."""
    first = t.evidence.first_error
    fault = t.evidence.aicore_faults[0] if t.evidence.aicore_faults else None
    what = (fault.op if fault and fault.op else None) or (first.code if first and first.code else None) or "ticket"
    return "-".join(p for p in re.split(r"[^a-z0-9]+", f"{family}-{what}-draft".lower()) if p)


def draft_page(t: Triage, case_id: str, family: str, redact: Redactor) -> str:
    """The text of the draft case page (`status: draft`): the first error as its signature, the rest to write."""
    first = t.evidence.first_error
    text = redact(first.text) if first else ""
    signatures = []
    if first is not None:
        signatures.append({"id": "first_error", "field": "message", "regex": template_regex(_NUMBERS.sub("<NUM>", text)),
                           "key": True, "weight": 3, "why": "The first error of the ticket this draft was made from."})
    front = {
        "id": case_id, "title": f"Draft: {text[:100]}", "title_zh": "", "family": family, "status": "draft",
        "severity": "medium", "action": "collect-more", "summary": f"Drafted from a solved ticket: {text[:160]}",
        "components": [], "codes": [], "signatures": signatures, "requires": [], "against": [],
        "fix": {"workaround": "", "confirm": ""}, "references": [],
    }
    answers = "\n".join(f"- `{k}` = `{v}`" for k, v in sorted(t.answers.items())) or "- none"
    where = f"{first.file}:{first.line}" if first else "no error line"
    body = f"""
## Symptom

The ticket's first error, at {where}:

```
{text}
```

## Root cause

To be written by the author. The engineer's answers when the ticket was solved:

{answers}

## How to confirm

To be written.

## Fix

To be written.

## Confirming the fix

To be written.

## References

To be added: a verified case cites public sources.
"""
    return "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=110) + "---\n" + body


def draft(t: Triage, kb_root: str | Path, family: str, case_id: str | None = None) -> Draft:
    """Write the draft case page and its regression sample under `kb_root`; nothing existing is overwritten."""
    case_id = case_id or case_id_for(t, family)
    if not _ID.fullmatch(case_id):
        raise ValueError(f"case id {case_id!r}: use lowercase words joined by '-'")
    kb_root = Path(kb_root)
    page = kb_root / "cases" / f"{case_id}.md"
    sample = kb_root / "samples" / case_id / "positive-ticket"
    for path in (page, sample):
        if path.exists():
            raise FileExistsError(f"{path}: exists; choose another id")
    redact = Redactor()
    cited = cited_lines(t)
    raw = {f: [t.log.raw_line(f, n).decode("utf-8", "replace") for n in lines] for f, lines in cited.items()}
    redact.learn_all(line for lines in raw.values() for line in lines)
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(draft_page(t, case_id, family, redact), encoding="utf-8")
    copied = 0
    for file, lines in raw.items():
        target = sample / redact(file.replace(MEMBER_SEP, "/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(redact(line) + "\n" for line in lines), encoding="utf-8")
        copied += len(lines)
    expect = {"about": f"Regression sample drafted from a solved ticket: the {copied} lines its walk cited, redacted.",
              "runs": [{"facts": {k: v for k, v in sorted(t.answers.items())}, "diagnosis": case_id}]}
    (sample / "expect.yaml").write_text(yaml.safe_dump(expect, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return Draft(page, sample, copied)


def memory_page(c: Case, case_id: str, family: str) -> str:
    """The text of a draft case page from a resolved case of the memory: its template as the signature, its
    codes, and the cause, fix and confirmation as its resolver wrote them, for the author to finish."""
    fp, r = c.fingerprint, c.resolution
    signatures = [{"id": "first_error", "field": "message", "regex": template_regex(fp.template), "key": True,
                   "weight": 3, "why": "The first error of the remembered case this draft was made from."}] \
        if fp.template else []
    said = lambda text: text.strip() if text and text.strip() else "To be written."
    front = {
        "id": case_id, "title": f"Draft: {(c.title or fp.template or case_id)[:100]}", "title_zh": "",
        "family": family, "status": "draft", "severity": "medium", "action": "collect-more",
        "summary": f"Drafted from the case memory's {c.id}: {said(r.cause if r else None)[:160]}",
        "components": [], "codes": list(fp.codes), "signatures": signatures, "requires": [], "against": [],
        "fix": {"workaround": r.fix if r and r.fix else "", "confirm": r.confirmed_by if r and r.confirmed_by else ""},
        "references": [{"url": c.url, "title": c.title or c.url}] if c.url else [],
    }
    seen = "\n".join(f"- {k}: `{v}`" for k, v in (("codes", ", ".join(fp.codes)), ("ops", ", ".join(fp.ops)),
                                                 ("error bits", ", ".join(fp.error_bits)), ("chip", fp.chip),
                                                 *sorted(fp.versions.items())) if v) or "- nothing recorded"
    ticket = f" (ticket {r.ticket})" if r and r.ticket else ""
    body = f"""
## Symptom

The first error of the remembered case {c.id}{ticket}, its variable parts masked:

```
{fp.template or "no error line recorded"}
```

What else identified it:

{seen}

## Root cause

{said(r.cause if r else None)}

## How to confirm

To be written.

## Fix

{said(r.fix if r else None)}

## Confirming the fix

{said(r.confirmed_by if r else None)}

## References

To be added: a verified case cites public sources.
"""
    return "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=110) + "---\n" + body


def draft_from_memory(c: Case, kb_root: str | Path, family: str | None = None, case_id: str | None = None) -> Draft:
    """Write a draft case page from a resolved case of the memory under `kb_root` (no regression sample: the
    memory keeps a fingerprint, not the bundle); nothing existing is overwritten."""
    if c.resolution is None or not (c.resolution.cause or c.resolution.fix):
        raise ValueError(f"{c.id} has no resolution yet: `casebook memory resolve {c.id} --cause ... --fix ...` first")
    family = family or c.fingerprint.family
    if not family:
        raise ValueError(f"{c.id} names no family; name one with --family")
    what = (c.fingerprint.ops[0] if c.fingerprint.ops else None) or (c.fingerprint.codes[0] if c.fingerprint.codes
                                                                     else "memory")
    case_id = case_id or "-".join(p for p in re.split(r"[^a-z0-9]+", f"{family}-{what}-draft".lower()) if p)
    if not _ID.fullmatch(case_id):
        raise ValueError(f"case id {case_id!r}: use lowercase words joined by '-'")
    page = Path(kb_root) / "cases" / f"{case_id}.md"
    if page.exists():
        raise FileExistsError(f"{page}: exists; choose another id")
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(memory_page(c, case_id, family), encoding="utf-8")
    return Draft(page, None, 0)
