"""A triaged case as it goes into the memory: its fingerprint and title, passed through the report's redaction
policy first when asked (host and user names, IP and MAC addresses, secrets), so that a shared memory holds what
a redacted report would show."""
from __future__ import annotations

from dataclasses import replace

from ..judging.triage import Triage
from ..knowledge.messages import EN, pick
from ..memory.fingerprint import Fingerprint, of_triage
from .contents import redactor


def title_of(t: Triage, lang: str = EN) -> str | None:
    """A saved case's title: its diagnosis, else its family, else its first error."""
    if t.diagnosis is not None:
        return pick(lang, t.diagnosis.case.title, t.diagnosis.case.title_zh)
    if t.family is not None:
        return t.family.family.title
    first = t.evidence.first_error
    return first.text[:120] if first else None


def memo(t: Triage, redact: bool = False, title: str | None = None) -> tuple[Fingerprint, str | None]:
    """The fingerprint and title to save; with `redact`, both through one Redactor that has read the case's
    error lines."""
    fp, title = of_triage(t), title or title_of(t)
    if not redact:
        return fp, title
    R = redactor(t)
    R.learn_all(t.log.errors()["msg"].astype(str).head(5000))
    return replace(fp, template=R(fp.template), ops=tuple(R(o) for o in fp.ops)), R(title)
