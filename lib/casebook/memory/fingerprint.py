"""What identifies a case for the memory: its codes, the first error's message template, the ops and kernels it
names, the AI Core error bits, its family and cause, the versions and the chip.

A template is the first error's message with its variable tokens masked (times, IPs, addresses, paths, hashes,
numbers; the masks of judging.unexplained), so that one failure logged on another machine, another day, with
other addresses, has the same template.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field

from typing import TYPE_CHECKING

from ..judging.unexplained import MASKS
from ..reading.grammar import BlockState, parse_line

if TYPE_CHECKING:
    from ..judging.triage import Triage

#: Version facts a fingerprint keeps, by the short name threads use.
VERSIONS = {"cann": "cann_version", "torch_npu": "torch_npu_version", "torch": "torch_version",
            "python": "python_version", "driver": "npu_driver_version"}
#: Codes kept per case: the first ones sighted say what failed; hundreds of repeats add nothing.
MAX_CODES = 12
_MASKS = [(re.compile(rx), f"<{name}>") for rx, name in MASKS]
#: Op and kernel names a message states: aclnn ops, `op name`/`op type` fields, kernels of a tiling or launch.
_OPS = (re.compile(r"\b(aclnn[A-Z]\w*)"),
        re.compile(r"\bop(?:[ _]?(?:name|type))\s*(?:is|[:=])?\s*\[?([A-Za-z_][\w]*)", re.I),
        re.compile(r"\bkernel(?:[ _]?name)\s*(?:is|[:=])?\s*\[?([A-Za-z_][\w]*)", re.I))
#: Words of a case indexed (Fingerprint.keys), and the failure lines of a bundle they are taken from.
MAX_WORDS = 24
FAILURE_LINES = 3
_WORDS = re.compile(r"(?<![<\w])[A-Za-z][A-Za-z_]{3,}(?![\w>])")
_FILLER = {"error", "errors", "failed", "fail", "failure", "with", "from", "that", "this", "when", "then", "there",
           "have", "been", "call", "code", "please", "check", "info", "warning", "runtimeerror", "exception",
           "traceback", "most", "recent", "last", "line", "file", "detail", "details", "inner", "unknown"}
#: Lines of a console paste looked at for its first failure and its codes.
SCAN = 2000
_FAILED = re.compile(r"(?i)\b(?:error|failed|fail|exception|E[0-9A-Z]\d{4}|\w+(?:Error|Exception)|cannot|can't|unable|"
                     r"invalid|incorrect|mismatch|not (?:been )?(?:found|loaded|supported|implemented|registered)|"
                     r"no such|denied|refused|timed? ?out|abort(?:ed)?)\b")
#: A message that only announces the lines after it ("Ascend error occurred, error message:"): too few words of its
#: own to tell one failure from another, so the next failure line stands for the case.
_ANNOUNCES = re.compile(r":\s*$")
#: Chip names as the runtime reports them (Ascend910B3, Ascend910_9391, Ascend310P3) and as threads write them.
_CHIPS = ((re.compile(r"910_?93|910C", re.I), "910_93"), (re.compile(r"910B", re.I), "910B"),
          (re.compile(r"910(?:A|Pro[AB]?|Premium[AB]?)?(?![0-9_A-Z])", re.I), "910A"), (re.compile(r"310P", re.I), "310P"),
          (re.compile(r"310B", re.I), "310B"))


@dataclass(frozen=True)
class Fingerprint:
    """The features two cases are compared by; every field may be empty."""

    codes: tuple[str, ...] = ()          #: error codes in the order first sighted: EZ9999, 507015, ERR00100 ...
    template: str | None = None          #: the first error's message with its variable tokens masked
    ops: tuple[str, ...] = ()            #: op and kernel names: aclnnCast, GatherV2_..._mix_aic
    error_bits: tuple[str, ...] = ()     #: AI Core error bits, as the fault report names them
    family: str | None = None            #: KB family id
    cause: str | None = None             #: KB case id of the cause, when known
    versions: dict[str, str] = field(default_factory=dict)   #: cann, torch_npu, torch, python, driver
    chip: str | None = None              #: 910A, 910B, 910_93, 310P, 310B
    words: tuple[str, ...] = ()          #: the words that say something in its first failure lines (and title)

    @property
    def template_key(self) -> str | None:
        """A short digest of the template, what the memory's index holds."""
        return hashlib.sha1(self.template.encode("utf-8")).hexdigest()[:16] if self.template else None

    def keys(self) -> list[str]:
        """The index keys a lookup finds this fingerprint by: template, codes, diagnosis, ops, error bits, family."""
        keys = [f"code:{c}" for c in self.codes] + ([f"case:{self.cause}"] if self.cause else [])
        keys += [f"op:{o}" for o in self.ops] + [f"bit:{b}" for b in self.error_bits]
        keys += [f"fam:{self.family}"] if self.family else []
        keys += [f"w:{w}" for w in self.words[:MAX_WORDS]]
        return ([f"tpl:{self.template_key}"] if self.template else []) + keys

    def as_dict(self) -> dict:
        """The fingerprint as JSON-ready data."""
        d = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    @classmethod
    def from_dict(cls, d: dict) -> "Fingerprint":
        """The fingerprint from as_dict()'s data; unknown keys are ignored."""
        return cls(codes=tuple(d.get("codes") or ()), template=d.get("template") or None,
                   ops=tuple(d.get("ops") or ()), error_bits=tuple(d.get("error_bits") or ()),
                   family=d.get("family") or None, cause=d.get("cause") or None,
                   versions={str(k): str(v) for k, v in (d.get("versions") or {}).items() if v is not None},
                   chip=chip(d.get("chip")), words=tuple(d.get("words") or ()))


def template(line: str | None) -> str | None:
    """The message of one log line (its slog header taken off) with its variable tokens masked."""
    if not line or not line.strip():
        return None
    msg = parse_line(line.strip(), BlockState()).msg or line.strip()
    for rx, mask in _MASKS:
        msg = rx.sub(mask, msg)
    return " ".join(msg.split())[:400]


def words(template: str | None) -> list[str]:
    """The words of a template that say something (lower case, four letters or more, masks and filler left out),
    each once: two messages that share several are alike even when their templates differ."""
    found = (w.lower() for w in _WORDS.findall(template or ""))
    return list(dict.fromkeys(w for w in found if w not in _FILLER))


def ops_in(text: str | None) -> list[str]:
    """Op and kernel names a line of text states."""
    return [m for rx in _OPS for m in rx.findall(text or "")]


def chip(name: str | None) -> str | None:
    """The chip's short name (910B) from the runtime's SoC name (Ascend910B3) or a thread's wording."""
    if not name:
        return None
    return next((short for rx, short in _CHIPS if rx.search(str(name))), None)


def _unique(items) -> tuple[str, ...]:
    return tuple(dict.fromkeys(str(i) for i in items if i))


def _first_failure(t: Triage) -> str | None:
    """The first error's text; in a pasted console text with no log levels, the first op rejection, else the
    first line that says it failed."""
    ev = t.evidence
    said = [e.text for e in ([ev.first_error] if ev.first_error is not None else []) + list(ev.first_errors)]
    said += [r.text for r in ev.rejections]
    telling = [s for s in said if not _announces(s)]
    if telling or said:
        return (telling or said)[0]
    return next((m for m in _scanned(t) if _FAILED.search(m)), None)


def _scanned(t: Triage) -> list[str]:
    """The messages of the first SCAN records, as text."""
    return [str(m) for m in t.log.column("msg")[:SCAN]]


def _announces(text: str | None) -> bool:
    """Whether a line only announces the lines after it: it ends with a colon and says three words or fewer."""
    return bool(text and _ANNOUNCES.search(text) and len(words(template(text))) <= 3)


def of_triage(t: Triage) -> Fingerprint:
    """The fingerprint of a triaged case: the evidence's codes, first error and faults, and the diagnosis."""
    from ..evidence.codes import codes_in   # with the log table: not for `casebook --help`
    ev = t.evidence
    first = ev.first_error
    first_text = _first_failure(t)
    codes = _unique(([first.code] if first and first.code else []) + [c.code for c in ev.codes])
    if not codes:   # a console paste has no error level: the codes of its first lines that say they failed
        codes = _unique(c for m in _scanned(t) if _FAILED.search(m) for c, _ in codes_in(m))
    codes = codes[:MAX_CODES]
    faults = ev.aicore_faults
    texts = [e.text for e in ev.first_errors[:5]] + [r.text for r in ev.rejections[:5]] + \
        ([first_text] if first_text else [])
    ops = _unique([x for f in faults for x in (f.op, f.kernel)] + [o for s in texts for o in ops_in(s)])
    bits = _unique(b for f in faults for b in f.error_bits)
    versions = {short: str(t.facts[name].value) for short, name in VERSIONS.items()
                if name in t.facts and t.facts[name].value not in (None, "")}
    soc = t.facts.get("soc_version")
    diagnosis = t.diagnosis
    family = t.family.family.id if t.family else (diagnosis.case.family or None if diagnosis else None)
    ops = _unique([r.op for r in ev.rejections if r.op] + list(ops))
    said = _unique(w for text in [first_text, *texts][:FAILURE_LINES] for w in words(template(text)))
    return Fingerprint(codes=codes, template=template(first_text), ops=ops[:12], words=said[:MAX_WORDS],
                       error_bits=bits, family=family, cause=diagnosis.case.id if diagnosis else None,
                       versions=versions, chip=chip(soc.value if soc else None))
