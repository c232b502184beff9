"""One step of the walk as data, and the small wordings every step uses (places, failure kinds, log lines).

`Step` is what renderers read: the CLI prints it, the report writes it, the widgets show it escaped.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..judging.ranking import Missing
from ..judging.triage import Triage
from ..knowledge.messages import EN, name, pick, say
from .citation import Burst, Cited, bursts

#: Questions a step shows in view; the rest wait behind "more questions".
QUESTIONS_SHOWN = 3


@dataclass
class Cause:
    """A leading cause as the root-cause step shows it beside the others: why it may be, why not, what is unknown."""

    id: str
    title: str
    verdict: str                                              #: in words, in the walk's language
    for_: list[str] = field(default_factory=list)             #: sentences
    against: list[str] = field(default_factory=list)          #: sentences
    missing: list[str] = field(default_factory=list)          #: the questions that would settle it


@dataclass
class Fold:
    """A part of a step shown folded away under its caption: sentences and tables a reader opens on demand."""

    key: str                                                  #: what it holds: candidates or unexplained
    caption: str
    findings: list[str] = field(default_factory=list)
    tables: list = field(default_factory=list)                #: (caption, pandas.DataFrame) pairs
    cited: list[Cited] = field(default_factory=list)          #: the lines behind it (a template's first line)


@dataclass
class Step:
    """One step of the walk in one language; renderers show the fields in this order."""

    key: str                   #: symptom, error_code, pc_start, topology, root_cause or fix
    title: str                 #: the step's title in the walk's language
    title_zh: str              #: the step's title in Chinese, whatever the walk's language
    lang: str = EN             #: en or zh: the language of every sentence below
    conclusion: str = ""       #: one sentence: what this step establishes
    questions: list[Missing] = field(default_factory=list)   #: open questions here, the most useful first
    causes: list[Cause] = field(default_factory=list)   #: the leading causes, side by side (root cause only)
    findings: list[str] = field(default_factory=list)   #: sentences behind the conclusion; a leading "  " is a detail
    tables: list = field(default_factory=list)    #: (caption, pandas.DataFrame) pairs, cells clean (see tables.tidy)
    figures: list = field(default_factory=list)   #: callables returning a matplotlib Figure, drawn on demand
    folds: list[Fold] = field(default_factory=list)     #: parts shown folded away, after the tables
    cited: list[Cited] = field(default_factory=list)   #: evidence lines, each file:line once, in the order cited
    #: the keys of `cited`: a step cites hundreds of lines of a big bundle, each looked for before it is added
    _cited_keys: set = field(default_factory=set, init=False, repr=False, compare=False)

    @property
    def bursts(self) -> list[Burst]:
        """The cited lines grouped: lines of one file close together form one burst."""
        return bursts(self.cited)

    def ask(self, q: Missing) -> str:
        """A question's text in the walk's language."""
        return pick(self.lang, q.ask or q.fact, q.ask_zh)

    @property
    def questions_shown(self) -> list[Missing]:
        """The questions in view: the most useful few."""
        return self.questions[:QUESTIONS_SHOWN]

    @property
    def questions_more(self) -> list[Missing]:
        """The questions behind "more questions"."""
        return self.questions[QUESTIONS_SHOWN:]

    def say(self, msg_id: str, /, **values) -> str:
        """A catalog message in the walk's language."""
        return say(self.lang, msg_id, **values)

    def add(self, msg_id: str, /, **values) -> None:
        """Append a finding worded by the catalog."""
        self.findings.append(say(self.lang, msg_id, **values))

    def cites(self, c: Cited) -> bool:
        """Does this step cite that line already?"""
        return c.key in self._cited_keys

    def cite(self, c: Cited) -> None:
        """Cite a line unless this step already does."""
        if c.key not in self._cited_keys:
            self._cited_keys.add(c.key)
            self.cited.append(c)



def place(s: Step, device=None, rank=None, node=None, pid=None) -> str:
    """Where something happened, naming only what is known: `device 0 (rank 3) of worker-1`."""
    parts = []
    if device is not None:
        parts.append(s.say("place.device", device=device))
    if rank is not None:
        parts.append(s.say("place.rank", rank=rank))
    if pid is not None:
        parts.append(s.say("place.pid", pid=pid))
    if node:
        parts.append(s.say("place.node", node=node))
    return s.say("list.sep").join(parts) if parts else s.say("place.unknown")


def kind_words(s: Step, kind: str) -> str:
    """A failure kind in words; a kind the catalog does not name stays as its code name."""
    return name(s.lang, "kind", kind)


def line_text(t: Triage, file: str, line: int) -> str | None:
    """The message of one line of the bundle, as the reader kept it (None when it kept no record of it)."""
    r = t.log.records
    hit = r.loc[(r["file"] == file) & (r["line"] == line), "msg"]
    return str(hit.iloc[0]) if len(hit) else None
