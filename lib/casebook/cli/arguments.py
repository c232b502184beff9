"""The command line's shared pieces: the parser class, argument types, and the one-line failure."""
from __future__ import annotations

import argparse
import math
import sys

from ..presenting.terminal import visible
from ..reading.entries import printable


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr, exit code 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {printable(message)}\n")


def count(text: str) -> int:
    """A whole number of 1 or more (workers, bytes, runs)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return value


def ratio(text: str) -> float:
    """A finite number above 0 (nan would turn the ratio check off)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, not {text!r}")
    return value


def shown(paths: list[str]) -> str:
    return ", ".join(printable(p) for p in paths)


def fail(message: str) -> int:
    """Exit code 2, after one line on stderr saying why (log text in it made inert for the terminal)."""
    print(f"casebook: {visible(message)}", file=sys.stderr)
    return 2
