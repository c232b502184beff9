"""Load the knowledge base: case files and code pages (markdown with YAML front matter).

Every problem found while loading is collected with its file and line; a file with problems is still
loaded as far as it can be, so one bad case never hides the others.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .document import KbDocument, Problem, sections
from .vocabulary import FACTS

CASE_KEYS = {"id", "title", "title_zh", "status", "severity", "action", "summary", "components", "codes",
             "signatures", "contradicted_by", "requires", "against", "supports", "fix", "references"}
CASE_REQUIRED = CASE_KEYS - {"supports", "components", "contradicted_by"}
CODE_KEYS = {"code", "kind", "title", "title_zh", "meaning", "cases", "index", "word", "mask", "maps_to", "name",
             "table"}
CODE_REQUIRED = {"code", "kind", "title", "meaning", "cases"}
STATUSES = ("draft", "verified")
SEVERITIES = ("low", "medium", "high", "critical")
ACTIONS = ("fix-config", "upgrade", "fix-operator", "hardware", "collect-more")
CODE_KINDS = ("ecode", "runtime", "retcode", "errcode_bit")
SECTIONS = ("Symptom", "Root cause", "How to confirm", "Fix", "Confirming the fix", "References")
#: Observation fields a signature may test (built by ranking from the evidence).
SIGNATURE_FIELDS = ("aicore_fault", "error_bits", "op", "kernel", "code", "message", "pc_verdict")
#: The value an `error_bits` observation takes when a fault's extend triple has no bit set.
NO_BIT = "none"
#: Columns that name the code of a row in a table page.
TABLE_CODE_COLUMNS = ("code", "name")
MATCHERS = ("equals", "in", "contains", "regex")
FIX_KEYS = {"workaround", "fix", "version_advice", "confirm"}


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

    def test(self, observed: object) -> bool:
        """Does one observed value match?"""
        if self.matcher == "equals":
            return observed == self.value
        if self.matcher == "in":
            return observed in self.value
        if self.matcher == "contains":
            return str(self.value) in str(observed)
        return self.pattern.search(str(observed)) is not None

    @cached_property
    def pattern(self) -> re.Pattern:
        """The compiled regex of a `regex` signature."""
        return re.compile(str(self.value))


@dataclass(frozen=True)
class Condition:
    """A fact test: required, against, or supporting."""

    fact: str
    matcher: str
    value: object
    ask: str | None = None
    ask_zh: str | None = None
    why: str | None = None
    weight: int = 0

    def holds(self, value: object) -> bool:
        """Does the fact's value satisfy this condition?"""
        return value in self.value if self.matcher == "in" else value == self.value


@dataclass
class KnownCase:
    """One case of the knowledge base."""

    id: str
    path: str
    title: str = ""
    title_zh: str = ""
    status: str = "draft"
    severity: str = "medium"
    action: str = "collect-more"
    summary: str = ""
    components: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    signatures: list[Signature] = field(default_factory=list)
    contradicted_by: list[Signature] = field(default_factory=list)   #: log evidence that points to another cause
    requires: list[Condition] = field(default_factory=list)
    against: list[Condition] = field(default_factory=list)
    supports: list[Condition] = field(default_factory=list)
    fix: dict[str, str] = field(default_factory=dict)
    references: list[dict] = field(default_factory=list)
    sections: dict[str, str] = field(default_factory=dict)
    body: str = ""


@dataclass
class CodePage:
    """One error-code page."""

    code: str
    path: str
    kind: str = ""
    title: str = ""
    title_zh: str = ""
    meaning: str = ""
    cases: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    body: str = ""
    line: int = 1          #: where the code is defined (a table page's row)
    table: str | None = None   #: the table page this code is a row of


@dataclass
class KnowledgeBase:
    """All cases and code pages, and the problems found loading them."""

    root: Path
    cases: dict[str, KnownCase] = field(default_factory=dict)
    codes: dict[str, CodePage] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def default_root() -> Path:
    """`$CASEBOOK_KB`, else the `kb/` folder of the source tree this package runs from."""
    env = os.environ.get("CASEBOOK_KB")
    return Path(env) if env else Path(__file__).resolve().parents[3] / "kb"


def load_kb(root: str | os.PathLike | None = None) -> KnowledgeBase:
    """Load every case and code page under `root` (default: the project's `kb/`)."""
    root = Path(root) if root is not None else default_root()
    kb = KnowledgeBase(root=root)
    if not root.is_dir():
        kb.problems.append(Problem(str(root), 0, "knowledge base folder not found"))
        return kb
    for path in sorted((root / "cases").glob("*.md")):
        case = _load_case(path, path.relative_to(root.parent).as_posix(), kb.problems)
        if case.id in kb.cases:
            kb.problems.append(Problem(case.path, 1, f"duplicate case id {case.id!r} (also {kb.cases[case.id].path})"))
        kb.cases[case.id] = case
    rows: list[CodePage] = []
    for path in sorted((root / "codes").glob("*.md")):
        page = _load_code(path, path.relative_to(root.parent).as_posix(), kb.problems, rows)
        if page.code in kb.codes:
            kb.problems.append(Problem(page.path, 1, f"duplicate code {page.code!r} (also {kb.codes[page.code].path})"))
        kb.codes[page.code] = page
    for row in rows:   # a code with a page of its own keeps it; its table row must agree on the cases
        own = kb.codes.get(row.code)
        if own is None:
            kb.codes[row.code] = row
        elif sorted(own.cases) != sorted(row.cases):
            kb.problems.append(Problem(row.path, row.line, f"row of {row.code!r} lists cases {row.cases}, its own page "
                                                           f"{own.path} lists {own.cases}"))
    return kb


def _load_case(path: Path, rel: str, problems: list[Problem]) -> KnownCase:
    doc = KbDocument(path, rel, problems)
    d = doc.data
    case = KnownCase(id=str(d.get("id", path.stem)), path=rel, body=doc.body)
    if not d:
        return case
    _check_keys(doc, CASE_KEYS, CASE_REQUIRED)
    for name in ("title", "title_zh", "summary"):
        setattr(case, name, str(d.get(name, "")))
    case.status = _enum(doc, "status", STATUSES, "draft")
    case.severity = _enum(doc, "severity", SEVERITIES, "medium")
    case.action = _enum(doc, "action", ACTIONS, "collect-more")
    case.components = [str(c) for c in d.get("components") or []]
    case.codes = [str(c) for c in d.get("codes") or []]
    for name in ("signatures", "contradicted_by"):
        setattr(case, name, [s for i, raw in enumerate(d.get(name) or []) if (s := _signature(doc, i, raw, name))])
    for name in ("requires", "against", "supports"):
        setattr(case, name, [c for i, raw in enumerate(d.get(name) or []) if (c := _condition(doc, name, i, raw))])
    case.fix = d.get("fix") or {}
    if not isinstance(case.fix, dict) or set(case.fix) - FIX_KEYS or not {"workaround", "confirm"} <= set(case.fix):
        doc.problem(doc.line("fix"), f"fix must map {sorted(FIX_KEYS)} (workaround and confirm required)")
        case.fix = case.fix if isinstance(case.fix, dict) else {}
    case.references = list(d.get("references") or [])
    for i, ref in enumerate(case.references):
        if not (isinstance(ref, dict) and str(ref.get("url", "")).startswith("http") and ref.get("title")):
            doc.problem(doc.line("references", i), "a reference needs a title and an http(s) url")
    case.sections = sections(doc.body)
    for name in SECTIONS:
        if name not in case.sections:
            doc.problem(doc.body_line, f"body lacks the section '## {name}'")
    return case


def _load_code(path: Path, rel: str, problems: list[Problem], rows: list[CodePage]) -> CodePage:
    doc = KbDocument(path, rel, problems)
    d = doc.data
    page = CodePage(code=str(d.get("code", path.stem)), path=rel, body=doc.body)
    if not d:
        return page
    _check_keys(doc, CODE_KEYS, CODE_REQUIRED)
    page.kind = _enum(doc, "kind", CODE_KINDS, "")
    page.title, page.title_zh, page.meaning = (str(d.get(k, "")) for k in ("title", "title_zh", "meaning"))
    page.cases = [str(c) for c in d.get("cases") or []]
    page.extra = {k: d[k] for k in ("index", "word", "mask", "maps_to", "name") if k in d}
    if d.get("table"):
        rows += _table_rows(doc, page)
    return page


def _table_rows(doc: KbDocument, page: CodePage) -> list[CodePage]:
    """The rows of a table page's markdown table, one code each, with their file line."""
    out: list[CodePage] = []
    header: list[str] | None = None
    for no, line in enumerate(doc.body.splitlines(), start=doc.body_line):
        if not line.startswith("|"):
            if header is not None and out:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = [c.lower() for c in cells]
            if "meaning" not in header or "cases" not in header or not set(TABLE_CODE_COLUMNS) & set(header):
                doc.problem(no, "a table page's table needs a code (or name), a meaning and a cases column")
                return []
            continue
        if set(line.replace("|", "").strip()) <= set("-: "):
            continue
        if len(cells) != len(header):
            doc.problem(no, f"table row has {len(cells)} cells, the header {len(header)}")
            continue
        row = dict(zip(header, cells))
        code = next(row[c] for c in TABLE_CODE_COLUMNS if c in row).strip("`")
        cases = [c.strip().strip("`") for c in row["cases"].split(",") if c.strip() and c.strip() != "-"]
        out.append(CodePage(code=code, path=page.path, kind=page.kind, title=code, meaning=row["meaning"], cases=cases,
                            extra={k: v.strip("`") for k, v in row.items() if k not in ("meaning", "cases")},
                            line=no, table=page.code))
    if header is None:
        doc.problem(doc.body_line, "a table page has no markdown table")
    return out


def _check_keys(doc: KbDocument, allowed: set, required: set) -> None:
    for k in doc.data:
        if k not in allowed:
            doc.problem(doc.line(k), f"unknown key {k!r}")
    for k in sorted(required - set(doc.data)):
        doc.problem(1, f"missing key {k!r}")


def _enum(doc: KbDocument, key: str, allowed: tuple, default: str) -> str:
    value = doc.data.get(key, default)
    if value not in allowed and key in doc.data:
        doc.problem(doc.line(key), f"{key} must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


def _signature(doc: KbDocument, i: int, raw, section: str = "signatures") -> Signature | None:
    where = doc.line(section, i)
    if not isinstance(raw, dict):
        doc.problem(where, "a signature is a mapping")
        return None
    matchers = [m for m in MATCHERS if m in raw]
    problems = []
    if raw.get("field") not in SIGNATURE_FIELDS:
        problems.append(f"field must be one of {', '.join(SIGNATURE_FIELDS)}, not {raw.get('field')!r}")
    if len(matchers) != 1:
        problems.append(f"a signature has exactly one of {', '.join(MATCHERS)}")
    elif matchers[0] == "regex":
        try:
            re.compile(str(raw["regex"]))
        except re.error as e:
            problems.append(f"regex does not compile: {e}")
    weight = raw.get("weight", 1)
    if not isinstance(weight, int) or not 1 <= weight <= 3:
        problems.append("weight is an integer from 1 to 3")
    if not raw.get("id"):
        problems.append("a signature needs an id")
    for p in problems:
        doc.problem(where, p)
    if problems:
        return None
    m = matchers[0]
    unknown = set(raw) - {"id", "field", "weight", "key", "why", "group", *MATCHERS}
    if unknown:
        doc.problem(where, f"unknown signature key(s) {sorted(unknown)}")
    if section == "contradicted_by" and not raw.get("why"):
        doc.problem(where, "an entry of contradicted_by needs a 'why' (what the match points to instead)")
    return Signature(str(raw["id"]), raw["field"], m, raw[m], weight, bool(raw.get("key", False)), str(raw.get("why", "")),
                     str(raw.get("group", "")))


def _condition(doc: KbDocument, section: str, i: int, raw) -> Condition | None:
    where = doc.line(section, i)
    if not isinstance(raw, dict) or "fact" not in raw:
        doc.problem(where, f"an entry of {section} is a mapping with a 'fact'")
        return None
    if raw["fact"] not in FACTS:
        doc.problem(where, f"unknown fact {raw['fact']!r}; known: {', '.join(FACTS)}")
        return None
    matchers = [m for m in ("equals", "in") if m in raw]
    if len(matchers) != 1:
        doc.problem(where, "a fact test has exactly one of equals, in")
        return None
    if section in ("requires", "supports") and not raw.get("ask"):
        doc.problem(where, f"an entry of {section} needs an 'ask' (the question the walk puts)")
    if section == "against" and not raw.get("why"):
        doc.problem(where, "an entry of against needs a 'why'")
    m = matchers[0]
    return Condition(raw["fact"], m, raw[m], raw.get("ask"), raw.get("ask_zh"), raw.get("why"), int(raw.get("weight", 1)))
