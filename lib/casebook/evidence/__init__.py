"""Evidence extraction: one family per module, wired in one explicit registry."""
from __future__ import annotations

from ..plog import LogTable
from . import aicore, codes, environment, first_error, incidents, topology
from .items import (AicoreFault, CodeSighting, ErrorLine, Evidence, Fact, Incident, LineRef, ProcessTopology,
                    Topology)

#: Evidence field -> the extractor that fills it, in the order they run.
EXTRACTORS = {
    "first_error": first_error.extract,
    "first_errors": first_error.extract_all,
    "aicore_faults": aicore.extract,
    "topology": topology.extract,
    "codes": codes.extract,
    "incidents": incidents.extract,
    "facts": environment.extract,
}


def extract_evidence(log: LogTable) -> Evidence:
    """Run every extractor over the log table."""
    found = {name: extract(log) for name, extract in EXTRACTORS.items()}
    return Evidence(error_lines=len(log.errors()), **found)


__all__ = ["EXTRACTORS", "extract_evidence", "AicoreFault", "CodeSighting", "ErrorLine", "Evidence", "Fact", "Incident",
           "LineRef", "ProcessTopology", "Topology"]
