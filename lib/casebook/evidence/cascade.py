"""Cascade roles of error lines: which line is a cause, and which is fallout, a wrapper or a generic code.

The rules are data (data/cascade-rules.tsv): each row a regex, the role it gives a line and, for causes,
the kind of failure. The first matching row wins, so the specific fallout codes (507899, 107022) and the
wrappers (torch_npu ERRxxxxx, Python tracebacks, synchronize calls) come before the causes they carry. A row
whose pattern is `@formats` stands for the format catalog: a line of any catalog form with a failure kind is
a cause of that kind (knowledge/data/formats.tsv holds those forms, every CANN wording of each).
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..knowledge import formats
from ..knowledge.literals import Required, required

CAUSE = "cause"
FALLOUT = "fallout"
WRAPPER = "wrapper"
GENERIC = "generic"
DECORATION = "decoration"
BENIGN = "benign"
ROLES = (CAUSE, FALLOUT, WRAPPER, GENERIC, DECORATION, BENIGN)

#: Failure kinds that are a device's own fault; HCCL timeouts on other ranks after one of these are consequences.
DEVICE_FAULTS = ("aicore_exception", "aicpu_exception", "hardware_error", "hwts_timeout", "heartbeat_lost",
                 "device_lost", "sdma_error", "ts_exception", "driver_exception")
#: Failure kinds that other ranks' faults can cause.
PEER_SYMPTOMS = ("hccl_timeout", "link_failure")


@dataclass(frozen=True)
class Rule:
    """One row of the cascade table."""

    role: str
    kind: str | None
    pattern: re.Pattern | None   #: None: the format catalog's forms
    why: str
    row: int     #: line in the TSV, for error messages
    needs: Required | None = None   #: literals one of which every match holds (None: none can be named)

    def matches(self, text: str) -> bool:
        """Whether the row's pattern is found in the text (a text without the literals it needs is not searched)."""
        if self.needs is None:
            return self.pattern.search(text) is not None
        return self.needs.may_match(text) and (self.needs.exact or self.pattern.search(text) is not None)


#: The pattern of the row that stands for the format catalog.
CATALOG = "@formats"


class RuleError(ValueError):
    """A cascade rule that cannot be used; the message names the file and line."""


@lru_cache(maxsize=1)
def rules() -> tuple[Rule, ...]:
    """The cascade rules, in the table's order."""
    return _read_rules()


def _read_rules() -> tuple[Rule, ...]:
    """The cascade rules read from the table, in its order (uncached: mutation testing reaches this body)."""
    text = resources.files("casebook.knowledge").joinpath("data/cascade-rules.tsv").read_text(encoding="utf-8")
    out = []
    for row, r in enumerate(csv.DictReader(text.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE), start=2):
        if r["role"] not in ROLES:
            raise RuleError(f"data/cascade-rules.tsv:{row}: unknown role {r['role']!r}")
        try:
            pattern = None if r["pattern"] == CATALOG else re.compile(r["pattern"])
        except re.error as e:
            raise RuleError(f"data/cascade-rules.tsv:{row}: bad pattern: {e}") from e
        out.append(Rule(r["role"], None if r["kind"] in ("", "-") else r["kind"], pattern, r["why"], row,
                        None if pattern is None else required(pattern.pattern)))
    return tuple(out)


@lru_cache(maxsize=4096)   # a big bundle repeats each error message on every rank
def classify(text: str) -> tuple[str, str | None, str]:
    """(role, kind, why) of one error line; a line no rule names is a cause of unknown kind. A wrapper or
    fallout line of a catalog form keeps its role and takes the form's kind (what it passes on)."""
    return _classify(text)


def _classify(text: str) -> tuple[str, str | None, str]:
    """(role, kind, why) of one error line, uncached."""
    for rule in rules():
        if rule.pattern is None:
            if hit := formats.failures().first(text):
                return rule.role, hit.form.kind, f"{rule.why} ({hit.form.family}: {hit.form.form})"
        elif rule.matches(text):
            hit = None if rule.kind else formats.failures().first(text)
            return rule.role, hit.form.kind if hit else rule.kind, rule.why
    return CAUSE, None, "no rule marks it as fallout or a wrapper"
