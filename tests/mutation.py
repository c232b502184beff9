"""Mutation testing of the diagnosis: mutmut on the reading, evidence, knowledge and judging stages, run in a temporary copy
of the project; prints the mutated modules, the number of mutants by outcome (killed by a failing test, by their
time, by a signal), the surviving ones and, last, `mutation score: NN.N%`. `make mutation` runs it (not part of
`make test`).

    python tests/mutation.py [--keep DIR [--report]] [--diff] [--children N] [--sample N [--seed S]] [--deselect NODEID ...]

`--keep DIR` works in DIR and keeps it, so a second run tests only the mutants not killed yet (`--report` then
prints that folder's results without running); `--diff` prints each survivor's change; `--sample N` tests a random
sample of N mutants (SAMPLE by default, 0 for every mutant) and prints the interval the whole score lies in. The rule tables
(knowledge/data/*.tsv) are data, not code: each of their rows has a test of its own instead.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What is mutated: every module of the two stages that decide, of the stage that gathers their evidence and of the
#: stage that reads the logs it comes from.
MUTATED = ("casebook/judging/*.py", "casebook/knowledge/*.py", "casebook/evidence/*.py", "casebook/reading/*.py")

#: The tests that pin those modules by exact values; mutmut runs, for each mutant, only the ones that reached its
#: function. The tests that triage whole bundles (every sample, the corpus, the CLI, the kept readings, the
#: widgets, the notebooks) are left out: they reach every function, and a surviving mutant would pay for each
#: of them whole, so the run would not fit ~40 minutes on two cores.
TESTS = ("tests/test_ranking.py", "tests/test_addresses.py", "tests/test_errcode.py", "tests/test_cascade_rules.py",
         "tests/test_incidents.py", "tests/test_kb.py", "tests/test_kb_index.py", "tests/test_kb_search.py",
         "tests/test_kb_stats.py", "tests/test_codes.py", "tests/test_formats.py", "tests/test_messages.py",
         "tests/test_objdump.py", "tests/test_unexplained.py", "tests/test_contract.py",
         "tests/test_read_case.py", "tests/test_vocabulary.py", "tests/test_families.py",
         "tests/test_rules.py", "tests/test_accuracy.py", "tests/test_comparison.py", "tests/test_priors.py",
         "tests/test_compat.py", "tests/test_memory_seed.py", "tests/test_expectations.py",
         # the evidence stage: its extractors on real captures and the real corpus (each file runs in seconds)
         "tests/test_first_error.py", "tests/test_aicore.py", "tests/test_rejection.py", "tests/test_statements.py",
         "tests/test_topology.py", "tests/test_evidence.py", "tests/test_analyzer_report.py",
         "tests/test_device_text.py", "tests/test_attachments.py", "tests/test_ports.py", "tests/test_device_health.py",
         # the reading stage: the grammar and its console forms line by line, the reader against a full reading on
         # every capture and sample, the scanner against its Python model and the sifter against both, archives,
         # pastes, system logs, damage, the reading threads, the bound on floods of error lines and hostile archives
         # and streams (zip, tar, zstd)
         "tests/test_grammar.py", "tests/test_screen.py", "tests/test_paste.py", "tests/test_plog.py",
         "tests/test_scan.py", "tests/test_system_log.py", "tests/test_rotation.py", "tests/test_bundle.py",
         "tests/test_archive.py", "tests/test_damage.py", "tests/test_literals.py", "tests/test_firsts.py",
         "tests/test_engine.py", "tests/test_floods.py", "tests/test_hostile.py", "tests/test_hostile_reading.py",
         "tests/test_sift.py")

#: Tests of those files that triage or scan every sample and capture (45 s and 22 s): they reach every function of
#: the evidence stage, so each surviving mutant there would pay for them whole; the exact tests pin those functions.
#: And one that mutmut cannot collect: while it records which functions the tests reach, this Hypothesis test of cut
#: tar files ends its process with a segfault inside mutmut's own call tracking (ContextVar.set, CPython 3.11).
LEFT_OUT = ("tests/test_ranking.py::test_no_sample_confirms_a_case_against_the_retcodes_it_names",
            "tests/test_cascade_rules.py::test_skipping_the_rows_whose_literals_a_line_lacks_changes_no_role",
            "tests/test_damage.py::test_a_tar_cut_anywhere_keeps_every_line_before_the_cut",
            # it runs the installed command as a process, which the copy has not (nor would it run the mutant)
            "tests/test_hostile_reading.py::test_a_triage_survives_a_writer_that_keeps_cutting_and_refilling_its_file")

#: What the score counts as killed: a test failed, or the mutant ran past its time (mutmut stops it with SIGXCPU).
#: A mutant ended by another signal (SIGKILL from outside, a segfault) is reported apart and not counted as killed:
#: no test told it apart.
KILLED = {"killed", "timeout"}
#: Mutants that were never tested (a run stopped before them); they are left out of the score and reported.
NOT_RUN = {"not checked", "check was interrupted by user"}


#: Makes mutmut's mutated copy (its own first steps of `mutmut run`), run in the work folder.
GENERATE = """
import sys
from mutmut.__main__ import copy_also_copy_files, copy_src_dir, create_mutants
copy_src_dir()
copy_also_copy_files()
create_mutants(int(sys.argv[1]))
"""


def prepare(work: Path, deselect: list[str]) -> None:
    """Copy the project's code, tests and knowledge base into `work`, with mutmut's settings; the tests named in
    `deselect` are left out of the run."""
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
        "pytest_add_cli_args = " + json.dumps(["-p", "no:cacheprovider", "-o", "addopts=", "-o", "testpaths=tests",
                                                *(a for node in (*LEFT_OUT, *deselect) for a in ("--deselect", node))]),
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}",
        # a mutant that loops is stopped after a few times its tests' own time, not fifteen
        "timeout_multiplier = 3.0",
        "timeout_constant = 5.0",
    )) + "\n"
    (work / "pyproject.toml").write_text(settings, encoding="utf-8")


def outcome(code: int | None) -> str:
    """What one mutant's exit code says: mutmut's status, except that a signal other than its own time limit is
    named (`signal SIGKILL`), since mutmut files SIGKILL under "segfault"."""
    from mutmut.stats import status_by_exit_code
    status = status_by_exit_code[code]
    if code is not None and code < 0 and status != "timeout":
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return status


#: Mutants a run tests by default: a random sample over the four stages. Every one of the ~19,000 takes many hours on
#: two cores (a surviving mutant of the reading or evidence stage pays for every test that reaches it, minutes of
#: them); a sample of 500 takes one and a half to two hours (96 minutes and 2 h 4 min measured) and gives the score
#: within about ±3 points (95%).
SAMPLE = 500


def drawn(known: list[tuple[str, str]], size: int, seed: int) -> list[str]:
    """A random sample of `size` mutant names, the same for the same mutants and seed."""
    # each name is ranked by a hash of the seed and the name, not by its place in the list: a changed function
    # adds or drops mutants of its own, and the rest of the sample (and the results kept for it) stays as it was,
    # but for the few at its edge
    def rank(name: str) -> str:
        return hashlib.sha256(f"{seed}:{name}".encode()).hexdigest()
    return sorted(sorted((key for key, _ in known), key=rank)[:size])


def interval(killed: int, tested: int) -> tuple[float, float]:
    """The Wilson 95% interval of the score, in percent, when `tested` mutants are a sample of the whole."""
    if not tested:
        return 0.0, 100.0
    z, p = 1.96, killed / tested
    centre = (p + z * z / (2 * tested)) / (1 + z * z / tested)
    half = z * math.sqrt(p * (1 - p) / tested + z * z / (4 * tested * tested)) / (1 + z * z / tested)
    return 100 * (centre - half), 100 * (centre + half)


def statuses(work: Path) -> dict[str, dict[str, str]]:
    """Each mutated module's mutants and their outcome, read from mutmut's result files."""
    found: dict[str, dict[str, str]] = {}
    for meta in sorted((work / "mutants" / "src").rglob("*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        module = "lib/" + str(meta.relative_to(work / "mutants" / "src"))[:-len(".meta")]
        found[module] = {key: outcome(code) for key, code in data["exit_code_by_key"].items()}
    return found


def report(work: Path, env: dict[str, str], diff: bool, pool: set[str] | None = None) -> float:
    """Print the modules, the mutant count by outcome, the survivors and the score; return the score. With `pool`
    (the sample drawn), only its mutants are counted."""
    every = statuses(work)
    found = {m: {k: s for k, s in mutants.items() if pool is None or k in pool} for m, mutants in every.items()}
    counts = Counter(s for module in found.values() for s in module.values())
    print("mutated modules:")
    for module, mutants in found.items():
        if mutants:
            tested = [s for s in mutants.values() if s not in NOT_RUN]
            apart = ", ".join(f"{n} {s}" for s, n in sorted(Counter(s for s in tested if s != "killed").items()))
            print(f"  {module}: {len(mutants)} mutants, {len(tested)} tested, {sum(s in KILLED for s in tested)} "
                  f"killed{f' ({apart})' if apart else ''}")
    # mutmut leaves decorated functions alone: the cached and property ones hand their body to a plain helper
    print(f"  without a function mutmut mutates: {', '.join(m for m, mutants in every.items() if not mutants)}")
    counted = sum(n for s, n in counts.items() if s not in NOT_RUN)
    killed = sum(n for s, n in counts.items() if s in KILLED)
    signals = sum(n for s, n in counts.items() if s.startswith("signal ") or s == "segfault")
    untested = sum(counts[s] for s in NOT_RUN)
    total = sum(len(mutants) for mutants in every.values())
    drawn_from = f", a sample of {total}" if pool is not None and len(pool) < total else ""
    print(f"mutants: {sum(counts.values())}{drawn_from} ({', '.join(f'{n} {s}' for s, n in sorted(counts.items()))})")
    print(f"tested: {counted}; killed by a failing test: {counts['killed']}, by their time: {counts['timeout']}, "
          f"ended by a signal (not counted as killed): {signals}; not tested: {untested}")
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
    if counted < total:
        low, high = interval(killed, counted)
        print(f"sample: {counted} of {total} mutants tested{'' if not untested else f', {untested} drawn not yet'}; "
              f"the score of every mutant lies in {low:.1f}-{high:.1f}% (95%)"
              + (" only once every mutant drawn is tested (the cheapest are tested first)" if untested else ""))
    # the score: (killed by a failing test + by their time) over every mutant tested, survivors, mutants no test
    # reaches, skipped ones and ones ended by a signal included
    print(f"mutation score: {score:.1f}%")
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one)")
    parser.add_argument("--diff", action="store_true", help="print each surviving mutant's change")
    parser.add_argument("--children", type=int, default=2, help="mutants tested at once (default 2)")
    parser.add_argument("--report", action="store_true", help="with --keep: report that folder's results, run nothing")
    parser.add_argument("--only", nargs="+", metavar="GLOB",
                        help="with --keep: test only the mutants of the sample named by these globs "
                             "(casebook.judging.ranking.*)")
    parser.add_argument("--sample", type=int, default=SAMPLE, metavar="N",
                        help=f"test a random sample of N mutants of every stage (default {SAMPLE}; 0: every mutant)")
    parser.add_argument("--seed", type=int, default=1, help="the sample's seed (default 1)")
    parser.add_argument("--deselect", action="append", default=[], metavar="NODEID",
                        help="leave this test out (mutmut needs every selected test to pass on the unmutated code)")
    args = parser.parse_args(argv)
    if args.report:
        if not args.keep:
            parser.error("--report reads the folder of an earlier --keep run")
        work = args.keep.resolve() / "project"
        known = [(key, s) for module in statuses(work).values() for key, s in module.items()]
        pool = set(drawn(known, args.sample, args.seed)) if args.sample else None
        report(work, dict(os.environ, PYTHONPATH=str(work / "mutants" / "src")), args.diff, pool)
        return 0
    if args.keep:
        holder = None
        work = args.keep.resolve() / "project"
    else:
        holder = Path(tempfile.mkdtemp(prefix="casebook-mutation-"))
        work = holder / "project"
    work.mkdir(parents=True, exist_ok=True)
    try:
        prepare(work, args.deselect)
        # the mutated copy first on the path, before the project's own installed package
        # CASEBOOK_MUTATION: the tests' check that a run leaves the checkout as it was does not apply to mutmut's copy
        env = dict(os.environ, PYTHONPATH=str(work / "mutants" / "src"), PYTHONDONTWRITEBYTECODE="1",
                   CASEBOOK_MUTATION="1")
        if not (work / "mutants").is_dir():
            # mutmut 3.8 finds no test for any mutant when it makes the mutants and collects the tests' calls in
            # one process: the mutants are made first, in a process of their own
            subprocess.run([sys.executable, "-c", GENERATE, str(args.children)], cwd=work, env=env, check=True,
                           stdout=subprocess.DEVNULL)
        if not (work / "mutants" / "lib").exists():
            # tests that read a data file by its path in the checkout (lib/casebook/...) find it in the copy
            (work / "mutants" / "lib").symlink_to("src", target_is_directory=True)
        # mutmut keeps a result until the function changes: in a kept folder, the mutants not killed yet are named
        # so that they meet the tests as they are now
        known = [(key, s) for module in statuses(work).values() for key, s in module.items()]
        status = dict(known)
        pool = drawn(known, args.sample, args.seed) if args.sample else [key for key, _ in known]
        tested = any(s != "not checked" for _, s in known)
        again = [key for key in pool if status[key] not in KILLED] if tested or args.sample else []
        if args.only:
            # of the sample only (every mutant without one): a glob over a changed function names mutants outside it
            again = [key for key in pool if status[key] not in KILLED and any(fnmatch(key, glob) for glob in args.only)]
            if not again:
                report(work, env, args.diff, set(pool) if args.sample else None)
                return 0
        run = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(args.children), *again],
                             cwd=work, env=env, stdout=subprocess.DEVNULL if not os.environ.get("MUTATION_VERBOSE")
                             else None)
        if run.returncode != 0:
            print(f"mutmut stopped with exit code {run.returncode} (MUTATION_VERBOSE=1 shows its output)")
            return run.returncode
        report(work, env, args.diff, set(pool) if args.sample else None)
        return 0
    finally:
        if holder is not None:
            shutil.rmtree(holder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
