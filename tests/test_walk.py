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
    for c in step.causes:
        out += [c.title, c.verdict, *c.for_, *c.against, *c.missing]
    tables_ = list(step.tables)
    for fold in step.folds:
        out += [fold.caption, *fold.findings]
        tables_ += fold.tables
    for caption, df in tables_:
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
    # the family's most splitting question and every question ranking gives are asked, each once; which comes first
    # is the one that best separates the causes set side by side (test_the_first_question_best_separates_...)
    asked = [q.fact for q in root.questions]
    assert len(asked) == len(set(asked)) and {t.family.next_question.fact, *(q.fact for q in t.questions)} <= set(asked)
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
    assert "No code page yet for 0x10." in step.findings, "said once, and nowhere contradicted"


# -- the root-cause step of a case still open ----------------------------------------------------------------
def test_an_open_case_asks_three_questions_sets_three_causes_side_by_side_and_folds_the_rest(every_triage):
    t = every_triage["corpus/modelarts-8rank-job"]
    root = walk.build(t)[4]
    assert t.diagnosis is None and len(t.family.open_causes) > 3
    assert len(root.questions) > 3 and root.questions_shown == root.questions[:3]
    assert root.questions_more == root.questions[3:]
    assert [c.id for c in root.causes] == t.family.open_causes[:3]
    lead = root.causes[0]
    assert lead.for_ and (lead.against or lead.missing), "the leading cause says why, and why not or what would settle it"
    # a card says why not exactly where its case has evidence against it
    by_id = {h.case.id: h for h in t.candidates}
    assert [bool(c.against) for c in root.causes] == [bool(by_id[c.id].against) if c.id in by_id else False
                                                      for c in root.causes]
    captions = [f.caption for f in root.folds]
    assert captions == [f"All {len(t.candidates)} candidates", captions[1]] and captions[1].startswith(
        "Unexplained error templates (")
    said = " ".join(root.findings)
    assert t.family.open_causes[3] not in said, "the open causes past the leading three are folded away"
    shown = {c.id for c in root.causes}   # the family's leading three, wherever the candidates rank them
    assert not [h.case.id for h in t.candidates[3:] if h.case.id in said and h.case.id not in shown]


def test_the_first_question_best_separates_the_leading_causes(every_triage):
    from casebook.judging.families import separation
    for name, t in every_triage.items():
        asked = hypotheses.questions(t)
        lead = hypotheses.leading(t)
        if len(asked) < 2 or not lead:
            continue
        causes, weights = [c for c, _, _ in lead], hypotheses.masses(t, lead)
        scores = [separation(q.fact, causes, weights) for q in asked]
        assert scores[0] == max(scores), name
        assert len(lead) <= hypotheses.LEADING


def test_leading_causes_that_tie_are_said_to_tie_with_the_question_that_splits_them(every_triage):
    from casebook.judging.families import separation
    t = every_triage["sdma-copy-exception/family-ei0012-only"]
    root = walk.build(t)[4]
    tied = [c.id for c in root.causes]
    (tie,) = [f for f in root.findings if f.startswith("Cannot tell")]
    q = next(q for q in root.questions if tie.endswith(root.ask(q)))
    assert tie == (f"Cannot tell `{tied[0]}`, `{tied[1]}` and `{tied[2]}` apart yet: ask: {root.ask(q)}")
    assert separation(q.fact, [t.kb.cases[c] for c in tied], dict.fromkeys(tied, 1.0))[0] > 0
    zh = walk.build(t, "zh")[4]
    assert any(f.startswith("目前还无法区分") for f in zh.findings)
    unsplit = every_triage["op-rejects-dtype/negative-kernel-config-missing"]
    assert any("no question in the knowledge base splits them" in f for f in walk.build(unsplit)[4].findings)


def test_a_cause_its_sibling_reads_the_same_lines_of_is_likely_and_names_that_sibling_against_it(every_triage):
    t = every_triage["npu-out-of-memory/positive-long-batch"]
    lead, leak = t.kb.cases["npu-out-of-memory"], t.kb.cases["device-memory-leak-across-steps"]
    assert (t.diagnosis.case.id, t.diagnosis.verdict) == (lead.id, "likely")
    for lang, title in (("en", leak.title), ("zh", leak.title_zh)):
        cause = next(c for c in walk.build(t, lang)[4].causes if c.id == lead.id)
        said = [a for a in cause.against if title in a]
        assert len(said) == 1 and leak.id in said[0], (lang, cause.against)


def test_a_faults_own_argument_and_register_dump_is_not_unexplained(every_triage):
    t = every_triage["corpus/aicore-gatherv2-asys"]
    root = walk.build(t)[4]
    templates = [str(x) for f in root.folds for _, df in f.tables for x in df["template"]]
    assert templates and not [x for x in templates if "args after execute" in x or "module_type=" in x]
    assert "fftsplus task execute failed" not in " ".join(templates)


def test_answers_read_as_words_under_their_question():
    from casebook.judging.triage import triage
    from conftest import SAMPLES
    t = triage(SAMPLES / "task-queue-shared-cache-race" / "positive-info",
               facts={"TASK_QUEUE_ENABLE": "1", "failure_vanished_with_debug": True})
    for lang, yes in (("en", "Yes (the engineer's answer)"), ("zh", "是（工程师的回答）")):
        root = walk.build(t, lang)[4]
        said = [x for c in root.causes for x in (*c.for_, *c.against)]
        assert any(x.endswith(yes) for x in said), lang
        assert not [x for x in said if re.search(r"= (True|False)|failure_vanished_with_debug =", x)]


def test_the_error_code_step_says_each_meaning_once_and_never_contradicts_it(every_triage):
    t = every_triage["corpus/aicore-gatherv2-asys"]
    for lang in ("en", "zh"):
        code = walk.build(t, lang)[1]
        said = [f.split(":" if lang == "en" else "：", 1) for f in code.findings]
        meanings = [(head, rest) for head, *rest in said if rest]
        assert len({h for h, _ in meanings}) == len(meanings), [h for h, _ in meanings]
        bits = {str(n) for _, df in code.tables for n in df.iloc[:, 5]} if code.tables else set()
        assert not {h.strip() for h, _ in meanings} & bits, "a bit's meaning is in its table only"
        assert not [f for f in code.findings if "no code page" in f.lower() and "0x7150026" in f]

