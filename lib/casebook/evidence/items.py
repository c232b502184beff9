"""Typed evidence records: what the extractors find, each pointing to its file and line."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..addresses import PcVerdict


@dataclass(frozen=True)
class LineRef:
    """A log line cited as evidence."""

    file: str
    line: int
    time: str | None
    text: str


@dataclass(frozen=True)
class ErrorLine:
    """An error line: the first failure of a process, a device or the whole case."""

    file: str
    line: int
    time: str | None
    node: str | None
    pid: int | None
    device: int | None
    code: str | None   #: the error code the line carries (E-code, runtime code, retCode), if any
    text: str
    coarse: bool = False  #: its time is to the second only (torch_npu's ERRxxxxx lines)


@dataclass
class AicoreFault:
    """One AI Core fault (one device and serial number), merged from every core and file that reported it."""

    file: str
    line: int
    time: str | None
    node: str | None
    pid: int | None
    device: int | None
    serial: int | None
    cores: list[int]
    wording: str                    #: the head message, e.g. "fftsplus aicore error"
    pc_start_raw: int | None
    current_raw: int | None
    error_code: int | None          #: the single `error code =` register
    errcode: tuple[int, int, int] | None = None   #: `errcode:(a, b, c)` of the extend info
    error_bits: list[str] = field(default_factory=list)
    error_str: str | None = None
    ret_code: str | None = None
    kernel: str | None = None
    op: str | None = None
    bin_size: int | None = None
    pc: PcVerdict | None = None
    refs: list[LineRef] = field(default_factory=list)


@dataclass(frozen=True)
class CodeSighting:
    """An error code seen in a line."""

    code: str
    family: str    #: ecode, runtime, retcode, pta
    file: str
    line: int
    time: str | None
    text: str


@dataclass
class ProcessTopology:
    """Which devices one process drove, from which threads."""

    node: str | None
    pid: int
    devices: dict[int, set[str]] = field(default_factory=dict)   #: device -> threads that set or used it
    set_device_seen: bool = False   #: its set-device lines are in the bundle (INFO level), not just error lines
    refs: list[LineRef] = field(default_factory=list)

    @property
    def drives_several_devices(self) -> bool:
        """Several devices, each used by a thread of its own (not one thread switching around)."""
        if len(self.devices) < 2:
            return False
        owners = {frozenset(t) for t in self.devices.values()}
        return len(owners) >= 2


@dataclass
class Topology:
    """(node, pid) -> devices -> threads, and whether one process drives several devices."""

    processes: list[ProcessTopology] = field(default_factory=list)

    @property
    def single_process_multi_device(self) -> bool | None:
        """True if a process drives several devices from distinct threads; False if every process whose
        device setup is logged drives one; None when the logs cannot tell (e.g. ERROR level only: a process
        seen on one device in its error lines may still drive others)."""
        known = [p for p in self.processes if p.devices]
        if any(p.drives_several_devices for p in known):
            return True
        if known and all(p.set_device_seen for p in known):
            return False
        return None


@dataclass
class Incident:
    """The first error on one device (or of one process) and how many error lines followed it."""

    node: str | None
    rank: int | None
    device: int | None
    pid: int | None
    first: ErrorLine
    cascade: int            #: later error lines of the same device or process
    last_time: str | None


@dataclass(frozen=True)
class Fact:
    """A named fact about the job, from the logs, the engineer, or a documented default."""

    name: str
    value: object
    source: str            #: log, engineer, default
    file: str | None = None
    line: int | None = None
    note: str | None = None


@dataclass
class Evidence:
    """Everything the extractors found in one bundle."""

    first_error: ErrorLine | None
    first_errors: list[ErrorLine]
    aicore_faults: list[AicoreFault]
    topology: Topology
    codes: list[CodeSighting]
    incidents: list[Incident]
    facts: dict[str, Fact]
    error_lines: int
