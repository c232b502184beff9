"""The package's folders are the pipeline: a stage imports only the stages before it, and nothing imports in a circle.

Every import counts: module level, inside functions, and under `if TYPE_CHECKING:`.
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lib" / "casebook"

#: Stage of each top-level entry, from the bottom up; a module may import modules of its own stage or a lower one.
STAGES = {"reading": 1, "knowledge": 2, "evidence": 3, "judging": 4, "memory": 5, "presenting": 6, "widgets": 7,
          "synth": 8, "bench": 9, "cli": 10}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_package(name: str) -> bool:
    return (PACKAGE.parent.joinpath(*name.split(".")) / "__init__.py").exists()


def exists(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return is_package(name) or path.with_suffix(".py").exists() or any(path.parent.glob(path.name + ".*.so")) \
        or path.with_suffix(".c").exists()


def imports_of(path: Path, source: str | None = None) -> list[tuple[str, int, str | None]]:
    """(imported module, line, name imported from a package's __init__ or None) for every import in a file."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno, None) for a in node.names if a.name.startswith("casebook")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("casebook"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if exists(sub):
                    found.append((sub, node.lineno, None))
                else:
                    found.append((target, node.lineno, alias.name if is_package(target) else None))
    return found


def defined_in(package: str) -> set[str]:
    """Names a package's __init__ itself defines (functions, classes, assignments), as opposed to re-exports."""
    tree = ast.parse((PACKAGE.parent.joinpath(*package.split(".")) / "__init__.py").read_text(encoding="utf-8"))
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return names


def graph() -> dict[str, list[tuple[str, int, str | None]]]:
    return {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def stage(name: str) -> int | None:
    parts = name.split(".")
    return STAGES.get(parts[1]) if len(parts) > 1 else None


def test_no_stage_imports_a_later_stage():
    wrong = [f"{mod} (stage {stage(mod)}) imports {target} (stage {stage(target)}) on line {line}"
             for mod, edges in graph().items() for target, line, _ in edges
             if stage(mod) is not None and stage(target) is not None and stage(target) > stage(mod)]
    assert wrong == []


def test_library_imports_names_from_the_module_that_defines_them():
    # a package's __init__ may re-export for notebooks; library code never goes through it
    through = [f"{mod} line {line}: `{name}` from package {target}"
               for mod, edges in graph().items() for target, line, name in edges
               if name is not None and name not in defined_in(target)]
    assert through == []


def test_no_import_circle():
    edges = {mod: {t for t, _, _ in targets if t != mod} for mod, targets in graph().items()}
    index, low, on_stack, stack, circles = {}, {}, set(), [], []

    def visit(v: str) -> None:   # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in list(edges):
        if v not in index:
            visit(v)
    assert circles == []


def test_the_checks_see_late_and_type_checking_imports():
    # the graph must not miss imports hidden in functions or TYPE_CHECKING blocks
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..presenting.walk import Step\n"
              "def f():\n    from ..judging import triage\n    from ..evidence import KEEP\n")
    found = imports_of(PACKAGE / "reading" / "plog.py", source)
    assert found == [("casebook.presenting.walk", 3, None), ("casebook.judging.triage", 5, None),
                     ("casebook.evidence", 6, "KEEP")]


def test_top_level_holds_the_stages_and_the_cli():
    entries = sorted(p.name for p in PACKAGE.iterdir() if p.name not in ("__init__.py", "__pycache__"))
    assert len(entries) <= 10, entries
    assert set(STAGES) <= {Path(e).stem for e in entries}


def test_import_casebook_is_cheap_and_names_the_api():
    code = ("import sys, casebook; heavy = [m for m in ('pandas', 'matplotlib', 'ipywidgets', 'dask') if m in sys.modules];"
            "print(heavy, casebook.triage.__module__, casebook.read_plog.__module__, casebook.load_kb.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "[]"
    assert out[1:] == ["casebook.judging.triage", "casebook.reading.plog", "casebook.knowledge.kb"]


def test_unknown_public_name_is_an_attribute_error():
    import casebook
    with pytest.raises(AttributeError):
        casebook.no_such_name


def test_readme_front_page_is_short_and_links_every_docs_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme) < 6000
    pages = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))
    assert pages, "the long parts live in docs/*.md"
    assert [p for p in pages if f"({p})" not in readme] == []


def test_every_image_the_docs_show_is_in_the_repository():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    shown = [(page, m) for page in pages
             for m in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", page.read_text(encoding="utf-8"))]
    assert shown, "the README and docs show the walk"
    assert [f"{page.name}: {m}" for page, m in shown if not (page.parent / m).is_file()] == []
