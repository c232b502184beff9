"""AI Core faults from the report of the AI Core Error Analyzer (msaicerr's info.txt), pasted or collected.

The report gives one fault on separate `key : value` lines (device id, node and kernel name, the AI Core error
register, start pc and current pc) in every release since 2020; only the padding and the register's label
changed (`code : 0x10`, `error code  :`, `AIC_ERROR        :`). Its lines are read through the format
catalog's `analyzer` forms of the aicore_fault family.
"""
from __future__ import annotations

import re

from ..knowledge import formats
from ..knowledge.kernels import op_of
from ..reading.table import LogTable
from .items import AicoreFault, LineRef

_FORMS = formats.select("aicore_fault", "analyzer")
# the field each form fills: a field seen twice in one file starts the next report
_FIELD = {"analyzer_aic_error": "analyzer_code"}


def extract(log: LogTable) -> list[AicoreFault]:
    """One fault per analyzer report that names its registers or its kernel."""
    reports: list[dict] = []
    current: dict[tuple, dict] = {}
    for file, line, time, msg, src, src_line in ((r.file, r.line, r.time, r.msg, r.src_file, r.src_line)
                                                 for r in log.picked(log.holding(_FORMS.keep))):
        found = _FORMS.first(msg)
        if found is None:
            continue
        where = (file, src if isinstance(src, str) else None)
        field = _FIELD.get(found.form.form, found.form.form)
        report = current.get(where)
        if report is None or field in report:
            report = current[where] = {"refs": []}
            reports.append(report)
        report[field] = found
        report["refs"].append(LineRef(file, line, time, msg, where[1], src_line))
    return [_fault(log, rep) for rep in reports if "analyzer_kernel_name" in rep
            or {"analyzer_start_pc", "analyzer_current_pc"} <= set(rep)]


def _fault(log: LogTable, report: dict) -> AicoreFault:
    first = report["refs"][0]
    value = {field: hit for field, hit in report.items() if field != "refs"}
    kernel = value["analyzer_kernel_name"].values["kernel"] if "analyzer_kernel_name" in value else None
    node = value["analyzer_node_name"].values["kernel"] if "analyzer_node_name" in value else None
    return AicoreFault(
        file=first.file, line=first.line, time=first.time, node=log.origin(first.file, first.src_file).node, pid=None,
        device=value["analyzer_device_id"].int("device") if "analyzer_device_id" in value else None, serial=None,
        cores=[], wording="AI Core Error Analyzer report",
        pc_start_raw=value["analyzer_start_pc"].int("pc_start") if "analyzer_start_pc" in value else None,
        current_raw=value["analyzer_current_pc"].int("current") if "analyzer_current_pc" in value else None,
        error_code=value["analyzer_code"].int("error_code") if "analyzer_code" in value else None, family="old",
        kernel=kernel, op=_op(kernel, node), refs=report["refs"], src_file=first.src_file, src_line=first.src_line)


def _op(kernel: str | None, node: str | None) -> str | None:
    """The operator type: a TBE kernel spells it in lower case (te_transdata_<hash>), the graph node's name in
    the type's own case (trans_TransData_241)."""
    op = op_of(kernel) if kernel else None
    spelled = next((t for t in re.split(r"[_/]", node or "") if op and t.lower() == op.lower()), None)
    return spelled or op
