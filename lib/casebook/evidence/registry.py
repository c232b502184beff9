"""The evidence families, wired in one explicit table: what each fills, in the order they run."""
from __future__ import annotations

from ..reading import system_log
from ..reading.table import LogTable
from . import (aicore, attachments, collectives, device_dump, device_health, environment, errors, first_error, frames,
               hardware, imports, incidents, membership, oom, ports, ranks, rejection, statements, superpods, topology,
               versions)
from .items import Evidence


def _facts(log: LogTable):
    """Settings, versions and stated causes: a setting the job logged beats an attachment (env dump, version.info,
    pip list), which beats a version read from a log line; a line stating a fact adds it, as an out-of-memory
    summary's numbers do."""
    return {**versions.extract(log), **attachments.extract(log), **environment.extract(log), **statements.extract(log),
            **oom.extract(log), **ranks.facts(log), **collectives.extract(log), **frames.extract(log),
            **imports.extract(log), **superpods.extract(log), **ports.extract(log), **device_health.extract(log)}


#: Evidence field -> the extractor that fills it, in the order they run.
EXTRACTORS = {
    "first_error": first_error.extract,
    "first_errors": first_error.extract_all,
    "aicore_faults": aicore.extract,
    "topology": topology.extract,
    "codes": errors.code_sightings,
    "incidents": incidents.extract,
    "device_dumps": device_dump.extract,
    "device_events": hardware.extract,
    "rejections": rejection.extract,
    "facts": _facts,
}


#: Lines besides error lines that some family reads: in big files the reader builds records only for error
#: lines, lines that are not slog headers, and these (reading.plog.read_plog `keep`; the triage passes them).
_ALL_KEEP = (aicore.KEEP + topology.KEEP + environment.KEEP + membership.KEEP + versions.KEEP + hardware.KEEP
             + device_dump.KEEP + rejection.KEEP + statements.KEEP + oom.KEEP + errors.KEEP + frames.KEEP
             + superpods.KEEP + ports.KEEP + device_health.KEEP)
# a literal holding another one adds nothing to the scan but its cost
KEEP = tuple(k for k in dict.fromkeys(_ALL_KEEP) if not any(o != k and o in k for o in _ALL_KEEP))
# a reading of a system log given no literals (the explorer's full reading) looks for these, as a triage's does
system_log.DEFAULT_KEEP = KEEP


def extract_evidence(log: LogTable) -> Evidence:
    """Run every extractor over the log table (its lines as written: LogTable.whole)."""
    log = log.whole
    found = {name: extract(log) for name, extract in EXTRACTORS.items()}
    return Evidence(error_lines=len(errors.records(log)), **found)
