"""AI Core fault reports, in every wording the runtime has used, merged to one fault per device and serial.

A fault is told by several lines: the core report ("The error from device(...), serial number is N, there
is an exception of fftsplus aicore error, core id is C, error code = ..., dump info: pc start: ..., current:
..."), the extend info (`errcode:(a, b, c) errorStr: ...`), the retCode line and the kernel-name line
("Aicore kernel execute failed, ... fault kernel_name=..."); at INFO level also the kernel's binSize.
Several cores and several files (plog and screen capture) may report the same fault.
"""
from __future__ import annotations

import re

import pandas as pd

from .. import addresses
from ..addresses import KernelRange
from ..errcode import decode_error_code, decode_triple, parse_int
from ..grammar import KIND_PLOG
from ..plog import LogTable
from .device_id import device_in
from .items import AicoreFault, LineRef

_NUM = r"(?:0x[0-9a-fA-F]+|\d+)"
REPORT = re.compile(
    r"(?:The error from device\((?:chipId:)?(?P<dev>\d+)(?:, ?dieId:\d+)?\)|"
    r"An error occurs on the device\(chipId:(?P<dev2>\d+), ?dieId:\d+\)),? (?:the )?serial number is (?P<serial>\d+)[.,]\s*"
    r"(?:there is an? (?:exception of )?(?P<what>[\w ]+?)(?: exception)?|the error is (?P<what2>[\w ]+?)), "
    r"core id is (?P<core>\d+), error code = (?P<ec>[^,]+), dump info: "
    r"pc start: (?P<pc>" + _NUM + r"), current: (?P<cur>" + _NUM + r")")
_OLD_ERRORSTR = re.compile(r"errorStr: (?P<s>.*?)\s*(?:\[FUNC:|$)")
EXTEND = re.compile(r"The extend info: errcode:\((?P<a>" + _NUM + r"), ?(?P<b>" + _NUM + r"), ?(?P<c>" + _NUM + r")\)"
                    r"(?: errorStr: (?P<s>.*?))?(?: fixp_error0 info:|\[FUNC:|$)")
RETCODE = re.compile(r"(?:Kernel task happen error|An error occurred in the kernel task|Task exception!).*?"
                     r"retCode=(?P<ret>0x[0-9a-fA-F]+)")
KERNEL = re.compile(r"(?:kernel execute failed|kernel execution failed|task execute failed), device_id=(?P<dev>\d+)"
                    r".*?fault kernel_name=(?P<k>[^,\s]+)")
BINSIZE = re.compile(r"kernel_name=(?P<k>[^,\s]+), kernelNameSize=\d+, binSize=(?P<size>\d+)")
# a logged load address of a kernel: "kernel_name=K ... kernel addr=0x..", or a timeout slot's "pc_start=0x.."
KERNEL_ADDR = re.compile(r"kernel_name=(?P<k>[^,\s]+),.*?\b(?:kernel addr|kernel_addr|pc_start)[=:] ?(?P<a>0x[0-9a-fA-F]+)")

_BIN_SIZE = re.compile(r"\bbinSize=(\d+)")
_DROP_SUFFIX = re.compile(r"_mix_ai[cv]$")


def op_of(kernel: str) -> str | None:
    """The operator type in a kernel name: `2_0_11_GatherV2` -> GatherV2, `FlashAttentionScoreGrad_<hash>_...` ->
    FlashAttentionScoreGrad, `16805736118314619649-1_0_1_Add_35` -> Add."""
    for token in _DROP_SUFFIX.sub("", kernel).split("_"):
        if token[:1].isalpha() and not token.startswith("te"):
            return token
    return None


def _scan(log: LogTable) -> pd.DataFrame:
    r = log.records
    hit = r[r["msg"].str.contains(r"serial number is|extend info: errcode|retCode=|fault kernel_name=|binSize=|"
                                  r"kernel addr|pc_start=", regex=True)]
    # in time order, and at equal times the µs-precise plog line before its copy in a screen capture,
    # so a fault is located in the plog; lines without a time keep their place after timed ones
    order = hit.assign(_untimed=hit["time"].isna(), _t=hit["time"].fillna(""), _capture=hit["kind"] != KIND_PLOG)
    return order.sort_values(["_untimed", "_t", "_capture", "file", "line"], kind="stable")


def extract(log: LogTable) -> list[AicoreFault]:
    """AI Core faults, first by time, each with its decoded codes and pc verdict."""
    files = {f.path: f for f in log.files}
    faults: dict[tuple, AicoreFault] = {}
    last_fault_in_file: dict[str, AicoreFault] = {}
    bin_sizes: dict[str, tuple[int, LineRef]] = {}
    loads: list[tuple[int | None, str, KernelRange]] = []
    pending_kernel: list[tuple[str, int, str, LineRef]] = []
    for file, line, time, pid, msg in _scan(log)[["file", "line", "time", "pid", "msg"]].itertuples(index=False):
        ref = LineRef(file, int(line), time, msg)
        f = files[file]
        if m := REPORT.search(msg):
            dev = int(m["dev"] if m["dev"] is not None else m["dev2"])
            key = (f.node, dev, int(m["serial"]))
            fault = faults.get(key)
            if fault is None:
                fault = faults[key] = AicoreFault(
                    file=file, line=int(line), time=time, node=f.node,
                    pid=None if pd.isna(pid) else int(pid), device=dev, serial=int(m["serial"]), cores=[],
                    wording=(m["what"] or m["what2"]).strip(), pc_start_raw=parse_int(m["pc"]),
                    current_raw=parse_int(m["cur"]), error_code=_int_or_none(m["ec"]))
                if s := _OLD_ERRORSTR.search(msg[m.end():]):
                    fault.error_str = s["s"].rstrip(".") or None
            core = int(m["core"])
            if core not in fault.cores:
                fault.cores.append(core)
            fault.refs.append(ref)
            last_fault_in_file[file] = fault
        elif (m := EXTEND.search(msg)) and file in last_fault_in_file:
            fault = last_fault_in_file[file]
            if fault.errcode is None:
                fault.errcode = (parse_int(m["a"]), parse_int(m["b"]), parse_int(m["c"]))
                fault.error_str = (m["s"] or "").strip().rstrip(".") or fault.error_str
            fault.refs.append(ref)
        elif m := RETCODE.search(msg):
            dev = device_in(msg)
            for fault in faults.values():
                if fault.ret_code is None and fault.file == file and (dev is None or dev == fault.device):
                    fault.ret_code = m["ret"].lower()
                    fault.refs.append(ref)
        elif m := KERNEL.search(msg):
            pending_kernel.append((file, int(m["dev"]), m["k"], ref))
        elif m := BINSIZE.search(msg):
            bin_sizes.setdefault(m["k"], (int(m["size"]), ref))
        if (a := KERNEL_ADDR.search(msg)) and (size := _BIN_SIZE.search(msg)):
            start = addresses.mask48(int(a["a"], 16))
            loads.append((device_in(msg), a["k"], KernelRange(start, int(size[1]), f"{file}:{line}")))
    for file, dev, kernel, ref in pending_kernel:
        for fault in faults.values():
            if fault.device == dev and fault.kernel is None and (fault.file == file or fault.node == files[file].node):
                fault.kernel, fault.op = kernel, op_of(kernel)
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
    return result


def _known(fault: AicoreFault, faults: list[AicoreFault], loads) -> list[KernelRange]:
    """Where this kernel is known to lie on this device, from loads and other consistent reports."""
    known = [r for dev, k, r in loads if k == fault.kernel and dev in (None, fault.device)]
    for other in faults:
        if (other is not fault and other.device == fault.device and other.kernel == fault.kernel and other.bin_size
                and other.pc and other.pc.verdict == addresses.CONSISTENT):
            known.append(KernelRange(addresses.mask48(other.pc_start_raw), other.bin_size, f"{other.file}:{other.line}"))
    return known


def _decode(fault: AicoreFault) -> None:
    if fault.errcode is not None:
        bits = decode_triple(*fault.errcode)
    elif fault.error_code:
        bits = decode_error_code(fault.error_code)
    else:
        bits = []
    fault.error_bits = [b.name for b in bits]


def _int_or_none(text: str) -> int | None:
    try:
        return parse_int(text)
    except ValueError:
        return None
