"""`casebook kb check`: one named check per rule over the whole knowledge base; problems carry file and line."""
from __future__ import annotations

import re
from pathlib import Path

import yaml

from . import compat, formats, threads
from .codes import CATALOGS
from .kb import KnowledgeBase, Problem, load_kb
from .rules import bits_only
from .vocabulary import FACTS

UNKNOWN_SAMPLES = "_unknown"     #: samples of failures no case covers
INDEX_MARKS = {"verified": ("<!-- index:start -->", "<!-- index:end -->"),
               "draft": ("<!-- drafts:start -->", "<!-- drafts:end -->")}
INDEX_HEADER = "| case | symptom | codes |\n|---|---|---|"


def check_case_ids(kb: KnowledgeBase) -> list[Problem]:
    """A case's id is its file name."""
    return [Problem(c.path, 2, f"id {c.id!r} differs from the file name {Path(c.path).stem!r}")
            for c in kb.cases.values() if c.id != Path(c.path).stem]


def check_families(kb: KnowledgeBase) -> list[Problem]:
    """A verified case names a known family; a family has root causes; the facts its causes test can be asked."""
    out = [Problem(c.path, 1, f"family {c.family!r} has no page kb/families/{c.family}.md" if c.family else
                   "a verified case names its family (family: <id>)")
           for c in kb.cases.values() if c.status == "verified" and c.family not in kb.families]
    for family in kb.families.values():
        causes = [kb.cases[c] for c in family.causes]
        if not any(c.status == "verified" for c in causes):
            out.append(Problem(family.path, 1, "a family lists no verified root cause (no case names it)"))
        asked = {q.fact for q in family.questions} | {c.fact for case in causes for c in (*case.requires, *case.supports)}
        for case in causes:
            for cond in case.against:
                if cond.fact not in asked and not FACTS[cond.fact].from_logs:
                    out.append(Problem(case.path, 1, f"fact {cond.fact!r} rules the case out but nothing asks for it: "
                                                     f"add a question to {family.path} or an ask to the case"))
    return out


def check_bit_cases(kb: KnowledgeBase) -> list[Problem]:
    """A case whose key signatures are all error bits names a fact that can confirm it: the bits alone cannot. A
    family has no facts, so its key signatures must be more than bits (or it could never be the family shown)."""
    out = [Problem(c.path, 1, "every key signature is an error bit, which names the kind of fault and not its cause: "
                              "add a `requires` or `supports` fact that tells this cause from the others")
           for c in kb.cases.values() if bits_only(c.signatures) and not (c.requires or c.supports)]
    return out + [Problem(f.path, 1, "every key signature is an error bit, and a family has no fact to confirm it "
                                     "with: key it on the fault report or the code that places a failure in it")
                  for f in kb.families.values() if bits_only(f.signatures)]


def check_chinese(kb: KnowledgeBase) -> list[Problem]:
    """Everything a verified case or a family shows has its Chinese text: title, summary, questions and fix."""
    out = []
    for c in kb.cases.values():
        if c.status != "verified":
            continue
        missing = [k for k in ("title_zh", "summary_zh") if not getattr(c, k)]
        missing += [f"fix_zh.{k}" for k in c.fix if not c.fix_zh.get(k)]
        missing += [f"ask_zh of {cond.fact}" for cond in (*c.requires, *c.supports) if not cond.ask_zh]
        out += [Problem(c.path, 1, f"no Chinese text: {m}") for m in missing]
    for f in kb.families.values():
        missing = [k for k in ("title_zh", "summary_zh") if not getattr(f, k)]
        missing += [f"ask_zh of {q.fact}" for q in f.questions if not q.ask_zh]
        out += [Problem(f.path, 1, f"no Chinese text: {m}") for m in missing]
    return out


def check_code_pages(kb: KnowledgeBase) -> list[Problem]:
    """A code page is named by its code (rows of a table page are named by their table)."""
    return [Problem(p.path, 2, f"code {p.code!r} differs from the file name {Path(p.path).stem!r}")
            for p in kb.codes.values() if p.table is None and p.code != Path(p.path).stem]


def check_code_links(kb: KnowledgeBase) -> list[Problem]:
    """A case's codes have pages that list the case back, and a page lists only cases that cite it."""
    out = []
    for case in kb.cases.values():
        for code in case.codes:
            page = kb.codes.get(code)
            if page is None:
                out.append(Problem(case.path, 1, f"code {code!r} has no page kb/codes/{code}.md and no table row"))
            elif case.id not in page.cases and page.table not in CATALOGS:
                out.append(Problem(page.path, page.line, f"{code!r} does not list case {case.id!r}, which cites it"))
    for page in kb.codes.values():
        for cid in page.cases:
            case = kb.cases.get(cid)
            if case is None:
                out.append(Problem(page.path, page.line, f"{page.code!r} lists unknown case {cid!r}"))
            elif page.code not in case.codes:
                out.append(Problem(page.path, page.line, f"{page.code!r} lists case {cid!r}, whose codes do not "
                                                         "include it"))
    return out


def _expect(expect: Path, rel: str, out: list[Problem]) -> dict | None:
    try:
        doc = yaml.safe_load(expect.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        out.append(Problem(rel, (mark.line + 1) if mark else 1, f"not valid YAML: {e}"))
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list) or not doc["runs"]:
        out.append(Problem(rel, 1, "expect.yaml needs a non-empty 'runs' list"))
        return None
    return doc


def check_samples(kb: KnowledgeBase) -> list[Problem]:
    """A verified case has a positive and a near-miss negative sample, each with a readable expect.yaml that
    names only known cases; a samples folder belongs to a case (or to `_unknown`)."""
    out = []
    root = kb.root / "samples"
    folders = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    for folder in folders:
        if folder.name != UNKNOWN_SAMPLES and folder.name not in kb.cases and folder.name not in kb.families:
            out.append(Problem(folder.relative_to(kb.root.parent).as_posix(), 1, "samples of an unknown case or family"))
    for case in kb.cases.values():
        folder = root / case.id
        names = [p.name for p in folder.iterdir() if p.is_dir()] if folder.is_dir() else []
        if case.status == "verified":
            for kind in ("positive", "negative"):
                if not any(n.startswith(kind + "-") for n in names):
                    out.append(Problem(case.path, 1, f"verified case has no {kind} sample "
                                                     f"(kb/samples/{case.id}/{kind}-<name>/)"))
    for folder in folders:
        for s in sorted(p for p in folder.iterdir() if p.is_dir()):
            expect = s / "expect.yaml"
            rel = expect.relative_to(kb.root.parent).as_posix()
            if not expect.is_file():
                out.append(Problem(rel, 1, "sample has no expect.yaml"))
                continue
            doc = _expect(expect, rel, out)
            for i, run in enumerate(doc["runs"] if doc else []):
                named = [run.get("diagnosis")] + list((run.get("verdicts") or {}))
                for cid in named:
                    if cid is not None and cid not in kb.cases:
                        out.append(Problem(rel, 1, f"run {i + 1} names unknown case {cid!r}"))
                if folder.name == UNKNOWN_SAMPLES and run.get("diagnosis") is not None:
                    out.append(Problem(rel, 1, f"run {i + 1}: a sample of an unknown failure expects no diagnosis"))
                if run.get("family") is not None and run["family"] not in kb.families:
                    out.append(Problem(rel, 1, f"run {i + 1} names unknown family {run['family']!r}"))
                if folder.name in kb.families and (run.get("diagnosis") is not None or run.get("family") != folder.name):
                    out.append(Problem(rel, 1, f"run {i + 1}: a family's sample expects no diagnosis and "
                                               f"family: {folder.name}"))
    return out


def check_drafts(kb: KnowledgeBase) -> list[Problem]:
    """A draft is reported until its author has written its signatures, its fix and its references."""
    out = []
    for c in kb.cases.values():
        if c.status != "draft":
            continue
        todo = ([] if c.signatures else ["signatures"]) + [f"fix.{k}" for k in ("workaround", "confirm")
                                                             if not str(c.fix.get(k) or "").strip()]
        todo += [] if c.references else ["references"]
        if todo:
            out.append(Problem(c.path, 1, f"draft case: write {', '.join(todo)}, then verify it with samples"))
    return out


def check_references(kb: KnowledgeBase) -> list[Problem]:
    """Every verified case cites at least one public source (a draft gets its sources from its author)."""
    return [Problem(c.path, 1, "case has no references") for c in kb.cases.values()
            if not c.references and c.status != "draft"]


def _cell(text: str) -> str:
    """Text safe inside a markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def index_table(kb: KnowledgeBase, status: str) -> str:
    """The README index table of the cases with this status: case, one-line symptom, codes."""
    rows = [f"| {c.id} | {_cell(c.summary)} | {', '.join(c.codes) or '-'} |"
            for c in sorted(kb.cases.values(), key=lambda c: c.id) if c.status == status]
    return "\n".join([INDEX_HEADER, *rows])


def check_index(kb: KnowledgeBase) -> list[Problem]:
    """kb/README.md indexes every verified case, and apart from them every draft, as the case files say."""
    readme = kb.root / "README.md"
    rel = readme.relative_to(kb.root.parent).as_posix()
    if not readme.is_file():
        return [Problem(rel, 1, "kb/README.md is missing")]
    text = readme.read_text(encoding="utf-8")
    out = []
    for status, (start, end) in INDEX_MARKS.items():
        m = re.search(re.escape(start) + r"\n(.*?)\n?" + re.escape(end), text, re.S)
        if not m:
            out.append(Problem(rel, 1, f"no {status} index between {start} and {end}"))
            continue
        line = text[:m.start()].count("\n") + 2
        have, want = m.group(1).strip().splitlines(), index_table(kb, status).splitlines()
        for i, row in enumerate(want):
            if i >= len(have) or have[i].strip() != row:
                out.append(Problem(rel, line + i, f"{status} index row should read: {row}"))
                break
        else:
            if len(have) > len(want):
                out.append(Problem(rel, line + len(want), f"{status} index has rows for no {status} case"))
    return out


#: The checks, in the order they run.
def check_tables(kb: KnowledgeBase) -> list[Problem]:
    """Every row of a compatibility table names the public page that states it."""
    return [Problem(f"{kb.root.name}/{file}", line, "compatibility row has no source (a public http(s) page)")
            for file, line in compat.unsourced(kb.root)]


def check_threads(kb: KnowledgeBase) -> list[Problem]:
    """Every solved public thread (threads/*.yaml) has its fields, en and zh texts, and names cases, families and
    captures that exist."""
    return threads.problems(threads.folder(kb.root), set(kb.cases), set(kb.families), project=kb.root.parent)


CHECKS = (check_case_ids, check_families, check_bit_cases, check_chinese, check_code_pages, check_code_links,
          check_samples, check_drafts, check_references, check_index, check_tables, check_threads)


def check(root: Path | None = None) -> list[Problem]:
    """Load the KB and run every check; loading problems come first, the format catalog's last."""
    kb = load_kb(root)
    problems = list(kb.problems)
    for rule in CHECKS:
        problems += rule(kb)
    return problems + formats.problems()
