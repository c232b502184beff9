"""The knowledge base kept on disk is used only for the very files it was loaded from."""
import re
import shutil

import pytest
from casebook.knowledge import cache
from casebook.knowledge import kb as kbmod
from casebook.knowledge.kb import default_root, load_kb


@pytest.fixture()
def kb_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("CASEBOOK_CACHE", str(tmp_path / "kept"))
    root = tmp_path / "kb"
    shutil.copytree(default_root(), root, ignore=shutil.ignore_patterns("samples"))
    return root


def _view(kb):
    return ({i: (c.title, [s.value for s in c.signatures], c.path) for i, c in kb.cases.items()},
            sorted(kb.families), sorted(kb.codes), [str(p) for p in kb.problems], kb.root)


def _refuse(root):
    raise AssertionError(f"{root} was parsed again")


def test_a_second_load_reads_the_kept_copy(kb_copy, monkeypatch):
    first = load_kb(kb_copy)
    assert len(list((kb_copy.parent / "kept").glob("kb-*.pickle"))) == 1
    monkeypatch.setattr(kbmod, "_read_kb", _refuse)
    again = load_kb(kb_copy)
    assert again is not first and _view(again) == _view(first)
    assert again.cases and all(s.needles is not None for c in again.cases.values() for s in c.signatures
                               if s.matcher == "regex")


def test_a_changed_added_or_removed_page_loads_anew(kb_copy):
    first = load_kb(kb_copy)
    page = sorted((kb_copy / "cases").glob("*.md"))[0]
    text = page.read_text(encoding="utf-8")
    case = next(c for c in first.cases.values() if c.path.endswith(page.name))
    page.write_text(re.sub(r"(?m)^title: .*$", "title: A changed title", text, count=1), encoding="utf-8")
    assert load_kb(kb_copy).cases[case.id].title == "A changed title"
    (kb_copy / "cases" / "zz-new.md").write_text("---\nid: zz-new\n---\n", encoding="utf-8")
    assert "zz-new" in load_kb(kb_copy).cases
    (kb_copy / "cases" / "zz-new.md").unlink()
    assert "zz-new" not in load_kb(kb_copy).cases and load_kb(kb_copy).cases[case.id].title == "A changed title"


def test_a_change_of_the_loading_code_loads_anew(kb_copy, monkeypatch, tmp_path):
    load_kb(kb_copy)
    code = tmp_path / "code"
    code.mkdir()
    (code / "rules.py").write_text("# another version\n")
    monkeypatch.setattr(cache, "_CODE", code)
    with pytest.raises(AssertionError, match="parsed again"):
        monkeypatch.setattr(kbmod, "_read_kb", _refuse)
        load_kb(kb_copy)


def test_a_damaged_copy_or_an_unwritable_folder_still_loads(kb_copy, tmp_path, monkeypatch):
    want = _view(load_kb(kb_copy))
    (kept,) = (tmp_path / "kept").glob("kb-*.pickle")
    kept.write_bytes(b"not a pickle")
    assert _view(load_kb(kb_copy)) == want
    assert kept.read_bytes() != b"not a pickle"            # replaced by a good copy
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder would be")
    monkeypatch.setenv("CASEBOOK_CACHE", str(blocked / "kept"))
    assert _view(load_kb(kb_copy)) == want


def test_only_the_last_copies_are_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("CASEBOOK_CACHE", str(tmp_path / "kept"))
    for i in range(cache.KEEP + 2):
        root = tmp_path / f"kb{i}"
        (root / "cases").mkdir(parents=True)
        load_kb(root)
    assert len(list((tmp_path / "kept").glob("kb-*.pickle"))) == cache.KEEP
    assert not list((tmp_path / "kept").glob(".kb-*"))
