"""The local engine maps a function over files in order, on threads or in the calling thread, and hands the
workers the big files first with the small ones spread between them; exact values, no bundle read."""
from __future__ import annotations

import os
import sys
import threading
import types

import pytest

from casebook.reading import engine
from casebook.reading.engine import EngineError, SPREAD_FROM, run, schedule

MIB = 1 << 20


def test_one_worker_or_one_item_runs_in_the_calling_thread_and_reports_each_item():
    here = threading.get_ident()
    seen = []
    assert run(lambda x: (x, threading.get_ident()), [1, 2, 3], workers=1,
               progress=lambda done, total: seen.append((done, total))) == [(1, here), (2, here), (3, here)]
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert run(lambda x: threading.get_ident(), ["only"], workers=4) == [here]
    assert run(abs, [], workers=3) == []


def test_several_workers_use_other_threads_and_keep_the_order():
    here = threading.get_ident()
    gate = threading.Barrier(2, timeout=10)

    def both(x):
        # each of the first two items waits for the other: only two threads at once get past
        if x < 2:
            gate.wait()
        return x * 10, threading.get_ident()

    results = run(both, [0, 1, 2, 3, 4], workers=2)
    assert [r for r, _ in results] == [0, 10, 20, 30, 40]
    assert here not in {t for _, t in results}


def test_progress_is_optional_and_counts_up_to_the_total():
    assert run(str, [7, 8], workers=2) == ["7", "8"]
    seen = []
    run(str, list(range(5)), workers=2, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(n, 5) for n in range(1, 6)]


def test_the_dask_engine_reports_each_finished_item_and_closes_its_cluster(monkeypatch):
    """A stand-in for dask.distributed, so no cluster starts: what the engine asks of it, and what it reports."""
    calls = []

    class Cluster:
        def __init__(self, **options):
            calls.append(("cluster", options))

        def close(self):
            calls.append("cluster closed")

    class Client:
        def __init__(self, cluster):
            calls.append(("client", type(cluster).__name__))

        def map(self, fn, items, pure):
            calls.append(("map", pure))
            return [fn(x) for x in items]

        def gather(self, futures):
            return list(futures)

        def close(self):
            calls.append("client closed")

    fake = types.ModuleType("distributed")
    fake.Client, fake.LocalCluster, fake.as_completed = Client, Cluster, iter
    monkeypatch.setitem(sys.modules, "distributed", fake)
    seen = []
    assert run(str, [7, 8, 9], engine="dask", workers=3,
               progress=lambda done, total: seen.append((done, total))) == ["7", "8", "9"]
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert calls == [("cluster", {"n_workers": 3, "threads_per_worker": 1, "processes": True,
                                  "dashboard_address": None}),
                     ("client", "Cluster"), ("map", False), "client closed", "cluster closed"]


@pytest.mark.parametrize("workers", [0, -1, 1.5, "2", True, False])
def test_workers_must_be_a_whole_number_of_one_or_more(workers):
    with pytest.raises(EngineError, match=f"workers must be a whole number of 1 or more, not {workers!r}$"):
        run(abs, [1], workers=workers)


def test_an_unknown_engine_is_refused_naming_the_known_ones():
    with pytest.raises(EngineError, match=r"^unknown engine 'spark'; choose one of local, dask$"):
        run(abs, [1], engine="spark")


def test_the_default_is_one_worker_a_core_and_at_most_eight(monkeypatch):
    for cores, workers in ((None, 1), (1, 1), (2, 2), (8, 8), (64, 8)):
        monkeypatch.setattr(os, "cpu_count", lambda: cores)
        assert engine.default_workers() == workers


def test_the_default_number_of_workers_is_used_when_none_is_given(monkeypatch):
    used = []
    monkeypatch.setattr(engine, "default_workers", lambda: 3)
    monkeypatch.setattr(engine, "_local", lambda fn, items, workers, progress: used.append(workers) or [])
    run(abs, [1, 2])
    run(abs, [1, 2], workers=5)
    assert used == [3, 5]


def test_big_files_come_first_with_the_small_ones_spread_between_them():
    assert SPREAD_FROM == MIB
    assert schedule([5, 3 * MIB, 7, 9 * MIB, 1, 2]) == [3, 2, 0, 1, 5, 4]
    # four small files over two big ones: two after each, biggest first
    assert schedule([MIB, 10, 20, 2 * MIB, 30, 40]) == [3, 5, 4, 0, 2, 1]
    # three small over two big: the first big takes two, the second one
    assert schedule([MIB, 10, 2 * MIB, 30, 20]) == [2, 3, 4, 0, 1]
    # a file of exactly SPREAD_FROM is a big one; one byte less is small
    assert schedule([MIB - 1, MIB]) == [1, 0]
    assert schedule([MIB - 1, MIB, MIB - 2]) == [1, 0, 2]


def test_without_big_or_small_files_the_order_is_by_size_alone():
    assert schedule([1, 2, 3]) == [2, 1, 0]
    assert schedule([2 * MIB, MIB, 3 * MIB]) == [2, 0, 1]
    assert schedule([]) == []
    assert schedule([4, 4, 1]) == [0, 1, 2]                 # equal sizes keep their order
