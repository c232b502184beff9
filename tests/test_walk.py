"""The walk as data: a conclusion first, the questions next, each file:line once per step, clean tables, and a
Chinese walk with no English sentence; checked on every KB sample and every corpus collection."""
import math
import re
from types import SimpleNamespace

import pytest
from casebook.judging.ranking import Missing
from casebook.presenting import hypotheses, tables, walk
from conftest import CORPUS, english_sentences, quoted_log

LOCATION = re.compile(r"[\w./!-]+\.\w+:\d+")


def texts_of(step, quoted_columns: bool = False) -> list[str]:
    """Everything a reader sees of a step except the cited lines themselves."""
    out = [step.title, step.conclusion, *step.findings, *(step.ask(q) for q in step.questions)]
    for caption, df in step.tables:
        out += [caption, *map(str, df.columns)]
        log_columns = set(df.attrs.get(tables.LOG_COLUMNS, ()))
        out += [str(v) for col in df.columns if quoted_columns or col not in log_columns for v in df[col]]
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_step_concludes_first_and_cites_each_line_once(every_triage, lang):
    for name, t in every_triage.items():
        for s in walk.build(t, lang):
            assert s.conclusion.strip(), (name, s.key)
            keys = [c.key for c in s.cited]
            assert len(keys) == len(set(keys)), (name, s.key)
            cited = {c.where for c in s.cited if c.file}
            # a step names a line in its evidence only: no finding or table repeats a cited file:line
            for text in texts_of(s, quoted_columns=True):
                assert not cited & set(LOCATION.findall(text)), (name, s.key, text)
            assert sum(len(b.lines) for b in s.bursts) == len(s.cited)


def test_tables_show_empty_cells_and_integers(every_triage):
    for name, t in every_triage.items():
        for s in walk.build(t):
            for caption, df in s.tables:
                for v in df.to_numpy().ravel():
                    assert v is not None and str(v) not in ("None", "nan", "NaN", "<NA>"), (name, caption)
                    assert not (isinstance(v, float) and (math.isnan(v) or v.is_integer())), (name, caption, v)


def test_tidy_turns_missing_values_and_whole_floats_into_cells():
    import pandas as pd
    df = pd.DataFrame({"pid": [48213.0, None], "device": [float("nan"), 1.5], "ok": [True, False]})
    got = tables.tidy(df, "zh")
    assert got.values.tolist() == [[48213, "", "是"], ["", 1.5, "否"]]
    assert list(got.columns) == ["进程", "设备", "ok"]


def test_tidy_keeps_the_index_and_the_log_columns_and_headers_that_coincide():
    import pandas as pd
    df = pd.DataFrame({"pid": pd.array([7, None], dtype="Int64"), "first_line": ["a", None]}, index=[3, 5])
    got = tables.tidy(df, "zh", log_columns=("first_line",))
    assert got.index.tolist() == [3, 5] and got.values.tolist() == [[7, "a"], ["", ""]]
    assert list(got.columns) == ["进程", "首行"] and got.attrs["log_columns"] == ["首行"]
    clash = tables.tidy(pd.DataFrame({"pid": [1.0], "进程": [2]}), "zh")   # two columns worded alike stay two
    assert list(clash.columns) == ["进程", "进程"] and clash.values.tolist() == [[1, 2]]


def test_the_chinese_walk_has_no_english_sentence(every_triage, logged):
    found = []
    for name, t in every_triage.items():
        for s in walk.build(t, "zh"):
            for text in texts_of(s):
                found += [(name, s.key, e) for e in english_sentences(text) if not quoted_log(e, logged, t.kb)]
    assert found == []


def test_the_first_failure_is_the_symptom_conclusion(every_triage):
    t = every_triage["corpus/aicore-gatherv2-asys"]
    symptom, code, pc = walk.build(t)[:3]
    assert symptom.conclusion == "The first failure: AI Core exception on device 0, pid 370 at 2023-07-13T07:42:40.515526."
    assert code.conclusion == "The fault's error bits are CCU_ILLEGAL_INSTR."
    assert pc.conclusion.startswith("Offset 0x3d2c cannot be checked yet")
    assert walk.build(t, "zh")[0].conclusion == "最早的故障：设备 0，进程 370 于 2023-07-13T07:42:40.515526 发生AI Core 异常。"
    (burst, *_) = pc.bursts
    assert burst.lines[0].excerpt(60).match.startswith("pc start: 0x1000124080064000")


def test_a_case_open_within_its_family_says_so_and_asks_the_splitting_question_first(every_triage):
    t = every_triage["aicore-exception/family-no-error-bits"]
    root, fix = walk.build(t)[4:]
    n = len(t.family.open_causes)
    assert root.conclusion == f"{t.family.family.title}; root cause open among {n} known causes."
    assert root.questions[0].fact == t.family.next_question.fact
    ranked = [q.fact for q in t.questions if q.fact != root.questions[0].fact]   # then as ranking orders them
    assert [q.fact for q in root.questions[1:1 + len(ranked)]] == ranked
    assert fix.conclusion.startswith(f"No fix yet: the root cause is open among {n} known causes")
    assert walk.build(t, "zh")[4].conclusion.endswith(f"根因尚在 {n} 个已知原因之间。")


def test_without_families_the_questions_are_those_ranking_gives():
    asked = [Missing("TASK_QUEUE_ENABLE", "q1"), Missing("single_process_multi_device", "q2")]
    assert hypotheses.questions(SimpleNamespace(questions=asked)) == asked


def test_the_diagnosis_is_the_root_cause_conclusion(every_triage):
    t = every_triage["corpus/aicore-gatherv2-asys"]
    root = walk.build(t)[4]
    assert root.conclusion.startswith("The root cause is AI Core illegal or undefined instruction")
    # the collection shows the bit (error code 0x10) and nothing of what made it: likely, not confirmed
    assert "(aicore-illegal-instruction, likely)" in root.conclusion


def test_the_walk_is_worded_in_english_or_chinese_only(every_triage):
    with pytest.raises(ValueError, match="en or zh"):
        walk.build(every_triage["corpus/aicore-gatherv2-asys"], "fr")
    assert CORPUS.is_dir()


def test_the_check_of_chinese_catches_the_english_walk(every_triage):
    t = every_triage["corpus/aicore-gatherv2-asys"]
    assert any(english_sentences(text) for s in walk.build(t, "en") for text in texts_of(s))


def test_an_analyzer_reports_error_register_is_not_explained_as_the_task_schedulers_code_of_that_number():
    from pathlib import Path

    from casebook.judging.triage import triage
    t = triage(Path(__file__).parent / "captures" / "43-rebuilt-msaicerr-info-2020-code-0x10")
    step = next(s for s in walk.build(t, "en") if s.key == "error_code")
    said = " ".join(step.findings)
    assert "Codes seen: 0x10." in said and "CCU_ILLEGAL_INSTR" in said
    assert t.kb.codes["0x10"].title not in said                          # the retCode 0x10's meaning
    (caption, table), *_ = step.tables
    assert table.to_dict("records") == [{"code": "0x10", "catalog": "aicore_error", "meaning": "(no code page yet)"}]
