"""One knowledge-base file: a page's YAML front matter with the file line of every key and its markdown body, or a
table's rows with their lines."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator


def yaml_loader():
    """PyYAML and the loader of every knowledge file, imported on first use."""
    # libyaml's loader when PyYAML was built with it (the wheels are): the pure-Python one is ten times slower.
    # Imported here, not with the module: a triage served from kept copies parses no YAML, and the import costs
    # every process ~18 ms.
    import yaml
    return yaml, getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Problem:
    """Something wrong in a KB file, at a line."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


def table_rows(path: Path, rel: str, columns: tuple[str, ...],
               problems: list[Problem]) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, cells by column, stripped) of each non-empty row of a tab-separated table whose first line names
    `columns`, in order; a wrong header, or a row of another number of cells, is a problem at its line and gives no
    rows (the caller's own problems of a row come in line order with these)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or tuple(lines[0].split("\t")) != columns:
        problems.append(Problem(rel, 1, f"the header must be the columns {', '.join(columns)} separated by tabs"))
        return
    for no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != len(columns):
            problems.append(Problem(rel, no, f"{len(cells)} cells, the header has {len(columns)}"))
            continue
        yield no, dict(zip(columns, (c.strip() for c in cells)))


class KbDocument:
    """A markdown file split into front matter (with line numbers) and body."""

    def __init__(self, path: Path, rel: str, problems: list[Problem]):
        self.rel, self.problems = rel, problems
        self.data: dict = {}
        self.lines: dict = {}
        self.body = ""
        self.body_line = 1
        text = path.read_text(encoding="utf-8")
        m = re.match(r"^---\n(.*?\n)---\n?(.*)$", text, re.S)
        if not m:
            self.problem(1, "no YAML front matter (a file starts with a '---' line and the front matter ends with one)")
            self.body = text
            return
        self.body = m.group(2)
        self.body_line = m.group(1).count("\n") + 3
        yaml, loader = yaml_loader()
        try:
            node = yaml.compose(m.group(1), Loader=loader)
            self.data = yaml.load(m.group(1), Loader=loader) or {}
        except yaml.YAMLError as e:
            line = getattr(getattr(e, "problem_mark", None), "line", 0) + 2
            self.problem(line, f"front matter is not valid YAML: {getattr(e, 'problem', e)}")
            return
        if not isinstance(self.data, dict):
            self.problem(2, "front matter must be a mapping")
            self.data = {}
            return
        self.lines = _line_map(node)
        for line, key in _repeated_keys(node):
            # YAML keeps the last value without a word: a `why` pasted under the wrong signature goes unseen otherwise
            self.problem(line, f"key '{key}' is given twice in one mapping; only its last value is kept")

    def line(self, *path) -> int:
        """Line of a key (or list item) in the file, falling back to its parent's."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return 1

    def problem(self, line: int, message: str) -> None:
        """Record a problem of this file at a line."""
        self.problems.append(Problem(self.rel, line, message))


def _line_map(node, path=(), out=None) -> dict:
    """(key, index, ...) -> 1-based file line, for every node of the front matter."""
    out = {} if out is None else out
    yaml, _ = yaml_loader()
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            p = path + (k.value,)
            out[p] = k.start_mark.line + 2  # +1 for 1-based, +1 for the opening '---'
            _line_map(v, p, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            p = path + (i,)
            out[p] = v.start_mark.line + 2
            _line_map(v, p, out)
    return out


def _repeated_keys(node) -> list[tuple[int, str]]:
    """(1-based file line, key) of every key given again in the same mapping of the front matter."""
    out: list[tuple[int, str]] = []
    yaml, _ = yaml_loader()
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for k, v in node.value:
            if k.value in seen:
                out.append((k.start_mark.line + 2, k.value))
            seen.add(k.value)
            out += _repeated_keys(v)
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            out += _repeated_keys(v)
    return out


def sections(body: str) -> dict[str, str]:
    """`## Heading` -> text under it."""
    out: dict[str, str] = {}
    current = None
    for line in body.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            out[current] = ""
        elif current is not None:
            out[current] += line + "\n"
    return {k: v.strip() for k, v in out.items()}
