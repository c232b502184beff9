"""The field's solved public threads (kb/threads/<id>.yaml): one record per issue thread, pull request, forum
answer or vendor FAQ entry, with its codes, first error, ops, the stated cause and fix in English and Chinese,
and the KB case or family when there is one. The case memory is seeded with them (memory/seed.py).

`load()` reads them and `problems()` checks them; every problem carries the file and the line of the field.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from .document import Problem, yaml_loader

#: Format of the records; a new one reseeds every memory, as a change of any file does.
FORMAT = 1
SOURCES = ("issue", "pull-request", "forum", "faq", "docs", "blog", "commit")
CHIPS = ("910B", "910A", "910_93", "310P", "310B")
VERSION_KEYS = ("cann", "torch_npu", "torch", "python", "driver", "mindspore", "vllm", "vllm_ascend")
REQUIRED = ("id", "url", "source", "title", "product", "codes", "first_error", "cause", "fix")
KEYS = set(REQUIRED) | {"versions", "chip", "ops", "case", "family", "capture"}
_URL = re.compile(r"https?://[^\s/]+\.[^\s/]+/\S*$")
_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass
class Thread:
    """One solved public thread."""

    id: str
    url: str
    source: str                 #: issue, pull-request, forum, faq, docs, blog, commit
    title: str
    product: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    chip: str | None = None
    codes: list[str] = field(default_factory=list)
    first_error: str | None = None   #: the first real error line, verbatim
    ops: list[str] = field(default_factory=list)
    cause: dict[str, str] = field(default_factory=dict)   #: en, zh
    fix: dict[str, str] = field(default_factory=dict)     #: en, zh
    case: str | None = None          #: KB case id
    family: str | None = None        #: KB family id
    capture: str | None = None       #: tests/captures/<folder> that carries its log
    file: str = ""                   #: where it was read, for messages


def folder(kb_root: Path) -> Path:
    """The threads folder of a knowledge base."""
    return Path(kb_root) / "threads"


def files(where: Path) -> list[Path]:
    """The thread files of a folder, by name (none when the folder does not exist)."""
    return sorted(Path(where).glob("*.yaml")) if Path(where).is_dir() else []


def digest(where: Path) -> str:
    """A digest of every thread file and the format: what changes when the seed must be loaded again."""
    h = hashlib.sha256(f"format {FORMAT}\n".encode())
    for p in files(where):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def lines_of(text: str) -> dict[str, int]:
    """Line (1-based) of each top-level key of a YAML mapping, read only when a problem is to be placed."""
    yaml, loader = yaml_loader()
    try:
        node = yaml.compose(text, Loader=loader)
    except yaml.YAMLError:
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: k.start_mark.line + 1 for k, _ in node.value if isinstance(k, yaml.ScalarNode)}


def _text(v) -> str | None:
    return None if v is None else str(v).strip() or None


def read(path: Path, rel: str, problems: list[Problem]) -> Thread | None:
    """One thread file; what is wrong with it goes to `problems` with its line."""
    yaml, loader = yaml_loader()
    try:
        text = path.read_text(encoding="utf-8")
        data = yaml.load(text, Loader=loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        mark = getattr(e, "problem_mark", None)
        problems.append(Problem(rel, mark.line + 1 if mark else 1, f"unreadable thread: {str(e).splitlines()[0]}"))
        return None
    if not isinstance(data, dict):
        problems.append(Problem(rel, 1, "a thread is a YAML mapping"))
        return None
    def bad(key: str, message: str) -> None:
        problems.append(Problem(rel, lines_of(text).get(key, 1), message))

    for key in REQUIRED:
        if data.get(key) in (None, "", [], {}) and key != "codes":
            bad(key, f"`{key}` is required")
    if not isinstance(data.get("codes"), list):
        bad("codes", "`codes` is a list (empty when the thread shows none)")
    for key in sorted(set(data) - KEYS):
        bad(key, f"unknown field `{key}`")
    if str(data.get("id", "")) != path.stem:
        bad("id", f"`id` is the file's name, {path.stem}")
    if data.get("url") and not _URL.match(str(data["url"])):
        bad("url", f"`url` is a public http(s) address, not {data['url']!r}")
    if data.get("source") and data["source"] not in SOURCES:
        bad("source", f"`source` is one of {', '.join(SOURCES)}")
    if data.get("chip") is not None and str(data["chip"]) not in CHIPS:
        bad("chip", f"`chip` is one of {', '.join(CHIPS)} or null")
    versions = data.get("versions") or {}
    if not isinstance(versions, dict):
        bad("versions", "`versions` is a mapping (e.g. cann: 8.0.RC3)")
        versions = {}
    first = data.get("first_error")
    if isinstance(first, str) and "\n" in first.strip():
        bad("first_error", "`first_error` is one line")
    for key in ("cause", "fix"):
        v = data.get(key)
        if v in (None, ""):
            continue
        if not isinstance(v, dict) or not _text(v.get("en")) or not _text(v.get("zh")):
            bad(key, f"`{key}` has `en` and `zh` texts")
        elif not _CJK.search(str(v["zh"])):
            bad(key, f"`{key}.zh` is written in Chinese")
    if data.get("capture") and not str(data["capture"]).startswith("tests/captures/"):
        bad("capture", "`capture` is a folder under tests/captures/")
    for key in ("codes", "ops"):
        if data.get(key) is not None and not isinstance(data.get(key), list):
            bad(key, f"`{key}` is a list")
    cause, fix = data.get("cause"), data.get("fix")
    return Thread(id=str(data.get("id") or path.stem), url=str(data.get("url") or ""),
                  source=str(data.get("source") or ""), title=_text(data.get("title")) or path.stem,
                  product=_text(data.get("product")),
                  versions={str(k): str(v) for k, v in versions.items() if v not in (None, "")},
                  chip=_text(data.get("chip")),
                  codes=[str(c) for c in data.get("codes") or [] if c is not None] if isinstance(data.get("codes"), list) else [],
                  first_error=_text(first), ops=[str(o) for o in data.get("ops") or []] if isinstance(data.get("ops"), list) else [],
                  cause={k: str(v) for k, v in cause.items()} if isinstance(cause, dict) else {},
                  fix={k: str(v) for k, v in fix.items()} if isinstance(fix, dict) else {},
                  case=_text(data.get("case")), family=_text(data.get("family")), capture=_text(data.get("capture")),
                  file=rel)


def load(where: Path, problems: list[Problem] | None = None) -> list[Thread]:
    """Every readable thread of a folder, by file name."""
    problems = [] if problems is None else problems
    where = Path(where)
    found = [read(p, f"{where.name}/{p.name}", problems) for p in files(where)]
    return [t for t in found if t is not None]


def problems(where: Path, cases: set[str], families: set[str], project: Path | None = None) -> list[Problem]:
    """What is wrong with the thread files: their fields, and case, family and capture names that do not exist."""
    out: list[Problem] = []
    for t in load(where, out):
        path = Path(where) / f"{t.id}.yaml"
        line = lambda key: lines_of(path.read_text(encoding="utf-8")).get(key, 1)
        if t.case and t.case not in cases:
            out.append(Problem(t.file, line("case"), f"no KB case {t.case!r}"))
        if t.family and t.family not in families:
            out.append(Problem(t.file, line("family"), f"no KB family {t.family!r}"))
        if t.capture and project is not None and not (project / t.capture).is_dir():
            out.append(Problem(t.file, line("capture"), f"no capture folder {t.capture}"))
    return out
