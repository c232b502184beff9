"""The walk in a terminal: 100 columns by default, paths cut in the middle keeping :line, cited log text on
lines of its own starting with '>', --wide for full lines, --lang zh with no English sentence."""
import re

import pandas as pd
import pytest
from casebook.cli import main
from casebook.presenting.console import WIDTH, shorten_where, table, walk_lines, width_of, wrap
from conftest import COLLECTIONS, english_sentences, quoted_log

LONG = "dfx/log/host/cann/debug/plog/plog-1216_20230713074123021.log:8363"


def run(capsys, *args) -> list[str]:
    assert main(["triage", *map(str, args), "--progress", "never"]) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("name", COLLECTIONS)
def test_the_corpus_walk_fits_100_columns(capsys, corpus, name):
    for lang in ("en", "zh"):
        out = run(capsys, corpus / name, "--lang", lang)
        assert max(width_of(line) for line in out) <= WIDTH, [line for line in out if width_of(line) > WIDTH][:3]
        assert not any("pid None" in line or "/ pc start" in line for line in out)
        cited = [n for n, line in enumerate(out) if line.startswith("    > ")]
        assert cited and all(":" in out[n - 1] and not out[n - 1].lstrip().startswith(">") for n in cited)


def test_every_sample_walk_fits_100_columns(every_triage):
    for name, t in every_triage.items():
        for lang in ("en", "zh"):
            lines = walk_lines(t, lang)
            assert max(width_of(line) for line in lines) <= WIDTH, name


def test_wide_prints_every_cited_line_whole(capsys, corpus):
    path = corpus / "aicore-gatherv2-asys"
    narrow, wide = run(capsys, path), run(capsys, path, "--wide")
    full = ("The error from device(0), serial number is 367, there is an aicore error, core id is 0, error code = 0x10, "
            "dump info: pc start: 0x1000124080064000, current: 0x124080067d2c")
    assert any(line.startswith("    > " + full) for line in wide) and not any(full in line for line in narrow)
    assert max(map(len, wide)) > WIDTH and f"    {LONG}" in wide


def test_the_chinese_walk_speaks_chinese_outside_the_cited_lines(every_triage, logged):
    found = []
    for name, t in every_triage.items():
        text = "\n".join(line for line in walk_lines(t, "zh") if not line.lstrip().startswith(">"))
        found += [(name, e) for e in english_sentences(text) if not quoted_log(e, logged, t.kb)]
    assert found == []


def test_paths_are_cut_in_the_middle_and_keep_the_line():
    assert shorten_where(LONG, 200) == LONG
    short = shorten_where(LONG, 40)
    assert width_of(short) == 40 and short.endswith("plog-1216_20230713074123021.log:8363") and "…" in short
    assert shorten_where(LONG, 12) == "…21.log:8363"
    assert shorten_where("a/b.log:12-40", 6).endswith(":12-40")


def test_chinese_text_wraps_by_columns_and_keeps_punctuation_with_its_word():
    text = "之后的 30 行是先前故障的连带错误或外层包装（507899、107022、synchronize 调用、torch_npu ERRxxxxx），不是原因。"
    for width in (20, 33, 60):
        lines = wrap(text, width, "  - ", "    ")
        assert all(width_of(line) <= width for line in lines)
        assert not any(line.strip()[0] in "，。、；）" or line.rstrip().endswith("（") for line in lines)
        assert "".join(line[4:] for line in lines).replace(" ", "") == text.replace(" ", "")


def test_a_table_too_wide_narrows_its_widest_columns_then_goes_one_row_per_block():
    df = pd.DataFrame({"code": ["0x26"], "meaning": ["x" * 150], "first": [LONG]})
    lines = table(df, 80)
    assert all(width_of(line) <= 80 for line in lines) and lines[1].rstrip().endswith(":8363")
    many = pd.DataFrame({f"column {i}": [i] for i in range(20)})
    blocks = table(many, 60)
    assert blocks[0] == "    - column 0: 0" and all(width_of(line) <= 60 for line in blocks)


@pytest.mark.parametrize("name", COLLECTIONS)
def test_the_verdict_comes_first_within_fifteen_lines(capsys, corpus, every_triage, name):
    t = every_triage[f"corpus/{name}"]
    out = run(capsys, corpus / name)
    head = "\n".join(out[:15])
    said = (t.diagnosis.case.id if t.diagnosis is not None else t.family.family.title)
    assert said in " ".join(head.split()), head
    assert out.index("== Verdict") < out.index("== 1. Symptom")
    if t.diagnosis is None:
        assert "  ? " in head, "an open case asks its first question on the first screen"


def test_counts_and_values_read_as_words_in_every_walk(every_triage):
    bad = re.compile(r"\(s\)|\(es\)|unknown \(unknown\)|(?<=[\s(])\?(?=[,)]|\s*$)|[=:] (?:True|False)\b|\[\d+(?:, \d+)+\]|"
                     r"\b1 (?:incidents|lines|files|templates|cores|processes|reports)\b")
    found = []
    for name, t in every_triage.items():
        for line in walk_lines(t, "en"):
            if line.startswith("    > "):   # a log line, as logged
                continue
            if bad.search(line):
                found.append((name, line))
    assert found == []
