"""What an archive entry may be called and how it is shown: display paths, unsafe names, links inside or outside.

Names found in an archive are never used as file-system paths (spool.py copies members into numbered
files); they only become display paths like `bundle.tar.gz!/debug/plog/plog-1_….log`, unique within
their archive and safe to print.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import PurePosixPath

#: Separator between an archive and a member in display paths: `bundle.tar.gz!/debug/plog/plog-1_….log`.
MEMBER_SEP = "!/"
#: Name endings stripped from an archive's name when its members are classified by path.
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.zst", ".tzst", ".tar", ".zip", ".gz", ".zst")
#: Endings of a compressed file that holds one file: its member is the name without them.
STREAM_SUFFIXES = (".gz", ".zst")
#: The mark of a name met again in the same archive (`a.log`, `a.log#2`): every display path is unique.
_REPEAT = re.compile(r"#\d+$")
_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")


def printable(name: str) -> str:
    """A file or entry name safe to print and to put in JSON: bytes that are not UTF-8 become U+FFFD,
    control characters (a newline in a name) become `\\xNN`."""
    name = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return _CONTROL_CHARS.sub(lambda m: f"\\x{ord(m.group()):02x}", name)


def member_name(name: str) -> str:
    """An entry's name as shown: `/` separators (zips made on Windows use `\\`), no leading `./`, printable."""
    name = printable(name.replace("\\", "/"))
    while name.startswith("./"):
        name = name[2:]
    return name


class DisplayNames:
    """Display paths of one archive's entries; a name met again gets `#2`, `#3`, … so each cites one entry."""

    def __init__(self, archive: str) -> None:
        self.archive = archive
        self.seen: Counter = Counter()

    def __call__(self, name: str) -> str:
        shown = member_name(name)
        self.seen[shown] += 1
        n = self.seen[shown]
        return f"{self.archive}{MEMBER_SEP}{shown}" + (f"#{n}" if n > 1 else "")


def _absolute(name: str) -> bool:
    norm = name.replace("\\", "/")
    return norm.startswith("/") or (len(norm) > 1 and norm[1] == ":")


def unsafe_name(name: str) -> str | None:
    """Why an archive entry name may not be used (absolute, `..`, drive letter), or None."""
    norm = name.replace("\\", "/")
    if _absolute(norm):
        return "refused: absolute path"
    if ".." in norm.split("/"):
        return "refused: path with '..'"
    if not norm.strip("/"):
        return "refused: empty name"
    return None


def link_inside(member: str, target: str) -> bool:
    """Whether a link stored at `member` pointing to `target` stays inside the archive."""
    if _absolute(target):
        return False
    parts: list[str] = []
    for p in (PurePosixPath(member).parent / target.replace("\\", "/")).parts:
        if p == "..":
            if not parts:
                return False
            parts.pop()
        elif p != ".":
            parts.append(p)
    return True


def link_refusal(kind: str, member: str, target: str) -> str:
    """The listing of a link entry: refused when it points outside the archive, else not followed."""
    if link_inside(member, target):
        return f"{kind} to {printable(target)}: links are not followed (the target is read as itself)"
    return f"refused: {kind} pointing outside the archive ({printable(target)})"


def stream_member_name(display: str) -> str:
    """The name the one member of a bare .gz or .zst gets: the file's own name without that ending."""
    name = display.split(MEMBER_SEP)[-1].rsplit("/", 1)[-1]
    for suffix in STREAM_SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[:-len(suffix)]
    return name


def strip_suffix(name: str) -> str:
    """An archive's name without its archive ending (`worker-0.tar.gz` -> `worker-0`)."""
    low = name.lower()
    for s in ARCHIVE_SUFFIXES:
        if low.endswith(s) and len(name) > len(s):
            return name[: -len(s)]
    return name


def path_for_roles(display: str) -> str:
    """The path a member's role is judged from: archive names become folders (`w-0.tgz!/a.log` -> `w-0/a.log`)
    and a repeated entry is judged by its own name (`a.zip!/plog-1_….log#2` -> `a/plog-1_….log`)."""
    first, *members = display.split(MEMBER_SEP)
    parts = [first] + [_REPEAT.sub("", p) for p in members]
    return "/".join([strip_suffix(p) for p in parts[:-1]] + [parts[-1]])
