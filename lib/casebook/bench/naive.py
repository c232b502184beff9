"""The naive baseline: a per-line regex loop that builds a record for every line of every file.

It is what a support engineer's own script does, and the benchmark's yardstick for casebook. Run as
`python -m casebook.bench.naive FILE...` it is timed as its own process, interpreter start included.
"""
from __future__ import annotations

import re
import sys

#: The slog header and body, in one pattern (the line grammar a quick script would write).
PATTERN = re.compile(
    r"^\[(?P<level>[A-Z]+|\d+)\]\s*(?P<module>\w+)\((?P<pid>-?\d+),(?P<pname>[^)]*)\):(?P<ts>\S+)\s?"
    r"(?:\[(?P<file>[^\]:]+):(?P<line>\d+)\])?\s*(?:(?P<tid>\d+)\s+)?(?:(?P<func>[A-Za-z_~][\w:~]*):)?(?P<msg>.*)$")


def parse(paths: list[str]) -> int:
    """Read every line of every file into a record (a dict); the number of lines."""
    lines = 0
    for p in paths:
        records = []
        with open(p, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                m = PATTERN.match(line)
                records.append(m.groupdict() if m else {"raw": line})
        lines += len(records)
    return lines


if __name__ == "__main__":
    print(parse(sys.argv[1:]))
