"""A flood of error lines: past a budget, an error line that repeats one already recorded is counted, not recorded.

Error lines are what a triage is about, so the scan picks every one. But a process stuck in a loop writes the same
error hundreds of thousands of times, and each record costs memory and the time of every stage after the reading
(evidence reads each message, the unexplained lines are mined), so such a file would hold a triage for minutes and
its memory would grow with its lines. Of the slog ERROR lines of one file, the first RECORDED get a record each;
past them a line gets one only when its shape (the line without its numbers) is one not recorded yet. The compiled
scanner applies the rule (`scan.select(flood=...)`), so a repeated line's text is never made; Flood is the same
rule written plainly, which the tests hold the scanner to. The others are counted: their level's count, the file's
lines and its span stay exact, and the file's warning says how many were left without a record.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .grammar import HEADER

#: ERROR lines of one file that get a record each, whatever they say.
RECORDED = 5000
#: What a repeated line changes from one to the next: its time, counters, ids and addresses (a one-digit number, a
#: device's or a rank's, stays: a second device failing the same way is news).
_NUMBERS = re.compile(r"0x[0-9a-fA-F]+|\d{2,}", re.ASCII)


def shape(line: str) -> str:
    """A line without its numbers: the lines of one repeated error have one shape."""
    return _NUMBERS.sub("", line)


@dataclass
class Flood:
    """The scanner's rule, written plainly: the ERROR header lines of one file seen so far, the shapes of those
    recorded, and how many were left without a record."""

    budget: int = RECORDED
    errors: int = 0
    left: int = 0
    shapes: set[str] = field(default_factory=set)

    def repeats(self, line: str) -> bool:
        """Whether this line is an slog ERROR line past the budget whose shape was recorded before (it is then
        counted here); every other line is recorded, and its shape remembered."""
        if not (line.startswith("[ERROR]") and HEADER.match(line)):
            return False
        self.errors += 1
        if shape(line) in self.shapes:
            self.left += self.errors > self.budget
            return self.errors > self.budget
        self.shapes.add(shape(line))
        return False


def warning(path: str, errors: int, left: int) -> str | None:
    """What a file's warnings say of its ERROR lines left without a record, or None."""
    if not left:
        return None
    return (f"{path}: a flood of error lines: {errors} ERROR lines, of which {left} past the first {RECORDED} repeat "
            f"a line recorded before (numbers aside) and are counted without a record")
