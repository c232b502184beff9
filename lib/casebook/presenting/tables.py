"""The walk's tables as DataFrames: incidents, error bits, pc arithmetic, ranks, unexplained templates,
and the files read; column headers in the walk's language, cells ready to show.

Every table goes through `tidy`: an unknown value is an empty cell (never None or NaN), a whole number is an
integer (a pid never reads 48213.0), yes/no are words. Columns holding text quoted from the logs are named in
`frame.attrs["log_columns"]`, so checks of the wording can leave them alone.
"""
from __future__ import annotations

import math
import re

import pandas as pd

from ..evidence.items import AicoreFault
from ..knowledge.addresses import hexs, mask48, msaicerr_offset, offset
from ..knowledge.errcode import decode_bit_list, decode_error_code, decode_triple, meaning
from ..knowledge.messages import EN, name, say

#: Key of `DataFrame.attrs` listing the columns whose cells are log text.
LOG_COLUMNS = "log_columns"


def cell(value: object, lang: str = EN) -> object:
    """A value as a table shows it: "" for unknown, int for a whole float, words for a bool."""
    if value is None or value is pd.NaT:
        return ""
    if isinstance(value, bool):
        return say(lang, "word.yes" if value else "word.no")
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return int(value) if value.is_integer() else value
    try:
        if pd.isna(value):
            return ""
    except (TypeError, ValueError):
        pass   # lists and other containers are values, not missing ones
    return value


def tidy(df: pd.DataFrame, lang: str = EN, log_columns: tuple[str, ...] = ()) -> pd.DataFrame:
    """A copy with every cell shown as `cell` shows it, headers worded in `lang` (catalog `col.<name>`)."""
    headers = {c: name(lang, "col", str(c)) for c in df.columns}
    if len(df) and len(set(headers.values())) == len(df.columns):
        # built column by column under the worded headers: DataFrame.apply, or astype and rename, cost a millisecond
        # or a few tenths of one a table, and the walk has a table in most steps
        out = pd.DataFrame({headers[c]: [cell(v, lang) for v in df[c].tolist()] for c in df.columns}, index=df.index)
    else:
        out = df.astype(object).apply(lambda col: col.map(lambda v: cell(v, lang))) if len(df) else df.astype(object)
        out = out.rename(columns=headers)
    out.attrs[LOG_COLUMNS] = [headers[c] for c in log_columns if c in headers]
    return out


def incidents(items: list, lang: str = EN) -> pd.DataFrame:
    """One row per incident: where, what kind, its first failure and how much followed it."""
    rows = [{"node": i.node, "rank": i.rank, "device": i.device, "pid": i.pid, "kind": name(lang, "kind", i.kind),
             "role": name(lang, "role", i.role), "first_time": i.first.time, "code": i.first.code, "later_lines": i.cascade} for i in items]
    return tidy(pd.DataFrame(rows, columns=["node", "rank", "device", "pid", "kind", "role", "first_time", "code",
                                            "later_lines"]), lang)


def code_meaning(t, code: str, lang: str, sighting: str | None = None) -> str | None:
    """What a code or error bit means, from its KB page (or the bit table), in `lang`; None when not written.
    `sighting` is what named the code in the log (evidence/codes.py): a page of another catalog is not its."""
    page = t.kb.code_page(code, sighting) if t is not None else None
    if lang != EN:
        return (page.meaning_zh or page.title_zh or None) if page is not None else None
    if page is not None:
        return page.meaning
    # the bit table spells out an error bit's name; a number of another catalog is no bit
    return (meaning(code) or None) if sighting is None and re.fullmatch(r"[A-Z][A-Z0-9]*_[A-Z0-9_]+", code) else None


def error_bits(f: AicoreFault, lang: str = EN, t=None) -> pd.DataFrame:
    """One row per set error bit of a fault: where it sits in the report, its name and meaning."""
    if f.family == "david":
        named = dict(decode_bit_list(f.error_bit_list))
        return tidy(pd.DataFrame([{"bit": i, "name": named.get(i) or say(lang, "table.not_in_950"),
                                   "meaning": code_meaning(t, named[i], lang) if named.get(i) else ""}
                                  for i in f.error_bit_list], columns=["bit", "name", "meaning"]), lang)
    if f.errcode is not None:
        bits, source = decode_triple(*f.errcode), "errcode:(a, b, c)"
    else:
        bits, source = (decode_error_code(f.error_code) if f.error_code else []), "error code ="
    return tidy(pd.DataFrame([{"from": source, "word": b.word, "bit": b.bit, "mask": hexs(b.mask), "index": b.index,
                               "name": b.name, "meaning": code_meaning(t, b.name, lang)} for b in bits],
                             columns=["from", "word", "bit", "mask", "index", "name", "meaning"]), lang)


def pc(f: AicoreFault, lang: str = EN) -> pd.DataFrame:
    """The pc arithmetic of one fault, one row per quantity, as logged and as computed."""
    has = f.pc_start_raw is not None and f.current_raw is not None
    rows = [
        ("pc_logged", hexs(f.pc_start_raw)),
        ("pc_48", hexs(mask48(f.pc_start_raw)) if f.pc_start_raw is not None else None),
        ("current_logged", hexs(f.current_raw)),
        ("current_48", hexs(mask48(f.current_raw)) if f.current_raw is not None else None),
        ("offset", hexs(offset(f.pc_start_raw, f.current_raw)) if has else None),
        ("msaicerr_offset", hexs(msaicerr_offset(f.pc_start_raw, f.current_raw)) if has else None),
        ("offsets_agree", (msaicerr_offset(f.pc_start_raw, f.current_raw)
                           == offset(f.pc_start_raw, f.current_raw)) if has else None),
        ("bin_size", hexs(f.bin_size) if f.bin_size else say(lang, "pc.not_logged")),
        ("kernel_range", f"[{hexs(mask48(f.pc_start_raw))}, {hexs(mask48(f.pc_start_raw) + f.bin_size)})"
         if f.bin_size and f.pc_start_raw is not None else say(lang, "pc.range_unknown")),
        ("verdict", name(lang, "pc_verdict", f.pc.verdict if f.pc else "unknown")),
    ]
    if f.pc_start_first_raw is not None:
        rows.insert(0, ("pc_first", hexs(f.pc_start_first_raw)))
    return tidy(pd.DataFrame([{"quantity": say(lang, f"pcrow.{k}"), "value": v} for k, v in rows],
                             columns=["quantity", "value"]), lang)


def ranks(view, lang: str = EN) -> pd.DataFrame:
    """One row per rank: where it ran, when it first failed, and how often peers name it."""
    return tidy(pd.DataFrame([{"rank": r.rank, "node": r.node, "pid": r.pid, "device": r.device, "ip": r.ip,
                               "first_error": r.first_error.time if r.first_error else None,
                               "named_by_peers": view.blamed.get(r.rank, 0)} for r in view.ranks],
                             columns=["rank", "node", "pid", "device", "ip", "first_error", "named_by_peers"]), lang)


def collectives(view, lang: str = EN) -> pd.DataFrame:
    """One row per process HCCL gave up on: the collective it was in, which of its communicator's it was, its data."""
    return tidy(pd.DataFrame([{"rank": f.rank, "pid": f.process, "collective": f.kind, "index": f.index,
                               "elements": f.count, "dtype": f.dtype, "time": f.time, "communicator": f.group}
                              for f in view.collectives],
                             columns=["rank", "pid", "collective", "index", "elements", "dtype", "time", "communicator"]),
                lang)


def unexplained(templates: list, lang: str = EN) -> pd.DataFrame:
    """One row per template of the error lines no matched case explains (the step cites each first line)."""
    return tidy(pd.DataFrame([{"count": u.count, "template": u.template, "time": u.time} for u in templates],
                             columns=["count", "template", "time"]), lang, log_columns=("template",))


def files(log, lang: str = EN, only: set[str] | None = None) -> pd.DataFrame:
    """One row per file found (or per file of `only`): its role, device, pid, lines, times, and why it was skipped."""
    df = log.files_frame()[["path", "role", "device", "pid", "lines", "unparsed", "first_time", "last_time", "skipped"]]
    if only is not None:
        df = df[df["path"].isin(only)]
    return tidy(df, lang, log_columns=("skipped",))
