"""The command's standard output: a closed one, or a write to it that fails (a full disk, /dev/full), ends the
command with one line on stderr and exit code 2, never a traceback (cli.main says so); a reader that went away
(`| head`) still raises BrokenPipeError, which ends it quietly."""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager


class OutputError(Exception):
    """Standard output cannot take what is written to it: closed, or a write failed."""


@contextmanager
def stdout():
    """Standard output, for a write or a flush; what fails there, but a reader that went away, is an OutputError."""
    if sys.stdout is None:   # started with fd 1 closed (`>&-`): print() would drop the text without a word
        raise OutputError("closed")
    try:
        yield sys.stdout
    except BrokenPipeError:
        raise
    except OSError as e:
        raise OutputError(e.strerror or str(e)) from None


def out(text: object = "", end: str = "\n") -> None:
    """`text` on standard output, as print() writes it."""
    with stdout() as stream:
        print(text, end=end, file=stream)


def discard_stdout() -> None:
    """What is left in stdout's buffer goes to /dev/null, so that the exit's flush cannot fail on it again."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):   # closed, or not a file (a test's capture)
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)
