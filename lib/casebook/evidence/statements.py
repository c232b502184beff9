"""Lines that state a cause in words: a framework or the runtime saying what it found ("may be other processes
occupying this card"). Such a line is evidence for the fact it states, cited to its file and line, so no
question is asked about it.
"""
from __future__ import annotations

import re

from ..reading.plog import LogTable
from ..reading.scan import any_of
from .items import Fact

#: (fact, value, regex) of the statements read.
STATEMENTS: tuple[tuple[str, object, re.Pattern], ...] = (
    ("other_processes_on_card", True,
     re.compile(r"(?i)other process(?:es)? (?:is |are )?occupying (?:this|the) (?:card|device)|"
                r"(?:card|device|npu) (?:may be |might be |is )?(?:occupied|in use) by (?:an)?other process")),
)
#: Lines this family reads.
KEEP = ("occupying", "occupied by", "in use by")


def extract(log: LogTable) -> dict[str, Fact]:
    """The first line stating each fact, as that fact with its file and line."""
    r = log.records
    hits = r[r["msg"].str.contains(any_of(KEEP), regex=True)]
    facts: dict[str, Fact] = {}
    for file, line, msg in hits[["file", "line", "msg"]].itertuples(index=False):
        for name, value, pattern in STATEMENTS:
            if name not in facts and pattern.search(msg):
                facts[name] = Fact(name, value, "log", file, int(line))
    return facts
