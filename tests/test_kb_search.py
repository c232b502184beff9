"""KB search: codes, kernel names and words in either language, every word required, exact ids first."""
from pathlib import Path

from casebook.knowledge.kb import CodePage, Family, KnowledgeBase, KnownCase, load_kb
from casebook.knowledge.rules import Signature
from casebook.knowledge.search import CASE, CODE, FAMILY, Hit, page, search

KB = load_kb()
FOUNDING = "task-queue-shared-cache-race"


def test_an_exact_code_comes_first():
    hits = search(KB, "CCU_BUS_ERR")
    assert (hits[0].kind, hits[0].id) == (CODE, "CCU_BUS_ERR") and hits[0].matched == ("id",)
    assert any(h.kind == CASE and h.id == FOUNDING for h in hits)


def test_a_full_kernel_name_finds_the_case_through_its_op_signature():
    hits = search(KB, "FlashAttentionScoreGrad_8ac1e3b7d5f0a2c4_high_performance_10000000000220130")
    assert FOUNDING in [h.id for h in hits] and "kernel" in hits[0].matched


def test_chinese_words_and_every_word_required():
    assert FOUNDING in [h.id for h in search(KB, "共享缓存")]
    assert search(KB, "CCU_BUS_ERR no-such-word-anywhere") == []
    assert len(search(KB, "")) == len(KB.cases) + len(KB.families) + len(KB.codes)


def test_pages_start_with_their_title():
    assert page(KB, CODE, "CCU_BUS_ERR").startswith("# CCU_BUS_ERR — ")
    assert page(KB, CASE, FOUNDING).startswith(f"# {KB.cases[FOUNDING].title}")


def test_a_family_page_lists_its_root_causes_and_a_case_names_its_family():
    assert ("family", "aicore-exception") in [(h.kind, h.id) for h in search(KB, "vector core exception")]
    text = page(KB, FAMILY, "aicore-exception")
    causes = sorted(KB.families["aicore-exception"].causes)
    assert f"## Root causes ({len(causes)})" in text and all(f"- `{c}`:" in text for c in causes)
    assert "(`aicore-exception`)" in page(KB, CASE, FOUNDING)


def test_a_catalog_code_renders_as_a_page_with_its_source():
    text = page(KB, CODE, "507018")
    row = KB.codes["507018"]
    assert text.startswith("# 507018 — ") and row.meaning in text
    if row.table is not None and row.extra.get("source"):
        assert row.extra["source"] in text
    hccl = next(c for c in KB.codes.values() if c.table == "hccl-codes" and c.code == "1041")
    hccl_text = page(KB, CODE, hccl.code)
    assert hccl.extra["source"] in hccl_text and hccl.meaning_zh in hccl_text


def small_kb() -> KnowledgeBase:
    """One family, two causes, a code page and a catalog row, made up so pages and scores are known exactly."""
    a = KnownCase("a-case", "cases/a.md", title="Alpha fault", title_zh="阿尔法", status="verified", severity="high",
                  action="fix-config", family="fam", codes=["507015", "EZ9999"], body="Alpha body text.\n",
                  signatures=[Signature("k", "op", "equals", "GatherV2", 1, True, "op")])
    b = KnownCase("b-case", "cases/b.md", title="Beta fault", family="gone", body="beta words\n")
    fam = Family("fam", "families/fam.md", title="The family", title_zh="家族", summary="Faults of one kind.",
                 causes=["b-case", "a-case"], body="Family body.\n")
    code = CodePage("507015", "codes/507015.md", title="AI Core exception", title_zh="AI Core 异常",
                    meaning="a kernel failed", meaning_zh="算子失败", cases=["a-case"], body="Code body.\n")
    row = CodePage("1041", "", title="Socket timeout", meaning="peer never came", table="hccl-codes",
                   extra={"source": "https://example.org/codes", "cause": ""})
    return KnowledgeBase(root=Path("kb"), cases={"a-case": a, "b-case": b}, families={"fam": fam},
                         codes={"507015": code, "1041": row})


def test_pages_of_a_small_kb_exactly():
    kb = small_kb()
    assert page(kb, CASE, "a-case") == (
        "# Alpha fault\n\n*阿尔法*\n\n`a-case` · status verified · severity high · action fix-config · codes 507015, "
        "EZ9999\n\nRoot cause in the family **The family** (`fam`)\n\nAlpha body text.\n")
    assert page(kb, CASE, "b-case") == (
        "# Beta fault\n\n\n\n`b-case` · status draft · severity medium · action collect-more · codes none\n\n\n"
        "\nbeta words\n")
    assert page(kb, FAMILY, "fam") == (
        "# The family\n\n*家族*\n\nFaults of one kind.\n\n## Root causes (2)\n\n- `a-case`: Alpha fault / 阿尔法\n"
        "- `b-case`: Beta fault\n\nFamily body.\n")
    assert page(kb, CODE, "507015") == (
        "# 507015 — AI Core exception\n\n*AI Core 异常*\n\na kernel failed\n\n算子失败\n\nCases: a-case\n\nCode body.\n")
    assert page(kb, CODE, "1041") == (
        "# 1041 — Socket timeout\n\n\n\npeer never came\n\n\n\nCases: none\n\nUsual cause: not documented\n\n"
        "Catalog: `hccl-codes` · source: https://example.org/codes\n\n")
    kb.families["fam"].causes = []
    assert "## Root causes (0)\n\n- none yet\n" in page(kb, FAMILY, "fam")


def test_scores_of_a_small_kb_exactly():
    kb = small_kb()
    assert [(h.kind, h.id, h.score, h.matched) for h in search(kb, "507015")] == [
        (CODE, "507015", 15, ("id",)), (CASE, "a-case", 13, ("code",))]
    assert [(h.id, h.score, h.matched) for h in search(kb, "fault")] == [
        ("a-case", 4, ("title",)), ("b-case", 4, ("title",)), ("fam", 4, ("title",))]
    assert [(h.id, h.score, h.matched) for h in search(kb, "GatherV2_1_2")] == [("a-case", 6, ("kernel",))]
    assert [(h.id, h.score, h.matched) for h in search(kb, "alpha BODY")] == [("a-case", 5, ("title", "body"))]
    assert [(h.id, h.score) for h in search(kb, "kernel")] == [("507015", 3)]
    assert search(kb, "alpha nowhere") == []
    assert [(h.kind, h.id, h.score) for h in search(kb, "")] == [
        (CASE, "a-case", 1), (CASE, "b-case", 1), (CODE, "1041", 1), (CODE, "507015", 1), (FAMILY, "fam", 1)]
    assert search(kb, "fam")[0].label == "[family] fam — The family"


def test_a_kernel_name_counts_only_through_a_kernel_or_op_signature_and_beats_a_body_match():
    kb = small_kb()
    a = kb.cases["a-case"]
    a.body += "GatherV2_1_2 was seen in the body too.\n"
    a.signatures += [Signature("m", "message", "contains", "Softmax", 1, False, "a message, not a kernel"),
                     Signature("kn", "kernel", "regex", r"^MatMul_\d+$", 1, False, "kernel"),
                     Signature("o", "op", "equals", "AddN_7", 1, False, "an op named in full")]
    kb.cases["b-case"].signatures = [Signature("kn", "kernel", "equals", "Other_1", 1, False, "kernel")]
    # the body's weight (1) gives way to the kernel's (6)
    assert search(kb, "GatherV2_1_2") == [Hit(CASE, "a-case", "Alpha fault", "cases/a.md", 6, ("kernel",))]
    assert [(h.id, h.matched) for h in search(kb, "MatMul_12")] == [("a-case", ("kernel",))]
    assert [(h.id, h.matched) for h in search(kb, "AddN_7")] == [("a-case", ("kernel",))]
    # a message signature that would accept the word is no kernel match
    assert search(kb, "Softmax_3") == []


def test_hits_carry_their_title_and_path_and_a_code_page_lists_every_case():
    kb = small_kb()
    assert search(kb, "fam") == [Hit(FAMILY, "fam", "The family", "families/fam.md", 15, ("id",))]
    assert search(kb, "507015")[0] == Hit(CODE, "507015", "AI Core exception", "codes/507015.md", 15, ("id",))
    kb.codes["507015"].cases = ["a-case", "b-case"]
    kb.families["fam"].title_zh = ""
    assert "\nCases: a-case, b-case\n" in page(kb, CODE, "507015")
    assert page(kb, FAMILY, "fam").startswith("# The family\n\n\n\nFaults of one kind.\n")
