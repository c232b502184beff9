"""Shared paths and fixtures: the real corpus is read where it lies, never copied or edited."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
SAMPLES = ROOT / "kb" / "samples"
COLLECTIONS = ("aicore-gatherv2-asys", "aicore-old-slog-layout", "hccl-event-timeout-2workers", "modelarts-8rank-job")


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
