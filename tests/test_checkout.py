"""A test run leaves the checkout as it found it: the run's own check (conftest.pytest_sessionfinish) sees files
added, changed and removed, ignored ones included, and the property tests keep their examples outside it."""
import os

from conftest import EXAMPLES, ROOT, tree_changes, tree_state
from hypothesis import settings


def test_the_tree_check_sees_added_changed_and_removed_files_ignored_ones_too(tmp_path):
    (tmp_path / "kept.md").write_text("a")
    (tmp_path / "gone.md").write_text("b")
    (tmp_path / ".venv").mkdir()
    before = tree_state(tmp_path)
    (tmp_path / "kept.md").write_text("ab")
    (tmp_path / "gone.md").unlink()
    (tmp_path / ".hypothesis" / "examples").mkdir(parents=True)
    (tmp_path / ".hypothesis" / "examples" / "x").write_text("")
    (tmp_path / ".venv" / "installed").write_text("")
    assert tree_changes(before, tree_state(tmp_path)) == [
        f"added {os.path.join('.hypothesis', 'examples', 'x')}", "changed kept.md", "removed gone.md"]


def test_the_property_tests_keep_their_examples_outside_the_checkout():
    db = settings().database
    assert str(EXAMPLES) in repr(db) and not EXAMPLES.resolve().is_relative_to(ROOT)


def test_no_property_test_sets_a_database_of_its_own():
    own = [p.name for p in (ROOT / "tests").glob("test_*.py")
           if "database=" in p.read_text(encoding="utf-8") and p.name != "test_checkout.py"]
    assert own == []
