"""The records that report an error: ERROR-level lines and error blocks, in a paste the lines of tools that
report an error without a level (torch_npu's warnings, a device's history and exception stream, msaicerr,
DCMI, the kernel), and in a paste that has no such line at all, the lines that say in words that something failed."""
from __future__ import annotations

import re

import pandas as pd

from ..reading.bundle import ROLE_SCREEN, ROLE_TEXT
from ..reading.plog import LogTable

#: Roles of a file that is a paste (console output, copied lines), not a log file the job wrote.
PASTE_ROLES = (ROLE_SCREEN, ROLE_TEXT)
# Tools that print an error without an ERROR level; in a ticket these lines are the error, in a bundle the
# plog and the device's own logs tell it
_REPORTS = re.compile("|".join((
    r"\bNPU warning, error code is\s*:?\s*\d",            # torch_npu at teardown: an ACL call's failure
    r"\bsystem exception code \[0x[0-9a-fA-F]+\]",       # a device's hisi_logs history.log
    r"^\s*(?:(?:error )?code|AIC_ERROR)\s*:\s*0x[0-9a-fA-F]+\s*$",  # msaicerr's report: the AI Core error register
    r"(?i:\bdcmi\b).*\bfailed\b.*\bret is -\d+",        # npu-smi and DCMI
    r"\{\d+\}\[Hardware Error\]: Hardware error from",   # the kernel's APEI report of a memory error
    r"^\s*Launch kernel failed: ",                       # MindSpore's kernel error block
    r"\bRTS_HWTS: [\w ]*(?:exception|error)\b",           # the driver's dump of an exception stream
    r"\bOther info\[\d+\]:.*\berror code=0x",            # ... and the task scheduler's code in it
)))

# What a line says when it states a failure in words. A paste of one or two lines copied out of a console
# ("NPU out of memory. Tried to allocate ...", "unknown type name bfloat16_t") has no level and no block: its
# failure is said in words, and these are the words
_STATES = re.compile(r"(?i)\b(?:out of (?:device )?memory|not supported?|unsupported|unknown type|cannot|can't|"
                     r"could ?n[o']t|unable to|fail(?:ed|s|ure)?|errors?|invalid|incorrect|wrong|illegal|"
                     r"is not equal|mismatch(?:ed)?|not found|no such file|not implemented|not registered|"
                     r"has not been|exceed(?:s|ed)?|overflow|timed? ?out|denied|refused|abort(?:ed)?|"
                     r"segmentation fault|core dumped|killed|busy|but (?:got|actual(?:ly)?)|no (?:supported|valid|available))\b|"
                     r"\bexpected:? ?[\[(]")


def records(log: LogTable) -> pd.DataFrame:
    """The error records of the log table, in its record order."""
    return log.derive("error_records", _build)


def _build(log: LogTable) -> pd.DataFrame:
    err = log.errors()
    r = log.records
    candidates = r[r["file"].isin(_pastes(log)) & ~r.index.isin(err.index)]
    extra = candidates[candidates["msg"].str.contains(_REPORTS, na=False)]
    # a paste with no error line of any kind: the lines that say it failed are its errors
    silent = set(candidates["file"]) - set(err["file"]) - set(extra["file"])
    stated = candidates[candidates["file"].isin(silent)]
    stated = stated[stated["msg"].str.contains(_STATES, na=False)]
    extra = pd.concat([extra, stated]) if len(stated) else extra
    return err if extra.empty else pd.concat([err, extra]).sort_index(kind="stable")


def is_paste(log: LogTable, file: str) -> bool:
    """Whether a file read is a paste: its lines are in the order they were printed, its times sparse."""
    return file in _pastes(log)


def _pastes(log: LogTable) -> frozenset[str]:
    return log.derive("paste_files", lambda t: frozenset(f.path for f in t.files if f.role in PASTE_ROLES))
