"""The rule vocabulary of knowledge-base front matter: signatures over the evidence, fact conditions, and
their parsing with problems at file:line."""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from .document import KbDocument
from .literals import Required, required
from .programs import Regex
from .terms import TERMS
from .vocabulary import FACTS

#: Observation fields a signature may test (built by ranking from the evidence).
SIGNATURE_FIELDS = ("aicore_fault", "error_bits", "op", "kernel", "code", "message", "function", "source",
                    "pc_verdict", "rejected", "rejected_rule", "fact")
#: The value an `error_bits` observation takes when a fault's extend triple has no bit set.
NO_BIT = "none"
MATCHERS = ("equals", "in", "contains", "regex")
#: The value of a `fact` observation: a yes-or-no fact a log line states, with its value (`port_in_use=true`).
_STATED = re.compile(r"(\w+)=(true|false)")
#: The matcher of a signature that names another case's signature (`same_as: case#signature`) until the knowledge
#: base resolves it (kb.py): one pattern, written once, read by both cases.
SAME_AS = "same_as"
#: The keys that say what a signature's match means; its test is `field` and one of MATCHERS, or a `same_as`.
_OWN_KEYS = {"id", "weight", "key", "why", "group", "shared", "places"}
_NO_WHY = "an entry of contradicted_by needs a 'why' (what the match points to instead)"
#: The front-matter section of a family's questions.
QUESTIONS = "questions"


@dataclass(frozen=True)
class Signature:
    """A pattern in the evidence that speaks for a case."""

    id: str
    field: str
    matcher: str
    value: object
    weight: int
    key: bool
    why: str
    group: str = ""   #: signatures of one group are alternatives (other wordings, other codes of one fact)
    #: a sign the case's siblings print too (a code or a wording several causes share): it makes the case likely,
    #: never confirmed on its own; a sign of its own, or a fact, settles it
    shared: bool = False
    #: a sign that only failures of the case's family print (a media unit's own argument check): it places the case in
    #: its family as the family's signs would, so a line the family's signs do not name can still settle the case
    places: bool = False
    #: of a `regex` signature: literals one of which every match holds (literals.py), a cheap test before the
    #: regex; read from the pattern when the signature is loaded, so a knowledge base kept on disk keeps them
    needles: Required | None = dataclasses.field(default=None, compare=False, repr=False)
    #: of a `regex` signature: the regex, which a knowledge base kept on disk keeps compiled (programs.py)
    regex: Regex | None = dataclasses.field(default=None, compare=False, repr=False)

    def test(self, observed: object) -> bool:
        """Does one observed value match?"""
        if self.matcher == "equals":
            return observed == self.value
        if self.matcher == "in":
            return observed in self.value
        if self.matcher == "contains":
            return str(self.value) in str(observed)
        text = str(observed)
        if self.needles is None:
            return self.pattern.search(text) is not None
        # a regex that is nothing but its literals is answered by them alone
        return self.needles.may_match(text) and (self.needles.exact or self.pattern.search(text) is not None)

    @property
    def pattern(self) -> re.Pattern:
        """The compiled regex of a `regex` signature."""
        return self.regex.pattern if self.regex is not None else re.compile(str(self.value))


@dataclass(frozen=True)
class Reference:
    """The signature a `same_as` names (`case#signature`), and the line of the front matter that names it."""

    target: str
    line: int

    @property
    def parts(self) -> tuple[str, str]:
        case, _, sig = self.target.partition("#")
        return case, sig


def resolved(sig: Signature, target: Signature) -> Signature:
    """A `same_as` signature given the test (field, matcher, value) of the signature it names."""
    return dataclasses.replace(target, id=sig.id, weight=sig.weight, key=sig.key, why=sig.why, group=sig.group,
                               shared=sig.shared, places=sig.places)


@dataclass(frozen=True)
class Condition:
    """A fact test: required, against, or supporting."""

    fact: str
    matcher: str
    value: object
    ask: str | None = None
    ask_zh: str | None = None
    why: str | None = None
    weight: int = 1   #: what a supporting fact that holds adds to the score (the front matter's default too)

    def holds(self, value: object) -> bool:
        """Does the fact's value satisfy this condition?"""
        return value in self.value if self.matcher == "in" else value == self.value


def stated(name: str, value: bool) -> str:
    """The value of the `fact` observation of a yes-or-no fact a log line states (`port_in_use=true`)."""
    return f"{name}={str(value).lower()}"


def _fact_problems(raw: dict) -> list[str]:
    """What is wrong with a `fact` signature: it equals a known yes-or-no fact with its value."""
    m = _STATED.fullmatch(str(raw.get("equals", "")))
    if "equals" not in raw or not m:
        return ["a fact signature equals a yes-or-no fact with its value, as name=true or name=false"]
    if m.group(1) not in FACTS or FACTS[m.group(1)].kind != "bool":
        return [f"a fact signature names a yes-or-no fact of the vocabulary, not {m.group(1)!r}"]
    return []


def scoring_units(signatures: list[Signature]) -> dict[str, list[Signature]]:
    """Signatures by scoring unit: a named group (alternatives that count once), or the signature alone."""
    out: dict[str, list[Signature]] = {}
    for s in signatures:
        out.setdefault(s.group or f"#{s.id}", []).append(s)
    return out


def bits_only(signatures: list[Signature]) -> bool:
    """Is every key unit an error bit that fired (an `error_bits` signature, alone or grouped with its text)?"""
    keyed = [sigs for sigs in scoring_units(signatures).values() if any(s.key for s in sigs)]
    # `none` (the triple (0, 0, 0)) is no bit: a timeout's evidence is its retCode, judged as any code is
    return bool(keyed) and all(any(s.field == "error_bits" and s.value != NO_BIT for s in sigs) for sigs in keyed)


def check_keys(doc: KbDocument, allowed: set, required: set) -> None:
    for k in doc.data:
        if k not in allowed:
            doc.problem(doc.line(k), f"unknown key {k!r}")
    for k in sorted(required - set(doc.data)):
        doc.problem(1, f"missing key {k!r}")


def enum(doc: KbDocument, key: str, allowed: tuple, default: str) -> str:
    value = doc.data.get(key, default)
    if value not in allowed and key in doc.data:
        doc.problem(doc.line(key), f"{key} must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


#: A term's place in a regex: `<<name>>` (never a regex's own syntax: `(?P<name>` and `(?<=` hold one `<`).
_TERM = re.compile(r"<<(\w+)>>")


def terms(doc: KbDocument) -> dict[str, tuple[str, ...]]:
    """The terms the document's regexes may name: its own `terms` (named lists of words its regexes share, a package
    list several wordings name) and the shared ones (terms.py)."""
    raw = doc.data.get("terms") or {}
    if not (isinstance(raw, dict) and all(isinstance(k, str) and re.fullmatch(r"\w+", k) and isinstance(v, list) and v
                                          and all(isinstance(w, str) and w for w in v) for k, v in raw.items())):
        doc.problem(doc.line("terms"), "terms map a name (letters, digits, _) to a list of words")
        return dict(TERMS)
    for name in sorted(set(raw) & set(TERMS)):
        doc.problem(doc.line("terms"), f"term {name!r} is a shared term (knowledge/terms.py): name it, do not redefine it")
    return {**TERMS, **{k: tuple(v) for k, v in raw.items() if k not in TERMS}}


def with_terms(pattern: str, named: dict[str, tuple[str, ...]]) -> tuple[str, list[str]]:
    """`pattern` with each `<<name>>` replaced by its words as alternatives, and the names it uses that `named`
    lacks."""
    unknown = sorted({m.group(1) for m in _TERM.finditer(pattern)} - set(named))
    expanded = _TERM.sub(lambda m: "(?:" + "|".join(re.escape(w) for w in named.get(m.group(1), ())) + ")", pattern)
    return expanded, unknown


def signature(doc: KbDocument, i: int, raw, section: str = "signatures",
              named: dict[str, tuple[str, ...]] | None = None) -> Signature | None:
    """The signature of a front-matter entry; `named` are the document's terms (`terms`), which its regex may name."""
    where = doc.line(section, i)
    if not isinstance(raw, dict):
        doc.problem(where, "a signature is a mapping")
        return None
    if SAME_AS in raw:
        return _same_as(doc, where, raw, section)
    matchers = [m for m in MATCHERS if m in raw]
    problems = []
    if raw.get("field") not in SIGNATURE_FIELDS:
        problems.append(f"field must be one of {', '.join(SIGNATURE_FIELDS)}, not {raw.get('field')!r}")
    if len(matchers) != 1:
        problems.append(f"a signature has exactly one of {', '.join(MATCHERS)}")
    elif matchers[0] == "regex":
        pattern, unknown_terms = with_terms(str(raw["regex"]), named or {})
        raw = {**raw, "regex": pattern}
        if unknown_terms:
            problems.append(f"regex names terms neither the document's `terms` nor the shared ones hold: "
                            f"{', '.join(unknown_terms)}")
        try:
            compiled = re.compile(pattern)
        except re.error as e:
            problems.append(f"regex does not compile: {e}")
    if raw.get("field") == "fact":
        problems += _fact_problems(raw)
    problems += _own_problems(raw)
    for p in problems:
        doc.problem(where, p)
    if problems:
        return None
    m = matchers[0]
    unknown = set(raw) - _OWN_KEYS - {"field", *MATCHERS}
    if unknown:
        doc.problem(where, f"unknown signature key(s) {sorted(unknown)}")
    if section == "contradicted_by" and not raw.get("why"):
        doc.problem(where, _NO_WHY)
    if m == "regex":
        return _built(raw, raw["field"], m, raw[m], required(str(raw[m])), Regex(str(raw[m]), compiled))
    return _built(raw, raw["field"], m, raw[m])


def _same_as(doc: KbDocument, where: int, raw: dict, section: str) -> Signature | None:
    """A signature whose test is another case's signature: only what the match means here is its own."""
    problems = []
    if not re.fullmatch(r"[\w.-]+#[\w.-]+", str(raw[SAME_AS])):
        problems.append(f"same_as names a signature as case#signature, not {raw[SAME_AS]!r}")
    unknown = set(raw) - _OWN_KEYS - {SAME_AS}
    if unknown:
        problems.append(f"a signature given by same_as takes its test from it: no {sorted(unknown)}")
    problems += _own_problems(raw)
    if section == "contradicted_by" and not raw.get("why"):
        problems.append(_NO_WHY)
    for p in problems:
        doc.problem(where, p)
    if problems:
        return None
    return _built(raw, "", SAME_AS, Reference(str(raw[SAME_AS]), where))


def _own_problems(raw: dict) -> list[str]:
    """What is wrong with the keys that say what a signature's match means: its weight and its id."""
    problems = []
    weight = raw.get("weight", 1)
    # bool is an int to Python, and `weight: yes` is a slip, not a weight of 1
    if isinstance(weight, bool) or not isinstance(weight, int) or not 1 <= weight <= 3:
        problems.append("weight is an integer from 1 to 3")
    if not raw.get("id"):
        problems.append("a signature needs an id")
    return problems


def _built(raw: dict, field: str, matcher: str, value: object, needles: Required | None = None,
           regex: Regex | None = None) -> Signature:
    """The signature of a checked front-matter entry, given its test."""
    return Signature(str(raw["id"]), field, matcher, value, raw.get("weight", 1), bool(raw.get("key", False)),
                     str(raw.get("why", "")), str(raw.get("group", "")), bool(raw.get("shared", False)),
                     bool(raw.get("places", False)), needles, regex)


def condition(doc: KbDocument, section: str, i: int, raw) -> Condition | None:
    where = doc.line(section, i)
    if not isinstance(raw, dict) or "fact" not in raw:
        doc.problem(where, f"an entry of {section} is a mapping with a 'fact'")
        return None
    if raw["fact"] not in FACTS:
        doc.problem(where, f"unknown fact {raw['fact']!r}; known: {', '.join(FACTS)}")
        return None
    matchers = [m for m in ("equals", "in") if m in raw]
    if section == QUESTIONS:
        # a family's question only words how to ask for a fact; its causes hold the tests
        if matchers or not raw.get("ask"):
            doc.problem(where, "a question has a 'fact' and an 'ask' (and 'ask_zh'), and no equals / in")
        return Condition(raw["fact"], "asks", None, raw.get("ask"), raw.get("ask_zh"))
    if len(matchers) != 1:
        doc.problem(where, "a fact test has exactly one of equals, in")
        return None
    if section in ("requires", "supports") and not raw.get("ask"):
        doc.problem(where, f"an entry of {section} needs an 'ask' (the question the walk puts)")
    if section == "against" and not raw.get("why"):
        doc.problem(where, "an entry of against needs a 'why'")
    weight = raw.get("weight", 1)
    # bool is an int to Python, and `weight: yes` is a slip, not a weight of 1
    if isinstance(weight, bool) or not isinstance(weight, int) or not 1 <= weight <= 3:
        doc.problem(where, f"weight is an integer from 1 to 3, not {weight!r}")
        weight = 1
    m = matchers[0]
    return Condition(raw["fact"], m, raw[m], raw.get("ask"), raw.get("ask_zh"), raw.get("why"), weight)
