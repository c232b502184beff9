"""What the line grammar yields: the record kinds, the fields of one line, and the context a file's lines share."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

#: Record kinds, one per family of forms.
KIND_PLOG = "plog"                    # slog header line
KIND_BLOCK_HEAD = "block_head"        # "EZ9999: Inner Error!"
KIND_BLOCK_MSG = "block_msg"          # "EZ9999[PID: n] time (EZ9999): msg" and its variants
KIND_BLOCK_LINE = "block_line"        # an error-manager block's TraceBack, [FUNC:..][FILE:..][LINE:..] and advice lines
KIND_PTA = "pta"                      # torch_npu "[ERROR] date (PID:n, Device:d, RankID:r) ERR00100 PTA ..."
KIND_TORCH_WARNING = "torch_warning"  # c10 "[W compiler_depend.ts:487] Warning: ...", "[E205 11:47:24.69 f.ts:44] ..."
KIND_NPU_MESSAGE = "npu_message"      # torch_npu's explanation of a code: "[Error]: ...", its advice, "(function npuX)"
KIND_PYTHON = "python"                # Python traceback lines and "XxxError: msg"
KIND_STACK = "stack"                  # native call stacks: c10 "frame #0: ...", MindSpore's call-stack lines
KIND_REPORT = "report"                # a tool's or framework's structured report: msaicerr info, MindSpore, TS stream
KIND_EXCEPTION_PRINT = "exception_print"  # device "<exception_print>KEY=VALUE" register dump
KIND_BBOX = "bbox"                    # hisi_logs history "[time] system exception code ..."
KIND_KERNEL = "kernel"                # a kernel ring-buffer line (dmesg, kbox): "[ 3981.402215] ..."
KIND_BLANK = "blank"
KIND_ATTACHMENT = "attachment"        # a line of an environment dump (env, pip list, version.info, npu-smi)
KIND_PASTE = "paste"                  # shell furniture: prompt and command, a listing, a banner, `--`, a fence
KIND_CONTINUATION = "continuation"    # a piece of a line the paste broke, read as part of the record above it
KIND_CONSOLE = "console"              # a program's own console line: its level from its prefix or its wording
KIND_UNPARSED = "unparsed"

TS = r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}"
ECODE = r"E[0-9A-Z]\d{4}"
#: the head of an error manager's block: `EZ9999: Inner Error!`; CANN 6 adds `, Please contact support engineer!`
BLOCK_HEAD = re.compile(r"^(?P<prefix>.*?)\b(?P<code>" + ECODE + r"): (?:Inner|Internal) [Ee]rror"
                        r"(?:, Please contact support engineer)?!?\s*$")

#: Digits a number field may have: more do not fit a 64-bit column (and Python refuses to parse a decimal
#: string past 4,300 digits), so such a field is left empty.
MAX_DIGITS = 18


def number(digits: str) -> int | None:
    """The value of a decimal field (an optional `-`, then digits), or None past MAX_DIGITS digits."""
    return int(digits) if len(digits.lstrip("-")) <= MAX_DIGITS else None


def plog_time(ts: str) -> str:
    """`2023-07-13-07:42:40.515.526` -> ISO `2023-07-13T07:42:40.515526` (local time, as logged)."""
    return f"{ts[:10]}T{ts[11:19]}.{ts[20:23]}{ts[24:27]}"


def seconds(t: str | None) -> float | None:
    """A record's ISO time as seconds since the epoch, or None (no time, or one that is no ISO time)."""
    try:
        return datetime.fromisoformat(t).timestamp() if t else None
    except ValueError:
        return None


@dataclass
class Fields:
    """What the grammar read from one line; absent parts stay None."""

    kind: str
    level: str | None = None
    module: str | None = None
    pid: int | None = None
    pname: str | None = None
    time: str | None = None
    src: str | None = None
    tid: str | None = None
    func: str | None = None
    stage: str | None = None
    code: str | None = None
    msg: str = ""
    extra: dict = field(default_factory=dict)


class BlockState:
    """Per-file context: the block, traceback or report the lines before opened, which later lines belong to."""

    def __init__(self) -> None:
        self.code: str | None = None      #: the E-code of the error-manager block we are in
        self.pid: int | None = None
        self.time: str | None = None
        self.in_block = False             #: inside an error-manager block (its code unknown when the paste began in it)
        self.in_python = False            #: inside a Python traceback
        self.npu_error = False            #: the line before was torch_npu's `[Error]:` explanation
        self.report: str | None = None    #: the section of a structured report we are in (screen.py, device_text.py)

    def open_block(self, code: str | None, pid: int | None = None, time: str | None = None) -> None:
        """Enter an error-manager block."""
        self.reset()
        self.code, self.pid, self.time, self.in_block = code, pid, time, True

    def reset(self) -> None:
        """Leave whatever the lines before opened."""
        self.code = self.pid = self.time = self.report = None
        self.in_block = self.in_python = self.npu_error = False
