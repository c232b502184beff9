"""Shared paths and fixtures: the real corpus is read where it lies, never copied or edited."""
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "_casebook_kept", ""), ignore_errors=True)


@pytest.fixture(autouse=True)
def fresh_readings():
    """Every test reads its bundles anew: a reading kept by an earlier test (the process keeps the last bundles
    opened) must not stand in for one made under another test's settings."""
    from casebook.judging.readings import forget
    forget()
    yield
    forget()


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
