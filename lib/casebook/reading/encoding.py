"""How the bytes of a file become text lines: the line definition, binary files, and decodings that keep
every original byte recoverable (UTF-8, then GBK for Chinese text, else U+FFFD replacement, with a
warning that names the lines)."""
from __future__ import annotations

import re
from collections import Counter
from typing import Iterator

from .bundle import LogFile

_BINARY_MAGIC = ((b"\x7fELF", "ELF executable"), (b"\x89PNG", "PNG image"), (b"\xff\xd8\xff", "JPEG image"),
                 (b"%PDF", "PDF document"), (b"7z\xbc\xaf\x27\x1c", "7z archive"), (b"Rar!", "RAR archive"),
                 (b"SQLite format 3", "SQLite database"))
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f]")
#: A terminal's colour codes (SGR), which a console saved with `tee` or `script` keeps (Ray colours each worker's
#: prefix). Any other escape sequence (a window title, a screen cleared, a link) stays in the text: the reports show
#: it escaped, as something the log should not hold.
_COLOURS = re.compile(r"\x1b\[[0-9;:]*m")


def split_lines(data: bytes) -> list[bytes]:
    """Lines as design.md §5 defines them: ended by `\\n`, plus a non-empty tail; `\\r` is not a break."""
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    return parts


def lines_of(text: str) -> Iterator[str]:
    """The lines of a text split at `\n`, one at a time (of a file's head, the first line is mostly all that is
    wanted)."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


def binary_reason(head: bytes) -> str | None:
    """Why the first bytes of a file say it is not text, or None."""
    for magic, name in _BINARY_MAGIC:
        if head.startswith(magic):
            return f"binary file ({name})"
    if b"\x00" not in head:
        return None
    # NUL runs happen in real logs (a writer that crashed); other control bytes mean a binary file
    text = head.replace(b"\x00", b"")
    if not text:
        return "binary file (only NUL bytes)"
    control = sum(1 for b in text if (b < 32 and b not in (9, 10, 11, 12, 13, 27)) or b == 127)
    return "binary file" if control > 0.05 * len(text) else None


def decode(raw: bytes) -> tuple[str, str]:
    """The text of one line and how it was decoded: `utf-8`, `gbk` or `replaced`."""
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as e:
        if e.reason == "unexpected end of data":
            # a UTF-8 character cut at the end (log lines are cut at a byte limit): not a GBK line
            return raw.decode("utf-8", errors="replace"), "replaced"
    try:
        text = raw.decode("gbk")
        if _CJK.search(text) and not _CONTROL.search(text):
            return text, "gbk"
    except UnicodeDecodeError:
        pass
    return raw.decode("utf-8", errors="replace"), "replaced"


def utf16(data: bytes) -> bool:
    """Whether a file's first bytes are UTF-16's byte-order mark (Windows redirection)."""
    return data[:2] in (b"\xff\xfe", b"\xfe\xff")


def as_read(data: bytes) -> bytes:
    """The bytes lines are split from: a UTF-16 file (Windows redirection, with its byte-order mark) re-encoded
    as UTF-8; any other file as it is."""
    if utf16(data):
        return data.decode("utf-16", errors="replace").encode("utf-8")
    return data


#: A line longer than this many characters is parsed from its first LONG_LINE: the grammar, the evidence
#: families and the case signatures run about 90 regex searches over each parsed line (about 0.2 s for 64 KiB,
#: 3 s for 1 MiB), and a line that long is a dump, not a message. slog cuts its own lines at 1 KiB.
LONG_LINE = 1 << 16
_NUL_RUN = re.compile(rb"\x00*")


def leading_nuls(data: bytes) -> int:
    """How many NUL bytes a file starts with (space a writer preallocated, then died before filling)."""
    return _NUL_RUN.match(data).end()


def lines_named(nos: list[int], count: int | None = None) -> str:
    """`line 7`, or `12 lines (3, 4, 9, 10, 11, …)`: which lines a warning is about (`count` of them, `nos` the first
    of them by number; all of them when no count is given)."""
    count = len(nos) if count is None else count
    shown = ", ".join(map(str, nos[:5]))
    return f"line {shown}" if count == 1 else f"{count} lines ({shown}{', …' if count > 5 else ''})"


class Noted:
    """The lines of one oddity: how many, and the first few by number (a warning names five; a file of ten million
    CRLF lines must not hold ten million numbers)."""

    KEPT = 5

    def __init__(self) -> None:
        self.count = 0
        self.first: list[int] = []

    def append(self, no: int) -> None:
        """Note one more line."""
        self.count += 1
        if len(self.first) < self.KEPT:
            self.first.append(no)

    def __bool__(self) -> bool:
        return self.count > 0

    def named(self) -> str:
        """The lines as a warning names them (lines_named)."""
        return lines_named(self.first, self.count)


#: What a file's warning says of its lines of each odd kind, after naming them.
ODD_LINES = {
    "gbk": "not valid UTF-8, read as GBK (Chinese) text",
    "replaced": "not valid UTF-8; bad bytes shown as U+FFFD, the original bytes kept (LogTable.raw_line)",
    "nul": "hold NUL bytes (kept in the text)",
    "crlf": "end with CRLF (Windows line endings); the CR is left out of the parsed text",
    "cr": "hold a CR before their end (old Mac line endings, or a progress line rewritten in place); only LF ends a "
          "line, so each is one line",
    "colours": "hold a terminal's colour codes, left out of the parsed text (LogTable.raw_line has them)",
    "nbsp": "hold no-break spaces (text copied from a web page), read as spaces (LogTable.raw_line has the line as it "
            "was)",
    "long": f"longer than {LONG_LINE:,} characters: only the first {LONG_LINE:,} of each are parsed "
            f"(LogTable.raw_line has it whole)",
}


class LineTexts:
    """The lines of one file turned into the text the grammar reads, noting what was odd for the file's warnings."""

    def __init__(self, f: LogFile) -> None:
        self.f = f
        self.how: Counter = Counter()   #: lines per decoding
        self.odd: dict[str, Noted] = {k: Noted() for k in ODD_LINES}

    def text(self, no: int, raw: bytes) -> str:
        """The text of line `no`: decoded, without a byte-order mark, a leading NUL run, the CR of a CRLF or a
        terminal's colour codes, its no-break spaces read as spaces, and cut at LONG_LINE. Whenever it is not an
        exact decoding of the bytes, they are kept in `raw_lines`."""
        if not raw:   # what the steps below make of an empty line (a file of millions of them is read at once)
            self.how["utf-8"] += 1
            return ""
        text, enc = decode(raw)
        self.how[enc] += 1
        if enc != "utf-8":
            self.odd[enc].append(no)
            if enc == "replaced" or text.encode("gbk", errors="replace") != raw:
                self.f.raw_lines[no] = raw
        if no == 1 and text.startswith("\ufeff"):
            text = text[1:]                    # a byte-order mark is not part of the first line
            self.f.raw_lines[no] = raw
        if "\x00" in text:
            self.odd["nul"].append(no)
            text = text.lstrip("\x00") or text   # the line after a NUL run is parsed; a line of NULs stays one
        if "\r" in text:
            if text.endswith("\r"):
                self.odd["crlf"].append(no)
                text = text.rstrip("\r")
            if "\r" in text:
                self.odd["cr"].append(no)
        if "\x1b" in text and (plain := _COLOURS.sub("", text)) != text:
            self.odd["colours"].append(no)
            self.f.raw_lines[no] = raw
            text = plain
        if "\xa0" in text:   # a web page's copy: its spaces, no-break ones, are the log's spaces
            self.odd["nbsp"].append(no)
            self.f.raw_lines[no] = raw
            text = text.replace("\xa0", " ")
        return self.cut(no, text)

    def cut(self, no: int, text: str) -> str:
        """The text of line `no` cut at LONG_LINE characters."""
        if len(text) <= LONG_LINE:
            return text
        self.odd["long"].append(no)
        return text[:LONG_LINE]

    @property
    def encoding(self) -> str | None:
        """The decodings the lines needed, joined: "utf-8", "utf-8+gbk", "gbk+replaced", …"""
        return _decodings(self.how)

    def warn(self) -> None:
        """Named warnings on the file for lines that are not plain UTF-8 text ended by `\\n`."""
        for kind, said in ODD_LINES.items():
            if self.odd[kind]:
                self.f.warnings.append(f"{self.f.path}: {self.odd[kind].named()} {said}")


def _decodings(how) -> str | None:
    """The decodings counted in `how` (name -> lines), joined in their order of trial, or None."""
    return "+".join(e for e in ("utf-8", "gbk", "replaced") if how[e]) or None
