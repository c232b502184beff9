"""`casebook diff`: a good run beside a bad one, two bundles or two ranks of one bundle."""
from __future__ import annotations

import argparse
import json
import sys

from .arguments import fail, shown
from .inputs import inputs, set_aside
from ..knowledge.messages import LANGS
from ..presenting.terminal import inert_json, visible
from ..reading.bundle import BundleError
from ..reading.entries import printable
from .streams import out


def rank_pair(text: str) -> tuple[int, int]:
    """`3,0`: the failing rank, then the healthy one."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"must be two ranks, the failing one first: e.g. 3,0, not {text!r}")
    return int(parts[0]), int(parts[1])


def _diff(args: argparse.Namespace) -> int:
    from ..judging.comparison import Run, compare, compare_ranks, to_dict
    from ..judging.readings import read_case
    wanted = 1 if args.ranks else 2
    if len(args.paths) != wanted:
        return fail("diff takes one bundle with --ranks BAD,GOOD" if args.ranks else
                    "diff takes two bundles: GOOD BAD (or one bundle with --ranks BAD,GOOD)")
    with set_aside():
        try:
            given = inputs(args.paths)
            runs = [Run(*read_case(p)) for p in given]   # facts, topology and ranks: nothing to rank
        except BundleError as e:
            return fail(str(e))
        for path, t in zip(args.paths, runs):
            if t.log.unusable_reason():
                return fail(f"{shown([path])}: {t.log.unusable_reason()}")
        if args.ranks:
            try:
                c = compare_ranks(runs[0], *args.ranks)
            except ValueError as e:
                return fail(f"{printable(args.paths[0])}: {e}")
        else:
            c = compare(runs[0], runs[1], good_label=printable(args.paths[0]), bad_label=printable(args.paths[1]))
        if args.json:
            out(inert_json(json.dumps(to_dict(c), indent=1, ensure_ascii=False)))
        else:
            from ..presenting.comparison import lines
            from ..presenting.console import WIDTH
            out("\n".join(lines(c, args.lang, WIDTH, args.wide)))
        for t in runs:
            for w in t.log.warnings:
                print(f"warning: {visible(w)}", file=sys.stderr)
        return 0 if c.same else 1


def register(sub) -> None:
    """The `diff` subcommand."""
    d = sub.add_parser("diff", help="a good run beside a bad one: versions, settings, topology, where the logs part",
                       description="Exit status as diff(1): 0 when the runs show no difference, 1 when they do, "
                                   "2 on trouble.")
    d.add_argument("paths", nargs="+", metavar="PATH",
                   help="GOOD BAD: two bundles (folder, file or archive; - reads a pasted capture from standard "
                        "input), or one bundle with --ranks")
    d.add_argument("--ranks", type=rank_pair, metavar="BAD,GOOD",
                   help="compare two ranks of one bundle: the failing rank, then a healthy one (e.g. 3,0)")
    d.add_argument("--json", action="store_true", help="print the JSON object instead of the text")
    d.add_argument("--lang", default="en", choices=LANGS, help="language of the text: en or zh (default en)")
    d.add_argument("--wide", action="store_true", help="print full lines: no wrapping at 100 columns")
    d.set_defaults(run=_diff)
