"""Notebook front ends: ipywidgets composed over the library, with no domain logic of their own."""
from .triage_app import TriageApp

__all__ = ["TriageApp"]
