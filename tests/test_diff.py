"""`casebook diff`: the text (100 columns, English and Chinese, both sides cited), the JSON and its schema, two
bundles given as folders, archives or a capture on standard input, two ranks of one bundle, exit codes."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile

import pytest
from casebook.cli import main
from casebook.judging.comparison import validate
from casebook.presenting.console import width_of
from conftest import CORPUS, ROOT, SAMPLES, english_sentences
from test_comparison import RANK3, edit, pair

PLANT = ("[ERROR] HCCL(11190,python3):2023-01-31-02:59:00.000.000 [transport.cc:88][21503]link to rank 5 lost: "
         "retry 3 of 3 while the peer kept its send queue full and every retry of the link timed out")


@pytest.fixture
def planted(tmp_path):
    """The 8-rank job, and a copy whose rank 3 logs a new line 2 and runs with another CANN."""
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    edit(bad / RANK3, 2, insert=PLANT)
    version = "[INFO] ASCENDCL(11190,python3):2023-01-31-02:48:30.000.001 [acl.cpp:120]11190 CANN version: {}"
    edit(good / RANK3, 1, insert=version.format("8.0.RC2"))
    edit(bad / RANK3, 1, insert=version.format("8.0.RC3"))
    return good, bad


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(["diff", *map(str, args)])
    got = capsys.readouterr()
    return code, got.out, got.err


def test_the_text_fits_100_columns_and_cites_both_sides(planted, capsys):
    good, bad = planted
    code, out, _ = run(capsys, good, bad)
    assert code == 1
    lines = out.splitlines()
    assert max(width_of(x) for x in lines) <= 100
    assert f"Good run: {good}" in lines and f"Bad run: {bad}" in lines
    assert "  - cann_version: 8.0.RC2 → 8.0.RC3" in lines
    assert lines.count(f"    good  {RANK3}:1") == 1 and lines.count(f"    bad  {RANK3}:1") == 1
    assert f"    bad  {RANK3}:3" in lines and f"    good  {RANK3}:3" in lines   # the line after the version line
    assert any("link to rank 5" in x for x in lines if x.startswith("    > "))
    assert "The first departure: rank 3, host plog (debug), 630.0 s after its first line." in " ".join(lines)


def test_the_chinese_text_fits_and_says_no_english_sentence(planted, capsys):
    good, bad = planted
    code, out, _ = run(capsys, good, bad, "--lang", "zh")
    assert code == 1
    lines = out.splitlines()
    assert max(width_of(x) for x in lines) <= 100
    assert "版本与芯片" in lines and "消息流" in lines and "耗时" in lines
    words = "\n".join(x for x in lines if not x.lstrip().startswith(">"))   # cited log lines stay as logged
    assert english_sentences(words) == []
    assert f"    失败  {RANK3}:3" in lines


def test_wide_prints_the_lines_whole(planted, capsys):
    good, bad = planted
    _, out, _ = run(capsys, good, bad, "--wide")
    assert f"    > {PLANT}" in out.splitlines()


def test_the_json_matches_its_schema_and_the_text(planted, capsys):
    good, bad = planted
    code, out, _ = run(capsys, good, bad, "--json")
    assert code == 1
    doc = json.loads(out)
    validate(doc)
    assert doc["same"] is False
    [v] = doc["changes"]
    assert (v["topic"], v["name"], v["good"], v["bad"]) == ("version", "cann_version", "8.0.RC2", "8.0.RC3")
    assert v["good_at"]["file"] == v["bad_at"]["file"] == RANK3 and v["bad_at"]["line"] == 1
    d = doc["flow"]["departures"][0]
    assert (d["kind"], d["bad"]["line"], d["good"]["line"], d["bad"]["text"]) == ("new", 3, 3, PLANT)
    assert doc["flow"]["new"]["count"] == 1 and doc["flow"]["new"]["listed"][0]["at"]["line"] == 3
    assert doc["timing"]["first_departure"]["bad_after_s"] == pytest.approx(630.0)   # from the version line


def test_the_schema_is_documented_in_the_cli_page():
    from casebook.judging.comparison import schema
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = page[page.index("## `casebook diff"):]
    for key in [*schema()["properties"], *schema()["properties"]["flow"]["properties"]]:
        assert f"`{key}`" in section, key


def test_two_copies_exit_0_with_no_difference(tmp_path, capsys):
    good, bad = pair(tmp_path, CORPUS / "hccl-event-timeout-2workers")
    code, out, _ = run(capsys, good, bad)
    assert code == 0
    assert "No difference: the same versions, settings and topology" in out
    code, out, _ = run(capsys, good, bad, "--json")
    doc = json.loads(out)
    validate(doc)
    assert doc["same"] is True and doc["changes"] == [] and doc["flow"]["departures"] == []


def test_an_archive_against_a_folder(planted, tmp_path, capsys):
    good, bad = planted
    archive = tmp_path / "good.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(good, arcname=".")
    code, out, _ = run(capsys, archive, bad, "--json")
    doc = json.loads(out)
    assert code == 1 and doc["good"] == str(archive)
    d = doc["flow"]["departures"][0]
    assert d["bad"]["line"] == 3 and d["good"]["file"].endswith(RANK3) and d["good"]["line"] == 3
    assert [c["name"] for c in doc["changes"]] == ["cann_version"]
    assert doc["flow"]["unpaired"] == []   # the archive's files pair with the folder's


def test_a_capture_on_standard_input(tmp_path):
    good, bad = pair(tmp_path, SAMPLES / "hccl-env-var-invalid" / "positive-rdma-tc")
    edit(bad / "capture.txt", 1, replace=("HCCL_RDMA_TC=130", "HCCL_RDMA_TC=132"))
    done = subprocess.run([sys.executable, "-m", "casebook.cli", "diff", "-", str(bad / "capture.txt"), "--json"],
                          input=(good / "capture.txt").read_bytes(), capture_output=True, cwd=ROOT)
    assert done.returncode == 1, done.stderr
    doc = json.loads(done.stdout)
    assert [(c["name"], c["good"], c["bad"]) for c in doc["changes"]] == [("HCCL_RDMA_TC", "130", "132")]
    # the pasted capture and the file pair up although their names differ
    assert doc["flow"]["unpaired"] == [] and doc["flow"]["streams"] == 1


def test_ranks_of_one_bundle(capsys):
    code, out, _ = run(capsys, CORPUS / "modelarts-8rank-job", "--ranks", "3,0")
    assert code == 1
    lines = out.splitlines()
    assert lines[:2] == ["Good run: rank 0", "Bad run: rank 3"]
    assert max(width_of(x) for x in lines) <= 100
    assert "    good  process_log/debug/plog/plog-10972_20230131024824126.log:5" in lines


@pytest.mark.parametrize("args, message", [
    (["one"], "diff takes two bundles: GOOD BAD (or one bundle with --ranks BAD,GOOD)"),
    (["a", "b", "--ranks", "3,0"], "diff takes one bundle with --ranks BAD,GOOD"),
    ([str(CORPUS / "modelarts-8rank-job"), "--ranks", "9,0"], "rank 9: not in the bundle"),
    (["-", "-"], "-: standard input can be read once"),
    (["/no/such/bundle", str(CORPUS / "modelarts-8rank-job")], "/no/such/bundle: no such file or directory"),
])
def test_bad_use_is_one_line_and_exit_2(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err


def test_a_rank_pair_that_is_not_two_ranks_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        main(["diff", "x", "--ranks", "3"])
    assert e.value.code == 2
    assert re.search(r"--ranks: must be two ranks, the failing one first", capsys.readouterr().err)


def test_stream_places_are_worded_in_chinese():
    from casebook.presenting.comparison import stream_words
    assert stream_words("node 2, process 3, host plog (debug)", "zh") == "节点 2, 进程 3, host plog (debug)"
    assert stream_words("slog/device-0/x.log (device 0), device os log", "zh") == \
        "slog/device-0/x.log (设备 0), device os log"
    assert stream_words("node 2, process 3, host plog (debug)") == "node 2, process 3, host plog (debug)"


def test_a_long_line_the_runs_part_on_takes_three_lines_at_most(tmp_path, capsys):
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    edit(bad / RANK3, 2, insert=PLANT + " 中文" * 200)
    code, out, _ = run(capsys, good, bad)
    lines = out.splitlines()
    assert max(width_of(x) for x in lines) <= 100
    at = lines.index(f"    bad  {RANK3}:2")
    assert [x[:6] for x in lines[at + 1:at + 4]] == ["    > "] * 3 and lines[at + 4][:6] != "    > "
    assert lines[at + 3].endswith("…")


def test_the_report_sets_a_good_run_beside_the_case(planted, tmp_path, capsys):
    good, bad = planted
    written = tmp_path / "case.md"
    assert main(["report", str(bad), "--beside", str(good), "-o", str(written)]) == 0
    text = written.read_text(encoding="utf-8")
    assert "## Beside a good run" in text and f"Good run: {good}" in text
    assert "  - cann_version: 8.0.RC2 → 8.0.RC3" in text and f"    bad  {RANK3}:3" in text
    assert main(["report", str(bad), "--beside", "/no/such/run", "-o", str(written)]) == 2
    assert "/no/such/run: no such file or directory" in capsys.readouterr().err


def test_counts_read_as_words(planted, capsys):
    bad = re.compile(r"\(s\)|\(es\)|\b1 (?:versions|settings|items|streams|lines|templates|steps)\b")
    good, bad_run = planted
    texts = [run(capsys, good, bad_run)[1], run(capsys, CORPUS / "modelarts-8rank-job", "--ranks", "3,0")[1]]
    found = [x for text in texts for x in text.splitlines() if not x.startswith("    > ") and bad.search(x)]
    assert found == []
    assert "The runs differ: 1 version; streams whose message flow parts: 1 of 15." in " ".join(texts[0].split())
