"""The kept readings on tiny bundles, by exact values: what makes two opens the same bundle, the order bundles
are dropped in, and what the progress and read callbacks are told."""
import os

import pytest
from casebook.judging import readings
from casebook.judging.readings import read_case, signature
from casebook.reading.bundle import Pasted
from casebook.reading.limits import Limits

LINE = "[ERROR] RUNTIME(1,python):2026-01-01-00:00:00.000.000 [a.cc:1]1 F:boom device_id=0\n"


def bundle(tmp_path, name, lines=1):
    folder = tmp_path / name
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "plog-1_20260101000000000.log").write_text(LINE * lines, encoding="utf-8")
    (folder / "a.log").write_text(LINE, encoding="utf-8")
    return folder


def test_the_signature_names_every_file_with_size_and_time(tmp_path):
    folder = bundle(tmp_path, "b", lines=2)
    a, p = folder / "a.log", folder / "sub" / "plog-1_20260101000000000.log"
    os.utime(a, ns=(1, 5))
    os.utime(p, ns=(1, 7))
    got = signature((folder,))
    # path, device, inode, size, modification time, status change time, digest of head and tail
    assert [(e[0], e[2], e[3], e[4]) for e in got] == [(str(a), a.stat().st_ino, len(LINE), 5),
                                                       (str(p), p.stat().st_ino, 2 * len(LINE), 7)]
    assert all(len(e) == 7 and len(e[6]) == 16 for e in got)
    assert [(e[0], e[3], e[4]) for e in signature((str(a),))] == [(str(a.resolve()), len(LINE), 5)]
    assert signature((tmp_path / "missing",)) is None
    assert signature((Pasted(LINE.encode(), "x"),)) is None


def test_kept_readings_are_shared_and_the_least_recent_goes_first(tmp_path):
    assert readings.KEPT == 2
    one, two, three = (bundle(tmp_path, n) for n in ("1", "2", "3"))
    told, fresh = [], []
    first = read_case(one, progress=lambda d, t: told.append((d, t)), read=fresh.append)
    assert fresh == [first[0]] and told == [(1, 2), (2, 2)]
    told.clear()
    again = read_case(one, progress=lambda d, t: told.append((d, t)), read=fresh.append)
    assert again[0] is first[0] and again[1] is first[1] and told == [(2, 2)] and len(fresh) == 1
    second = read_case(two)
    assert read_case(one)[0] is first[0]          # one is now the most recent
    read_case(three)                             # two, the least recent, goes
    assert read_case(one)[0] is first[0] and read_case(two)[0] is not second[0]
    readings.forget()
    assert read_case(one)[0] is not first[0]


def test_other_limits_read_anew(tmp_path):
    folder = bundle(tmp_path, "b")
    first = read_case(folder)[0]
    limited = read_case(folder, limits=Limits(max_bytes=1 << 30))[0]
    assert limited is not first
    assert read_case(folder)[0] is first and read_case(folder, limits=Limits(max_bytes=1 << 30))[0] is limited


def test_a_pasted_capture_is_never_kept_and_never_pushes_a_bundle_out(tmp_path):
    one, two = bundle(tmp_path, "1"), bundle(tmp_path, "2")
    first = read_case(one)[0]
    read_case(two)
    pasted = Pasted(LINE.encode(), "paste")
    log = read_case(pasted)[0]
    # nothing on disk to compare: a second paste is read anew, and both bundles are still kept
    assert read_case(pasted)[0] is not log and len(readings._KEPT) == 2
    assert read_case(one)[0] is first


class Read(Exception):
    """Raised by a stand-in reader with what it was given."""


def test_the_reading_options_reach_the_reader(tmp_path, monkeypatch):
    from casebook.evidence.registry import KEEP

    def reader(*paths, **options):
        raise Read(paths, options)
    monkeypatch.setattr(readings, "read_plog", reader)
    folder = bundle(tmp_path, "b")
    given = {"limits": Limits(max_bytes=1 << 20), "engine": "dask", "scheduler": "tcp://s:8786", "workers": 3,
             "progress": print}
    with pytest.raises(Read) as read:
        read_case(folder, **given)
    assert read.value.args == ((folder,), {"keep": KEEP, **given})
