"""The quiz: seeded, graded, explained; its questions come from the library's evidence."""
import random
import shutil

import pytest
from casebook.knowledge.addresses import PC_VERDICTS
from casebook.knowledge.kb import load_kb
from casebook.presenting.quiz import NONE_OF_THEM, ROOT_OPEN, make_quiz, pick_sample, samples
from conftest import SAMPLES

CASE = SAMPLES / "task-queue-shared-cache-race"


def test_same_seed_same_quiz_and_every_sample_is_reachable():
    a, b = make_quiz(7), make_quiz(7)
    assert a.sample == b.sample and [q.choices for q in a.questions] == [q.choices for q in b.questions]
    kb = load_kb()
    assert pick_sample(random.Random(7), kb) == a.sample
    picked = {pick_sample(random.Random(seed), kb) for seed in range(40 * len(samples(kb)))}
    assert picked == set(samples(kb))


def test_positive_info_questions_and_answers():
    quiz = make_quiz(0, sample=CASE / "positive-info")
    assert [q.key for q in quiz.questions] == ["first_failure", "error_bit", "pc_start", "family", "case"]
    first = quiz.question("first_failure")
    assert first.answer.startswith("ascend/log/debug/plog/plog-48213_20260314100209828.log:4172 ")
    assert len(first.choices) == 4 and first.answer in first.choices
    assert quiz.question("error_bit").answer == "CCU_BUS_ERR"
    assert quiz.question("pc_start").answer == "pc_start_suspect" and quiz.question("pc_start").choices == PC_VERDICTS
    assert quiz.question("family").answer == "aicore-exception"
    case = quiz.question("case")
    assert case.answer == "task-queue-shared-cache-race"
    assert quiz.question("family").answer not in case.prompt and "AI Core" not in case.prompt, \
        "the last question does not give the one before it away"
    # the cause is picked among the family's own causes, not among every case of the KB
    assert set(case.choices) == set(load_kb().families["aicore-exception"].causes) | {ROOT_OPEN}
    assert "task-queue" not in " ".join(first.choices), "the choices do not give the case away"


def test_grading_scores_and_explains():
    quiz = make_quiz(0, sample=CASE / "negative-process-per-card")
    assert quiz.question("case").answer == ROOT_OPEN
    g = quiz.answer("case", "task-queue-shared-cache-race")
    assert not g.correct and "ruled_out" in g.explanation and "own process" in g.explanation
    assert "first question to ask" in g.explanation
    quiz.answer("pc_start", "consistent")
    assert quiz.score == (1, 5) and not quiz.finished
    quiz.answer("case", ROOT_OPEN)           # a second try replaces the first
    assert quiz.score == (2, 5)
    for q in quiz.questions:
        quiz.answer(q.key, q.answer)
    assert quiz.finished and quiz.score == (5, 5)
    assert quiz.reveal() == "task-queue-shared-cache-race/negative-process-per-card"


def test_a_choice_not_offered_is_refused():
    quiz = make_quiz(1)
    with pytest.raises(ValueError, match="not one of the choices"):
        quiz.answer("case", "no such case")
    with pytest.raises(KeyError, match="no question"):
        quiz.question("nope")


def test_cases_narrow_the_pool():
    kb = load_kb()
    picked = {pick_sample(random.Random(seed), kb, ["task-queue-shared-cache-race"]) for seed in range(40)}
    assert picked == set((SAMPLES / "task-queue-shared-cache-race").glob("*/"))
    with pytest.raises(ValueError, match="no samples"):
        make_quiz(0, cases=["no-such-case"])


def test_without_a_family_the_case_is_picked_among_the_candidates(tmp_path):
    # the unknown sample's refusal ("... must match number of collective participants") places the framework-usage
    # family: worded as no family reads it, the failure is one the knowledge base cannot place at all
    sample = tmp_path / "scatter-list-size"
    shutil.copytree(SAMPLES / "_unknown" / "scatter-list-size", sample)
    for path in sample.rglob("*.log"):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("Tensor list input to scatter/gather must match number of collective participants",
                                     "reduce_scatter was handed three tensors for four ranks"), encoding="utf-8")
    quiz = make_quiz(0, sample=sample)
    assert quiz.triage.family is None
    assert "family" not in [q.key for q in quiz.questions]
    case = quiz.question("case")
    assert case.answer == NONE_OF_THEM and case.choices[-1] == NONE_OF_THEM
    assert set(case.choices[:-1]) == {h.case.id for h in quiz.triage.candidates}


def test_the_quiz_notebook_hides_its_case_and_is_not_the_case_walks_sample():
    import json

    from casebook.knowledge.kb import load_kb
    from conftest import ROOT

    def code(name):
        nb = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))
        return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    cells = code("03_quiz.ipynb")
    named = [c for c in cells for case in load_kb().cases if case in c]
    assert named == [], "a code cell names a case"
    params = next(c for c in cells if c.startswith("SEED"))
    seed = int(params.split("=")[1])
    walk_sample = next(c for c in code("02_case_walk.ipynb") if c.startswith("SAMPLE")).split('"')[1]
    picked = make_quiz(seed).sample
    assert picked.parent.name + "/" + picked.name != "/".join(walk_sample.split("/")[-2:])


def test_a_seed_keeps_its_sample_when_samples_are_added(tmp_path):
    from types import SimpleNamespace
    for name in ("a/s1", "b/s2", "c/s3"):
        (tmp_path / "samples" / name).mkdir(parents=True)
        (tmp_path / "samples" / name / "expect.yaml").write_text("runs: []\n")
    kb = SimpleNamespace(root=tmp_path)
    before = {seed: pick_sample(random.Random(seed), kb) for seed in range(30)}
    (tmp_path / "samples" / "d" / "s4").mkdir(parents=True)
    (tmp_path / "samples" / "d" / "s4" / "expect.yaml").write_text("runs: []\n")
    after = {seed: pick_sample(random.Random(seed), kb) for seed in range(30)}
    assert all(after[s] == before[s] for s in before if after[s].parent.name != "d")
    assert {p.parent.name for p in after.values()} == {"a", "b", "c", "d"}
    shutil.rmtree(tmp_path / "samples")

