"""`casebook kb …`: check, count, score and grow the knowledge base."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .arguments import fail, shown
from ..judging.channels import CHANNELS, parse
from ..knowledge.vocabulary import FactError, parse_assignments
from ..reading.bundle import BundleError
from .streams import out


def _kb_check(args: argparse.Namespace) -> int:
    from ..knowledge.checks import check
    problems = check(Path(args.root) if args.root else None)
    for p in problems:
        out(p)
    out(f"{len(problems)} problem(s)")
    return 1 if problems else 0


def _kb_stats(args: argparse.Namespace) -> int:
    from ..knowledge.kb import load_kb
    from ..knowledge.stats import stats
    counts = stats(load_kb(Path(args.root) if args.root else None)).as_dict()
    out(json.dumps(counts) if args.json else "\n".join(f"{k}: {v}" for k, v in counts.items()))
    return 0


#: The known gaps of a folder of captures.
GAPS = "known-gaps.yaml"


def _captures(roots: list[str]) -> list[Path]:
    """The capture folders (each holding an expect.yaml) under the folders given."""
    from ..judging.accuracy import capture_folders
    return [f for root in roots for f in capture_folders(Path(root))]


def _no_captures(roots: list[str]) -> int:
    return fail(f"{shown(roots)}: no capture folder (one holding expect.yaml)")


def _kb_accuracy(args: argparse.Namespace) -> int:
    from ..judging import accuracy
    from ..knowledge.kb import load_kb
    folders = _captures(args.folders)
    if args.batch is not None:
        folders = [f for f in folders if accuracy.read_expected(f).batch == args.batch]
    if not folders:
        return _no_captures(args.folders)
    kb = load_kb(Path(args.root) if args.root else None)
    if args.channel and (args.write_proven or args.write_gaps):
        return fail("--as: the proven cases and the gaps are written from the captures as they are")
    scores = accuracy.score_folders(folders, kb=kb, channel=args.channel)
    total = accuracy.figures(scores, "all" if args.batch is None else str(args.batch))
    if args.write_proven:
        from ..knowledge import proven
        (kb.root / proven.FILE).write_text(proven.dump(accuracy.proven(scores)), encoding="utf-8")
    if args.write_gaps:
        from ..judging import expectations
        if args.batch is not None or len(args.folders) != 1:
            return fail("--write-gaps: give one folder of captures and no --batch (the file lists them all)")
        expectations.write_gaps(Path(args.folders[0]) / GAPS, expectations.gaps(folders, kb=kb))
    if args.json:
        out(json.dumps({"figures": total.as_dict(), "captures": [s.__dict__ for s in scores]},
                       indent=1, ensure_ascii=False))
        return 0
    for s in scores:
        mark = "right" if s.right else "family" if s.family else "top3" if s.top3 else "miss"
        wrong = f"  CONFIRMED WRONG: {', '.join(s.confirmed_wrong)}" if s.confirmed_wrong else ""
        out(f"{mark:6} {s.folder}: want {' | '.join(s.expected)}, got {s.got or '(open)'}"
            f" [{s.got_family or 'no family'}]{wrong}")
    out(f"{total.n} captures, {total.documented} with a documented cause: right {total.right}, cause or family "
        f"{total.family}, top 3 {total.top3}; wrong confirmed {total.confirmed_wrong}")
    return 0


def _kb_priors(args: argparse.Namespace) -> int:
    import yaml
    from ..knowledge import priors
    from ..knowledge.kb import default_root, load_kb
    root = Path(args.root) if args.root else default_root()
    folders = _captures(args.folders)
    if not folders:
        return _no_captures(args.folders)
    counts = priors.count([yaml.safe_load((f / "expect.yaml").read_text(encoding="utf-8")) or {} for f in folders],
                          {c.id: c.family for c in load_kb(root).cases.values()})
    text = priors.dump(counts)
    if args.write:
        (root / priors.FILE).write_text(text, encoding="utf-8")
        out(f"{root / priors.FILE}: {len(counts.cases)} cases with a prior, {len(folders)} captures")
    else:
        out(text, end="")
    return 0


def _kb_new(args: argparse.Namespace) -> int:
    from ..judging.triage import triage
    from ..knowledge.kb import default_root
    from ..presenting.casefile import CaseFileError, load
    from ..presenting.draft import draft
    if args.memory_id is not None:
        return _kb_new_from_memory(args)
    if bool(args.case_file) == bool(args.paths):
        print("casebook: kb new takes --from CASE.json or PATH..., not both or neither", file=sys.stderr)
        return 2
    try:
        t = (load(args.case_file).resume() if args.case_file
             else triage(*args.paths, facts=parse_assignments(args.fact)))
        family = args.family or (t.family.family.id if t.family else None)
        if family is None:
            print("casebook: no family fits the evidence; name one with --family", file=sys.stderr)
            return 2
        made = draft(t, Path(args.root) if args.root else default_root(), family, args.id)
    except (CaseFileError, FactError, BundleError, FileExistsError, ValueError) as e:
        print(f"casebook: {e}", file=sys.stderr)
        return 2
    out(f"{made.case}\n{made.sample}/ ({made.lines} cited lines)")
    out("`casebook kb check` lists what the draft still needs.")
    return 0


def _kb_new_from_memory(args: argparse.Namespace) -> int:
    from ..knowledge.kb import default_root
    from ..memory.recall import open_memory
    from ..memory.store import MemoryUnavailable
    from ..presenting.draft import draft_from_memory
    if args.case_file or args.paths:
        return fail("kb new takes --from-memory ID alone, without --from CASE.json or PATH...")
    try:
        with open_memory(args.db) as store:
            case = store.get(args.memory_id)
        if case is None:
            return fail(f"no case {args.memory_id!r} in the case memory {store.where}")
        made = draft_from_memory(case, Path(args.root) if args.root else default_root(), args.family, args.id)
    except (MemoryUnavailable, FileExistsError, ValueError) as e:
        return fail(str(e))
    out(str(made.case))
    out("`casebook kb check` lists what the draft still needs.")
    return 0


def _channel(spec: str) -> str:
    """An --as value: one channel, or several joined by + (argparse says which is unknown)."""
    try:
        parse(spec)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return spec


def register(sub) -> None:
    """The `kb` subcommand and its own subcommands."""
    k = sub.add_parser("kb", help="knowledge base tools")
    ksub = k.add_subparsers(dest="kb_command", required=True)
    kc = ksub.add_parser("check", help="check every case, code page and sample; exit 1 on any problem")
    kc.add_argument("--root", help="knowledge base folder (default: the project's kb/)")
    kc.set_defaults(run=_kb_check)
    ks = ksub.add_parser("stats", help="counts: verified root causes, families, sourced codes, samples")
    ks.add_argument("--root", help="knowledge base folder (default: the project's kb/)")
    ks.add_argument("--json", action="store_true", help="one JSON object")
    ks.set_defaults(run=_kb_stats)
    ka = ksub.add_parser("accuracy", help="triage real captures and score them against their documented causes")
    ka.add_argument("folders", nargs="+", metavar="FOLDER", help="a folder of capture folders (e.g. tests/captures)")
    ka.add_argument("--batch", type=int, help="only the captures of this collection batch")
    ka.add_argument("--root", help="knowledge base folder (default: the project's kb/)")
    ka.add_argument("--json", action="store_true", help="one JSON object: figures and each capture's score")
    ka.add_argument("--as", dest="channel", type=_channel, metavar="CHANNEL",
                    help="read each pasted capture as this launcher, collector, terminal or web page carries it, its "
                         f"mark on every line ({', '.join(sorted(CHANNELS))}); several joined by + carry it in turn "
                         "(torchrun+terminal-100)")
    ka.add_argument("--write-proven", action="store_true",
                    help="write kb/proven.yaml: the cases right on at least one of these captures (all of them)")
    ka.add_argument("--write-gaps", action="store_true",
                    help=f"write FOLDER/{GAPS}: per capture, what the triage does not get right yet, in words (the "
                         "strict xfails of the capture tests)")
    ka.set_defaults(run=_kb_accuracy)
    kp = ksub.add_parser("priors", help="count how often each case is the stated cause of the real captures")
    kp.add_argument("folders", nargs="+", metavar="FOLDER", help="a folder of capture folders (e.g. tests/captures)")
    kp.add_argument("--write", action="store_true", help="write kb/priors.yaml instead of printing it")
    kp.add_argument("--root", help="knowledge base folder (default: the project's kb/)")
    kp.set_defaults(run=_kb_priors)
    kn = ksub.add_parser("new", help="draft a root-cause case and its regression sample from a solved case")
    kn.add_argument("paths", nargs="*", metavar="PATH", help="the bundle (with --family and --fact answers)")
    kn.add_argument("--from", dest="case_file", metavar="CASE.json", help="a saved case (the triage app's case file)")
    kn.add_argument("--from-memory", dest="memory_id", metavar="ID",
                    help="a resolved case of the case memory (`casebook memory add`, then `memory resolve`)")
    kn.add_argument("--db", metavar="LOCATION", help="the case memory (default: $CASEBOOK_DB, else the user's data folder)")
    kn.add_argument("--family", help="the family the new cause belongs to (default: the one the evidence supports)")
    kn.add_argument("--fact", action="append", default=[], metavar="K=V", help="an answer given on the ticket")
    kn.add_argument("--id", help="the new case's id (default: <family>-<op or code>-draft)")
    kn.add_argument("--root", help="knowledge base folder (default: the project's kb/)")
    kn.set_defaults(run=_kb_new)
