"""`casebook synth` and `casebook bench`: generated bundles, and the figures measured on them."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .arguments import count
from ..streams import out


def _synth(args: argparse.Namespace) -> int:
    if args.target == "samples":
        from ..synth import write_samples
        for path in write_samples(Path(args.out)):
            out(path)
        return 0
    if not args.size:
        print("casebook: synth OUT needs --size (e.g. --size 1GB)", file=sys.stderr)
        return 2
    from ..bench.workload import parse_size, write_workload
    summary = write_workload(Path(args.target), parse_size(args.size), samples=Path(args.out))
    out(f"{summary.root}: {summary.files} files, {summary.bytes} bytes, {summary.lines} lines")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from ..bench import benchmark as bench
    from ..bench.workload import parse_size
    extra = ["--engine", args.engine] + (["--workers", str(args.workers)] if args.workers else [])
    if args.sizes and not args.path:
        try:
            sizes = [(s.strip(), parse_size(s.strip())) for s in args.sizes.split(",") if s.strip()]
        except ValueError as e:
            print(f"casebook: --sizes: {e}", file=sys.stderr)
            return 2
        results = [(name, bench.bench(bench.default_bundle(n, Path(args.cache)), extra, runs=args.runs))
                   for name, n in sizes]
        if args.json:
            out(json.dumps({"sizes": [{"size": name, **bench.as_dict(r)} for name, r in results]}, indent=1))
        else:
            out("\n\n".join(f"{name}\n{bench.table(r)}" for name, r in results))
        return 0
    path = Path(args.path) if args.path else bench.default_bundle(parse_size(args.size), Path(args.cache))
    if not path.exists():
        print(f"casebook: {path}: no such file or directory", file=sys.stderr)
        return 2
    result = bench.bench(path, extra, runs=args.runs)
    out(json.dumps(bench.as_dict(result), indent=1) if args.json else bench.table(result))
    return 0

def register(sub) -> None:
    """The `synth` and `bench` subcommands."""
    s = sub.add_parser("synth", help="generate the KB sample bundles, or a large bundle for the benchmark")
    s.add_argument("target", metavar="samples|OUT",
                   help="'samples' rewrites the KB samples; a folder gets a large realistic bundle (needs --size)")
    s.add_argument("--size", help="size of the large bundle, e.g. 200MB, 1GB")
    s.add_argument("--out", default="kb/samples", help="KB samples folder (default: kb/samples)")
    s.set_defaults(run=_synth)
    b = sub.add_parser("bench", help="triage throughput and memory against grep -c ERROR and a naive parser")
    b.add_argument("path", nargs="?", metavar="PATH", help="bundle to measure (default: a generated one of --size)")
    b.add_argument("--size", default="1GB", help="size of the generated bundle (default 1GB)")
    b.add_argument("--sizes", metavar="S,S,...",
                   help="several generated bundles, e.g. 10MB,50MB,1GB; --json prints {\"sizes\": [...]}")
    b.add_argument("--cache", default=str(Path.home() / ".cache" / "casebook"),
                   help="where generated bundles are kept between runs")
    b.add_argument("--engine", default="local", choices=("local", "dask"), help="engine of the triage run")
    b.add_argument("--workers", type=count, help="reading workers of the triage run (default: one per core)")
    b.add_argument("--runs", type=count, default=3, help="rounds of the three runs; figures are medians (default 3)")
    b.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    b.set_defaults(run=_bench)
