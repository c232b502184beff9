"""The copies kept on disk never run code: only a copy this user's process signed is unpickled, and a
damaged, foreign, planted or odd one is ignored and rebuilt without a traceback. Every input is built here."""
import os
import pickle
import shutil
import stat
import subprocess
import threading
from pathlib import Path

import pytest
from casebook.knowledge import cache, formats, messages
from casebook.knowledge import kb as kbmod
from casebook.knowledge.kb import default_root, load_kb

ROOT = Path(__file__).resolve().parents[1]
CASEBOOK = ROOT / ".venv" / "bin" / "casebook"
SAMPLE = ROOT / "kb" / "samples" / "npu-out-of-memory" / "positive-long-batch"


class Payload:
    """Unpickling this creates the marker folder: what a planted copy would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return os.mkdir, (str(self.marker),)


@pytest.fixture()
def kept(tmp_path, monkeypatch):
    """A private cache folder, and a small knowledge base of its own (its copy is quick to build)."""
    monkeypatch.setenv("CASEBOOK_CACHE", str(tmp_path / "kept"))
    root = tmp_path / "kb"
    shutil.copytree(default_root(), root, ignore=shutil.ignore_patterns("samples"))
    return root


def _where(root: Path, name: str = "kb") -> Path:
    """Where the copy of `root` goes, worked out as the code does."""
    return cache.folder() / f"{name}-{cache.key(root)}.pickle"


def _view(kb):
    return sorted(kb.cases), sorted(kb.codes), [str(p) for p in kb.problems]


@pytest.mark.parametrize("shape", ["bare pickle", "with the header and a made-up digest", "signed with another key"])
def test_a_planted_pickle_is_never_loaded(kept, tmp_path, shape):
    want = _view(load_kb(kept))
    marker = tmp_path / "marker"
    payload = pickle.dumps(Payload(marker))
    path = _where(kept)
    assert path.is_file()
    if shape == "bare pickle":
        planted = payload
    elif shape == "with the header and a made-up digest":
        planted = cache.MAGIC + bytes(32) + payload
    else:
        planted = cache.MAGIC + cache._digest(os.urandom(32), path, payload) + payload
    path.write_bytes(planted)
    again = load_kb(kept)
    assert not marker.exists()
    assert _view(again) == want
    assert path.read_bytes() != planted and path.read_bytes().startswith(cache.MAGIC)   # replaced by a signed copy


def test_the_cli_never_runs_a_pickle_planted_where_its_copies_go(tmp_path):
    folder = tmp_path / "kept"
    folder.mkdir(mode=0o700)
    marker = tmp_path / "marker"
    env = {**os.environ, "CASEBOOK_CACHE": str(folder)}
    env.pop("CASEBOOK_KB", None)
    for root, name in ((default_root(), "kb"), (formats._DATA, "formats"), (messages.PATH.parent, "messages")):
        (folder / f"{name}-{cache.key(root)}.pickle").write_bytes(pickle.dumps(Payload(marker)))
    done = subprocess.run([str(CASEBOOK), "triage", str(SAMPLE)], capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and not marker.exists()


def test_a_signed_copy_of_the_wrong_type_is_rebuilt(kept):
    want = _view(load_kb(kept))
    path = _where(kept)
    cache._keep(path, {"cases": "not a knowledge base"}, cache._secret(cache.folder()))
    assert _view(load_kb(kept)) == want
    assert isinstance(pickle.loads(path.read_bytes()[len(cache.MAGIC) + 32:]), kbmod.KnowledgeBase)


@pytest.mark.parametrize("odd", ["folder", "fifo", "symlink", "empty"])
def test_something_else_at_the_copys_place_gives_no_traceback_and_no_hang(kept, tmp_path, odd):
    want = _view(load_kb(kept))
    path = _where(kept)
    elsewhere = path.rename(tmp_path / "elsewhere.pickle")   # a good copy, outside the folder
    if odd == "folder":
        path.mkdir()
    elif odd == "fifo":
        os.mkfifo(path)
    elif odd == "symlink":
        path.symlink_to(elsewhere)                            # not followed: a link is not a copy of ours
    else:
        path.write_bytes(b"")
    got = []
    thread = threading.Thread(target=lambda: got.append(_view(load_kb(kept))), daemon=True)
    thread.start()
    thread.join(120)
    assert got == [want]          # a FIFO opened for reading would have blocked for ever


def test_the_folder_and_the_key_are_closed_to_others(kept, tmp_path):
    folder = cache.folder()
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)       # as an older version left it
    load_kb(kept)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    key = folder / cache.KEY
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(key.read_bytes()) == 32


def test_a_key_others_could_read_is_replaced_and_the_copies_rebuilt(kept, monkeypatch):
    load_kb(kept)
    key = cache.folder() / cache.KEY
    old = key.read_bytes()
    os.chmod(key, 0o644)
    monkeypatch.setattr(kbmod, "_read_kb", lambda root, real=kbmod._read_kb: built.append(root) or real(root))
    built = []
    load_kb(kept)
    assert built == [kept]                                     # the copy signed with the exposed key was not used
    assert key.read_bytes() != old and stat.S_IMODE(key.stat().st_mode) == 0o600
    load_kb(kept)
    assert built == [kept]                                     # the new copy is used


@pytest.mark.skipif(os.geteuid() != 0, reason="handing the folder to another user needs root")
def test_a_folder_of_another_user_is_not_used(kept):
    folder = cache.folder()
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    assert _view(load_kb(kept)) == _view(kbmod._read_kb(kept))
    assert list(folder.iterdir()) == []                        # nothing written, nothing read there
