"""A good run beside a bad one (judging/comparison.py, judging/flow.py), on pairs built from the corpus and the KB
samples: copied into tmp_path, then one side edited."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from casebook.judging.comparison import TOPOLOGY, VERSION, compare, compare_ranks
from casebook.judging.flow import Vocabulary, mask
from casebook.judging.triage import triage
from conftest import CORPUS, SAMPLES

RANK3 = "process_log/debug/plog/plog-11190_20230131024824599.log"
CAPTURE = "planted/capture.txt"


def pair(tmp_path: Path, source: Path) -> tuple[Path, Path]:
    """Two copies of one bundle, `good` and `bad`."""
    good, bad = tmp_path / "good", tmp_path / "bad"
    shutil.copytree(source, good, ignore=shutil.ignore_patterns("expect.yaml", "SOURCE.md"))
    shutil.copytree(source, bad, ignore=shutil.ignore_patterns("expect.yaml", "SOURCE.md"))
    return good, bad


def edit(path: Path, at: int, insert: str | None = None, replace: tuple[str, str] | None = None,
         delete: bool = False) -> None:
    """Insert a line before line `at` (1-based), replace text in it, or delete it."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    if insert is not None:
        lines.insert(at - 1, insert + "\n")
    elif replace is not None:
        assert replace[0] in lines[at - 1]
        lines[at - 1] = lines[at - 1].replace(*replace)
    elif delete:
        del lines[at - 1]
    path.write_text("".join(lines), encoding="utf-8")


def test_two_copies_of_one_bundle_make_no_difference(tmp_path):
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    c = compare(triage(good), triage(bad))
    assert c.same
    assert (c.changes, c.departures, c.new, c.gone, c.unpaired) == ([], [], [], [], [])
    assert c.streams == 15 and c.lines[0] == c.lines[1] > 0


def test_a_version_changed_on_one_side_is_named_at_its_lines(tmp_path):
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    line = "[INFO] ASCENDCL(11190,python3):2023-01-31-02:48:30.000.001 [acl.cpp:120]11190 CANN version: {}"
    edit(good / RANK3, 1, insert=line.format("8.0.RC2"))
    edit(bad / RANK3, 1, insert=line.format("8.0.RC3"))
    c = compare(triage(good), triage(bad))
    [v] = c.of(VERSION)
    assert (v.name, v.good, v.bad) == ("cann_version", "8.0.RC2", "8.0.RC3")
    assert v.good_at.where == v.bad_at.where == f"{RANK3}:1"
    assert "8.0.RC3" in v.bad_at.text
    assert not c.same


def test_an_environment_variable_changed_is_named_at_its_lines(tmp_path):
    good, bad = pair(tmp_path, SAMPLES / "hccl-env-var-invalid" / "positive-rdma-tc")
    edit(bad / "capture.txt", 1, replace=("HCCL_RDMA_TC=130", "HCCL_RDMA_TC=132"))
    c = compare(triage(good), triage(bad))
    [s] = [x for x in c.changes if x.name == "HCCL_RDMA_TC"]
    assert (s.topic, s.good, s.bad) == ("setting", "130", "132")
    assert s.good_at.where == s.bad_at.where == "capture.txt:1"
    assert [x.name for x in c.changes] == ["HCCL_RDMA_TC"]   # HCCL_RDMA_SL, on the same line, did not change


def test_a_setting_one_run_does_not_show_is_named(tmp_path):
    good, bad = pair(tmp_path, CORPUS / "hccl-event-timeout-2workers")
    plog = next((bad / "worker-0").rglob("plog-59420_*.log"))
    edit(plog, 1, insert="[INFO] HCCL(59420,python3):2025-01-24-11:03:14.000.000 [env.cc:12][59420] "
                         "HCCL_CONNECT_TIMEOUT is 1800")
    c = compare(triage(good), triage(bad))
    [s] = [x for x in c.changes if x.name == "HCCL_CONNECT_TIMEOUT"]
    assert (s.good, s.bad, s.good_at) == (None, "1800", None)
    assert s.bad_at.line == 1


def test_a_planted_first_departure_is_found_at_its_line_on_both_sides(tmp_path):
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    edit(bad / RANK3, 2, insert="[ERROR] HCCL(11190,python3):2023-01-31-02:59:00.000.000 [transport.cc:88][21503]"
                                "link to rank 5 lost: retry 3 of 3")
    c = compare(triage(good), triage(bad))
    d = c.first
    assert (d.kind, d.stream) == ("new", "rank 3, host plog (debug)")
    assert d.bad.where == f"{RANK3}:2" and "link to rank 5 lost" in d.bad.text
    assert d.good.where == f"{RANK3}:2"            # what the good run printed at that point
    assert d.common_good.where == d.common_bad.where == f"{RANK3}:1"
    assert d.template.endswith("link to rank <*> lost: retry <*> of <*>")
    assert [x.template for x in c.new] == [d.template] and c.new[0].count == 1 and c.gone == []
    assert c.departures == [d]
    assert d.bad_after_s == pytest.approx(628.084, abs=0.01)   # 02:48:31.916 to 02:59:00.000
    assert d.good_after_s == pytest.approx(699.539, abs=0.01)  # the good run's own line 2, from its own first time


def test_a_line_the_bad_run_never_printed_is_a_departure_too(tmp_path):
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    edit(bad / RANK3, 4, delete=True)   # the rank never logs its communicator's destruction
    d = compare(triage(good), triage(bad)).first
    assert d.kind == "missing" and "hcom destroy complete" in d.template
    assert d.good.where == f"{RANK3}:4" and d.bad is None   # the bad rank's log ended there
    assert d.common_good.where == d.common_bad.where == f"{RANK3}:3"


def test_ranks_of_one_bundle(tmp_path):
    t = triage(CORPUS / "modelarts-8rank-job")
    c = compare_ranks(t, 3, 0)
    assert (c.good, c.bad) == ("rank 0", "rank 3")
    d = c.first
    # rank 0 went on to report a queue error that rank 3, whose log ends there, never printed
    assert (d.stream, d.kind) == ("rank 3, host plog (debug)", "missing")
    assert d.good.where == "process_log/debug/plog/plog-10972_20230131024824126.log:5" and d.bad is None
    assert d.common_bad.where == f"{RANK3}:4"
    assert ("good", "rank 0, device log (debug)") in c.unpaired   # rank 0's device-side log; rank 3 has none
    assert not c.same
    assert compare_ranks(t, 0, 0).same
    with pytest.raises(ValueError, match=r"rank 9: not in the bundle \(ranks it shows: 0, 1, 2, 3, 4, 5, 6, 7\)"):
        compare_ranks(t, 9, 0)


def test_topology_differences_are_named(tmp_path):
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    for p in (bad / "process_log" / "debug" / "plog").glob("plog-11481_*"):
        p.unlink()
    c = compare(triage(good), triage(bad))
    names = {x.name: x for x in c.of(TOPOLOGY)}
    assert names["ranks"].good == "0,1,2,3,4,5,6,7" and names["ranks"].bad == "0,1,2,3,4,5,6"
    assert ("good", "rank 7, host plog (debug)") in c.unpaired


def test_step_times_are_read_from_each_run(tmp_path):
    good, bad = pair(tmp_path, SAMPLES / "task-queue-shared-cache-race" / "positive-info")
    log = bad / "train_stdout.log"
    log.write_text(log.read_text(encoding="utf-8").replace("step_time 5.48s", "step_time 7.10s"), encoding="utf-8")
    c = compare(triage(good), triage(bad))
    assert c.good_steps.median_s == 5.48 and c.bad_steps.median_s == 7.1
    assert c.good_steps.first.where == c.bad_steps.first.where == "train_stdout.log:3"
    assert not c.same


def test_the_mask_keeps_the_shape_of_a_line():
    v = Vocabulary()
    lines = [b"[INFO] RUNTIME(1234,python):2026-05-04-09:00:00.123.456 [context.cc:713]1384 kernel_name=MatMulV3_"
             b"5f3a9c01d2e4b6a8_high, addr=0x12c0a1000, ip 10.0.0.1",
             b"[INFO] RUNTIME(99,python):2026-05-05-19:10:20.003.006 [context.cc:713]100 kernel_name=MatMulV3_"
             b"f3a9c01d2e4b6a85_high, addr=0xffff, ip 192.168.1.20"]
    assert [v[mask(x)] for x in lines] == [0, 0]
    assert v.texts() == ["[INFO] RUNTIME(<*>,python):<*> [context.cc:<*>]<*> kernel_name=MatMulV<*>_<*>_high, "
                         "addr=<*>, ip <*>"]
    assert v[mask(b"[INFO] GE(1,python):2026-05-04-09:00:00.123.456 other")] == 1


def test_the_walk_offers_the_ranks_when_one_failed_and_another_did_not():
    from casebook.presenting import walk
    from casebook.judging.comparison import healthy_pair
    sample = SAMPLES / "aclnn-tiling-unsupported-shape" / "positive-atten-mask-shape"
    t = triage(sample)
    assert healthy_pair(t) == (0, 1)
    topology = next(s for s in walk.build(t) if s.key == "topology")
    assert any(f"`casebook diff {sample} --ranks 0,1`" in f for f in topology.findings)
    zh = next(s for s in walk.build(t, "zh") if s.key == "topology")
    assert any("rank 0 最先出错" in f for f in zh.findings)
    # every rank of the 8-rank job failed: no healthy rank to offer
    every = triage(CORPUS / "modelarts-8rank-job")
    assert healthy_pair(every) is None
    assert not any("casebook diff" in f for s in walk.build(every) for f in s.findings)


def test_the_report_can_include_the_comparison(tmp_path):
    from casebook.presenting import report
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    edit(bad / RANK3, 2, insert="[ERROR] HCCL(11190,python3):2023-01-31-02:59:00.000.000 [transport.cc:88][21503]"
                                "link to rank 5 lost <b>now</b>")
    t = triage(bad)
    c = compare(triage(good), t)
    md = report.render(t, "md", figures=False, comparison=c)
    assert "\n## Beside a good run\n" in md and f"    bad  {RANK3}:2" in md
    html = report.render(t, "html", figures=False, comparison=c)
    assert "<h2>Beside a good run</h2>" in html and html.index("Beside a good run") < html.index("</body>")
    assert "&lt;b&gt;now&lt;/b&gt;" in html and "<b>now</b>" not in html
    zh = report.render(t, "md", figures=False, lang="zh", comparison=c)
    assert "## 与正常运行的比较" in zh
    assert "Beside a good run" not in report.render(t, "md", figures=False)


def test_package_and_python_versions_are_named(tmp_path):
    good, bad = pair(tmp_path, SAMPLES / "hccl-env-var-invalid" / "positive-rdma-tc")
    for side, npu, python, numpy in ((good, "2.1.0.post3", "3.9", "1.26.4"), (bad, "2.1.0.post6", "3.10", "2.0.1")):
        (side / "pip_freeze.txt").write_text(f"numpy=={numpy}\ntorch==2.1.0\ntorch_npu=={npu}\ndecorator==5.1.1\n"
                                             f"{'attrs==23.1.0' if side == bad else ''}\n", encoding="utf-8")
        with open(side / "capture.txt", "a", encoding="utf-8") as fh:
            fh.write(f'  File "/usr/local/lib/python{python}/site-packages/torch/nn/modules/module.py", line 1501\n')
    c = compare(triage(good), triage(bad))
    got = {x.name: (x.good, x.bad, x.bad_at.where) for x in c.of(VERSION)}
    assert got["torch_npu_version"] == ("2.1.0.post3", "2.1.0.post6", "pip_freeze.txt:3")
    lines = (bad / "capture.txt").read_text(encoding="utf-8").count("\n")
    assert got["python_version"] == ("3.9", "3.10", f"capture.txt:{lines}")
    assert "torch_version" not in got and "decorator_version" not in got   # the same on both sides
    assert got["numpy_version"] == ("1.26.4", "2.0.1", "pip_freeze.txt:1")   # any package a pip list names
    assert got["attrs_version"] == (None, "23.1.0", "pip_freeze.txt:5")      # one the good run did not have


def test_nodes_pair_by_their_place_when_their_names_differ(tmp_path):
    good, bad = pair(tmp_path, CORPUS / "hccl-event-timeout-2workers")
    for n in (0, 1):
        (bad / f"worker-{n}").rename(bad / f"worker-{n + 10}")
    g, b = triage(good), triage(bad)
    assert {f.node for f in b.log.files} == {"worker-10", "worker-11"}
    c = compare(g, b)
    assert c.unpaired == [] and c.departures == [] and c.new_count == c.gone_count == 0


def test_the_json_names_every_part_of_a_comparison_exactly():
    from casebook.judging.comparison import SETTING, Change, Comparison, OneSided, Steps, to_dict, validate
    from casebook.judging.flow import Departure, Line
    a, b = Line("g.log", 3, "good text", "2024-01-01T00:00:01"), Line("b.log", 4, "bad text")
    c = Comparison(good="good/", bad="bad/",
                   changes=[Change(SETTING, "HCCL_CONNECT_TIMEOUT", "120", None, a, None)],
                   departures=[Departure("rank 1, host plog", "new", "t <*>", None, b, a, b, None, 2.5, 7),
                               Departure("rank 2, host plog", "missing", "u", a, None, good_after_s=1.0)],
                   new=[OneSided("t <*>", 3, b)], gone=[], new_count=21, gone_count=0,
                   unpaired=[("good", "rank 5, host plog")], good_steps=Steps(4, 5.5, a), bad_steps=None,
                   streams=6, lines=(10, 12))
    doc = to_dict(c)
    validate(doc)
    line_a = {"file": "g.log", "line": 3, "text": "good text", "time": "2024-01-01T00:00:01"}
    line_b = {"file": "b.log", "line": 4, "text": "bad text", "time": None}
    assert doc == {
        "schema": 1, "good": "good/", "bad": "bad/", "same": False,
        "changes": [{"topic": "setting", "name": "HCCL_CONNECT_TIMEOUT", "good": "120", "bad": None,
                     "good_at": line_a, "bad_at": None}],
        "flow": {"streams": 6, "lines": {"good": 10, "bad": 12},
                 "unpaired": [{"side": "good", "stream": "rank 5, host plog"}],
                 "departures": [{"stream": "rank 1, host plog", "kind": "new", "template": "t <*>", "good": None,
                                 "bad": line_b, "common_good": line_a, "common_bad": line_b, "good_after_s": None,
                                 "bad_after_s": 2.5},
                                {"stream": "rank 2, host plog", "kind": "missing", "template": "u", "good": line_a,
                                 "bad": None, "common_good": None, "common_bad": None, "good_after_s": 1.0,
                                 "bad_after_s": None}],
                 "new": {"count": 21, "listed": [{"template": "t <*>", "count": 3, "at": line_b}]},
                 "gone": {"count": 0, "listed": []}},
        "timing": {"good": {"count": 4, "median_s": 5.5, "first": line_a}, "bad": None,
                   "first_departure": {"good_after_s": None, "bad_after_s": 2.5}}}
    empty = to_dict(Comparison(good="x", bad="y"))
    assert empty["same"] is True and empty["timing"] == {"good": None, "bad": None, "first_departure": None}
    assert empty["flow"]["new"] == empty["flow"]["gone"] == {"count": 0, "listed": []}


def test_every_topology_difference_is_named_with_its_values(tmp_path):
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    for p in (bad / "process_log" / "debug" / "plog").glob("plog-11481_*"):
        p.unlink()
    c = compare(triage(good), triage(bad))
    got = {x.name: (x.good, x.bad) for x in c.of(TOPOLOGY)}
    assert got == {"processes": ("15", "14"), "ranks": ("0,1,2,3,4,5,6,7", "0,1,2,3,4,5,6")}
    for x in c.of(TOPOLOGY):
        assert x.good_at is not None and x.bad_at is not None and x.good_at.where == x.bad_at.where
    # a run whose files name no node counts as one node; the same devices and world size are no difference
    assert not {"nodes", "devices", "world_size", "threads"} & set(got)
    # two other bundles differ in every part: nodes by the files' paths, devices and threads by the processes
    two, eight = triage(CORPUS / "hccl-event-timeout-2workers"), triage(CORPUS / "modelarts-8rank-job")
    c = compare(two, eight)
    assert [(x.name, x.good, x.bad) for x in c.of(TOPOLOGY)] == [
        ("nodes", "2", "1"), ("processes", "3", "15"), ("devices", None, "0"), ("threads", "0", "2"),
        ("ranks", "0,1,2", "0,1,2,3,4,5,6,7"), ("world_size", "3", "8")]
    nodes, processes, devices, threads, ranks, world = c.of(TOPOLOGY)
    assert nodes.good_at is None and nodes.bad_at is None
    assert processes.bad_at.where == devices.bad_at.where == threads.bad_at.where == \
        "process_log/debug/plog/plog-10972_20230131024824126.log:6"
    assert ranks.bad_at == world.bad_at
    assert ranks.bad_at.where == "process_log/debug/device-0/device-10972_20230131024824126.log:1"
    spmd = triage(SAMPLES / "task-queue-shared-cache-race" / "positive-info")
    got = {x.name: (x.good, x.bad) for x in compare(spmd, eight).of(TOPOLOGY)}
    assert got["devices"] == ("0,1,2,3,4,5,6,7", "0") and got["threads"] == ("24", "2")


def test_changes_name_versions_first_then_settings_each_in_name_order(tmp_path):
    good, bad = pair(tmp_path, SAMPLES / "hccl-env-var-invalid" / "positive-rdma-tc")
    edit(bad / "capture.txt", 1, replace=("HCCL_RDMA_TC=130", "HCCL_RDMA_TC=132"))
    for side, npu in ((good, "2.1.0.post3"), (bad, "2.1.0.post6")):
        (side / "pip_freeze.txt").write_text(f"torch_npu=={npu}\nzz-top==1.0\n{'a-pkg==0.3' if side == bad else ''}\n",
                                             encoding="utf-8")
    c = compare(triage(good), triage(bad))
    assert [(x.topic, x.name) for x in c.changes] == [
        ("version", "a_pkg_version"), ("version", "torch_npu_version"), ("setting", "HCCL_RDMA_TC")]
    assert (c.changes[0].good, c.changes[0].bad, c.changes[0].bad_at.where) == (None, "0.3", "pip_freeze.txt:3")


def test_ranks_of_one_bundle_compare_only_what_each_ranks_own_files_show(tmp_path):
    good, bad = pair(tmp_path, CORPUS / "modelarts-8rank-job")
    edit(bad / RANK3, 1, insert="[INFO] ASCENDCL(11190,python3):2023-01-31-02:48:30.000.001 [acl.cpp:120]11190 "
                                "CANN version: 8.0.RC3")
    t = triage(bad)
    c = compare_ranks(t, 3, 0)
    # the version line is in rank 3's plog only: rank 0's files do not show it
    assert [(x.topic, x.name, x.good, x.bad) for x in c.changes] == [("version", "cann_version", None, "8.0.RC3")]
    assert c.changes[0].bad_at.where == f"{RANK3}:1" and c.changes[0].good_at is None
    assert (c.streams, c.unpaired) == (1, [("good", "rank 0, device log (debug)")])
    assert compare_ranks(t, 0, 3).changes[0].good == "8.0.RC3"


def test_the_pair_of_ranks_offered_first_is_the_first_failed_and_the_lowest_healthy_one():
    from casebook.judging.comparison import default_ranks
    assert default_ranks(triage(SAMPLES / "aclnn-tiling-unsupported-shape" / "positive-atten-mask-shape")) == (0, 1)
    # every rank of the 8-rank job failed: the first that failed, beside the lowest other rank
    assert default_ranks(triage(CORPUS / "modelarts-8rank-job")) == (0, 1)
    assert default_ranks(triage(CORPUS / "aicore-gatherv2-asys")) is None


def test_a_fact_from_a_file_the_flow_cannot_read_back_is_cited_without_its_text():
    from casebook.judging import flow as flows
    from casebook.judging.comparison import _cite
    from casebook.judging.flow import Line
    t = triage(CORPUS / "hccl-event-timeout-2workers")
    f = flows.read(t.log, t.evidence, Vocabulary())
    assert _cite(f, "quoted/elsewhere.py", "12") == Line("quoted/elsewhere.py", 12, "")
    assert _cite(f, None, 3) is None and _cite(f, "x", None) is None


def test_two_captures_named_otherwise_pair_up_as_the_one_capture_of_each_run(tmp_path):
    src = SAMPLES / "hccl-env-var-invalid" / "positive-rdma-tc"
    good, bad = pair(tmp_path, src)
    (bad / "capture.txt").rename(bad / "console.txt")
    c = compare(triage(good), triage(bad))
    assert (c.streams, c.unpaired, c.departures) == (1, [], [])


def test_each_run_is_named_by_its_label_or_else_by_its_path(tmp_path):
    """The report heads each side with what the user called it, or the folder they gave when they called it nothing."""
    good, bad = pair(tmp_path, SAMPLES / "hccl-env-var-invalid" / "positive-rdma-tc")
    g, b = triage(good), triage(bad)
    c = compare(g, b)
    assert (c.good, c.bad) == (str(good), str(bad))
    c = compare(g, b, "last week", "today")
    assert (c.good, c.bad) == ("last week", "today")


def test_a_line_of_the_second_file_of_a_stream_is_cited_in_that_file(tmp_path):
    """A log continued in a second file (`train-1.log`, `train-2.log`) reads as one stream; a line in it is cited by
    the file and the line within that file, not its place in the stream."""
    for side in ("good", "bad"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "train-1.log").write_text("start\nstep one\nstep two\n", encoding="utf-8")
        extra = "EZ9999: a fault only the bad run shows\n" if side == "bad" else ""
        (tmp_path / side / "train-2.log").write_text(f"resume\nstep three\n{extra}done\n", encoding="utf-8")
    c = compare(triage(tmp_path / "good"), triage(tmp_path / "bad"))
    assert c.streams == 1
    assert [(x.template, x.count, x.at.where) for x in c.new] == [
        ("EZ<*> a fault only the bad run shows", 1, "train-2.log:3")]
    d = c.first
    assert (d.bad.where, d.good.where, d.common_bad.where) == ("train-2.log:3", "train-2.log:3", "train-2.log:2")


def test_the_python_banner_and_step_times_in_milliseconds_are_read(tmp_path):
    for side, python, ms in (("good", "3.9.18", "350.0"), ("bad", "3.10.4", "512.5")):
        (tmp_path / side).mkdir()
        (tmp_path / side / "train.log").write_text(
            f"Python {python} (main) [GCC 11.2.0] on linux\n"
            f" iteration 10 | elapsed time per iteration (ms): {ms} |\n step 20 step_time 900ms\n step 30 step_time 2.5s\n"
            "RuntimeError: boom\n", encoding="utf-8")
    c = compare(triage(tmp_path / "good"), triage(tmp_path / "bad"))
    [py] = [x for x in c.of(VERSION) if x.name == "python_version"]
    assert (py.good, py.bad, py.bad_at.where) == ("3.9.18", "3.10.4", "train.log:1")
    # milliseconds are read as seconds / 1000: 0.35, 0.9, 2.5 and 0.5125, 0.9, 2.5
    assert (c.good_steps.count, c.good_steps.median_s, c.good_steps.first.where) == (3, 0.9, "train.log:2")
    assert (c.bad_steps.count, c.bad_steps.median_s) == (3, 0.9)
    (tmp_path / "bad" / "train.log").write_text(" iteration 10 | elapsed time per iteration (ms): 4000 |\n",
                                                encoding="utf-8")
    assert compare(triage(tmp_path / "good"), triage(tmp_path / "bad")).bad_steps.median_s == 4.0


def test_streams_of_several_nodes_are_named_by_their_node_and_of_one_node_not(tmp_path):
    from casebook.judging.flow import keys
    two = tmp_path / "two"
    shutil.copytree(CORPUS / "hccl-event-timeout-2workers", two)
    (two / "worker-1" / "train.log").write_text("RuntimeError: boom\n", encoding="utf-8")
    t = triage(two)
    (key, label, rank) = keys(t.log, t.evidence)["worker-1/train.log"]
    assert (key, label, rank) == (("node 2, worker-<*>/train.log", "screen_capture", ""),
                                  "worker-1, worker-<*>/train.log, screen capture", None)
    one = tmp_path / "one"
    one.mkdir()
    (one / "train.log").write_text("RuntimeError: boom\n", encoding="utf-8")
    t = triage(one)
    assert keys(t.log, t.evidence)["train.log"] == (("train.log", "screen_capture", ""), "train.log, screen capture", None)
