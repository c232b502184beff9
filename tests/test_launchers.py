"""A ticket's diagnosis does not depend on what printed or carried its lines: the same real capture, every line
marked the way a launcher, a log collector, a terminal or a web page marks them (judging/channels.py), is read to the
same cause.

The captures are the first proven capture of each proven case (kb/proven.yaml) that is a pasted text: real lines
of every kind the knowledge base is right on.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from casebook.judging.channels import CHANNELS, write_carried
from casebook.judging.contract import to_dict
from casebook.judging.triage import triage
from casebook.knowledge.kb import load_kb
from casebook.knowledge.proven import load

CAPTURES = Path(__file__).resolve().parent / "captures"
KB = load_kb()


def _sample() -> list[Path]:
    """The first proven capture of each proven case that is a pasted text."""
    proven = load(KB.root)
    out = []
    for case in sorted(proven):
        folder = next((CAPTURES / f for f in sorted(proven[case]) if (CAPTURES / f / "capture.txt").is_file()), None)
        if folder is not None:
            out.append(folder)
    return out


SAMPLE = _sample()


def diagnosis(path: Path) -> str | None:
    return to_dict(triage(path, kb=KB))["diagnosis"]


@pytest.fixture(scope="module")
def plain() -> dict[str, str | None]:
    return {f.name: diagnosis(f / "capture.txt") for f in SAMPLE}


def test_the_sample_covers_the_proven_cases(plain):
    assert len(SAMPLE) >= 100
    assert all(plain.values()), "every capture of the sample is proven: its triage names a cause"


#: Channels the reader does not follow yet, each a strict xfail with its reason (docs/accuracy.md).
LEFT = {
    "mail-76": "a word wrap is told from a line's own end only by the width: a break before a word that would have "
               "fitted (a run of spaces dropped), before a line of its own whose first word is long (a tag after a "
               "sentence's end) or before a piece the grammar reads alone (a source position) is read the other way; "
               "6 of the sample read to another cause",
    "terminal-100": "one line cut once by a terminal looks like a line and the line after it: it is joined back only "
                    "where other lines show the width or a launcher's prefix shows where lines start (7 of the sample "
                    "are one error line cut once)",
}


#: Channels in turn: a launcher's prefix seen in a narrow terminal, where the prefix shows where a cut line goes on.
COMPOSED = ("torchrun+terminal-100", "vllm+terminal-100")


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=LEFT[n])) if n in LEFT
                                  else n for n in (*sorted(CHANNELS), *COMPOSED)])
def test_a_capture_carried_by_a_channel_is_read_to_the_same_cause(tmp_path, plain, name):
    changed = {}
    for folder in SAMPLE:
        got = diagnosis(write_carried(folder / "capture.txt", name, tmp_path))
        if got != plain[folder.name]:
            changed[folder.name] = (plain[folder.name], got)
    assert not changed, changed


def test_the_channel_marks_every_line_that_holds_text():
    from casebook.judging.channels import carried
    assert carried("a\n\nb\n", "cat-n") == "     1\ta\n\n     3\tb\n"
    assert carried("a\nb", "pdsh") == "worker-1: a\nworker-1: b"
    assert carried("a b\n", "web-page") == "a\xa0b\n"


@pytest.mark.parametrize("channel", ["pdsh", "slurm", "cat-n"])
@pytest.mark.parametrize("folder", ["2119-npu-skillyard-pto-tload-no-matching-globaltensor-tile-type",
                                    "358-ascend-docs-llamafactory-telechat-cuda"])
def test_a_capture_of_one_line_keeps_its_cause_under_a_launchers_prefix(tmp_path, channel, folder):
    # a capture of one line shows no other line that a prefix leads: the prefix is read as one where it has the form
    # a launcher gives it and the line goes on after it
    path = CAPTURES / folder / "capture.txt"
    assert len([line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]) == 1
    assert diagnosis(write_carried(path, channel, tmp_path)) == diagnosis(path) is not None


def test_a_loaders_line_of_one_line_keeps_the_library_it_names(tmp_path):
    from casebook.reading.plog import read_plog
    (path := tmp_path / "capture.txt").write_text(
        "libpython3.9.so.1.0: cannot open shared object file: No such file or directory\n", encoding="utf-8")
    (record,) = read_plog(path).whole.records.itertuples()
    assert record.msg.startswith("libpython3.9.so.1.0: cannot open shared object file")
    (path := tmp_path / "program.txt").write_text("python3: can't open file '/w/train.py': [Errno 2] No such file or "
                                                  "directory\n", encoding="utf-8")
    (record,) = read_plog(path).whole.records.itertuples()
    assert record.msg.startswith("python3: can't open file")
    (path := tmp_path / "one.txt").write_text("worker-1: RuntimeError: boom\n", encoding="utf-8")
    (record,) = read_plog(path).whole.records.itertuples()
    assert (record.msg, record.wrapper) == ("RuntimeError: boom", "host")
