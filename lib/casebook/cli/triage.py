"""`casebook triage` and `casebook report`: one case walked on the terminal, or written as a report."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .arguments import count, fail, ratio, shown
from .inputs import inputs, progress_bar, set_aside
from .memory import seen_before
from ..judging.objdump import ObjdumpError
from ..knowledge.messages import LANGS
from ..knowledge.vocabulary import FactError, parse_assignments
from ..presenting.terminal import inert_json, visible
from ..reading.bundle import BundleError
from ..reading.engine import ENGINES, EngineError
from ..reading.entries import printable
from ..reading.limits import Limits
from .streams import out


def _triage(args: argparse.Namespace) -> int:
    from ..judging.contract import to_dict
    from ..judging.triage import triage
    with set_aside():
        try:
            answers = parse_assignments(args.fact)
        except FactError as e:
            return fail(str(e))
        try:
            with progress_bar(args.progress) as progress:
                limits = Limits(max_bytes=args.max_bytes, max_ratio=args.max_ratio)
                t = triage(*inputs(args.paths, limits), facts=answers, objdump=args.objdump, limits=limits,
                           engine=args.engine, scheduler=args.scheduler, workers=args.workers, progress=progress)
        except (BundleError, ObjdumpError, EngineError) as e:
            return fail(str(e))
        if t.log.unusable_reason():
            return fail(f"{shown(args.paths)}: {t.log.unusable_reason()}")
        seen = seen_before(t)
        if args.json:
            # one string written at once: dump() writes an indented object piece by piece, twice as slow
            out(inert_json(json.dumps(to_dict(t, [m.as_dict() for m in seen]), indent=1, ensure_ascii=False)))
            return 0
        from ..presenting.console import WIDTH, walk_lines
        out("\n".join(walk_lines(t, args.lang, WIDTH, args.wide, seen=seen)))
        for w in t.log.warnings:
            print(f"warning: {visible(w)}", file=sys.stderr)
        return 0


def _report(args: argparse.Namespace) -> int:
    from ..judging.triage import triage
    from ..presenting import report
    if Path(args.output).suffix.lower() not in report.FORMATS:
        return fail(f"{printable(args.output)}: the report is written as .md or .html")
    try:
        t = triage(*inputs(args.paths), facts=parse_assignments(args.fact))
    except (FactError, BundleError) as e:
        return fail(str(e))
    if t.log.unusable_reason():
        return fail(f"{shown(args.paths)}: {t.log.unusable_reason()}")
    beside = None
    if args.beside:   # a good run set beside this one, as `casebook diff` words it
        from ..judging.comparison import Run, compare
        from ..judging.readings import read_case
        try:
            good = Run(*read_case(args.beside))
        except BundleError as e:
            return fail(str(e))
        beside = compare(good, t, good_label=printable(args.beside), bad_label=shown(args.paths))
    try:
        written = report.write(t, args.output, redact=args.redact, collect_more=args.collect_more, lang=args.lang,
                               seen=seen_before(t), comparison=beside)
    except OSError as e:   # a folder of that name, a place no file can be made (/proc), a full disk
        return fail(f"{printable(args.output)}: cannot write the report: {e.strerror or e}")
    out(str(written))
    return 0

def register(sub) -> None:
    """The `triage` and `report` subcommands."""
    t = sub.add_parser("triage", help="walk a case: symptom, error code, pc start, topology, root cause, fix")
    t.add_argument("paths", nargs="+", metavar="PATH",
                   help="plog folder, file, or several (one case); - reads a pasted capture from standard input")
    t.add_argument("--fact", action="append", default=[], metavar="K=V",
                   help="an answer the logs cannot give, e.g. TASK_QUEUE_ENABLE=1 (repeatable)")
    t.add_argument("--json", action="store_true", help="print the JSON contract instead of the walk")
    t.add_argument("--lang", default="en", choices=LANGS, help="language of the walk: en or zh (default en)")
    t.add_argument("--wide", action="store_true",
                   help="print full lines: no wrapping at 100 columns, every cited log line whole")
    t.add_argument("--objdump", metavar="FILE",
                   help="`objdump -d` text of the faulting kernel's object: marks the instruction at the fault offset")
    t.add_argument("--max-bytes", type=count, default=Limits.max_bytes, metavar="N",
                   help=f"refuse archives that expand beyond N bytes in all (default {Limits.max_bytes})")
    t.add_argument("--max-ratio", type=ratio, default=Limits.max_ratio, metavar="R",
                   help=f"refuse an archive entry, layer or the whole read expanding more than R times its compressed "
                        f"size once past {Limits.ratio_floor >> 20} MiB (default {Limits.max_ratio:g})")
    t.add_argument("--engine", default="local", choices=ENGINES,
                   help="where files are read: local threads, or the workers of a Dask cluster")
    t.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address (default: a local 2-worker cluster)")
    t.add_argument("--workers", type=count, metavar="N", help="reading workers (default: one per core)")
    t.add_argument("--progress", default="auto", choices=("auto", "always", "never"),
                   help="progress bar on stderr (auto: when stderr is a terminal)")
    t.set_defaults(run=_triage)
    r = sub.add_parser("report", help="write the case report (Markdown or standalone HTML) for the ticket")
    r.add_argument("paths", nargs="+", metavar="PATH",
                   help="plog folder, file, or several (one case); - reads a pasted capture from standard input")
    r.add_argument("--fact", action="append", default=[], metavar="K=V", help="an answer the logs cannot give")
    r.add_argument("-o", "--output", required=True, metavar="FILE", help="FILE.html or FILE.md")
    r.add_argument("--redact", action="store_true",
                   help="replace IP and MAC addresses, host names, user names and paths, and passwords in URLs with "
                        "stable placeholders, in the text and the figures")
    r.add_argument("--collect-more", action="store_true",
                   help="append what to ask the customer for, derived from the missing evidence")
    r.add_argument("--lang", default="en", choices=LANGS, help="language of the report: en or zh (default en)")
    r.add_argument("--beside", metavar="GOOD",
                   help="a good run (folder, file or archive) to compare this one with, as a section of the report")
    r.set_defaults(run=_report)
