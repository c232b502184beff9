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
    paths = {f.path for f in dumps}
    by_file: dict[str, list[tuple[int, str]]] = {}
    for r in log.picked(i for i, file in enumerate(log.column("file")) if file in paths):
        by_file.setdefault(r.file, []).append((r.line, r.msg))
    facts: dict[str, Fact] = {}
    for f in dumps:
        if f.path not in by_file:
            continue
        for name, value, line in attachments.settings(f.attachment, by_file[f.path]):
            if name in FACTS and name not in facts:
                facts[name] = Fact(name, value, "log", f.path, int(line), _NOTES.get(name))
    return facts
