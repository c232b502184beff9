"""Facts from what customers attach: `env`/`printenv` output, `pip list`/`pip freeze`, CANN `version.info`
and `ascend_install.info`, `npu-smi info` (the reader marks these files with the `environment` role)."""
from __future__ import annotations

from ..knowledge.messages import Note
from ..knowledge.vocabulary import FACTS
from ..reading import attachments
from ..reading.bundle import ROLE_ENVIRONMENT
from ..reading.table import LogTable
from .items import Fact

_NOTES = {
    "soc_version": Note("fact.from_npu_smi"),
}


def extract(log: LogTable) -> dict[str, Fact]:
    """Each fact an attachment states (first file in path order, first line wins), with its file and line."""
    dumps = [f for f in log.files if f.role == ROLE_ENVIRONMENT and f.attachment and not f.skipped]
    if not dumps:
        return {}
    r = log.records
    by_file = r[r["file"].isin([f.path for f in dumps])].groupby("file", sort=False)
    facts: dict[str, Fact] = {}
    for f in dumps:
        if f.path not in by_file.groups:
            continue
        rows = by_file.get_group(f.path)
        for name, value, line in attachments.settings(f.attachment, zip(rows["line"], rows["msg"])):
            if name in FACTS and name not in facts:
                facts[name] = Fact(name, value, "log", f.path, int(line), _NOTES.get(name))
    return facts
