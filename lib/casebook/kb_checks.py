"""`casebook kb check`: one named check per rule over the whole knowledge base; problems carry file and line."""
from __future__ import annotations

from pathlib import Path

import yaml

from .kb import KnowledgeBase, Problem, load_kb


def check_case_ids(kb: KnowledgeBase) -> list[Problem]:
    """A case's id is its file name."""
    return [Problem(c.path, 2, f"id {c.id!r} differs from the file name {Path(c.path).stem!r}")
            for c in kb.cases.values() if c.id != Path(c.path).stem]


def check_code_pages(kb: KnowledgeBase) -> list[Problem]:
    """A code page is named by its code, and its kind is set."""
    return [Problem(p.path, 2, f"code {p.code!r} differs from the file name {Path(p.path).stem!r}")
            for p in kb.codes.values() if p.code != Path(p.path).stem]


def check_code_links(kb: KnowledgeBase) -> list[Problem]:
    """A case's codes have pages that list the case back, and a page lists only cases that cite it."""
    out = []
    for case in kb.cases.values():
        for code in case.codes:
            page = kb.codes.get(code)
            if page is None:
                out.append(Problem(case.path, 1, f"code {code!r} has no page kb/codes/{code}.md"))
            elif case.id not in page.cases:
                out.append(Problem(page.path, 1, f"page does not list case {case.id!r}, which cites {code!r}"))
    for page in kb.codes.values():
        for cid in page.cases:
            case = kb.cases.get(cid)
            if case is None:
                out.append(Problem(page.path, 1, f"lists unknown case {cid!r}"))
            elif page.code not in case.codes:
                out.append(Problem(page.path, 1, f"lists case {cid!r}, whose codes do not include {page.code!r}"))
    return out


def check_samples(kb: KnowledgeBase) -> list[Problem]:
    """A verified case has a samples folder with at least one sample, each with a readable expect.yaml."""
    out = []
    for case in kb.cases.values():
        folder = kb.root / "samples" / case.id
        samples = sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
        if case.status == "verified" and not samples:
            out.append(Problem(case.path, 1, f"verified case has no samples in kb/samples/{case.id}/"))
        for s in samples:
            expect = s / "expect.yaml"
            rel = expect.relative_to(kb.root.parent).as_posix()
            if not expect.is_file():
                out.append(Problem(rel, 0, "sample has no expect.yaml"))
                continue
            try:
                doc = yaml.safe_load(expect.read_text(encoding="utf-8"))
            except yaml.YAMLError as e:
                mark = getattr(e, "problem_mark", None)
                out.append(Problem(rel, (mark.line + 1) if mark else 0, f"not valid YAML: {e}"))
                continue
            if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list) or not doc["runs"]:
                out.append(Problem(rel, 1, "expect.yaml needs a non-empty 'runs' list"))
    return out


def check_references(kb: KnowledgeBase) -> list[Problem]:
    """Every case cites at least one public source."""
    return [Problem(c.path, 1, "case has no references") for c in kb.cases.values() if not c.references]


#: The checks, in the order they run.
CHECKS = (check_case_ids, check_code_pages, check_code_links, check_samples, check_references)


def check(root: Path | None = None) -> list[Problem]:
    """Load the KB and run every check; loading problems come first."""
    kb = load_kb(root)
    problems = list(kb.problems)
    for rule in CHECKS:
        problems += rule(kb)
    return problems
