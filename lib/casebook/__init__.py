"""Ascend Casebook: from a plog bundle to a diagnosis with evidence, the way an expert walks the case.

The package's folders are the pipeline's stages, each importing only the stages before it:
reading → knowledge → evidence → judging → presenting → widgets (then synth, bench and the CLI).
The public names below load on first use, so `import casebook` stays cheap.
"""
from __future__ import annotations

from importlib import import_module

#: public name -> the module that defines it
_API = {
    "triage": "casebook.judging.triage",
    "Triage": "casebook.judging.triage",
    "Hypothesis": "casebook.judging.ranking",
    "read_plog": "casebook.reading.plog",
    "LogTable": "casebook.reading.plog",
    "PLOG_COLUMNS": "casebook.reading.plog",
    "load_kb": "casebook.knowledge.kb",
    "KnowledgeBase": "casebook.knowledge.kb",
    "Evidence": "casebook.evidence.items",
    "extract_evidence": "casebook.evidence.registry",
    "KEEP": "casebook.evidence.registry",
    "TriageApp": "casebook.widgets.triage_app",
    "CaseWalk": "casebook.widgets.case_walk",
    "Quiz": "casebook.widgets.quiz",
    "KbBrowser": "casebook.widgets.kb_browser",
    "PlogExplorer": "casebook.widgets.plog_explorer",
    "CompareApp": "casebook.widgets.compare",
    "compare": "casebook.judging.comparison",
    "compare_ranks": "casebook.judging.comparison",
}

__all__ = sorted(_API)


def __getattr__(name: str):
    if name not in _API:
        raise AttributeError(f"module 'casebook' has no attribute {name!r}")
    value = getattr(import_module(_API[name]), name)
    globals()[name] = value   # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
