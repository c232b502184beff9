"""`casebook triage|report|kb|memory|synth|bench`: the command line."""
from __future__ import annotations

import os
import sys

from .arguments import Parser, fail
from . import bench, diff, kb, memory, triage
from ..reading.spool import remove_live
from .streams import OutputError, discard_stdout, stdout

# each module adds its subcommands, in the order `casebook --help` lists them
COMMANDS = (triage, diff, kb, memory, bench)


def parser() -> Parser:
    """The argument parser of `casebook`."""
    p = Parser(prog="casebook", description="Triage Ascend NPU training failures from plog bundles.")
    sub = p.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        module.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `casebook` command."""
    if sys.stderr is None:   # started with fd 2 closed: print(file=None) would write the messages into stdout
        sys.stderr = open(os.devnull, "w")
    args = parser().parse_args(argv)
    if sys.stdout is None:   # known before the work, not after it
        return fail("standard output: closed")
    try:
        code = args.run(args)
        with stdout() as stream:   # a full disk shows here when the output fitted the buffer
            stream.flush()
        return code
    except KeyboardInterrupt:
        print("casebook: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of stdout went away (`| head`): what is left to flush goes nowhere, without a traceback
        discard_stdout()
        return 1
    except OutputError as e:
        discard_stdout()
        return fail(f"standard output: {e}")


def run() -> None:
    """The `casebook` command: main(), then the process ends as soon as its output is out. The interpreter's own
    exit would free every object of a triage one by one (~0.07 s after a 1 GB bundle's) for nothing; the spool
    folders, the one thing an exit must not leave behind, are removed first."""
    code = main()
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        code = code or 1
    except OSError as e:   # what main() left unflushed after an interruption
        code = fail(f"standard output: {e.strerror or e}") if code == 0 else code
    sys.stderr.flush()
    remove_live()
    os._exit(code)

