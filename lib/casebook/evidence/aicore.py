"""AI Core fault reports, in every wording the runtime has used, merged to one fault per device and serial.

A fault is told by several lines: the core report ("The error from device(...), serial number is N, there
is an exception of fftsplus aicore error, core id is C, error code = ..., dump info: pc start: ..., current:
..."), the extend info (`errcode:(a, b, c)` on 910B/910C, a decimal bit list on the 950), the retCode line
and the kernel-name line ("Aicore kernel execute failed, ... fault kernel_name=..."); at INFO level also the
kernel's binSize and the address the host launched it at. Several cores and several files (plog and
screen capture) may report the same fault. Older releases leave the registers only in the device log's
`<exception_print>` dump, which is tied to the host's kernel line by device, stream and task.
"""
from __future__ import annotations

import re

from ..knowledge import addresses, formats
from ..knowledge.addresses import KernelRange, hexs, mask48
from ..knowledge.errcode import (DAVID, NO_BIT_TEXT, STARS, decode_bit_list, decode_error_code, decode_triple,
                                 parse_bit_list, parse_int)
from ..knowledge.formats import Hit
from ..knowledge.kernels import op_of
from ..knowledge.messages import Note
from ..reading.grammar import KIND_PLOG
from ..reading.table import LogTable, Record
from . import analyzer_report, device_dump
from .device_id import device_in
from .items import AicoreFault, LineRef

_OLD_ERRORSTR = re.compile(r"errorStr: (?P<s>.*?)\s*(?:\[FUNC:|$)")
_DAVID_KEYS = re.compile(r"\b(?:sc|su|l1) error info:")
# The founding-case samples log where a kernel was loaded ("kernel_name=K, kernel addr=0x.., binSize=N."). No
# public CANN line gives a kernel's load address, so this form is not in the format catalog; it is read here
# for the samples only.
_SAMPLE_LOAD = re.compile(r"kernel_name=(?P<k>[^,\s]+),.*?\bkernel addr=(?P<a>0x[0-9a-fA-F]+)")
_BIN_SIZE = re.compile(r"\bbinSize=(\d{1,18})(?!\d)")


#: The catalog's AI Core forms (a report, its extend info, a kernel, ...), then the retCodes of AI Core tasks
#: (an AI Core memory error's retCode is catalogued with the ECC forms).
_FORMS = (formats.select("aicore_fault", *(p for p in formats.FAMILIES["aicore_fault"] if p != "analyzer")),
          formats.select("aicore_retcode", "retcode"), formats.select("ecc", "retcode"))


def _read(msg: str) -> Hit | None:
    """The catalog form of an AI Core line: a fault report, its extend info, a kernel, a retCode, ..."""
    return next((hit for forms in _FORMS if (hit := forms.first(msg)) is not None), None)


#: Lines this family reads besides error lines (the reader keeps them in big files too).
KEEP = tuple(k for forms in _FORMS for k in forms.keep) + ("kernel addr",)


def _scan(log: LogTable) -> list[Record]:
    # in time order, and at equal times the µs-precise plog line before its copy in a screen capture,
    # so a fault is located in the plog; lines without a time keep their place after timed ones
    return sorted(log.picked(log.holding(KEEP)),
                  key=lambda r: (r.time is None, r.time or "", r.kind != KIND_PLOG, r.file, r.line))


def extract(log: LogTable) -> list[AicoreFault]:
    """AI Core faults, first by time, each with its decoded codes and pc verdict."""
    faults: dict[tuple, AicoreFault] = {}
    # lines of one file go together; a line a grep prefix quoted belongs to the file it quotes: (file, src_file)
    last_fault_in_file: dict[tuple, AicoreFault] = {}
    bin_sizes: dict[str, tuple[int, LineRef]] = {}
    loads: list[tuple[int | None, str, KernelRange]] = []
    launch_addrs: dict[int, LineRef] = {}
    tasks: dict[tuple, tuple[int, int]] = {}   # (file, src_file, device) -> last (stream, task) named with a fault
    kernels: list[tuple[tuple, Hit, LineRef, object]] = []
    later: list[tuple[str, Hit, LineRef]] = []     # lines tied to faults once all are known
    for file, line, time, pid, msg, src, src_line in ((r.file, r.line, r.time, r.pid, r.msg, r.src_file, r.src_line)
                                                      for r in _scan(log)):
        ref = LineRef(file, line, time, msg, src, src_line)
        where = (file, src)
        f = log.origin(file, src)
        hit = _read(msg)
        part = hit.form.part if hit else None
        if part in ("report", "outstanding"):
            dev = hit.int("device")
            key = (f.node, dev, hit.int("serial"))
            fault = faults.get(key)
            if fault is None:
                fault = faults[key] = _new_fault(hit, ref, f.node, pid)
                if (st_task := tasks.get((*where, dev))) is not None:
                    fault.stream_id, fault.task_id = st_task
            if hit.int("core_id") not in fault.cores:
                fault.cores.append(hit.int("core_id"))
            fault.refs.append(ref)
            last_fault_in_file[where] = fault
        elif part in ("extend", "extend_list") and where in last_fault_in_file:
            _extend(last_fault_in_file[where], hit, ref)
        elif part == "retcode":
            _retcode(faults, tasks, where, hit, msg, ref)
        elif part in ("kernel", "launch"):
            kernels.append((where, hit, ref, pid))
        elif part in ("extend_nonstars", "node"):
            later.append((f.node, hit, ref))
        elif part == "bin_size":
            bin_sizes.setdefault(hit.values["kernel"], (hit.int("bin_size"), ref))
        elif part == "func_addr":
            launch_addrs.setdefault(mask48(hit.int("address")), ref)
        if (a := _SAMPLE_LOAD.search(msg)) and (size := _BIN_SIZE.search(msg)):
            start = addresses.mask48(int(a["a"], 16))
            loads.append((device_in(msg), a["k"], KernelRange(start, int(size[1]), f"{file}:{line}")))
    _add_device_dumps(log, faults)
    for fault in analyzer_report.extract(log):
        faults[(fault.node, fault.device, "analyzer", fault.file, fault.line)] = fault
    reported = bool(faults)
    for where, hit, ref, pid in kernels:
        node = log.origin(*where).node
        tied = _tie_kernel(faults, where, node, hit, ref)
        if not (tied or reported) and hit.form.part == "kernel" and hit.form.kind == "aicore_exception":
            # a paste often keeps the kernel line and not the core report above it: the fault is still known
            fault = _kernel_fault(hit, ref, node, pid)
            faults.setdefault((node, fault.device, "kernel", fault.stream_id, fault.task_id), fault)
    for node, hit, ref in later:
        _tie_later(faults, node, hit, ref)
    result = sorted(faults.values(), key=lambda x: (x.time is None, x.time or "", x.file, x.line))
    for fault in result:
        _decode(fault)
        if fault.kernel and fault.kernel in bin_sizes:
            fault.bin_size, ref = bin_sizes[fault.kernel]
            fault.refs.append(ref)
    for fault in result:
        fault.pc = addresses.judge(fault.pc_start_raw, fault.current_raw, fault.bin_size, _known(fault, result, loads))
        _pc_notes(fault, result, launch_addrs)
    return result


def _extend(fault: AicoreFault, hit: Hit, ref: LineRef) -> None:
    """The extend info of the last report: the errcode triple (910B/910C) or the decimal bit list (950)."""
    text, error_str = hit.values["errcode"], hit.values.get("error_str", "").rstrip(".")
    if fault.family == DAVID or hit.form.part == "extend_list":
        if not fault.error_bit_list:
            fault.family = DAVID
            fault.error_bit_list = parse_bit_list(text)
            fault.error_str = error_str or fault.error_str
    elif fault.errcode is None:
        fault.errcode = tuple(parse_int(x) for x in text.split(","))
        fault.error_str = error_str or fault.error_str
    fault.error_str = fault.error_str or error_str or None
    fault.refs.append(ref)


def _where(fault: AicoreFault) -> tuple:
    """The file a fault was reported in, as extract() groups lines: (file, src_file)."""
    return fault.file, fault.src_file


def _retcode(faults: dict[tuple, AicoreFault], tasks: dict, where: tuple, hit: Hit, msg: str, ref: LineRef) -> None:
    """A task's retCode: it belongs to the faults of its file (and device, where the line names one)."""
    dev = hit.int("device") if "device" in hit.values else device_in(msg)
    st = (hit.int("stream"), hit.int("task")) if "stream" in hit.values and "task" in hit.values else None
    if st and dev is not None:
        tasks[(*where, dev)] = st
    for fault in faults.values():
        if fault.ret_code is None and _where(fault) == where and (dev is None or dev == fault.device):
            fault.ret_code = hit.values["ret_code"].lower()
            if st and fault.stream_id is None:
                fault.stream_id, fault.task_id = st
            fault.refs.append(ref)


def _tie_kernel(faults: dict[tuple, AicoreFault], where: tuple, node, hit: Hit, ref: LineRef) -> bool:
    """A kernel line names the kernel of the fault on its device and task; a launch line (every launch, 2020
    runtimes) only of the fault on exactly its task. Whether a fault took it."""
    st = (hit.int("stream"), hit.int("task"))
    for fault in faults.values():
        same_task = (fault.stream_id, fault.task_id) == st
        near = _where(fault) == where or fault.node == node
        loose = hit.form.part == "kernel" and fault.stream_id is None
        if fault.device == hit.int("device") and fault.kernel is None and near and (same_task or loose):
            fault.kernel, fault.op = hit.values["kernel"], op_of(hit.values["kernel"])
            if fault.stream_id is None:
                fault.stream_id, fault.task_id = st
            if "pc_start" in hit.values:   # an FFTS+ kernel line carries the pc start it was dispatched with
                fault.pc_peers.append((mask48(hit.int("pc_start")), f"{ref.file}:{ref.line}"))
            fault.refs.append(ref)
            return True
    return False


def _kernel_fault(hit: Hit, ref: LineRef, node, pid) -> AicoreFault:
    """A fault known from its kernel line alone: device, stream, task and kernel, no registers."""
    fault = AicoreFault(
        file=ref.file, line=ref.line, time=ref.time, node=node, pid=pid,
        device=hit.int("device"), serial=None, cores=[], wording=hit.form.form.replace("_", " "),
        pc_start_raw=None, current_raw=None, error_code=None, kernel=hit.values["kernel"],
        op=op_of(hit.values["kernel"]), stream_id=hit.int("stream"), task_id=hit.int("task"), refs=[ref],
        src_file=ref.src_file, src_line=ref.src_line)
    if "pc_start" in hit.values:
        fault.pc_peers.append((mask48(hit.int("pc_start")), f"{ref.file}:{ref.line}"))
    return fault


def _tie_later(faults: dict[tuple, AicoreFault], node, hit: Hit, ref: LineRef) -> None:
    """Extend info of an old (non-STARS) report names another core of the same serial; an exception dump's
    node line names the operator of the fault on its stream and task."""
    for fault in faults.values():
        if fault.node != node:
            continue
        if hit.form.part == "extend_nonstars" and (fault.device, fault.serial) == (hit.int("device"), hit.int("serial")):
            if hit.int("core_id") not in fault.cores:
                fault.cores.append(hit.int("core_id"))
            fault.refs.append(ref)
            return
        if hit.form.part == "node" and (fault.stream_id, fault.task_id) == (hit.int("stream"), hit.int("task")):
            fault.op = fault.op or hit.values["kernel"]
            fault.refs.append(ref)
            return


def _new_fault(hit: Hit, ref: LineRef, node, pid) -> AicoreFault:
    pc_raw, first = hit.int("pc_start"), None
    if "pc_start_second" in hit.values:   # outstanding form: two tasks in flight, the second pc start is the faulting task's
        first, pc_raw = pc_raw, hit.int("pc_start_second")
    ec_text = hit.values["error_code"]
    david = bool(_DAVID_KEYS.search(ref.text))
    fault = AicoreFault(
        file=ref.file, line=ref.line, time=ref.time, node=node, pid=pid,
        device=hit.int("device"), serial=hit.int("serial"), cores=[], wording=hit.values["core_type"],
        pc_start_raw=pc_raw, current_raw=hit.int("current"), error_code=None, family=DAVID if david else STARS,
        pc_start_first_raw=first, src_file=ref.src_file, src_line=ref.src_line)
    if david and not ec_text.lower().startswith("0x"):
        fault.error_bit_list = parse_bit_list(ec_text)
    else:
        fault.error_code = _int_or_none(ec_text)
    if s := _OLD_ERRORSTR.search(ref.text):
        fault.error_str = s["s"].rstrip(".") or None
    return fault


def _add_device_dumps(log: LogTable, faults: dict[tuple, AicoreFault]) -> None:
    """Device `<exception_print>` AI Core dumps as faults: all cores of one dump are one fault."""
    for dump in device_dump.extract(log):
        cores = [c for c in dump.cores if c.aic_error is not None or c.pc_start is not None]
        if dump.kind != "aicore_exception" or not cores:
            continue
        if any(f.device == dump.device and (f.stream_id, f.task_id) == (dump.stream_id, dump.task_id)
               and f.node == dump.node for f in faults.values()):
            continue   # the host already reported it with its registers
        c0 = cores[0]
        fault = AicoreFault(
            file=dump.file, line=c0.line, time=dump.time, node=dump.node, pid=None, device=dump.device, serial=None,
            cores=[c.core for c in cores], wording="aicore exception (device dump)", pc_start_raw=c0.pc_start,
            current_raw=c0.current_pc, error_code=c0.aic_error, family="old", stream_id=dump.stream_id,
            task_id=dump.task_id, refs=list(dump.refs), src_file=dump.src_file, src_line=c0.src_line)
        fault.refs.append(LineRef(dump.file, c0.line, dump.time, c0.text, dump.src_file, c0.src_line))
        others = {(c.pc_start, c.current_pc) for c in cores[1:]} - {(c0.pc_start, c0.current_pc)}
        if others:
            fault.notes.append(Note("pcnote.other_pairs", n=len(others), cores=len(cores)))
        faults[(dump.node, dump.device, "dump", dump.stream_id, dump.task_id)] = fault


def _known(fault: AicoreFault, faults: list[AicoreFault], loads) -> list[KernelRange]:
    """Where this kernel is known to lie on this device, from loads and other consistent reports."""
    known = [r for dev, k, r in loads if k == fault.kernel and dev in (None, fault.device)]
    for other in faults:
        if (other is not fault and other.key == fault.key and other.bin_size
                and other.pc and other.pc.verdict == addresses.CONSISTENT):
            known.append(KernelRange(addresses.mask48(other.pc_start_raw), other.bin_size, f"{other.file}:{other.line}"))
    return known


def _pc_notes(fault: AicoreFault, faults: list[AicoreFault], launch_addrs: dict[int, LineRef]) -> None:
    """Second opinions on the pc values: msaicerr's low-20-bit offset, the same kernel elsewhere on this device,
    and the address the host launched the kernel at."""
    pc, cur = fault.pc_start_raw, fault.current_raw
    if pc is None or cur is None:
        return
    if fault.pc_start_first_raw is not None:
        fault.notes.append(Note("pcnote.outstanding", first=hexs(fault.pc_start_first_raw), second=hexs(pc)))
    low20 = addresses.msaicerr_offset(pc, cur)
    if low20 != addresses.offset(pc, cur):
        fault.notes.append(Note("pcnote.low20", low20=hexs(low20), full=hexs(addresses.offset(pc, cur))))
    if fault.kernel:
        for other in faults:
            if other is not fault and other.key == fault.key and other.pc_start_raw is not None:
                fault.pc_peers.append((mask48(other.pc_start_raw), f"{other.file}:{other.line}"))
        if fault.pc_peers:
            differ = sorted({p for p, _ in fault.pc_peers if p != mask48(pc)})
            if differ:
                fault.notes.append(Note("pcnote.peers_differ", kernel=fault.kernel, device=fault.device,
                                        pcs=", ".join(hexs(p) for p in differ)))
            else:
                fault.notes.append(Note("pcnote.peers_agree", kernel=fault.kernel, device=fault.device))
    if (ref := launch_addrs.get(mask48(pc))) is not None:
        fault.notes.append(Note("pcnote.launch", pc=hexs(mask48(pc)), where=f"{ref.file}:{ref.line}"))
        if ref not in fault.refs:
            fault.refs.append(ref)


def _decode(fault: AicoreFault) -> None:
    if fault.family == DAVID:
        named = decode_bit_list(fault.error_bit_list)
        fault.error_bits = [n for _, n in named if n]
        unknown = [i for i, n in named if n is None]
        if unknown:
            fault.notes.append(Note("bits.950_unknown", bits=unknown))
        return
    if fault.errcode is not None:
        bits = decode_triple(*fault.errcode)
        if not bits:
            fault.notes.append(Note("bits.none_set", text=NO_BIT_TEXT))
            fault.error_str = fault.error_str or NO_BIT_TEXT
    elif fault.error_code:
        bits = decode_error_code(fault.error_code)
    else:
        bits = []
        if fault.error_code == 0:
            fault.notes.append(Note("bits.zero_code"))
    fault.error_bits = [b.name for b in bits]


def _int_or_none(text: str) -> int | None:
    try:
        return parse_int(text)
    except ValueError:
        return None
