"""The NPU's network ports as their own reports show them: the port statistics line of the device log, and what
hccn_tool prints of a port's link history and optical module (pasted into a ticket, or collected beside the logs).

A port whose physical link failed says so in numbers, not in an error message: the statistics line sets its
link-fault flag (`rf_lf 2`, a remote fault, or `rf_lf 1` with PCS errors counted), the link history records a
`LINK DOWN`, or the optical module it holds has lost the signal or the lock on a lane (a `Los Flag` or `LoL Flag`
other than 0 in a report that does not say the module is `not present`). Any of these states the fact `link_flaps_seen`, cited to its line, so the
link's causes are told apart without asking the engineer to run the tool.

A down counts when it happened while the job ran, however short: the links of collectives in flight fail even on a
flap of a second. Where the bundle shows no time of the job (a paste of the tool alone), a down counts when the port
stayed down past DOWN_SECONDS or is down still; a blip of renegotiation at boot does not. An absent module is no
evidence by itself: boards whose ports carry no module print it for every empty port.
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta

from ..reading.table import LogTable
from . import statements
from .items import Fact

#: The fact a failed physical link states.
FACT = "link_flaps_seen"
#: Where the job's time is not known, a link down the port came back from within this many seconds is taken for a
#: blip of renegotiation, not a failed link (the vendor's fault-diagnosis catalog counts a down only past 30 s).
DOWN_SECONDS = 30
#: How far before the first and after the last line of the job's logs a down still counts as the job's.
SLACK = timedelta(minutes=10)
#: `rf_lf 1, pcs_err_cnt 5`: the device log's port statistics (IMP module), a remote (2) or local (1) link fault; a
#: local fault with no PCS error counted is the flag alone, which the catalog does not count.
_PORT_STATS = re.compile(r"\brf_lf (?P<flag>[12]), pcs_err_cnt (?P<errors>\d{1,10})\b")
#: hccn_tool -link_stat -g: `[devid 0]    Tue Aug  1 14:43:40 2022    LINK DOWN`, newest first
_RECORD = re.compile(r"^\s*\[devid (?P<device>\d{1,4})\]\s+(?P<time>[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]?\d "
                     r"\d\d:\d\d:\d\d \d{4})\s+LINK (?P<state>DOWN|UP)\s*$")
#: hccn_tool -optical -g: the heading of one port's report, a module absent from it, and the loss-of-signal and
#: loss-of-lock flags of its lanes
_OPTICAL = re.compile(r"^\s*optical info:?\s*$")
_ABSENT = re.compile(r"^\s*present\s*: not present\s*$")
_LOST = re.compile(r"^\s*(?:Rx|Tx) Lo[sL] Flag\s*: (?P<flags>0x[0-9a-fA-F]+)\s*$")
#: Lines this family reads (a module's `present : present` is not among them: "present" is too common a word for a
#: big file's reader to keep every line that holds it; a report starts present until it says otherwise).
KEEP = ("rf_lf", "LINK DOWN", "LINK UP", "not present", "optical info", "Los Flag", "LoL Flag")


def extract(log: LogTable) -> dict[str, Fact]:
    """`link_flaps_seen` as the first line showing a failed physical link states it, with the later ones."""
    return statements.facts_stated(log, ((i, FACT, True) for i in _failed(log)))


def _failed(log: LogTable) -> list[int]:
    """Positions of the lines that show a port's physical link failed, ascending."""
    msgs, files = log.column("msg"), log.column("file")
    found: list[int] = []
    history: dict[tuple[str, str], list[tuple[int, datetime, str]]] = {}
    absent: dict[str, bool] = {}   # file -> the module of the optical report read last is absent
    for i in log.holding(KEEP):
        text = str(msgs[i])
        if (m := _PORT_STATS.search(text)) is not None:
            if m["flag"] == "2" or int(m["errors"]) > 0:
                found.append(i)
        elif _OPTICAL.match(text):
            absent[files[i]] = False
        elif _ABSENT.match(text):
            absent[files[i]] = True
        elif (m := _LOST.match(text)) is not None:
            if int(m["flags"], 16) and not absent.get(files[i], False):
                found.append(i)
        elif (m := _RECORD.match(text)) is not None:
            when = datetime.strptime(" ".join(m["time"].split()), "%a %b %d %H:%M:%S %Y")
            history.setdefault((files[i], m["device"]), []).append((i, when, m["state"]))
    window = _job_window(log) if history else None
    for records in history.values():
        found += _downs(records, window)
    return sorted(found)


def _job_window(log: LogTable) -> tuple[datetime, datetime] | None:
    """From the first to the last time the bundle's logs show, widened by SLACK; None when they show none."""
    times = [t for f in log.files for t in (f.first_time, f.last_time) if t]
    if not times:
        return None
    stamps = [datetime.fromisoformat(t) for t in times]
    return min(stamps) - SLACK, max(stamps) + SLACK


def _downs(records: list[tuple[int, datetime, str]], window: tuple[datetime, datetime] | None) -> list[int]:
    """The LINK DOWN records of one port's history (newest first, as the tool prints it) that count: within the job's
    window, any; without one, those the port did not come back up from within DOWN_SECONDS, and a down still
    standing."""
    downs = []
    for k, (i, when, state) in enumerate(records):
        if state != "DOWN":
            continue
        if window is not None:
            if window[0] <= when <= window[1]:
                downs.append(i)
            continue
        later = records[k - 1] if k > 0 else None     # the record printed above it happened after it
        if later is None or (later[2] == "UP" and (later[1] - when).total_seconds() > DOWN_SECONDS):
            downs.append(i)
    return downs
