"""`casebook memory add|resolve|search|import|export|stats|holdout`: the team's case memory, "Seen before" for
the triage and the report, and the leave-one-out measure of the seed."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .arguments import count, fail, shown
from .inputs import inputs
from .streams import out
from ..knowledge.messages import LANGS
from ..knowledge.vocabulary import FactError, parse_assignments
from ..memory import MemoryUnavailable
from ..reading.bundle import BundleError
from ..reading.entries import printable


def seen_before(t) -> list:
    """The memory's matches for a triaged case; when the memory cannot be used, one warning line on stderr and
    no matches: the triage goes on without "Seen before"."""
    from ..memory.recall import recall
    try:
        return recall(t)
    except MemoryUnavailable as e:
        print(f"warning: {e}; the triage goes on without \"Seen before\"", file=sys.stderr)
        return []


def _open(args: argparse.Namespace):
    from ..memory.recall import open_memory
    return open_memory(args.db, Path(args.threads) if args.threads else None)


def _triaged(args: argparse.Namespace):
    from ..judging.triage import triage
    t = triage(*inputs(args.paths), facts=parse_assignments(args.fact))
    if t.log.unusable_reason():
        raise BundleError(f"{shown(args.paths)}: {t.log.unusable_reason()}")
    return t


def _resolution(args: argparse.Namespace):
    from ..memory.case import Resolution
    return Resolution(cause=args.cause, fix=args.fix, confirmed_by=args.confirmed_by, ticket=args.ticket,
                      notes=args.notes, who=args.who)


def _add(args: argparse.Namespace) -> int:
    from ..presenting.memo import memo
    try:
        t = _triaged(args)
        fp, title = memo(t, redact=args.redact, title=args.title)
        with _open(args) as store:
            resolution = _resolution(args)
            c = store.add(fp, title=title, resolution=resolution if resolution.as_dict() else None)
    except (FactError, BundleError, MemoryUnavailable) as e:
        return fail(str(e))
    out(json.dumps(c.as_dict(), ensure_ascii=False) if args.json else c.id)
    return 0


def _resolve(args: argparse.Namespace) -> int:
    resolution = _resolution(args)
    if not resolution.as_dict():
        return fail("memory resolve: say what solved it (--cause, --fix, --confirmed-by, --ticket, --notes, --who)")
    try:
        with _open(args) as store:
            c = store.resolve(args.id, resolution)
    except (MemoryUnavailable, ValueError) as e:
        return fail(str(e))
    except KeyError as e:
        return fail(e.args[0])
    out(json.dumps(c.as_dict(), ensure_ascii=False) if args.json else f"{c.id}: resolved")
    return 0


def _search(args: argparse.Namespace) -> int:
    from ..memory.fingerprint import of_triage
    from ..memory.similarity import similar
    from ..presenting import similar as shown_similar
    from ..presenting.console import WIDTH, wrap
    try:
        t = _triaged(args)
        with _open(args) as store:
            found = similar(store, of_triage(t), limit=args.limit)
    except (FactError, BundleError, MemoryUnavailable) as e:
        return fail(str(e))
    if args.json:
        out(json.dumps([m.as_dict() for m in found], indent=1, ensure_ascii=False))
    else:
        out("\n".join(shown_similar.console_lines(found, args.lang, WIDTH, wrap) or ["no similar case"]))
    return 0


def _import(args: argparse.Namespace) -> int:
    from ..memory.case import Case
    name = "standard input" if args.file == "-" else printable(args.file)
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return fail(f"{name}: {getattr(e, 'strerror', None) or e}")
    cases, seeds = [], 0
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            c = Case.from_dict(json.loads(line))
        except (ValueError, TypeError) as e:   # json.JSONDecodeError is a ValueError
            return fail(f"{name}:{n}: {str(e).splitlines()[0]}")
        if c.source == "seed":   # the public threads ship with casebook; only the team's own cases move
            seeds += 1
            continue
        cases.append(c)
    try:
        with _open(args) as store:
            store.put(cases)
    except MemoryUnavailable as e:
        return fail(str(e))
    out(f"{len(cases)} case(s) imported" + (f", {seeds} public thread(s) skipped" if seeds else ""))
    return 0


def _export(args: argparse.Namespace) -> int:
    try:
        with _open(args) as store:
            cases = store.cases(None if args.source == "all" else args.source)
    except MemoryUnavailable as e:
        return fail(str(e))
    text = "".join(json.dumps(c.as_dict(), ensure_ascii=False) + "\n" for c in cases)
    if args.output in (None, "-"):
        out(text, end="")
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as e:
        return fail(f"{printable(args.output)}: {e.strerror or e}")
    out(f"{len(cases)} case(s) written to {printable(args.output)}")
    return 0


def _stats(args: argparse.Namespace) -> int:
    try:
        with _open(args) as store:
            figures = store.stats()
    except MemoryUnavailable as e:
        return fail(str(e))
    out(json.dumps(figures) if args.json else "\n".join(f"{k}: {v}" for k, v in figures.items()))
    return 0


def _holdout(args: argparse.Namespace) -> int:
    from ..knowledge.kb import default_root
    from ..memory.holdout import leave_one_out
    from ..memory.seed import default_folder
    folder = Path(args.threads) if args.threads else default_folder()
    result = leave_one_out(folder, Path(args.project) if args.project else default_root().parent, top=args.top)
    if args.json:
        out(json.dumps(result.as_dict(), indent=1))
    else:
        out(f"top {result.top}: {result.found} of {result.counted} threads found ({result.rate:.1%}); "
            f"{result.found_reachable} of the {result.reachable} whose cause another thread shares "
            f"({result.reachable_rate:.1%})")
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", metavar="LOCATION",
                   help="the memory: a SQLite file or postgresql://... (default: $CASEBOOK_DB, else memory.db in "
                        "the user's data folder)")
    p.add_argument("--threads", metavar="FOLDER", help="the public threads it is seeded with (default: kb/threads)")


def _bundle(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="plog folder, file, or several (one case); - reads stdin")
    p.add_argument("--fact", action="append", default=[], metavar="K=V", help="an answer the logs cannot give")


def _solved(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cause", help="the cause, in words")
    p.add_argument("--fix", help="what fixed it")
    p.add_argument("--confirmed-by", help="how the fix was confirmed (a rerun, the vendor, ...)")
    p.add_argument("--ticket", help="the ticket id")
    p.add_argument("--notes", help="anything else worth knowing next time")
    p.add_argument("--who", help="who solved it")


def register(sub) -> None:
    """The `memory` subcommand and its own subcommands."""
    m = sub.add_parser("memory", help="the case memory: save triaged cases, record resolutions, find similar ones")
    msub = m.add_subparsers(dest="memory_command", required=True)
    a = msub.add_parser("add", help="triage a bundle and save its fingerprint; prints the new case's id")
    _bundle(a)
    a.add_argument("--title", help="a title (default: the diagnosis, the family or the first error)")
    a.add_argument("--redact", action="store_true",
                   help="hide host and user names, IP and MAC addresses and secrets first, as `report --redact` does")
    a.add_argument("--json", action="store_true", help="print the saved case as JSON")
    _solved(a)
    _common(a)
    a.set_defaults(run=_add)
    r = msub.add_parser("resolve", help="record how a saved case was solved")
    r.add_argument("id", metavar="ID", help="the case id `memory add` printed")
    _solved(r)
    r.add_argument("--json", action="store_true", help="print the case as JSON")
    _common(r)
    r.set_defaults(run=_resolve)
    s = msub.add_parser("search", help="triage a bundle and list the most similar remembered cases")
    _bundle(s)
    s.add_argument("--limit", type=count, default=5, metavar="N", help="at most N cases (default 5)")
    s.add_argument("--lang", default="en", choices=LANGS, help="language: en or zh (default en)")
    s.add_argument("--json", action="store_true", help="a JSON list of {id, source, url, similarity, matched, ...}")
    _common(s)
    s.set_defaults(run=_search)
    i = msub.add_parser("import", help="add the cases of a JSON Lines file (`memory export`'s), keeping their ids")
    i.add_argument("file", metavar="FILE.jsonl", help="the file; - reads standard input")
    _common(i)
    i.set_defaults(run=_import)
    e = msub.add_parser("export", help="write the team's cases as JSON Lines, one case a line")
    e.add_argument("-o", "--output", metavar="FILE.jsonl", help="the file (default: standard output)")
    e.add_argument("--source", default="team", choices=("team", "seed", "all"),
                   help="which cases: the team's (default), the public threads, or all")
    _common(e)
    e.set_defaults(run=_export)
    st = msub.add_parser("stats", help="backend, team cases, public threads, schema version")
    st.add_argument("--json", action="store_true", help="one JSON object {backend, location, cases, threads, schema}")
    _common(st)
    st.set_defaults(run=_stats)
    h = msub.add_parser("holdout", help="leave-one-out on the seed: is a thread with the same cause in the top five?")
    h.add_argument("--threads", metavar="FOLDER", help="the threads (default: kb/threads)")
    h.add_argument("--project", metavar="FOLDER", help="where the threads' capture paths start (default: the project)")
    h.add_argument("--top", type=count, default=5, metavar="N", help="how many similar cases count (default 5)")
    h.add_argument("--json", action="store_true", help="the figures and each thread's outcome as JSON")
    h.set_defaults(run=_holdout)
