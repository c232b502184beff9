"""What a card and its host report about the card's health: the event ids the card's daemons log (`Event
id=0x80e21007`) and npu-smi's health query lists (`Error Code : 80E21007 80E18401`), and the host kernel's report of
an uncorrected error on a PCIe bus. Each is read into the fact the device-lost and hardware cases ask the engineer
about (an over-temperature or a power event, the HBM's isolation limit, a PCIe link error), cited to its line, so an
expert's first look at the card's own report is not asked for again.
"""
from __future__ import annotations

import re
from typing import Iterator

from ..reading.table import LogTable
from . import statements
from .items import Fact

#: fact -> the device event ids that state it (kb/codes/tables/device-event-ids.tsv: the HBM's fatal and alarm
#: temperatures, the SoC's and a DDR chip's; the main supply's overcurrent, its overcurrent control, the low-power
#: manager's voltage regulation; the HBM rows isolated for multi-bit ECC errors reaching 16 on a device, 64 in all)
EVENTS = {
    "device_overtemperature_event": ("0x80e0020b", "0x80e00209", "0x80e20207", "0x80de0207"),
    "device_power_fault_event": ("0x80e21007", "0x80e21008", "0x80e3a201"),
    "hbm_isolation_limit_reached": ("0x80e18401", "0x80e18402"),
}
_FACT_OF = {event: fact for fact, events in EVENTS.items() for event in events}
#: A daemon's event line (`[TsdEVENT] Event id=0x8c17a005.`, `event_id=0x80e01801`) and npu-smi's health query
#: (`Error Code : A4025021 8C03A000 8C084E00`: the ids without their 0x, several on one line)
_EVENT_ID = re.compile(r"\b[Ee]vent[ _]?[Ii][Dd]\s*[=:]\s*(0x[0-9a-fA-F]{8})\b")
_HEALTH_CODES = re.compile(r"^\s*Error Code\s*:\s*((?:[0-9A-Fa-f]{8}\s*)+)$")
#: The kernel's AER driver on an uncorrected error of a PCIe link (`PCIe Bus Error: severity=Uncorrected (Fatal)`,
#: `AER: Uncorrected (Non-Fatal) error received: 0000:61:00.0`): the host and the card stop talking over that bus.
_UNCORRECTED_PCIE = re.compile(r"PCIe Bus Error: severity=(?:Uncorrected|Fatal)|"
                               r"\bAER: (?:Multiple )?Uncorrected \((?:Non-)?Fatal\) error received")
PCIE_FACT = "pcie_link_error_seen"
#: Lines this family reads.
KEEP = ("vent id", "vent_id", "vent ID", "Error Code", "PCIe Bus Error", "AER: ")


def events_in(text: str) -> list[str]:
    """The device event ids a line names, in lower case with their 0x."""
    ids = [m.lower() for m in _EVENT_ID.findall(text)]
    m = _HEALTH_CODES.match(text)
    return ids + ([f"0x{code.lower()}" for code in m[1].split()] if m else [])


def extract(log: LogTable) -> dict[str, Fact]:
    """Each fact as the first line stating it gives it, with its file and line, and the later lines stating it."""
    return statements.facts_stated(log, _stated(log))


def _stated(log: LogTable) -> Iterator[tuple[int, str, bool]]:
    """(position, fact, True) of each fact a line states, in line order."""
    msgs = log.column("msg")
    for i in log.holding(KEEP):
        text = str(msgs[i])
        found = {_FACT_OF[e] for e in events_in(text) if e in _FACT_OF}
        if _UNCORRECTED_PCIE.search(text):
            found.add(PCIE_FACT)
        yield from ((i, fact, True) for fact in sorted(found))
