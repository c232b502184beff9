"""The public code catalogs: rows read with their file and line, bad rows reported, rows serve as code pages."""
from __future__ import annotations

from casebook.knowledge.codes import CATALOGS, COLUMNS, load_tables
from casebook.knowledge.kb import load_kb

HEADER = "\t".join(COLUMNS)


def write_table(root, catalog: str, *rows: str) -> None:
    folder = root / "kb" / "codes" / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{catalog}.tsv").write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")


def test_rows_are_read_with_their_line_and_bad_rows_are_reported(tmp_path):
    write_table(tmp_path, "runtime-codes",
                "507015\tACL_ERROR_RT_AICORE_EXCEPTION\tAI Core exception.\tAI Core 异常。\tRead the bits.\thttps://x.org/a",
                "5070x\tBAD\tmeaning\t含义\t\thttps://x.org/b",
                "507018\tACL_ERROR_RT_AICPU_EXCEPTION\tAI CPU exception.\t\t\thttps://x.org/c",
                "507001\tACL_ERROR_RT_TS_ERROR\tTS error.\t任务调度错误。\t\tftp://x.org/d",
                "507015\tAGAIN\tagain\t再次\t\thttps://x.org/e",
                "1\t2\t3")
    write_table(tmp_path, "made-up", "x")
    problems = []
    rows = load_tables(tmp_path / "kb", problems)
    assert [(r.code, r.kind, r.catalog, r.line) for r in rows] == [("507015", "runtime", "runtime-codes", 2)]
    assert [(p.file, p.line) for p in problems] == [
        ("kb/codes/tables/made-up.tsv", 1), ("kb/codes/tables/runtime-codes.tsv", 3),
        ("kb/codes/tables/runtime-codes.tsv", 4), ("kb/codes/tables/runtime-codes.tsv", 5),
        ("kb/codes/tables/runtime-codes.tsv", 6), ("kb/codes/tables/runtime-codes.tsv", 7)]
    assert "not spelled as a runtime code" in problems[1].message
    assert "meaning_zh is empty" in problems[2].message
    assert "not an http(s) URL" in problems[3].message
    assert "repeats line 2" in problems[4].message
    assert "3 cells" in problems[5].message


def test_a_wrong_header_is_one_problem(tmp_path):
    folder = tmp_path / "kb" / "codes" / "tables"
    folder.mkdir(parents=True)
    (folder / "ecodes.tsv").write_text("code,name\nEZ9999,x\n", encoding="utf-8")
    problems = []
    assert load_tables(tmp_path / "kb", problems) == []
    assert [(p.line, "header" in p.message) for p in problems] == [(1, True)]


def test_catalog_rows_become_code_pages_and_the_earlier_catalog_names_a_shared_code(tmp_path):
    write_table(tmp_path, "acl-codes", "100000\tACL_ERROR_INVALID_PARAM\tBad argument.\t参数错误。\t\thttps://x.org/acl")
    write_table(tmp_path, "hccl-codes", "4\tHCCL_E_TIMEOUT\tTimed out.\t超时。\t\thttps://x.org/h")
    write_table(tmp_path, "runtime-inner-codes", "4\tDRV_ERROR_X\tDriver.\t驱动。\t\thttps://x.org/d")
    kb = load_kb(tmp_path / "kb")
    page = kb.codes["100000"]
    assert (page.kind, page.title, page.meaning_zh, page.extra["source"]) == \
           ("acl", "ACL_ERROR_INVALID_PARAM", "参数错误。", "https://x.org/acl")
    assert kb.codes["4"].kind == "runtime_inner"   # runtime-inner-codes load before hccl-codes
    assert len(kb.catalog) == 3


def test_the_project_catalogs_hold_every_catalog_and_400_sourced_codes():
    kb = load_kb()
    catalogs = {r.catalog for r in kb.catalog}
    assert catalogs == set(CATALOGS)
    assert len({(r.catalog, r.code) for r in kb.catalog if r.source.startswith("https://")}) >= 400
    assert not [p for p in kb.problems if "/tables/" in p.file]
