"""Load the knowledge base: symptom families, root-cause cases and code pages (markdown with YAML front matter).

Every problem found while loading is collected with its file and line; a file with problems is still
loaded as far as it can be, so one bad case never hides the others.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from . import mindie
from .cache import kept
from .codes import KINDS_BY_SIGHTING, CodeRow, hccl_result, is_hccl_errno, load_tables
from .document import KbDocument, Problem, sections
from .literals import Index
from .rules import SAME_AS, Condition, Signature, check_keys, condition, enum, resolved, signature, terms

CASE_KEYS = {"id", "title", "title_zh", "status", "severity", "action", "summary", "summary_zh", "family", "components",
             "codes", "signatures", "contradicted_by", "requires", "against", "supports", "fix", "fix_zh", "references",
             "terms"}
CASE_REQUIRED = CASE_KEYS - {"supports", "components", "contradicted_by", "family", "summary_zh", "fix_zh", "terms"}
FAMILY_KEYS = {"id", "title", "title_zh", "summary", "summary_zh", "signatures", "contradicted_by", "questions",
               "references", "terms", "fallback"}
FAMILY_REQUIRED = FAMILY_KEYS - {"contradicted_by", "questions", "terms", "fallback"}
FAMILY_SECTIONS = ("Symptom", "How the causes differ", "References")
CODE_KEYS = {"code", "kind", "title", "title_zh", "meaning", "meaning_zh", "cases", "index", "word", "mask", "maps_to",
             "name", "table"}
CODE_REQUIRED = {"code", "kind", "title", "meaning", "cases"}
STATUSES = ("draft", "verified")
SEVERITIES = ("low", "medium", "high", "critical")
ACTIONS = ("fix-config", "upgrade", "fix-operator", "hardware", "collect-more")
CODE_KINDS = ("ecode", "runtime", "retcode", "errcode_bit")
SECTIONS = ("Symptom", "Root cause", "How to confirm", "Fix", "Confirming the fix", "References")
#: Columns that name the code of a row in a table page.
TABLE_CODE_COLUMNS = ("code", "name")
FIX_KEYS = {"workaround", "fix", "version_advice", "confirm"}


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
    summary_zh: str = ""
    family: str = ""       #: id of the symptom family this root cause belongs to
    components: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    signatures: list[Signature] = field(default_factory=list)
    contradicted_by: list[Signature] = field(default_factory=list)   #: log evidence that points to another cause
    requires: list[Condition] = field(default_factory=list)
    against: list[Condition] = field(default_factory=list)
    supports: list[Condition] = field(default_factory=list)
    fix: dict[str, str] = field(default_factory=dict)
    fix_zh: dict[str, str] = field(default_factory=dict)
    references: list[dict] = field(default_factory=list)
    sections: dict[str, str] = field(default_factory=dict)
    body: str = ""


@dataclass
class Family:
    """A symptom family: the signatures that place a failure in it, and the root causes it splits into."""

    id: str
    path: str
    title: str = ""
    title_zh: str = ""
    summary: str = ""
    summary_zh: str = ""
    signatures: list[Signature] = field(default_factory=list)
    contradicted_by: list[Signature] = field(default_factory=list)
    questions: list[Condition] = field(default_factory=list)   #: how to ask for the facts that split the causes
    references: list[dict] = field(default_factory=list)
    causes: list[str] = field(default_factory=list)            #: ids of the cases that name this family
    sections: dict[str, str] = field(default_factory=dict)
    body: str = ""
    fallback: bool = False   #: its signs are generic: the failure is placed in it only when no other family holds
    # a family is judged like a case with no facts of its own
    requires: tuple = ()
    against: tuple = ()
    supports: tuple = ()


@dataclass
class CodePage:
    """One error-code page."""

    code: str
    path: str
    kind: str = ""
    title: str = ""
    title_zh: str = ""
    meaning: str = ""
    meaning_zh: str = ""
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
    families: dict[str, Family] = field(default_factory=dict)
    codes: dict[str, CodePage] = field(default_factory=dict)
    catalog: list[CodeRow] = field(default_factory=list)   #: every row of the public code catalogs
    #: what each field of a MindIE code says (mindie.index of its table)
    mindie_fields: dict[mindie.Key, mindie.FieldValue] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    #: by field, the literals of every regex signature (cases', families', contradictions'), made when loaded
    needles: dict[str, Index] = field(default_factory=dict, repr=False, compare=False)

    def explains(self, code: str) -> bool:
        """Whether a catalog explains a code as a log prints it: its own page or row, or for an HCCL errNo the
        result it carries."""
        return (code in self.codes or (is_hccl_errno(code) and self.code_page(code, "hccl_errno") is not None)
                or mindie.decode(code, self.mindie_fields) is not None)

    def code_page(self, code: str, sighting: str | None = None) -> CodePage | None:
        """The page of a code; given what named it in the log (a sighting family of evidence/codes.py), only a
        page of a kind that family can be, else that kind's catalog row, else None."""
        if sighting == "hccl_errno":
            code = hccl_result(code)
        page = self.codes.get(code)
        kinds = KINDS_BY_SIGHTING.get(sighting) if sighting is not None else None
        if kinds is None or (page is not None and page.kind in kinds):
            return page
        row = next((r for r in self.catalog if r.code == code and r.kind in kinds), None)
        if row is None and "mindie" in kinds:
            return self._mindie_page(code)
        return None if row is None else CodePage(code=row.code, path=row.path, kind=row.kind, title=row.name,
                                                 meaning=row.meaning, meaning_zh=row.meaning_zh, line=row.line)

    def _mindie_page(self, code: str) -> CodePage | None:
        """The page of a MindIE code no reference page lists, read from its fields."""
        read = mindie.decode(code, self.mindie_fields)
        if read is None:
            return None
        return CodePage(code=code, path=(Path(self.root.name) / mindie.FIELDS).as_posix(), kind="mindie",
                        title=read.title, meaning=read.meaning, meaning_zh=read.meaning_zh, line=read.line,
                        extra={"source": " ".join(dict.fromkeys(f.source for f in read.said))})


def default_root() -> Path:
    """`$CASEBOOK_KB`, else the `kb/` folder of the source tree this package runs from."""
    env = os.environ.get("CASEBOOK_KB")
    return Path(env) if env else Path(__file__).resolve().parents[3] / "kb"


def load_kb(root: str | os.PathLike | None = None) -> KnowledgeBase:
    """Load every case and code page under `root` (default: the project's `kb/`); a copy kept from an earlier
    load of the same files (cache.py) is used when there is one."""
    root = Path(root) if root is not None else default_root()
    return kept(root, _read_kb, kind=KnowledgeBase) if root.is_dir() else _read_kb(root)


def _read_kb(root: Path) -> KnowledgeBase:
    """Every case and code page under `root`, parsed from the markdown."""
    kb = KnowledgeBase(root=root)
    if not root.is_dir():
        kb.problems.append(Problem(str(root), 0, "knowledge base folder not found"))
        return kb
    for path in sorted((root / "families").glob("*.md")):
        family = _load_family(path, path.relative_to(root.parent).as_posix(), kb.problems)
        kb.families[family.id] = family
    for path in sorted((root / "cases").glob("*.md")):
        case = _load_case(path, path.relative_to(root.parent).as_posix(), kb.problems)
        if case.id in kb.cases or case.id in kb.families:
            other = kb.cases[case.id].path if case.id in kb.cases else kb.families[case.id].path
            kb.problems.append(Problem(case.path, 1, f"duplicate id {case.id!r} (also {other})"))
        kb.cases[case.id] = case
        if case.family in kb.families:
            kb.families[case.family].causes.append(case.id)
    _resolve_references(kb)
    kb.needles = _needles(kb)
    rows: list[CodePage] = []
    for path in sorted((root / "codes").glob("*.md")):
        page = _load_code(path, path.relative_to(root.parent).as_posix(), kb.problems, rows)
        if page.code in kb.codes:
            kb.problems.append(Problem(page.path, 1, f"duplicate code {page.code!r} (also {kb.codes[page.code].path})"))
        kb.codes[page.code] = page
    kb.catalog = load_tables(root, kb.problems)
    kb.mindie_fields = mindie.index(mindie.load_fields(root, kb.problems))
    for r in kb.catalog:   # a code with a page of its own keeps it; the catalog row still counts it as sourced
        if r.code not in kb.codes:
            kb.codes[r.code] = CodePage(code=r.code, path=r.path, kind=r.kind, title=r.name, meaning=r.meaning,
                                        meaning_zh=r.meaning_zh, line=r.line, table=r.catalog,
                                        extra={"cause": r.cause, "source": r.source},
                                        cases=[c.id for c in kb.cases.values() if r.code in c.codes])
    for row in rows:   # a code with a page of its own keeps it; its table row must agree on the cases
        own = kb.codes.get(row.code)
        if own is None:
            kb.codes[row.code] = row
        elif sorted(own.cases) != sorted(row.cases):
            kb.problems.append(Problem(row.path, row.line, f"row of {row.code!r} lists cases {row.cases}, its own page "
                                                           f"{own.path} lists {own.cases}"))
    return kb


def _needles(kb: KnowledgeBase) -> dict[str, Index]:
    """The literal index of each field's regex signatures."""
    by_field: dict[str, list] = {}
    for doc in (*kb.cases.values(), *kb.families.values()):
        for sig in (*doc.signatures, *doc.contradicted_by):
            if sig.needles is not None:
                by_field.setdefault(sig.field, []).append(sig.needles)
    return {name: Index(needs) for name, needs in by_field.items()}


def _resolve_references(kb: KnowledgeBase) -> None:
    """Give each `same_as` signature the test of the case's signature it names; a name that leads nowhere, or to
    another `same_as`, is a problem at its line (and the signature is left out)."""
    for owner in (*kb.families.values(), *kb.cases.values()):
        for name in ("signatures", "contradicted_by"):
            kept_sigs = []
            for sig in getattr(owner, name):
                if sig.matcher != SAME_AS:
                    kept_sigs.append(sig)
                    continue
                case_id, sig_id = sig.value.parts
                case = kb.cases.get(case_id)
                target = next((t for t in (case.signatures + case.contradicted_by if case else ())
                               if t.id == sig_id), None)
                if target is None or target.matcher == SAME_AS:
                    why = "another same_as" if target is not None else "no signature of a case"
                    kb.problems.append(Problem(owner.path, sig.value.line,
                                               f"same_as {sig.value.target!r} names {why}"))
                    continue
                kept_sigs.append(resolved(sig, target))
            setattr(owner, name, kept_sigs)


def _load_case(path: Path, rel: str, problems: list[Problem]) -> KnownCase:
    doc = KbDocument(path, rel, problems)
    d = doc.data
    case = KnownCase(id=str(d.get("id", path.stem)), path=rel, body=doc.body)
    if not d:
        return case
    check_keys(doc, CASE_KEYS, CASE_REQUIRED)
    for name in ("title", "title_zh", "summary", "summary_zh", "family"):
        setattr(case, name, str(d.get(name, "") or ""))
    case.status = enum(doc, "status", STATUSES, "draft")
    case.severity = enum(doc, "severity", SEVERITIES, "medium")
    case.action = enum(doc, "action", ACTIONS, "collect-more")
    case.components = [str(c) for c in d.get("components") or []]
    case.codes = [str(c) for c in d.get("codes") or []]
    named = terms(doc)
    for name in ("signatures", "contradicted_by"):
        setattr(case, name, [s for i, raw in enumerate(d.get(name) or [])
                             if (s := signature(doc, i, raw, name, named))])
    for name in ("requires", "against", "supports"):
        setattr(case, name, [c for i, raw in enumerate(d.get(name) or []) if (c := condition(doc, name, i, raw))])
    for name in ("fix", "fix_zh"):
        fix = d.get(name) or {}
        if name in d or name == "fix":
            if not isinstance(fix, dict) or set(fix) - FIX_KEYS or not {"workaround", "confirm"} <= set(fix):
                doc.problem(doc.line(name), f"{name} must map {sorted(FIX_KEYS)} (workaround and confirm required)")
                fix = fix if isinstance(fix, dict) else {}
        setattr(case, name, fix)
    case.references = _references(doc)
    case.sections = _sections(doc, SECTIONS)
    return case


def _load_family(path: Path, rel: str, problems: list[Problem]) -> Family:
    doc = KbDocument(path, rel, problems)
    d = doc.data
    family = Family(id=str(d.get("id", path.stem)), path=rel, body=doc.body)
    if not d:
        return family
    check_keys(doc, FAMILY_KEYS, FAMILY_REQUIRED)
    if family.id != path.stem:
        doc.problem(doc.line("id"), f"id {family.id!r} differs from the file name {path.stem!r}")
    for name in ("title", "title_zh", "summary", "summary_zh"):
        setattr(family, name, str(d.get(name, "") or ""))
    named = terms(doc)
    for name in ("signatures", "contradicted_by"):
        setattr(family, name, [s for i, raw in enumerate(d.get(name) or [])
                             if (s := signature(doc, i, raw, name, named))])
    family.questions = [c for i, raw in enumerate(d.get("questions") or []) if (c := condition(doc, "questions", i, raw))]
    family.fallback = d.get("fallback", False)
    if not isinstance(family.fallback, bool):
        doc.problem(doc.line("fallback"), f"fallback is true or false, not {family.fallback!r}")
        family.fallback = False
    family.references = _references(doc)
    family.sections = _sections(doc, FAMILY_SECTIONS)
    return family


def _references(doc: KbDocument) -> list[dict]:
    refs = list(doc.data.get("references") or [])
    for i, ref in enumerate(refs):
        if not (isinstance(ref, dict) and str(ref.get("url", "")).startswith("http") and ref.get("title")):
            doc.problem(doc.line("references", i), "a reference needs a title and an http(s) url")
    return refs


def _sections(doc: KbDocument, required: tuple[str, ...]) -> dict[str, str]:
    found = sections(doc.body)
    for name in required:
        if name not in found:
            doc.problem(doc.body_line, f"body lacks the section '## {name}'")
    return found


def _load_code(path: Path, rel: str, problems: list[Problem], rows: list[CodePage]) -> CodePage:
    doc = KbDocument(path, rel, problems)
    d = doc.data
    page = CodePage(code=str(d.get("code", path.stem)), path=rel, body=doc.body)
    if not d:
        return page
    check_keys(doc, CODE_KEYS, CODE_REQUIRED)
    page.kind = enum(doc, "kind", CODE_KINDS, "")
    page.title, page.title_zh, page.meaning, page.meaning_zh = (str(d.get(k, "") or "") for k in
                                                                 ("title", "title_zh", "meaning", "meaning_zh"))
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


