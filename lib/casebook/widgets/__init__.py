"""Notebook front ends: ipywidgets composed over the library, with no domain logic of their own."""
from .case_walk import CaseWalk
from .compare import CompareApp
from .kb_browser import KbBrowser
from .plog_explorer import PlogExplorer
from .quiz import Quiz
from .triage_app import TriageApp

__all__ = ["CaseWalk", "CompareApp", "KbBrowser", "PlogExplorer", "Quiz", "TriageApp"]
