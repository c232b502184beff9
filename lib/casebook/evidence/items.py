"""Typed evidence records: what the extractors find, each pointing to its file and line."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..knowledge.addresses import PcVerdict
from ..knowledge.messages import Note


#: An allowed value that is another tensor of the call ("be same with output's shape[[1,64,67]]", "consistent with
#: x1's", "equal to tensor 0 [11]", "equal to the last element of actualSeqLengths", "equal to batch size(2)",
#: "equal except merge axis"): the op asks its inputs to agree, which says nothing of what it supports.
_RELATIVE = re.compile(r"\b(?:same (?:with|as)|consistent with|equal (?:to|with) (?:the )?(?:[A-Za-z_]\w*'s|tensor \d+|"
                       r"input \d+|(?:first |last )?elements? of|batch ?size\b)|(?:equal|same) except (?:the )?\w+ axis)",
                       re.I)


@dataclass(frozen=True)
class LineRef:
    """A log line cited as evidence: the line of the file read, and for a line a grep prefix quoted, the original."""

    file: str
    line: int
    time: str | None
    text: str
    src_file: str | None = None   #: the file a grep prefix names (`grep -rn`), None when it names none
    src_line: int | None = None   #: the line a grep prefix names (`grep -n`)


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
    src_file: str | None = None   #: the original file, when a grep prefix quoted the line (file/line: the capture's)
    src_line: int | None = None   #: the original line, likewise


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
    family: str = "stars"           #: stars (910B/910C hex words), david (950 decimal bit lists), old (dump registers)
    stream_id: int | None = None
    task_id: int | None = None
    pc_start_first_raw: int | None = None   #: outstanding form: the first pc start, when a second one is logged
    error_bit_list: list[int] = field(default_factory=list)   #: 950 form: the decimal bit indices as logged
    notes: list[str] = field(default_factory=list)             #: what the decode and the pc check add, in words
    pc_peers: list[tuple[int, str]] = field(default_factory=list)  #: same kernel, same device: (pc start, file:line)
    instructions: list[str] = field(default_factory=list)      #: objdump lines around the faulting offset
    src_file: str | None = None     #: the original file of the report line, when a grep prefix quoted it
    src_line: int | None = None     #: the original line of the report line, likewise

    @property
    def key(self) -> tuple:
        """Kernel name (with its tiling key) on one device of one node: pc values compare only within a key."""
        return self._key()

    def _key(self) -> tuple:
        """The fault's key, as a plain method (mutation testing reaches no property body)."""
        return (self.node, self.device, self.kernel)


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
    physical_devices: dict[int, set[str]] = field(default_factory=dict)  #: the same, by the driver's (physical) id
    set_device_seen: bool = False   #: its set-device lines are in the bundle (INFO level), not just error lines
    refs: list[LineRef] = field(default_factory=list)
    ranks: dict[int, int | None] = field(default_factory=dict)   #: HCCL rank -> device, from its own init lines
    path_devices: dict[int, str] = field(default_factory=dict)    #: device -> its device-side log file of this pid

    @property
    def drives_several_devices(self) -> bool:
        """Several devices, each used by a thread of its own (not one thread switching around), counted within
        one numbering: the job's ids and the driver's ids of one card differ under ASCEND_RT_VISIBLE_DEVICES."""
        return self._several_devices()

    def _several_devices(self) -> bool:
        """Whether the process drives several devices, as a plain method (mutation testing reaches no property body)."""
        return any(len(ids) >= 2 and len({frozenset(t) for t in ids.values()}) >= 2
                   for ids in (self.devices, self.physical_devices))


@dataclass
class Topology:
    """(node, pid) -> devices -> threads, and whether one process drives several devices."""

    processes: list[ProcessTopology] = field(default_factory=list)
    ranks: "RankView" = field(default_factory=lambda: RankView())

    @property
    def single_process_multi_device(self) -> bool | None:
        """True if a process drives several devices from distinct threads; False if every process whose
        device setup is logged drives one; None when the logs cannot tell (e.g. ERROR level only: a process
        seen on one device in its error lines may still drive others)."""
        return self._multi_device()

    def _multi_device(self) -> bool | None:
        """Whether one process drives several devices, as a plain method (mutation testing reaches no property body)."""
        known = [p for p in self.processes if p.devices or p.physical_devices]
        if any(p.drives_several_devices for p in known):
            return True
        if known and all(p.set_device_seen for p in known):
            return False
        return None


@dataclass
class Incident:
    """One burst of errors on one device (or of one process): its first real failure and what followed it."""

    node: str | None
    rank: int | None
    device: int | None
    pid: int | None
    first: ErrorLine
    cascade: int            #: later error lines of the same burst
    last_time: str | None
    kind: str = "error"     #: what the first failure is: aicore_exception, hwts_timeout, hardware_error, hccl_timeout, ...
    role: str = "cause"     #: cause, or consequence (an HCCL timeout after another device's fault)
    because: str | None = None   #: why it is a consequence, naming the earlier incident
    roles: dict[str, int] = field(default_factory=dict)  #: later lines by cascade role: fallout, wrapper, generic, ...


@dataclass
class CoreDump:
    """One core's section of a device exception dump."""

    core: int
    line: int
    text: str = ""
    src_line: int | None = None     #: the original line, when a grep prefix quoted it
    aic_error: int | None = None
    pc_start: int | None = None
    current_pc: int | None = None


@dataclass
class DeviceDump:
    """A device-side `<exception_print>` dump: one task's exception as the device's task scheduler saw it."""

    file: str
    line: int
    time: str | None
    node: str | None
    device: int | None
    stream_id: int | None
    task_id: int | None
    exception_code: str | None
    kind: str                       #: aicore_exception, hwts_timeout, sdma_exception, aicpu_exception, exception
    cores: list = field(default_factory=list)   #: CoreDump sections
    detail: str | None = None       #: a plain-words line of the dump, e.g. "notify wait timeout"
    refs: list[LineRef] = field(default_factory=list)
    src_file: str | None = None     #: the original file, when a grep prefix quoted the dump
    src_line: int | None = None     #: the original line of its TIME line, likewise


@dataclass
class DeviceEvent:
    """A device-side event outside the plog error lines: hardware errors, bbox exceptions, driver reports."""

    kind: str               #: hardware_error, ts_exception, driver_exception, pcie_error, hwts_timeout, aicore_exception
    node: str | None
    device: int | None
    file: str
    line: int
    time: str | None
    code: str | None        #: exception code or address that identifies it
    text: str
    refs: list[LineRef] = field(default_factory=list)   #: every line (in every file) that reports it


@dataclass(frozen=True)
class LinkFailure:
    """A rank's report that it could not reach (or timed out waiting for) a peer rank."""

    node: str | None
    pid: int | None
    rank: int | None        #: the reporting rank, when known
    peer: int               #: the rank it names as the remote side
    peer_ip: str | None
    status: str             #: "no connect", "socket timeout", "notify timeout", ...
    role: str | None        #: server / client, as HCCL logs it
    file: str
    line: int
    time: str | None
    text: str


@dataclass(frozen=True)
class LinkDetection:
    """HCCL's own finding after a failed link setup: which card could not connect to which (by server and device)."""

    server: str
    device: int
    peer_server: str
    peer_device: int
    file: str
    line: int
    time: str | None
    text: str


@dataclass
class RankInfo:
    """One rank: where it ran and when it first failed."""

    rank: int
    node: str | None
    pid: int | None
    device: int | None
    ip: str | None = None
    first_error: ErrorLine | None = None
    ref: LineRef | None = None   #: the line that names the rank
    rank_num: int | None = None  #: the group size the rank's init line states


@dataclass(frozen=True)
class FailedCollective:
    """The collective one process was in when HCCL gave up on it, from the task exception report's lines."""

    process: int | str      #: the pid, or the file where a paste names none
    node: str | None
    group: str              #: the communicator, as the tag names it
    kind: str               #: AllReduce, AllGather, Broadcast, ...
    index: int | None       #: which of the communicator's collectives it is, counted by HCCL
    count: int | None       #: the element count of the op's data
    dtype: str | None
    rank: int | None        #: the process's rank in the communicator
    file: str
    line: int
    time: str | None
    text: str


@dataclass
class RankView:
    """Across ranks: who failed first, whom the peers blame, who is missing, and whether clocks look skewed."""

    rank_num: int | None = None
    ranks: list[RankInfo] = field(default_factory=list)
    links: list[LinkFailure] = field(default_factory=list)
    blamed: dict[int, int] = field(default_factory=dict)    #: peer rank -> number of reports naming it
    missing: list[int] = field(default_factory=list)         #: ranks expected or named but absent from the bundle
    clock_skew: list[str] = field(default_factory=list)      #: notes on suspected clock differences between nodes
    collectives: list[FailedCollective] = field(default_factory=list)  #: the collective each process failed in
    behind: list[int] = field(default_factory=list)   #: ranks at a lower collective index than their peers
    waits: dict[int, list[int]] = field(default_factory=dict)   #: rank -> the peers it waited for (notify, link setup)
    wait_ends: list[int] = field(default_factory=list)   #: ranks waited for that wait for none: where chains end
    wait_loop: list[int] = field(default_factory=list)   #: ranks whose waits close a loop one of them enters twice
    detected: list[LinkDetection] = field(default_factory=list)   #: HCCL's connect-timeout detection results

    @property
    def order(self) -> list[RankInfo]:
        """Ranks with an error, earliest first error first (times from different nodes: see clock_skew)."""
        return self._order()

    def _order(self) -> list[RankInfo]:
        """The failed ranks in order, as a plain method (mutation testing reaches no property body)."""
        failed = [r for r in self.ranks if r.first_error is not None]
        return sorted(failed, key=lambda r: (r.first_error.time or "", r.rank))


@dataclass(frozen=True)
class Fact:
    """A named fact about the job, from the logs, the engineer, or a documented default."""

    name: str
    value: object
    source: str            #: log, engineer, default, table (a compatibility table's answer for versions the log shows)
    file: str | None = None
    line: int | None = None
    note: str | None = None
    #: (file, line) of the later lines that state the same (a warning every rank prints): signs cite them too
    more: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Rejection:
    """An op refusing its call before launch, and what it says it refuses."""

    op: str | None               #: aclnn API or op type, from the line or the call's line just before it
    #: dtype, dtype_or_format, format, layout, shape, attribute, bound, platform, call, converter or opset
    aspect: str
    param: str | None            #: the parameter named (self, gamma, head dim, ...)
    value: str | None            #: the value refused
    allowed: tuple[str, ...]     #: the values the op says it takes
    file: str
    line: int
    text: str
    #: "tiling" when the complaint is the op's tiling (its words, or the source position it names): a call its
    #: parameter check let through, refused on a path the tiling does not take
    stage: str | None = None

    def states_rule(self) -> bool:
        """Whether the complaint names values the op accepts, not only another tensor of the same call to agree with
        ("should be same with output's shape"): a rule of the op's, which the call is outside."""
        return bool(self.allowed) and not any(_RELATIVE.search(a) for a in self.allowed)

    def said(self) -> Note:
        """The complaint in one line: 'aclnnCast rejects dtype DT_BFLOAT16 (self); supported: DT_FLOAT, ...'."""
        return Note("rejection.said", op=self.op or Note("rejection.the_op"), what=Note(f"rejection.aspect.{self.aspect}"),
                    value=f" {self.value}" if self.value else "", param=f" ({self.param})" if self.param else "",
                    allowed=Note("rejection.allowed", values=", ".join(self.allowed)) if self.allowed else "")


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
    device_dumps: list = field(default_factory=list)    #: DeviceDump records
    device_events: list = field(default_factory=list)   #: DeviceEvent records
    rejections: list = field(default_factory=list)      #: Rejection records
