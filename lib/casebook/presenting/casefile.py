"""A case saved to disk and resumed later: input paths, the engineer's answers and notes, as one small JSON file.

Input paths are stored relative to the case file's folder when they lie under it (so a case folder can be
moved whole) and absolute otherwise. The log itself is never copied into the file.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..judging.triage import Triage, triage
from ..knowledge.vocabulary import FactError, normalize

CASEFILE_VERSION = 1


class CaseFileError(ValueError):
    """A case file that cannot be read back; the message names the file."""


@dataclass
class CaseFile:
    """What an engineer needs to pick a case up again."""

    paths: list[str]
    answers: dict[str, object] = field(default_factory=dict)
    notes: str = ""
    step: str | None = None   #: the walk step that was on screen

    @classmethod
    def of(cls, t: Triage, notes: str = "", step: str | None = None) -> CaseFile:
        """The case file of a triage in progress."""
        return cls(paths=list(t.log.paths), answers=dict(t.answers), notes=notes, step=step)

    def to_dict(self, base: Path | None = None) -> dict:
        """The JSON object; paths made relative to `base` when they lie under it."""
        return {"casebook_case": CASEFILE_VERSION, "paths": [_portable(p, base) for p in self.paths],
                "answers": dict(sorted(self.answers.items())), "notes": self.notes, "step": self.step}

    def save(self, path: str | os.PathLike) -> Path:
        """Write the case file (UTF-8 JSON) and return its path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(path.resolve().parent), indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
        return path

    def resume(self, **kwargs) -> Triage:
        """Read the bundle again and re-apply the answers."""
        return triage(*self.paths, facts=self.answers, **kwargs)


def _portable(p: str, base: Path | None) -> str:
    if base is None:
        return p
    full = Path(p).resolve()
    try:
        return full.relative_to(base).as_posix()
    except ValueError:
        return str(full)


def load(path: str | os.PathLike) -> CaseFile:
    """Read a case file back; paths come back usable from the current folder."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise CaseFileError(f"{path}: cannot read: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise CaseFileError(f"{path}:{e.lineno}: not JSON: {e.msg}") from e
    if not isinstance(doc, dict) or doc.get("casebook_case") != CASEFILE_VERSION:
        raise CaseFileError(f"{path}:1: not a casebook case file (version {CASEFILE_VERSION} expected)")
    paths, answers = doc.get("paths"), doc.get("answers", {})
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths) or not paths:
        raise CaseFileError(f"{path}: 'paths' must be a non-empty list of strings")
    if not isinstance(answers, dict):
        raise CaseFileError(f"{path}: 'answers' must be an object")
    try:
        answers = {k: normalize(k, v) for k, v in answers.items()}
    except FactError as e:
        raise CaseFileError(f"{path}: {e}") from e
    base = path.resolve().parent
    resolved = [p if Path(p).is_absolute() else os.path.relpath(base / p) for p in paths]
    return CaseFile(paths=resolved, answers=answers, notes=str(doc.get("notes") or ""), step=doc.get("step"))
