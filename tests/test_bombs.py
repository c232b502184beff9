"""Decompression bombs that slip under one check are refused by another, long before the total size limit; what
was read before the refusal stays read. (`make probe` times the same inputs and measures their memory.)"""
import pytest
from casebook.bench import bombs
from casebook.reading.encoding import LONG_LINE
from casebook.reading.entries import MEMBER_SEP
from casebook.reading.limits import Limits
from casebook.reading.plog import read_plog

REFUSED = [v for v in bombs.VARIANTS if v.name != "long-line"]


@pytest.mark.parametrize("variant", REFUSED, ids=[v.name for v in REFUSED])
def test_each_bomb_is_refused_by_the_ratio_near_its_floor(tmp_path, variant):
    path = tmp_path / variant.filename
    path.write_bytes(variant.build())
    log = read_plog(path)
    refused = [f for f in log.files if f.skipped]
    assert refused and all("--max-ratio" in f.skipped and "decompression bomb" in f.skipped for f in refused)
    # nothing was let through beyond what expands before the checks start (ratio_floor), plus one entry
    assert sum(f.size for f in log.files if not f.skipped) <= Limits().ratio_floor
    assert len(refused) <= 3, [f.path for f in refused]   # the bomb is refused once, not entry by entry


def test_the_layer_that_passed_the_ratio_is_the_one_refused(tmp_path):
    (tmp_path / "nested.zip").write_bytes(bombs.nested_zip())
    log = read_plog(tmp_path / "nested.zip")
    read = [f for f in log.files if not f.skipped]
    assert [f.path for f in read] == [f"nested.zip{MEMBER_SEP}00-level-1.zip{MEMBER_SEP}00-level-0.zip{MEMBER_SEP}"
                                      f"00-plog-1_20260101000000000.log"]
    assert read[0].lines == bombs.LEAF // len(bombs.LINE) + 1
    outer = log.file("nested.zip").skipped
    assert outer.startswith(f"nested.zip{MEMBER_SEP}01-level-1.zip: refused: the archive nested.zip expands more than 200")


def test_a_sparse_tar_is_checked_though_it_is_not_compressed(tmp_path):
    (tmp_path / "sparse.tar").write_bytes(bombs.sparse_tar())
    (f,) = read_plog(tmp_path / "sparse.tar").files
    assert f.path == "sparse.tar"
    assert f.skipped.startswith(f"sparse.tar{MEMBER_SEP}sparse.log: refused: the archive sparse.tar expands more")
    # a small sparse entry is read: the holes are NULs before the one block of text
    (tmp_path / "small.tar").write_bytes(bombs.sparse_tar(size=1 << 20))
    (f,) = read_plog(tmp_path / "small.tar").files
    assert f.skipped is None and f.size == 1 << 20 and f.lines == 6


def test_the_whole_read_is_checked_across_archives_given_side_by_side(tmp_path):
    """Each of these zips alone stays under the floor; together they pass it, and the read stops there."""
    for n in range(6):
        (tmp_path / f"node-{n}.zip").write_bytes(bombs.flat_zip(entries=1, leaf=6 << 20))
    log = read_plog(tmp_path)
    refused = [f for f in log.files if f.skipped]
    assert refused and "the archives given, all layers together" in refused[0].skipped
    assert sum(f.size for f in log.files if not f.skipped) <= Limits().ratio_floor


def test_a_50_mb_line_is_parsed_from_its_start(tmp_path):
    path = tmp_path / "plog-4242_20260101000000000.log"
    path.write_bytes(bombs.long_line())
    log = read_plog(path)
    (f,) = log.files
    assert f.lines == 1 and len(log.records["msg"].iloc[0]) < LONG_LINE
    assert any("longer than 65,536 characters" in w for w in f.warnings)
