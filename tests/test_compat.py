"""The compatibility tables of kb/compat: each row sourced, read with its line, and the facts they give."""
from pathlib import Path

from casebook.judging.triage import triage
from casebook.knowledge import compat
from casebook.knowledge.checks import check_tables
from casebook.knowledge.kb import KnowledgeBase, load_kb
from conftest import ROOT, write_log

KB = load_kb()


def test_every_row_of_every_table_names_its_source():
    tables = compat.tables(KB.root)
    assert {"torch-npu", "cann-driver", "chips", "frameworks", "known-bugs"} <= set(tables)
    assert sum(len(rows) for rows in tables.values()) >= 300
    assert compat.unsourced(KB.root) == []


def test_a_row_without_a_source_is_a_problem_at_its_line(tmp_path):
    (tmp_path / "compat").mkdir()
    (tmp_path / "compat" / "t.yaml").write_text(
        "# a table\nrows:\n- torch_npu: 2.1.0\n  source: https://example.org/a\n- torch_npu: 2.2.0\n  note: none\n"
        "- torch_npu: 2.3.0\n  source: see the README\n", encoding="utf-8")
    kb = KnowledgeBase(root=tmp_path, cases={}, families={}, codes={})
    assert [(p.file, p.line) for p in check_tables(kb)] == [(f"{tmp_path.name}/compat/t.yaml", 5),
                                                              (f"{tmp_path.name}/compat/t.yaml", 7)]
    assert {p.message for p in check_tables(kb)} == {"compatibility row has no source (a public http(s) page)"}


def test_versions_are_matched_as_releases():
    assert compat.release("v2.1.0.post3+cpu") == "2.1.0.post3"
    assert compat.same_release("2.1.0+cpu", "2.1.0") and compat.same_release("8.0.RC2.alpha003", "8.0.rc2")
    assert not compat.same_release("2.1.1", "2.1.0") and not compat.same_release("8.0.RC20", "8.0.RC2")
    rows = compat.tables(KB.root)["torch-npu"]
    assert compat.torch_npu_row(rows, "2.1.0.post3").fields["torch"] == "2.1.0"
    assert compat.torch_npu_row(rows, "9.9.9") is None


def test_a_torch_the_table_does_not_pair_is_a_cause_cited_to_its_row(tmp_path):
    log = write_log(tmp_path, "console.txt", "\n".join([
        "Successfully installed numpy-1.26.4 torch-2.3.1 torch-npu-2.1.0.post3",
        "CANN version: 8.0.RC1",
        "ImportError: /usr/local/lib/python3.10/site-packages/torch_npu/lib/libtorch_npu.so: undefined symbol: "
        "_ZN3c104impl3cow11cow_deleterEPv",
    ]) + "\n")
    t = triage(log, kb=KB)
    torch, cann = t.facts["torch_matches_torch_npu"], t.facts["cann_matches_torch_npu"]
    assert (torch.value, torch.source, cann.value) == (False, "table", True)
    assert "kb/compat/torch-npu.yaml:" in torch.note and "https://github.com/Ascend/pytorch" in torch.note
    assert t.diagnosis.case.id == "torch-npu-torch-version-mismatch"
    assert any(i.id == "torch_matches_torch_npu" for i in t.diagnosis.for_)
    newer = t.candidate("torch-npu-newer-than-cann")
    assert newer is None or newer.verdict == "ruled_out"


def test_a_version_the_logs_do_not_show_leaves_the_pairing_a_question(tmp_path):
    log = write_log(tmp_path, "console.txt", "torch_npu version: 2.1.0.post3\nImportError: libtorch_npu.so: "
                                             "undefined symbol: _ZN3c104impl3cow11cow_deleterEPv\n")
    t = triage(log, kb=KB)
    assert "torch_matches_torch_npu" not in t.facts and "cann_matches_torch_npu" not in t.facts
    assert any(m.fact == "torch_matches_torch_npu" for m in t.questions)


def test_the_tables_live_in_the_project():
    assert (ROOT / "kb" / "compat").is_dir() and Path(KB.root) == ROOT / "kb"


def test_numpy_2_is_read_from_an_install_line_and_rules_the_numpy_case(tmp_path):
    log = write_log(tmp_path, "console.txt", "\n".join([
        "Successfully installed numpy-2.0.2 torch-npu-2.7.1.dev20250724",
        "RuntimeError: SetPrecisionMode:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:155 NPU function error: "
        "at_npu::native::AclSetCompileopt(aclCompileOpt::ACL_PRECISION_MODE, precision_mode), error code is 500001",
    ]) + "\n")
    t = triage(log, kb=KB)
    assert (t.facts["numpy_version"].value, t.facts["numpy_is_2"].value, t.facts["numpy_is_2"].line) == ("2.0.2", True, 1)
    assert t.diagnosis.case.id == "numpy-2-before-cann-9" and t.diagnosis.verdict == "confirmed"
    t.answer("cann_version", "9.0.0")
    assert t.candidate("numpy-2-before-cann-9").verdict == "ruled_out"


def test_a_release_drops_a_leading_v_of_either_case_and_a_local_version():
    assert [compat.release(v) for v in ("V2.1.0", "v2.1.0", " 2.1.0+cpu ", "2.1.0")] == ["2.1.0"] * 4


def test_the_tables_are_kept_on_disk_and_read_anew_when_a_file_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("CASEBOOK_CACHE", str(tmp_path / "kept"))
    table = tmp_path / "kb" / "compat" / "t.yaml"
    table.parent.mkdir(parents=True)
    table.write_text("rows:\n- torch_npu: 2.1.0\n  source: https://example.org/a\n", encoding="utf-8")
    compat.tables.cache_clear()
    first = compat.tables(tmp_path / "kb")
    assert [(r.table, r.line, r.fields["torch_npu"]) for r in first["t"]] == [("t", 2, "2.1.0")]
    # a new process (the per-process memo emptied) reads the kept copy: no table is parsed
    compat.tables.cache_clear()
    parse = compat.read_table
    monkeypatch.setattr(compat, "read_table", lambda path: (_ for _ in ()).throw(AssertionError(f"parsed {path}")))
    assert compat.tables(tmp_path / "kb") == first
    # a changed table is parsed again
    monkeypatch.setattr(compat, "read_table", parse)
    # (another size: two writes in one clock tick may share their time)
    table.write_text("rows:\n- torch_npu: 2.10.0\n  source: https://example.org/b\n", encoding="utf-8")
    compat.tables.cache_clear()
    assert [r.fields["torch_npu"] for r in compat.tables(tmp_path / "kb")["t"]] == ["2.10.0"]
    compat.tables.cache_clear()
