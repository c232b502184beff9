"""Shared paths and fixtures: the real corpus is read where it lies, never copied or edited."""
import copy
import functools
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase

ROOT = Path(__file__).resolve().parents[1]
#: Where the property tests keep what they keep (the examples that failed, replayed first on the next run, and
#: Hypothesis's own caches): a folder of the system's temporary space, never the checkout (one profile for every
#: test; none sets a database of its own)
HYPOTHESIS_HOME = Path(tempfile.gettempdir()) / "casebook-hypothesis"
EXAMPLES = HYPOTHESIS_HOME / "examples"
set_hypothesis_home_dir(str(HYPOTHESIS_HOME))
settings.register_profile("casebook", database=DirectoryBasedExampleDatabase(str(EXAMPLES)), deadline=None,
                          print_blob=True)
settings.load_profile("casebook")
#: A copy of the real plog corpus (Apache-2.0 test data; its LICENSE and NOTICE.md beside it), carried so that a
#: clone anywhere passes
CORPUS = ROOT / "tests" / "corpus"
SAMPLES = ROOT / "kb" / "samples"
COLLECTIONS = ("aicore-gatherv2-asys", "aicore-old-slog-layout", "hccl-event-timeout-2workers", "modelarts-8rank-job")


def pytest_configure(config):
    """What the package keeps between runs (the loaded knowledge base, the checked format catalog) goes to a
    temporary folder, not ~/.cache: set before the test modules are collected, since some load the knowledge base
    when imported; the CLI's child processes inherit it."""
    config._casebook_kept = tempfile.mkdtemp(prefix="casebook-kept-")
    os.environ["CASEBOOK_CACHE"] = config._casebook_kept
    # the case memory too: no test writes to the user's data folder
    os.environ["CASEBOOK_DB"] = os.path.join(config._casebook_kept, "memory.db")
    # mutmut's working copy (tests/mutation.py) is not a checkout: mutmut writes its results into it while tests run
    if not os.environ.get("CASEBOOK_MUTATION"):
        config._casebook_tree = tree_state(ROOT)
    else:
        forget_caches()


def forget_caches() -> int:
    """Empty every `functools` cache of the package's loaded modules (module functions and class methods); return
    how many. mutmut runs the clean tests in its main process and forks each mutant's run from it: a cache filled
    there would answer in the mutant's run without calling the mutated body it stands in front of."""
    emptied = 0
    for name, module in list(sys.modules.items()):
        if name != "casebook" and not name.startswith("casebook."):
            continue
        holders = [vars(module)] + [vars(v) for v in vars(module).values()
                                    if isinstance(v, type) and v.__module__ == name]
        for holder in holders:
            for value in list(holder.values()):
                if callable(getattr(value, "cache_clear", None)) and hasattr(value, "cache_info"):
                    value.cache_clear()
                    emptied += 1
    return emptied


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "_casebook_kept", ""), ignore_errors=True)


#: What a run may change in the checkout: the installed environment and git's own folder; bytecode caches are
#: Python's (`make test` sets PYTHONDONTWRITEBYTECODE, so it writes none)
TREE_SKIPPED = {".venv", ".git", "__pycache__"}


def tree_state(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under `root`, ignored ones included (but TREE_SKIPPED): relative path -> (size, mtime in ns)."""
    state = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in TREE_SKIPPED]
        for name in files:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except FileNotFoundError:   # removed while walked
                continue
            state[os.path.relpath(path, root)] = (st.st_size, st.st_mtime_ns)
    return state


def tree_changes(before: dict, after: dict) -> list[str]:
    """The files a run added, changed or removed, each with what happened to it."""
    return sorted([f"added {p}" for p in after.keys() - before.keys()] +
                  [f"removed {p}" for p in before.keys() - after.keys()] +
                  [f"changed {p}" for p in before.keys() & after.keys() if before[p] != after[p]])


def pytest_sessionfinish(session, exitstatus):
    """A run leaves the checkout as it found it: a file left behind (a report, a database, a saved case) fails it."""
    before = getattr(session.config, "_casebook_tree", None)
    if before is None or getattr(session.config, "workerinput", None) is not None:
        return
    changes = tree_changes(before, tree_state(ROOT))
    if changes:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        text = "the run changed the checkout:\n  " + "\n  ".join(changes[:50])
        if reporter:
            reporter.write_line(text, red=True)
        else:
            print(text)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def fresh_readings():
    """Every test reads its bundles anew: a reading kept by an earlier test (the process keeps the last bundles
    opened) must not stand in for one made under another test's settings."""
    from casebook.judging.readings import forget
    forget()
    yield
    forget()


@functools.lru_cache(maxsize=None)
def _triaged(path: str, facts: tuple) -> dict:
    from casebook.judging.contract import to_dict
    from casebook.judging.triage import triage
    from casebook.knowledge.kb import load_kb
    return to_dict(triage(path, facts=dict(facts), kb=load_kb()))


def triaged(path: Path, facts: dict | None = None) -> dict:
    """The JSON document of a bundle's triage with the project's knowledge base: made once per (path, facts) in a
    session and shared by the tests that read it (each gets its own copy to look into)."""
    return copy.deepcopy(_triaged(str(path), tuple(sorted((facts or {}).items()))))


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The shared corpus folder; its absence is a setup error, not a skip."""
    assert CORPUS.is_dir(), f"the real plog corpus is expected at {CORPUS}"
    return CORPUS


def write_log(tmp_path: Path, name: str, text: str) -> Path:
    """A small log file for a test."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


#: Text that may stay English in a Chinese walk: quoted log text, file paths, code names and identifiers.
_QUOTED = re.compile(r"`[^`]*`")
_WORD = r"(?<![\w./\-=:<>\[])[A-Za-z][a-z]+(?:'[a-z]+)?(?![\w./\-=(<>\]])"
#: Runs of three or more ordinary English words (one space apart: table columns are further apart).
_ENGLISH = re.compile(rf"{_WORD}(?:,? {_WORD}){{2,}}")
#: Words a sentence has and a technical term ("Vector Core trap", "remote physic id") does not.
_FUNCTION_WORDS = {"a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "from", "with", "and", "or", "not",
                   "no", "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these", "which",
                   "when", "if", "as", "than", "then", "there", "can", "cannot", "does", "did", "has", "have", "had"}


def english_sentences(text: str) -> list[str]:
    """English sentences outside backticks, what a Chinese reader should not meet: three or more ordinary words
    in a row with a function word among them, or five or more. Code names (CCU_BUS_ERR, TASK_QUEUE_ENABLE),
    file names, hex values, quoted log text and short technical terms do not count."""
    runs = _ENGLISH.findall(_QUOTED.sub(" ", text))
    return [r for r in runs if len(r.split()) >= 5 or _FUNCTION_WORDS & {w.strip(",").lower() for w in r.split()}]


def bundles() -> list[Path]:
    """Every KB sample bundle and every corpus collection: what the walk, the CLI and the report are checked on."""
    return sorted(p for p in SAMPLES.glob("*/*") if p.is_dir()) + [CORPUS / name for name in COLLECTIONS]


@pytest.fixture(scope="session")
def every_triage(corpus) -> dict[str, object]:
    """The triage of every bundle, by path relative to its root; read once per session, never answered."""
    from casebook.judging.triage import triage
    return {f"{p.parent.name}/{p.name}": triage(p) for p in bundles()}


def log_text(t) -> str:
    """Every message the reader kept, one per line, runs of spaces as one (as templates show them): English
    found in it is quoted log text."""
    return re.sub(r"[ \t]+", " ", "\n".join(t.log.records["msg"].astype(str)))


@pytest.fixture(scope="session")
def logged(every_triage) -> str:
    """The log text of every bundle: a KB text may quote a message or a field name of another bundle's logs."""
    return "\n".join(log_text(t) for t in every_triage.values())


def quoted_log(words: str, logged: str, kb) -> bool:
    """Is this English a log message: a part of the bundle's own lines, or a message a KB signature looks for
    (a case title quotes the message it is known by)?"""
    if words in logged:
        return True
    for item in [*kb.cases.values(), *kb.families.values()]:
        for sig in item.signatures:
            literal = str(sig.value)
            if sig.field == "message" and (words in literal or (sig.matcher != "regex" and literal in words)
                                           or (sig.matcher == "regex" and sig.pattern.search(words))):
                return True
    return False
