"""`casebook bench --compare`: the planted pair, the check that both plants are found, the figures' form."""
from __future__ import annotations

import json

import pytest
from casebook.bench import compare
from casebook.cli import main


@pytest.fixture
def small(tmp_path):
    """A 2 MiB generated bundle in a cache of the test's own."""
    return 2 << 20, tmp_path / "cache"


def test_the_planted_copy_differs_by_its_two_lines(small):
    size, cache = small
    cache.mkdir()
    good, bad, rel, at, versioned = compare.planted(size, cache)
    g, b = (good / rel).read_text().splitlines(), (bad / rel).read_text().splitlines()
    assert at == len(g) // 2 < compare.PLANTED_LINE   # a 2 MiB bundle's plogs are short
    assert b[:at - 1] == g[:at - 1] and b[at:] == g[at - 1:]
    assert "link to the peer lost" in b[at - 1]
    assert (bad / versioned).read_text().splitlines()[0].endswith("CANN version: 8.0.RC3")
    assert compare.planted(size, cache)[1] == bad   # kept, not written again


def test_bench_compare_finds_both_plants(small, capsys):
    size, cache = small
    assert main(["bench", "--compare", "2MB", "--cache", str(cache), "--runs", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["found"] is True and doc["runs"] == 1
    assert doc["departure"] == "{}:{}".format(*compare.planted(2 << 20, cache)[2:4])
    assert doc["lines"] > 10000 and doc["peak_rss_mb"] > 0 and doc["seconds"] > 0
    text = compare.table(compare.CompareResult(**doc))
    assert "target < 10 s" in text and "found at their lines: yes" in text


def test_a_size_that_is_not_one_is_refused(capsys):
    assert main(["bench", "--compare", "lots"]) == 2
    assert "--compare: not a size: 'lots'" in capsys.readouterr().err
