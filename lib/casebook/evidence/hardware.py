"""Device-side events outside the host's error lines: hardware memory errors, bbox exception records, driver reports.

Sources: the device OS kernel log (`[Hardware Error]` blocks, tsdrv/drv_pcie reports logged at EVENT level
with an `[ERROR]` inside), the `hisi_logs` bbox `history.log` ("system exception code [0x..]: ModuleName
[TS]") and its `bbox/*.txt` details ("device_id-2 appeared multi ecc err, the physical address is 0x.."),
and the device exception dumps. One event reported in several files (the same physical address, the same
exception code on the same device within a second) is counted once, with every line kept as a reference.
"""
from __future__ import annotations

import re

from ..knowledge import formats
from ..reading.bundle import ROLE_BBOX, ROLE_DEVICE_LOG, ROLE_DEVICE_OS_LOG
from ..reading.grammar import KIND_BBOX
from ..reading.table import LogTable
from . import device_dump
from .items import DeviceEvent, LineRef

#: The catalog's device-side forms: `[Hardware Error]` block lines and bbox ECC records, then task-scheduler,
#: PCIe, bbox history and driver exception records.
_HARDWARE = formats.select("ecc", "hardware", "address")
_EVENTS = formats.select("device_event")
# other device-side lines that name an ECC or memory error in their own words (a RAS event's name, ...)
_ECC = re.compile(r"ecc err|Multi Bit Ecc|memory error", re.I)
# ids and counts have at most 18 digits (reading.grammar.MAX_DIGITS): a longer run of digits matches nothing
_DEV = re.compile(r"\bdevid[-:=]\s?(\d{1,18})(?!\d)|\bdevice_id\s?[-=]\s?(\d{1,18})(?!\d)|\bdevid: (\d{1,18})(?!\d)|"
                  r"\[devid-(\d{1,18})\]")
_KINDS = {"ts_exception": "ts_exception", "pcie": "pcie_error", "driver_exception": "driver_exception"}
_MODULE_KINDS = {"TS": "ts_exception", "DRIVER": "driver_exception"}


def _device(text: str, default: int | None) -> int | None:
    m = _DEV.search(text)
    return int(next(g for g in m.groups() if g is not None)) if m else default


#: Lines this family reads besides error lines (the reader keeps them in big files too).
KEEP = _HARDWARE.keep + _EVENTS.keep + ("ecc err", "Multi Bit Ecc")


def extract(log: LogTable) -> list[DeviceEvent]:
    """Device-side events, earliest first, each counted once across the files that report it."""
    # the incident family reads them too: build them once per log table
    return list(log.derive("device_events", _events))


def _events(log: LogTable) -> list[DeviceEvent]:
    device_side = set(log.in_roles((ROLE_DEVICE_LOG, ROLE_DEVICE_OS_LOG, ROLE_BBOX)))
    cand = log.picked(i for i in log.holding(KEEP) if i in device_side)
    events: list[DeviceEvent] = []
    block: DeviceEvent | None = None
    for file, line, kind, time, msg, src, src_line in ((r.file, r.line, r.kind, r.time, r.msg, r.src_file, r.src_line)
                                                       for r in cand):
        f = log.origin(file, src)
        ref = LineRef(file, int(line), time, msg, src, src_line)
        hit = _HARDWARE.first(msg)
        if hit is not None and hit.form.part == "hardware":
            # one "[Hardware Error]" block is one event: consecutive lines of the same file
            if block is not None and block.file == file and block.refs[-1].line == int(line) - 1:
                block.refs.append(ref)
            else:
                block = DeviceEvent("hardware_error", f.node, f.device, file, int(line), time, None,
                                    hit.values.get("code", msg), [ref])
                events.append(block)
            if "address" in hit.values:
                block.code = f"{hit.int('address'):#x}"
            continue
        block = None
        event = _EVENTS.first(msg)
        part = event.form.part if event else None
        if part in _KINDS:
            code = event.values.get("code", "").lower() or None
            events.append(DeviceEvent(_KINDS[part], f.node, event.int("device") if "device" in event.values
                                      else _device(msg, f.device), file, int(line), time, code, msg, [ref]))
        elif part == "history" and kind == KIND_BBOX:
            events.append(DeviceEvent(_MODULE_KINDS.get(event.values["module"], "device_exception"), f.node, f.device,
                                      file, int(line), time, event.values["code"].lower(), msg, [ref]))
        elif hit is not None or _ECC.search(msg):
            address = hit.values.get("address") if hit else None
            events.append(DeviceEvent("hardware_error", f.node, _device(msg, f.device), file, int(line), time,
                                      f"{int(address, 16):#x}" if address else None, msg, [ref]))
    for dump in device_dump.extract(log):
        events.append(DeviceEvent(dump.kind, dump.node, dump.device, dump.file, dump.line, dump.time,
                                  dump.exception_code, dump.detail or f"{dump.kind.replace('_', ' ')} on stream "
                                  f"{dump.stream_id}, task {dump.task_id}", list(dump.refs)))
    return sorted(_merge(events), key=lambda e: (e.time is None, e.time or "", e.file, e.line))


def _merge(events: list[DeviceEvent]) -> list[DeviceEvent]:
    """One event per hardware address, and per (device, code) within one second: the first keeps the others' lines."""
    out: list[DeviceEvent] = []
    for e in events:
        twin = next((o for o in out if _same(o, e)), None)
        if twin is None:
            out.append(e)
            continue
        twin.refs.extend(e.refs)
        named = [x for x in (e, twin) if _DEV.search(x.text)]
        if named and twin.device != _device(named[0].text, twin.device):
            twin.device = _device(named[0].text, twin.device)
        if e.time is not None and (twin.time is None or e.time < twin.time):
            twin.time, twin.file, twin.line, twin.text = e.time, e.file, e.line, e.text   # located at its earliest timed report
        if twin.code is None:
            twin.code = e.code
    return out


def _same(a: DeviceEvent, b: DeviceEvent) -> bool:
    if a.kind == b.kind == "hardware_error":
        return a.code is not None and a.code == b.code
    if a.kind != b.kind or a.device != b.device or a.node != b.node:
        return False
    if a.kind == "pcie_error":   # one PCIe fault is told over several lines in the same second
        return a.time is not None and b.time is not None and a.time[:19] == b.time[:19]
    if a.code is None or a.code != b.code:
        return False
    # a bbox detail file carries no time of its own: it belongs to the history record with the same code
    return a.time is None or b.time is None or a.time[:19] == b.time[:19]
