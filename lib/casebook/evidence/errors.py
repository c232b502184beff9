"""The records that report an error: ERROR-level lines and error blocks, and in a paste the warnings and
history lines that name an error code."""
from __future__ import annotations

import re

import pandas as pd

from ..reading.bundle import ROLE_SCREEN, ROLE_TEXT
from ..reading.grammar import KIND_BBOX, KIND_TORCH_WARNING
from ..reading.plog import LogTable

#: Roles of a file that is a paste (console output, copied lines), not a log file the job wrote.
PASTE_ROLES = (ROLE_SCREEN, ROLE_TEXT)
# torch_npu prints an ACL call's failure during teardown as a warning ("NPU warning, error code is 507048"),
# and a pasted hisi_logs history names the device's exception ("system exception code [0x68020002]"): in a
# ticket these are the error; in a bundle the plog and the device's own logs tell it
_CODED = {KIND_TORCH_WARNING: re.compile(r"\berror code is\s*:?\s*\d"),
          KIND_BBOX: re.compile(r"\bexception code \[0x[0-9a-fA-F]+\]")}


def records(log: LogTable) -> pd.DataFrame:
    """The error records of the log table, in its record order."""
    return log.derive("error_records", _build)


def _build(log: LogTable) -> pd.DataFrame:
    err = log.errors()
    r = log.records
    pastes = {f.path for f in log.files if f.role in PASTE_ROLES}
    candidates = r[r["kind"].isin(tuple(_CODED)) & r["file"].isin(pastes) & ~r.index.isin(err.index)]
    coded = [bool(_CODED[k].search(m)) for k, m in zip(candidates["kind"], candidates["msg"])]
    extra = candidates[coded] if coded else candidates.iloc[:0]
    return err if extra.empty else pd.concat([err, extra]).sort_index(kind="stable")


def is_paste(log: LogTable, file: str) -> bool:
    """Whether a file read is a paste: its lines are in the order they were printed, its times sparse."""
    return log.file(file).role in PASTE_ROLES
