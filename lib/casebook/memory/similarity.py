"""How alike a remembered case is to the one at hand, and why, in words.

Exact codes and the first error's template weigh most, then op names, AI Core error bits, the diagnosis and
family, then versions and chip. The similarity is the weight matched over the weight the case at hand could
match (the features it has), so a case that shows only a code is not held against the features it lacks.
A lookup reads only the cases the index finds by code, template, op or bit (Store.candidates), never every case.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..knowledge.messages import EN, ZH, say
from .case import Case
from .fingerprint import Fingerprint, words
from .store import Store

#: Weight of each feature: what a match on it adds to the score.
WEIGHTS = {"template": 5.0, "codes": 4.0, "cause": 4.0, "ops": 3.0, "bits": 2.0, "family": 2.0,
           "versions": 1.0, "chip": 0.5}
#: Share of word weight (fingerprint.words) from which two templates that differ count as a similar message (the
#: leave-one-out of docs/memory.md finds the same threads from 0.1 down, and fewer above it).
SIMILAR_TEMPLATE = 0.1

#: Similarity below which a case is not shown: one shared generic code among many is not "seen before".
FLOOR = 0.1
#: Version names compared, as the walk words them.
VERSION_NAMES = {"cann": "CANN", "torch_npu": "torch_npu", "torch": "torch", "driver": "driver", "python": "Python"}


@dataclass(frozen=True)
class Reason:
    """One thing two fingerprints share, worded from the message catalog."""

    msg_id: str
    values: tuple[tuple[str, str], ...] = ()

    def say(self, lang: str = EN) -> str:
        """The reason in words: `same op aclnnCast`."""
        return say(lang, self.msg_id, **dict(self.values))


@dataclass
class Match:
    """A remembered case found for the case at hand."""

    case: Case
    similarity: float                    #: 0 to 1
    reasons: list[Reason] = field(default_factory=list)

    def matched(self, lang: str = EN) -> str:
        """What matched, in words: `same EZ1001 template, same op aclnnCast, same chip 910A`."""
        return say(lang, "memory.sep").join(r.say(lang) for r in self.reasons)

    def as_dict(self) -> dict:
        """The match as the JSON contract's `similar` item."""
        c = self.case
        return {"id": c.id, "source": c.source, "url": c.url, "similarity": round(self.similarity, 3),
                "matched": self.matched(EN), "matched_zh": self.matched(ZH),
                "cause": c.fingerprint.cause, "title": c.title,
                "resolution": c.resolution.as_dict() if c.resolution else None}


def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[float, list[str]]:
    """Shared items, as a share of the smaller side (a thread states two codes; a bundle shows twelve)."""
    shared = [x for x in a if x in set(b)]
    return (len(shared) / min(len(a), len(b)) if a and b else 0.0), shared


def _words(fp: Fingerprint) -> frozenset[str]:
    return frozenset(fp.words or words(fp.template))


def _listed(items: list[str], n: int = 3) -> str:
    return ", ".join(items[:n]) + (" ..." if len(items) > n else "")


def _rarity(held: dict[str, int], total: int) -> dict[str, float]:
    """Weight of each word of a template: a word few cases hold says more than a word many hold (inverse
    document frequency, over the memory's own cases)."""
    rarity = {k[2:]: math.log(1 + total / (1 + n)) for k, n in held.items() if k.startswith("w:")}
    rarity[""] = math.log(1 + total)   # a word no case holds
    return rarity


def _worded_alike(a: Fingerprint, b: Fingerprint, rarity: dict[str, float] | None) -> float:
    """The share of `a`'s word weight that `b` shares (0 to 1): plain word overlap without rarities."""
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return 0.0
    if rarity is None:
        return len(wa & wb) / len(wa | wb)
    weight = lambda w: rarity.get(w, rarity[""])
    return sum(weight(w) for w in wa & wb) / sum(weight(w) for w in wa)


def compare(q: Fingerprint, c: Fingerprint, rarity: dict[str, float] | None = None) -> tuple[float, list[Reason]]:
    """How alike `c` is to `q` (0 to 1), and the reasons, weightiest first; `rarity` weighs the words of the
    templates (see similar)."""
    score, most, reasons = 0.0, 0.0, []
    codes, shared_codes = _overlap(q.codes, c.codes)
    if q.template:
        most += WEIGHTS["template"]
        if q.template == c.template:
            score += WEIGHTS["template"]
            reasons.append(Reason("memory.same_template_code", (("code", shared_codes[0]),)) if shared_codes
                           else Reason("memory.same_template"))
        else:
            near = _worded_alike(q, c, rarity)
            if near >= SIMILAR_TEMPLATE:
                # a message worded alike counts by the share of its word weight that is shared: the same template
                # is the share 1
                score += WEIGHTS["template"] * near
                reasons.append(Reason("memory.similar_template"))
    if q.codes:
        most += WEIGHTS["codes"]
        score += WEIGHTS["codes"] * codes
        rest = shared_codes[1:] if reasons and reasons[0].msg_id == "memory.same_template_code" else shared_codes
        if rest:
            reasons.append(Reason("memory.same_codes", (("codes", _listed(rest)),)))
    for name, key, msg in (("ops", "ops", "memory.same_ops"), ("bits", "error_bits", "memory.same_bits")):
        mine = getattr(q, key)
        if mine:
            most += WEIGHTS[name]
            part, shared = _overlap(mine, getattr(c, key))
            score += WEIGHTS[name] * part
            if shared:
                reasons.append(Reason(msg, ((name, _listed(shared)),)))
    for name, msg in (("cause", "memory.same_cause"), ("family", "memory.same_family")):
        mine = getattr(q, name)
        if mine:
            most += WEIGHTS[name]
            if mine == getattr(c, name):
                score += WEIGHTS[name]
                reasons.append(Reason(msg, (("case" if name == "cause" else name, mine),)))
    if q.versions:
        most += WEIGHTS["versions"]
        same = [k for k in VERSION_NAMES if q.versions.get(k) and q.versions.get(k) == c.versions.get(k)]
        score += WEIGHTS["versions"] * len(same) / len(q.versions)
        reasons += [Reason("memory.same_version", (("name", VERSION_NAMES[k]), ("version", q.versions[k])))
                    for k in same]
    if q.chip:
        most += WEIGHTS["chip"]
        if q.chip == c.chip:
            score += WEIGHTS["chip"]
            reasons.append(Reason("memory.same_chip", (("chip", q.chip),)))
    return (min(1.0, score / most) if most else 0.0), reasons


def similar(store: Store, q: Fingerprint, limit: int = 5, exclude: set[str] | frozenset = frozenset(),
            candidates: int = 60) -> list[Match]:
    """The remembered cases most like `q`, best first, at most `limit`, none below FLOOR."""
    keys = q.keys()
    held = store.held(keys)
    rarity = _rarity(held, max(store.count(), 1))
    found = []
    for c in store.candidates(keys, limit=candidates, held=held):
        if c.id in exclude:
            continue
        s, why = compare(q, c.fingerprint, rarity)
        if s >= FLOOR:
            found.append(Match(c, s, why))
    # a tie goes to a solved case, then to the team's own
    found.sort(key=lambda m: (-m.similarity, m.case.resolution is None, m.case.source != "team", m.case.id))
    return found[:limit]
