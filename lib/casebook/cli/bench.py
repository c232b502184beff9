"""`casebook synth` and `casebook bench`: generated bundles, and the figures measured on them."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .arguments import count
from .streams import out


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
    if args.memory:
        from ..bench.memory import bench as memory_bench
        result = memory_bench(Path(args.cache), args.memory)
        out(json.dumps(result.as_dict(), indent=1) if args.json else result.table())
        return 0
    from ..bench import benchmark as bench
    from ..bench.workload import parse_size
    if args.compare:   # `casebook diff` on two bundles of a size (bench/compare.py)
        from ..bench import compare
        try:
            result = compare.bench(parse_size(args.compare), Path(args.cache), runs=args.runs)
        except ValueError as e:
            print(f"casebook: --compare: {e}", file=sys.stderr)
            return 2
        out(json.dumps(compare.as_dict(result), indent=1) if args.json else compare.table(result))
        return 0
    extra = ["--engine", args.engine] + (["--workers", str(args.workers)] if args.workers else [])
    if (args.sizes or args.asys or args.corpus) and not args.path:
        sizes: dict[str, list[tuple[str, int]]] = {}
        for key, option in (("sizes", args.sizes), ("asys", args.asys)):
            try:
                sizes[key] = [(s.strip(), parse_size(s.strip())) for s in (option or "").split(",") if s.strip()]
            except ValueError as e:
                print(f"casebook: --{key}: {e}", file=sys.stderr)
                return 2
        make = {"sizes": bench.default_bundle, "asys": bench.asys_bundle}
        groups = {key: [(name, make[key](n, Path(args.cache))) for name, n in named] for key, named in sizes.items()}
        if args.corpus:
            if not Path(args.corpus).is_dir():
                print(f"casebook: --corpus: {args.corpus}: not a folder", file=sys.stderr)
                return 2
            groups["corpus"] = [(p.name, p) for p in bench.collections(Path(args.corpus))]
        results = {key: [(name, bench.bench(path, extra, runs=args.runs)) for name, path in named]
                   for key, named in groups.items() if named}
        if args.json:
            label = {"sizes": "size", "asys": "size", "corpus": "collection"}
            out(json.dumps({key: [{label[key]: name, **bench.as_dict(r)} for name, r in done]
                            for key, done in results.items()}, indent=1))
        else:
            out("\n\n".join(f"{key} {name}\n{bench.table(r)}" for key, done in results.items() for name, r in done))
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
    b.add_argument("--asys", metavar="S,S,...",
                   help="generated asys collections (OS, install, driver and device-OS logs beside a few plogs, in a "
                        "real collection's proportions), e.g. 10MB,50MB; --json adds {\"asys\": [...]}")
    b.add_argument("--corpus", metavar="DIR",
                   help="each collection (sub-folder) of DIR as it lies, e.g. tests/corpus; --json adds "
                        "{\"corpus\": [...]}")
    b.add_argument("--compare", metavar="SIZE",
                   help="time `casebook diff` on two generated bundles of SIZE (e.g. 50MB): one, and a copy with a "
                        "version and a first departure planted")
    b.add_argument("--cache", default=str(Path.home() / ".cache" / "casebook"),
                   help="where generated bundles are kept between runs")
    b.add_argument("--engine", default="local", choices=("local", "dask"), help="engine of the triage run")
    b.add_argument("--workers", type=count, help="reading workers of the triage run (default: one per core)")
    b.add_argument("--runs", type=count, default=3, help="rounds of the three runs; figures are medians (default 3)")
    b.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    b.add_argument("--memory", nargs="?", const=100_000, type=count, metavar="N",
                   help="time instead a \"Seen before\" lookup in a case memory of N synthetic cases (default 100000)")
    b.set_defaults(run=_bench)
