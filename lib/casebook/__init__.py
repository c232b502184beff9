"""Ascend Casebook: from a plog bundle to a diagnosis with evidence, the way an expert walks the case."""
from .evidence import Evidence, extract_evidence
from .kb import KnowledgeBase, load_kb
from .plog import PLOG_COLUMNS, LogTable, read_plog
from .ranking import Hypothesis
from .triage import Triage, triage

__all__ = ["PLOG_COLUMNS", "Evidence", "Hypothesis", "KnowledgeBase", "LogTable", "Triage", "TriageApp",
           "extract_evidence", "load_kb", "read_plog", "triage"]


def __getattr__(name: str):
    # the widgets pull in ipywidgets; load them only when asked for
    if name == "TriageApp":
        from .widgets import TriageApp
        return TriageApp
    raise AttributeError(name)
