"""Mutation testing of the diagnosis: mutmut on the judging and knowledge stages and the evidence stage's
cascade and incident rules, run in a temporary copy of the project; prints the mutated modules, the number of
mutants, the surviving ones and, last, `mutation score: NN.N%`. `make mutation` runs it (not part of `make test`).

    python tests/mutation.py [--keep DIR [--report]] [--diff] [--children N]

`--keep DIR` works in DIR and keeps it, so a second run tests only the mutants not killed yet (`--report` then
prints that folder's results without running); `--diff` prints each survivor's change. The rule tables
(knowledge/data/*.tsv) are data, not code: each of their rows has a test of its own instead.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What is mutated: every module of the two stages that decide, and the evidence stage's rule readers.
MUTATED = ("casebook/judging/*.py", "casebook/knowledge/*.py", "casebook/evidence/cascade.py",
           "casebook/evidence/incidents.py")

#: The tests that pin those modules by exact values; mutmut runs, for each mutant, only the ones that reached its
#: function. The tests that triage whole bundles (every sample, the corpus, the CLI, the kept readings, the
#: widgets, the notebooks) are left out: they reach every function, and a surviving mutant would pay for each
#: of them whole, so the run would not fit ~40 minutes on two cores.
TESTS = ("tests/test_ranking.py", "tests/test_addresses.py", "tests/test_errcode.py", "tests/test_cascade_rules.py",
         "tests/test_incidents.py", "tests/test_kb.py", "tests/test_kb_index.py", "tests/test_kb_search.py",
         "tests/test_kb_stats.py", "tests/test_codes.py", "tests/test_formats.py", "tests/test_messages.py",
         "tests/test_objdump.py", "tests/test_unexplained.py", "tests/test_contract.py",
         "tests/test_read_case.py", "tests/test_vocabulary.py", "tests/test_families.py",
         "tests/test_rules.py")

#: mutmut's exit-code meanings, folded into what the score counts.
KILLED = {"killed", "timeout", "segfault"}
NOT_RUN = {"skipped", "not checked"}


#: Makes mutmut's mutated copy (its own first steps of `mutmut run`), run in the work folder.
GENERATE = """
import sys
from mutmut.__main__ import copy_also_copy_files, copy_src_dir, create_mutants
copy_src_dir()
copy_also_copy_files()
create_mutants(int(sys.argv[1]))
"""


def prepare(work: Path) -> None:
    """Copy the project's code, tests and knowledge base into `work`, with mutmut's settings."""
    # mutmut names modules from src/ (or the top folder) only: the package goes to src/ in the copy
    for name, copy in (("lib", "src"), ("tests", "tests"), ("kb", "kb")):
        shutil.copytree(ROOT / name, work / copy, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        if (work / "mutants" / copy).is_dir():
            # mutmut copies unmutated files once only: data tables and tests changed since must reach its copy
            shutil.copytree(ROOT / name, work / "mutants" / copy, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.py")
                            if name == "lib" else shutil.ignore_patterns("__pycache__"))
    settings = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    tests = [t for t in TESTS if (ROOT / t).is_file()]
    missing = sorted(set(TESTS) - set(tests))
    if missing:
        raise SystemExit(f"{__file__}: test files named in TESTS are missing: {', '.join(missing)}")
    settings += "\n[tool.mutmut]\n" + "\n".join((
        'source_paths = ["src"]',
        f"only_mutate = {json.dumps(['src/' + m for m in MUTATED])}",
        f"also_copy = {json.dumps(['kb'])}",
        # the project's addopts run the notebooks; here only the named tests run
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-o", "addopts=", "-o", "testpaths=tests"]',
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}",
        # a mutant that loops is stopped after a few times its tests' own time, not fifteen
        "timeout_multiplier = 3.0",
        "timeout_constant = 5.0",
    )) + "\n"
    (work / "pyproject.toml").write_text(settings, encoding="utf-8")


def statuses(work: Path) -> dict[str, dict[str, str]]:
    """Each mutated module's mutants and their status, read from mutmut's result files."""
    from mutmut.stats import status_by_exit_code
    found: dict[str, dict[str, str]] = {}
    for meta in sorted((work / "mutants" / "src").rglob("*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        module = "lib/" + str(meta.relative_to(work / "mutants" / "src"))[:-len(".meta")]
        found[module] = {key: status_by_exit_code[code] for key, code in data["exit_code_by_key"].items()}
    return found


def report(work: Path, env: dict[str, str], diff: bool) -> float:
    """Print the modules, the mutant count, the survivors and the score; return the score."""
    found = statuses(work)
    counts = Counter(s for module in found.values() for s in module.values())
    print("mutated modules:")
    for module, mutants in found.items():
        killed = sum(s in KILLED for s in mutants.values())
        if mutants:
            print(f"  {module}: {len(mutants)} mutants, {killed} killed")
    # mutmut leaves decorated functions alone (cascade.py's are cached): their tables are pinned row by row
    print(f"  without a function mutmut mutates: {', '.join(m for m, mutants in found.items() if not mutants)}")
    counted = sum(n for s, n in counts.items() if s not in NOT_RUN)
    killed = sum(n for s, n in counts.items() if s in KILLED)
    print(f"mutants: {sum(counts.values())} ({', '.join(f'{n} {s}' for s, n in sorted(counts.items()))})")
    survivors = [key for module in found.values() for key, s in module.items() if s not in KILLED | NOT_RUN]
    print(f"surviving: {len(survivors)}")
    for key in survivors:
        status = next(m[key] for m in found.values() if key in m)
        print(f"  {key} ({status})")
        if diff:
            shown = subprocess.run([sys.executable, "-m", "mutmut", "show", key], cwd=work, env=env,
                                   capture_output=True, text=True)
            print("\n".join("    " + line for line in shown.stdout.splitlines()[1:]))
    score = 100.0 * killed / counted if counted else 0.0
    print(f"mutation score: {score:.1f}%")
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one)")
    parser.add_argument("--diff", action="store_true", help="print each surviving mutant's change")
    parser.add_argument("--children", type=int, default=2, help="mutants tested at once (default 2)")
    parser.add_argument("--report", action="store_true", help="with --keep: report that folder's results, run nothing")
    parser.add_argument("--only", nargs="+", metavar="GLOB",
                        help="with --keep: test only the mutants named by these globs (casebook.judging.ranking.*)")
    args = parser.parse_args(argv)
    if args.report:
        if not args.keep:
            parser.error("--report reads the folder of an earlier --keep run")
        work = args.keep.resolve() / "project"
        report(work, dict(os.environ, PYTHONPATH=str(work / "mutants" / "src")), args.diff)
        return 0
    if args.keep:
        holder = None
        work = args.keep.resolve() / "project"
    else:
        holder = Path(tempfile.mkdtemp(prefix="casebook-mutation-"))
        work = holder / "project"
    work.mkdir(parents=True, exist_ok=True)
    try:
        prepare(work)
        # the mutated copy first on the path, before the project's own installed package
        env = dict(os.environ, PYTHONPATH=str(work / "mutants" / "src"), PYTHONDONTWRITEBYTECODE="1")
        if not (work / "mutants").is_dir():
            # mutmut 3.8 finds no test for any mutant when it makes the mutants and collects the tests' calls in
            # one process: the mutants are made first, in a process of their own
            subprocess.run([sys.executable, "-c", GENERATE, str(args.children)], cwd=work, env=env, check=True,
                           stdout=subprocess.DEVNULL)
        # mutmut keeps a result until the function changes: in a kept folder, the mutants not killed yet are named
        # so that they meet the tests as they are now
        known = [(key, s) for module in statuses(work).values() for key, s in module.items()]
        again = [key for key, s in known if s not in KILLED] if any(s != "not checked" for _, s in known) else []
        if args.only:
            again = [key for key, s in known if s not in KILLED and any(fnmatch(key, glob) for glob in args.only)]
            if not again:
                report(work, env, args.diff)
                return 0
        run = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(args.children), *again],
                             cwd=work, env=env, stdout=subprocess.DEVNULL if not os.environ.get("MUTATION_VERBOSE")
                             else None)
        if run.returncode != 0:
            print(f"mutmut stopped with exit code {run.returncode} (MUTATION_VERBOSE=1 shows its output)")
            return run.returncode
        report(work, env, args.diff)
        return 0
    finally:
        if holder is not None:
            shutil.rmtree(holder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
