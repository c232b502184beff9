"""The log table: the files of a bundle and the records of their lines, with the views shared over them.

The records are plain tuples (`Record` gives them names), so that a triage never loads pandas; the DataFrame is
built on first use of `LogTable.records`, for the notebooks and the log views."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, NamedTuple

from . import rotation, scan
from .haystack import Haystack
from .bundle import LogFile
from .encoding import as_read, split_lines
from .fields import KIND_CONTINUATION

if TYPE_CHECKING:
    import pandas as pd


class Record(NamedTuple):
    """One record of the log table. The last six say what a paste wrapped around the line (paste.py): the wrappers
    peeled, the rank and worker pid they name, the file and line a grep prefix quotes; and how many following lines
    the paste broke off this one (rejoin.py), each kept as a `continuation` record."""

    file: str
    line: int
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
    wrapper: str | None = None
    rank: int | None = None
    worker_pid: int | None = None
    src_file: str | None = None
    src_line: int | None = None
    joined: int = 0


def line_after(line: int, joined: int) -> int:
    """The line as written right after a record's: past the pieces a paste broke off it."""
    return line + 1 + joined


#: Columns of the log table, in order.
PLOG_COLUMNS = list(Record._fields)
#: Where the fields the views test sit in a record tuple.
_FILE, _LINE, _KIND, _LEVEL, _MSG, _SRC_FILE, _SRC_LINE = (
    PLOG_COLUMNS.index(c) for c in ("file", "line", "kind", "level", "msg", "src_file", "src_line"))


@dataclass
class LogTable:
    """Everything read from a bundle: the files found and the records of their lines."""

    paths: list[str]
    files: list[LogFile]
    rows: list[tuple]   #: the records, as tuples in PLOG_COLUMNS order
    warnings: list[str] = field(default_factory=list)
    rotation: list[rotation.Gap] = field(default_factory=list)   #: processes whose first error may be rotated away
    #: views computed once from the records and shared by the extractors that need them (name -> value)
    derived: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def records(self) -> pd.DataFrame:
        """The records as a DataFrame (built once, on first use: pandas loads here)."""
        return self.derive("frame", lambda t: frame(t.rows))

    def record(self, at: int) -> Record:
        """The record at a position of the table."""
        return Record._make(self.rows[at])

    def column(self, name: str) -> list:
        """One field of every record, in record order (built once)."""
        k = PLOG_COLUMNS.index(name)
        return self.derive(("column", name), lambda t: [r[k] for r in t.rows])

    def picked(self, positions: Iterable[int]) -> list[Record]:
        """The records at these positions, in the order given."""
        rows = self.rows
        return [Record._make(rows[i]) for i in positions]

    @property
    def sources(self) -> list[LogFile]:
        """Files known only from the grep prefixes of a capture (their lines are counted in the capture)."""
        return _quoted(self.files)

    def origin(self, file: str, src_file: str | None = None) -> LogFile:
        """The file a record's identity (role, node, device, pid, rank) comes from: the file its grep prefix
        quotes, else the file read."""
        index = self.derive("origins", lambda t: {**{(f.path, None): f for f in t.files},
                                                  **{(q.captured_in, q.path): q for q in t.sources}})
        return index[(file, src_file if isinstance(src_file, str) else None)]

    def in_roles(self, roles: tuple[str, ...]) -> list[int]:
        """Positions of the records from a file of one of these roles (a quoted line: from the file it quotes)."""
        paths = {f.path for f in self.files if f.role in roles}
        quoted = {(q.captured_in, q.path) for q in self.sources if q.role in roles}
        return [i for i, r in enumerate(self.rows)
                if (r[_FILE] in paths and r[_SRC_FILE] is None) or (quoted and (r[_FILE], r[_SRC_FILE]) in quoted)]

    def quoted_line(self, file: str, line: int) -> tuple[str | None, int] | None:
        """The original file (None when the prefix does not name it) and line a capture's line quotes, or None."""
        def build(t: LogTable) -> dict:
            return {(r[_FILE], r[_LINE]): (r[_SRC_FILE], r[_SRC_LINE]) for r in t.rows if r[_SRC_LINE] is not None}
        return self.derive("quoted_lines", build).get((file, line))

    @property
    def lines(self) -> int:
        """Lines read in all files."""
        return _total(self.files, "lines")

    @property
    def lines_unparsed(self) -> int:
        """Lines kept raw because no grammar rule accepted them."""
        return _total(self.files, "unparsed")

    @property
    def bytes(self) -> int:
        """Bytes of all files read."""
        return _total([f for f in self.files if not f.skipped], "size")

    def errors(self) -> pd.DataFrame:
        """The records that state an error (the `error_lines` of the contract): ERROR-level records, among them every
        message of an error block; a block's `TraceBack` marker and its advice lines are its layout, not errors."""
        return self.records.iloc[self.error_positions()]

    def error_positions(self) -> list[int]:
        """Positions of the records errors() holds."""
        return self.derive("error_positions", lambda t: [i for i, r in enumerate(t.rows) if r[_LEVEL] == "ERROR"])

    def levels_seen(self) -> set[str]:
        """Every level a line of the bundle has, lines without a record (counted by the scan) included."""
        seen = {r[_LEVEL] for r in self.rows if r[_LEVEL] is not None}
        return seen | {level for f in self.files if f.selective for level, n in f.levels.items() if n}

    @property
    def whole(self) -> LogTable:
        """The table as its lines were written: a line a paste broke is its joined record alone, without the
        `continuation` records that count its later pieces. Readers of meaning take this view: a window of lines
        around a record, or the line after it, must not land on a piece of the line itself."""
        if not any(f.joined for f in self.files):
            return self
        def build(t: LogTable) -> LogTable:
            return LogTable(t.paths, t.files, [r for r in t.rows if r[_KIND] != KIND_CONTINUATION], t.warnings,
                            t.rotation)
        return self.derive("whole", build)

    def derive(self, name: str, build):
        """A view of the records built once by `build(self)` and shared by every family that asks for it."""
        if name not in self.derived:
            self.derived[name] = build(self)
        return self.derived[name]

    def holding(self, literals: tuple[str, ...]) -> list[int]:
        """Positions, ascending, of the records whose message holds one of `literals` (case kept): the distinct
        messages are joined once and each literal found where it is, instead of a regex run on every message per
        family (a device log repeats its dump lines: 34,000 records, 2,400 distinct messages)."""
        def distinct(t: LogTable) -> tuple[list[list[int]], Haystack]:
            where: dict[str, list[int]] = {}
            for i, r in enumerate(t.rows):
                where.setdefault(str(r[_MSG]), []).append(i)
            return list(where.values()), Haystack(list(where))

        def build(t: LogTable) -> list[int]:
            where, hay = t.derive("haystack", distinct)
            return sorted(i for u in hay.holding_any(literals) for i in where[u])
        return self.derive(("holding", literals), build)

    def file(self, path: str) -> LogFile:
        """The file with this display path."""
        for f in self.files:
            if f.path == path:
                return f
        raise KeyError(path)

    def files_frame(self) -> pd.DataFrame:
        """The files as a table (path, role, node, rank, device, pid, lines, unparsed, times, skipped)."""
        import pandas as pd
        cols = ["path", "role", "sort", "node", "rank", "device", "pid", "lines", "unparsed", "first_time",
                "last_time", "skipped"]
        return pd.DataFrame([{c: getattr(f, c) for c in cols} for f in self.files], columns=cols)

    def timeline(self) -> pd.DataFrame:
        """All records merged in time order across files (rotated files of a process joined in order)."""
        return rotation.timeline(self.records, self.files)

    def raw_line(self, path: str, line: int) -> bytes:
        """The original bytes of one line (without its `\\n`), as they were in the file."""
        f = self.file(path)
        if line in f.raw_lines:
            return f.raw_lines[line]
        return self.read_lines(path, line, line)[0]

    def read_lines(self, path: str, first: int, last: int) -> list[bytes]:
        """Lines `first`..`last` of a file (1-based, both included, within the file), as bytes from disk. A
        file read selectively is entered at its nearest indexed line, so a window of a 20 MiB plog costs a
        few KiB of reading, not the file."""
        f = self.file(path)
        if not 1 <= first <= last <= f.lines:
            raise ValueError(f"{path}:{first}-{last}: the file has {f.lines} lines")
        if not f.line_index:
            with open(f.source, "rb") as fh:
                return split_lines(as_read(fh.read()))[first - 1:last]
        k = (first - 1) // scan.INDEX_STEP
        out: list[bytes] = []
        with open(f.source, "rb") as fh:
            fh.seek(f.line_index[k])
            for no, raw in enumerate(fh, start=k * scan.INDEX_STEP + 1):
                if no >= first:
                    out.append(raw[:-1] if raw.endswith(b"\n") else raw)
                if no == last:
                    break
        return out

    def summary(self) -> str:
        """One line of input accounting: files read and skipped, lines, unparsed, bytes."""
        skipped = sum(1 for f in self.files if f.skipped)
        return (f"{len(self.files)} files ({len(self.files) - skipped} read, {skipped} skipped), {self.lines} lines "
                f"({self.lines_unparsed} unparsed), {self.bytes} bytes")

    def unusable_reason(self) -> str | None:
        """Why the input holds nothing to read (no text line in any file), or None."""
        if self.lines:
            return None
        why = "; ".join(f"{f.path}: {f.skipped or 'empty'}" for f in self.files[:3])
        more = f"; and {len(self.files) - 3} more" if len(self.files) > 3 else ""
        return f"not a log bundle: no readable text lines in it ({why}{more})".replace("\n", " ")

    def close(self) -> None:
        """Remove the temporary copies of archive members now, not when the table is dropped."""
        for spool in {id(f.spool): f.spool for f in self.files if f.spool is not None}.values():
            spool.close()


def frame(rows: list[tuple]) -> pd.DataFrame:
    """Record tuples as the log table's records."""
    import pandas as pd
    # object columns keep absent fields as None (string dtype would turn them into NaN)
    records = pd.DataFrame(rows, columns=PLOG_COLUMNS, dtype=object)
    records["pid"] = records["pid"].astype("Int64")
    records["line"] = records["line"].astype("int64")
    records["joined"] = records["joined"].astype("int64")
    return records


def _quoted(files: list[LogFile]) -> list[LogFile]:
    """The files the grep prefixes of these files quote."""
    return [q for f in files for q in f.quoted]


def _total(files: list[LogFile], count: str) -> int:
    """One count (lines, unparsed, size) summed over files."""
    return sum(getattr(f, count) for f in files)
