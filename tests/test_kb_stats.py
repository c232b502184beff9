"""`casebook kb stats` counts on a small made-up knowledge base, by exact values."""
from casebook.knowledge.kb import CodePage, Family, KnowledgeBase, KnownCase
from casebook.knowledge.stats import Stats, sample_folders, sourced, stats


def test_counts_of_a_small_knowledge_base(tmp_path):
    for owner, sample in (("a", "positive-1"), ("a", "negative-1"), ("b", "positive-1"), ("fam", "family-1"),
                          ("_unknown", "odd-1"), ("stray", "positive-1")):
        (tmp_path / "samples" / owner / sample).mkdir(parents=True)
    (tmp_path / "samples" / "a" / "README.md").write_text("not a sample\n", encoding="utf-8")
    (tmp_path / "samples" / "b" / "positive-1" / "SOURCE.md").write_text("https://example.org\n", encoding="utf-8")
    cases = {"a": KnownCase("a", "a.md", status="verified", family="fam"),
             "b": KnownCase("b", "b.md", status="verified", family="fam"),
             "c": KnownCase("c", "c.md", status="verified", family="none"),
             "d": KnownCase("d", "d.md", status="draft", family="fam"),
             "e": KnownCase("e", "e.md", status="verified", family="fam")}   # no sample at all
    codes = {"1": CodePage("1", "1.md", extra={"source": "catalog"}), "2": CodePage("2", "2.md", body="Sources: x"),
             "3": CodePage("3", "3.md", body="see http://x"), "4": CodePage("4", "4.md", body="nothing")}
    kb = KnowledgeBase(root=tmp_path, cases=cases, families={"fam": Family("fam", "fam.md")}, codes=codes)
    # a (samples, none with a source) and e (no sample) lack a real source; b has one
    assert stats(kb) == Stats(cases=3, families=1, codes=3, samples=5, cases_without_real_source=2, drafts=1)
    assert stats(kb).as_dict() == {"cases": 3, "families": 1, "codes": 3, "samples": 5,
                                   "cases_without_real_source": 2, "drafts": 1, "captures": 0, "priors": 0,
                                   "cases_proven_real": 0, "compatibility_rows": 0, "first_sight": ()}
    assert [p.name for p in sample_folders(tmp_path, "a")] == ["negative-1", "positive-1"]
    assert sample_folders(tmp_path, "missing") == []
    assert [sourced(codes[c]) for c in "1234"] == [True, True, True, False]


def test_captures_and_the_first_sight_table_beside_a_knowledge_base(tmp_path):
    (tmp_path / "kb").mkdir()
    for name in ("01-a", "02-b"):
        (tmp_path / "tests" / "captures" / name).mkdir(parents=True)
        (tmp_path / "tests" / "captures" / name / "expect.yaml").write_text("diagnosis: x\n", encoding="utf-8")
    (tmp_path / "tests" / "captures" / "03-no-expectation").mkdir()
    (tmp_path / "kb" / "first-sight.yaml").write_text(
        "batches:\n  - {batch: 1, n: 50, right: 30, family: 45, top3: 40, confirmed_wrong: 0, commit: abc}\n",
        encoding="utf-8")
    kb = KnowledgeBase(root=tmp_path / "kb", cases={}, families={}, codes={})
    got = stats(kb)
    assert (got.captures, got.first_sight) == (2, ({"batch": 1, "n": 50, "right": 30, "family": 45, "top3": 40,
                                                     "confirmed_wrong": 0},))


def test_cases_proven_real_counts_the_proven_cases_the_knowledge_base_holds(tmp_path):
    from casebook.knowledge import proven
    cases = {c: KnownCase(c, f"{c}.md", status="verified", family="fam") for c in ("a", "b", "c")}
    (tmp_path / proven.FILE).write_text(proven.dump({"a": ("01-x", "02-y"), "b": ("03-z",), "gone": ("04-w",)}),
                                        encoding="utf-8")
    kb = KnowledgeBase(root=tmp_path, cases=cases, families={"fam": Family("fam", "fam.md")}, codes={})
    assert stats(kb).cases_proven_real == 2   # a case no longer in the knowledge base does not count
    assert proven.load(tmp_path) == {"a": ("01-x", "02-y"), "b": ("03-z",), "gone": ("04-w",)}


def test_the_project_proves_enough_cases_on_real_captures():
    from casebook.knowledge.kb import load_kb
    assert stats(load_kb()).cases_proven_real >= 45


def test_priors_count_the_cases_of_the_knowledge_base_with_a_measured_prior(tmp_path):
    from casebook.knowledge import priors
    cases = {c: KnownCase(c, f"{c}.md", status="verified", family="fam") for c in ("a", "b", "c")}
    (tmp_path / priors.FILE).write_text(priors.dump(priors.Priors({"a": 3, "b": 0, "gone": 2}, {"fam": 5})),
                                        encoding="utf-8")
    kb = KnowledgeBase(root=tmp_path, cases=cases, families={"fam": Family("fam", "fam.md")}, codes={})
    # b has a row but no report states it; gone is not a case any more
    assert stats(kb).priors == 1
