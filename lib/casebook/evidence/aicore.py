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

import pandas as pd

from ..knowledge import addresses
from ..knowledge.addresses import KernelRange, hexs, mask48
from ..knowledge.errcode import (DAVID, NO_BIT_TEXT, STARS, decode_bit_list, decode_error_code,
                                 decode_triple, parse_bit_list, parse_int)
from ..knowledge.kernels import op_of
from ..knowledge.messages import Note
from ..reading.grammar import KIND_PLOG
from ..reading.plog import LogTable
from ..reading.scan import any_of
from . import device_dump
from .device_id import device_in
from .items import AicoreFault, LineRef

# decimal numbers of at most 20 digits (a 64-bit register); a longer run is not a value, and Python would refuse
# to parse one past 4,300 digits
_NUM = r"(?:0x[0-9a-fA-F]+|\d{1,20}(?!\d))"
# ids and counts have at most 18 digits (reading.grammar.MAX_DIGITS): a longer run of digits matches nothing
REPORT = re.compile(
    r"(?:The error from device\((?:chipId:)?(?P<dev>\d{1,18})(?:, ?dieId:\d+)?\)|"
    r"An error occurs on the device\(chipId:(?P<dev2>\d{1,18}), ?dieId:\d+\)),? (?:the )?serial number is (?P<serial>\d{1,18})[.,]\s*"
    r"(?:there is an? (?:exception of )?(?P<what>[\w ]+?)(?: exception)?|the error is (?P<what2>[\w ]+?)), "
    r"core id is (?P<core>\d{1,18}), error code = (?P<ec>.+?), dump info: "
    r"(?:first )?pc start: (?P<pc>" + _NUM + r")(?:, second pc start: (?P<pc2>" + _NUM + r"))?, "
    r"current: (?P<cur>" + _NUM + r")")
_OLD_ERRORSTR = re.compile(r"errorStr: (?P<s>.*?)\s*(?:\[FUNC:|$)")
EXTEND = re.compile(r"The extend info: errcode:\((?P<a>" + _NUM + r"), ?(?P<b>" + _NUM + r"), ?(?P<c>" + _NUM + r")\)"
                    r"(?: errorStr: (?P<s>.*?))?(?: fixp_error0 info:|\[FUNC:|$)")
EXTEND_LIST = re.compile(r"The extend info: errcode:\((?P<list>[\d ,;]*)\)(?: errorStr: (?P<s>.*?))?(?: subErrType:|\[FUNC:|$)")
RETCODE = re.compile(r"(?:Kernel task happen error|An error occurred in the kernel task|Task exception!).*?"
                     r"retCode=(?P<ret>0x[0-9a-fA-F]+)")
KERNEL = re.compile(r"(?:kernel execute failed|kernel execution failed|task execute failed), device_id=(?P<dev>\d{1,18})(?!\d)"
                    r".*?fault kernel_name=(?P<k>[^,\s]+)")
BINSIZE = re.compile(r"kernel_name=(?P<k>[^,\s]+), kernelNameSize=\d+, binSize=(?P<size>\d{1,18})(?!\d)")
# a logged load address of a kernel: "kernel_name=K ... kernel addr=0x..", or a timeout slot's "pc_start=0x.."
KERNEL_ADDR = re.compile(r"kernel_name=(?P<k>[^,\s]+),.*?\b(?:kernel addr|kernel_addr|pc_start)[=:] ?(?P<a>0x[0-9a-fA-F]+)")
# the function address the host put in the launch command (older runtimes, INFO): "funcAddr_= 0X100800018000"
FUNC_ADDR = re.compile(r"funcAddr_?\s*=\s*(?P<a>0[xX][0-9a-fA-F]+)")
_STREAM_TASK = re.compile(r"\bstream_id=(?P<s>\d{1,18})(?!\d).*?\btask_id=(?P<t>\d{1,18})(?!\d)")
_DAVID_KEYS = re.compile(r"\b(?:sc|su|l1) error info:")

_BIN_SIZE = re.compile(r"\bbinSize=(\d{1,18})(?!\d)")

#: Lines this family reads besides error lines (the reader keeps them in big files too).
KEEP = ("serial number is", "extend info: errcode", "retCode=", "fault kernel_name=", "binSize=", "kernel addr",
        "pc_start=", "funcAddr")


def _scan(log: LogTable) -> pd.DataFrame:
    r = log.records
    hit = r[r["msg"].str.contains(any_of(KEEP), regex=True)]
    # in time order, and at equal times the µs-precise plog line before its copy in a screen capture,
    # so a fault is located in the plog; lines without a time keep their place after timed ones
    order = hit.assign(_untimed=hit["time"].isna(), _t=hit["time"].fillna(""), _capture=hit["kind"] != KIND_PLOG)
    return order.sort_values(["_untimed", "_t", "_capture", "file", "line"], kind="stable")


def extract(log: LogTable) -> list[AicoreFault]:
    """AI Core faults, first by time, each with its decoded codes and pc verdict."""
    faults: dict[tuple, AicoreFault] = {}
    # lines of one file go together; a line a grep prefix quoted belongs to the file it quotes: (file, src_file)
    last_fault_in_file: dict[tuple, AicoreFault] = {}
    bin_sizes: dict[str, tuple[int, LineRef]] = {}
    loads: list[tuple[int | None, str, KernelRange]] = []
    launch_addrs: dict[int, LineRef] = {}
    tasks: dict[tuple, tuple[int, int]] = {}   # (file, src_file, device) -> last (stream, task) named with a fault
    pending_kernel: list[tuple[tuple, int, str, LineRef, tuple | None]] = []
    columns = ["file", "line", "time", "pid", "msg", "src_file", "src_line"]
    for file, line, time, pid, msg, src, src_line in _scan(log)[columns].itertuples(index=False):
        ref = LineRef(file, int(line), time, msg, src, src_line)
        where = (file, src)
        f = log.origin(file, src)
        st = _STREAM_TASK.search(msg)
        if m := REPORT.search(msg):
            dev = int(m["dev"] if m["dev"] is not None else m["dev2"])
            key = (f.node, dev, int(m["serial"]))
            fault = faults.get(key)
            if fault is None:
                fault = faults[key] = _new_fault(m, ref, f.node, pid)
                if (st_task := tasks.get((*where, dev))) is not None:
                    fault.stream_id, fault.task_id = st_task
            core = int(m["core"])
            if core not in fault.cores:
                fault.cores.append(core)
            fault.refs.append(ref)
            last_fault_in_file[where] = fault
        elif (m := EXTEND.search(msg)) and where in last_fault_in_file:
            fault = last_fault_in_file[where]
            if fault.errcode is None and fault.family != DAVID:
                fault.errcode = (parse_int(m["a"]), parse_int(m["b"]), parse_int(m["c"]))
                fault.error_str = (m["s"] or "").strip().rstrip(".") or fault.error_str
            fault.refs.append(ref)
        elif (m := EXTEND_LIST.search(msg)) and where in last_fault_in_file:
            fault = last_fault_in_file[where]
            if not fault.error_bit_list:
                fault.family = DAVID
                fault.error_bit_list = parse_bit_list(m["list"])
                fault.error_str = (m["s"] or "").strip().rstrip(".") or fault.error_str
            fault.refs.append(ref)
        elif m := RETCODE.search(msg):
            dev = device_in(msg)
            if st and dev is not None:
                tasks[(*where, dev)] = (int(st["s"]), int(st["t"]))
            for fault in faults.values():
                if fault.ret_code is None and _where(fault) == where and (dev is None or dev == fault.device):
                    fault.ret_code = m["ret"].lower()
                    fault.refs.append(ref)
        elif m := KERNEL.search(msg):
            pending_kernel.append((where, int(m["dev"]), m["k"], ref, (int(st["s"]), int(st["t"])) if st else None))
        elif m := BINSIZE.search(msg):
            bin_sizes.setdefault(m["k"], (int(m["size"]), ref))
        if (a := KERNEL_ADDR.search(msg)) and (size := _BIN_SIZE.search(msg)):
            start = addresses.mask48(int(a["a"], 16))
            loads.append((device_in(msg), a["k"], KernelRange(start, int(size[1]), f"{file}:{line}")))
        if a := FUNC_ADDR.search(msg):
            launch_addrs.setdefault(mask48(int(a["a"], 16)), ref)
    _add_device_dumps(log, faults)
    for where, dev, kernel, ref, st in pending_kernel:
        for fault in faults.values():
            same_task = st is not None and (fault.stream_id, fault.task_id) == st
            near = _where(fault) == where or fault.node == log.origin(*where).node
            if fault.device == dev and fault.kernel is None and near and (same_task or fault.stream_id is None):
                fault.kernel, fault.op = kernel, op_of(kernel)
                if st and fault.stream_id is None:
                    fault.stream_id, fault.task_id = st
                fault.refs.append(ref)
                break
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


def _where(fault: AicoreFault) -> tuple:
    """The file a fault was reported in, as extract() groups lines: (file, src_file)."""
    return fault.file, fault.src_file


def _new_fault(m: re.Match, ref: LineRef, node, pid) -> AicoreFault:
    pc_raw = parse_int(m["pc"])
    first = None
    if m["pc2"] is not None:   # outstanding form: two tasks in flight, the second pc start is the faulting task's
        first, pc_raw = pc_raw, parse_int(m["pc2"])
    ec_text = m["ec"].strip()
    david = m["dev2"] is not None or bool(_DAVID_KEYS.search(ref.text))
    fault = AicoreFault(
        file=ref.file, line=ref.line, time=ref.time, node=node, pid=None if pd.isna(pid) else int(pid),
        device=int(m["dev"] if m["dev"] is not None else m["dev2"]), serial=int(m["serial"]), cores=[],
        wording=(m["what"] or m["what2"]).strip(), pc_start_raw=pc_raw, current_raw=parse_int(m["cur"]),
        error_code=None, family=DAVID if david else STARS, pc_start_first_raw=first, src_file=ref.src_file,
        src_line=ref.src_line)
    if david and not ec_text.lower().startswith("0x"):
        fault.error_bit_list = parse_bit_list(ec_text)
    else:
        fault.error_code = _int_or_none(ec_text)
    if s := _OLD_ERRORSTR.search(ref.text[m.end():]):
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
