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


def test_a_chip_is_found_by_any_spelling_of_its_soc_name_and_a_listed_prefix():
    rows = compat.tables(KB.root)["chips"]
    assert compat.chip_family(compat.chip_row(rows, "ascend910b4-1")) == "910B"
    assert compat.chip_family(compat.chip_row(rows, "Ascend950PR_9599")) == "950"     # `Ascend950*` takes it
    assert compat.chip_row(rows, "Ascend910B") is not None and \
        compat.chip_family(compat.chip_row(rows, "Ascend910B")) == "910A"            # the first-gen name, no digit
    assert compat.chip_row(rows, "Ascend910B3", "triton-ascend").fields["supported"] is True
    assert compat.chip_row(rows, "Ascend310P1", "triton-ascend").fields["supported"] is False
    assert compat.chip_row(rows, "Ascend310B1", "triton-ascend") is None and compat.chip_row(rows, "GeForce") is None


_BISHENG = "bishengir-compile: for the --target option: Cannot find option named '{}'!\n"


def test_a_supported_chip_the_kernel_compiler_lacks_is_a_compiler_older_than_its_name(tmp_path):
    t = triage(write_log(tmp_path, "console.txt", _BISHENG.format("Ascend910_9391")), kb=KB)
    fact = t.facts["compiler_target_chip_supported"]
    assert (fact.value, fact.source, fact.file, fact.line) == (True, "table", "console.txt", 1)
    assert fact.note.startswith("Ascend910_9391 is a 910_93 (Atlas A3 / 910C) chip, which triton-ascend supports "
                               "(kb/compat/chips.yaml:")
    assert "docs/en/quick_start.md" in fact.note
    assert t.diagnosis.case.id == "kernel-compiler-predates-chip" and t.diagnosis.verdict == "confirmed"
    assert t.candidate("op-unsupported-on-this-chip").verdict == "ruled_out"


def test_a_chip_outside_the_compilers_series_is_the_chip_and_one_the_table_lacks_is_a_question(tmp_path):
    t = triage(write_log(tmp_path, "console.txt", _BISHENG.format("Ascend310P3")), kb=KB)
    fact = t.facts["compiler_target_chip_supported"]
    assert fact.value is False and "310P (Atlas 300I Pro/Duo) chip, which triton-ascend does not support" in fact.note
    assert t.diagnosis.case.id == "op-unsupported-on-this-chip" and t.diagnosis.verdict == "confirmed"
    unknown = triage(write_log(tmp_path / "b", "console.txt", _BISHENG.format("Ascend310B1")), kb=KB)
    assert unknown.facts["compiler_target_soc"].value == "Ascend310B1"
    assert "compiler_target_chip_supported" not in unknown.facts
    assert unknown.candidate("kernel-compiler-predates-chip").verdict != "confirmed"


def test_the_chip_the_runtime_reports_gives_its_family(tmp_path):
    t = triage(write_log(tmp_path, "console.txt", "soc_version: Ascend310P3\nTransData failed\n"), kb=KB)
    fact = t.facts["device_is_atlas_310p"]
    assert (fact.value, fact.source, fact.line) == (True, "table", 1)
    assert fact.note.startswith("Ascend310P3 is a 310P (Atlas 300I Pro/Duo) chip (kb/compat/chips.yaml:")
    other = triage(write_log(tmp_path / "b", "console.txt", "SoC version: Ascend910B2\n"), kb=KB)
    assert other.facts["device_is_atlas_310p"].value is False
