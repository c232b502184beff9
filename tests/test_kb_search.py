"""KB search: codes, kernel names and words in either language, every word required, exact ids first."""
from casebook.knowledge.kb import load_kb
from casebook.knowledge.search import CASE, CODE, FAMILY, page, search

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
