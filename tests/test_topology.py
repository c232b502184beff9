"""Topology across processes, devices, threads and ranks; the cross-rank view of who failed first."""
from casebook.evidence.registry import KEEP, extract_evidence
from casebook.judging.contract import to_dict, validate
from casebook.judging.triage import triage
from casebook.reading.plog import read_plog
from conftest import write_log


def test_hccl_two_workers_ranks_links_missing_and_skew(corpus):
    t = triage(corpus / "hccl-event-timeout-2workers")
    topo = t.evidence.topology
    assert topo.single_process_multi_device is None          # HCCL init lines are not set-device proof
    assert {(p.node, p.pid): p.ranks for p in topo.processes} == {
        ("worker-0", 59420): {0: 0}, ("worker-1", 26251): {1: 0}, ("worker-1", 26252): {2: 1}}
    view = topo.ranks
    assert view.rank_num == 3
    links = {(x.node, x.rank, x.peer, x.peer_ip, x.status, x.line) for x in view.links}
    assert links == {("worker-0", 0, 1, "124.0.0.11", "no connect", 5), ("worker-1", 1, 0, "124.0.0.21", "no connect", 5),
                     ("worker-1", 2, 3, "3.0.0.0", "no connect", 5)}
    assert view.missing == [3]                 # named as a peer, absent from the bundle
    assert [r.rank for r in view.order] == [1, 2, 0]
    (skew,) = view.clock_skew
    assert str(skew) == ("rank 0 on worker-0 set up its communicator at 2025-01-24T11:10:27.614147, rank 1 on worker-1 at "
                         "2025-01-24T11:20:27.614147 (600 s apart; setup of one group normally happens within 120 s on "
                         "every rank): the clocks of worker-0 and worker-1 may differ, so compare their times with care.")
    doc = to_dict(t)
    validate(doc)
    assert doc["topology"]["ranks"]["missing"] == [3] and doc["topology"]["ranks"]["blamed"] == {"0": 1, "1": 1, "3": 1}


def test_modelarts_eight_ranks_and_the_peer_they_blame(corpus):
    view = extract_evidence(read_plog(corpus / "modelarts-8rank-job")).topology.ranks
    assert view.rank_num == 8 and [(r.rank, r.pid, r.device) for r in view.ranks][:3] == [
        (0, 10972, 0), (1, 11044, 1), (2, 11116, 2)]
    assert view.blamed == {2: 2} and view.missing == []   # ranks naming themselves are not counted as peers
    assert view.clock_skew == []                          # one node: one clock


def test_device_side_log_path_ties_a_process_to_its_device(corpus):
    t = triage(corpus / "modelarts-8rank-job")
    p = next(p for p in t.evidence.topology.processes if p.pid == 10972)
    assert p.path_devices == {0: "process_log/debug/device-0/device-10972_20230131024824126.log"}
    doc = to_dict(t)
    validate(doc)
    assert next(x for x in doc["topology"]["processes"] if x["pid"] == 10972)["path_devices"] == [0]


def test_set_device_semantics_unchanged_by_rank_lines(tmp_path):
    text = ("[INFO] HCCL(100,python):2026-03-14-10:00:00.000.000 [t.cc:1][5][HCCL_TRACE]SetupAgent rankNum[2], rank[1], "
            "logicDevId[3], deviceIp[1.2.3.4]\n"
            "[INFO] RUNTIME(100,python):2026-03-14-10:00:00.000.000 [x.cc:1]7 SetDevice:set device, device_id=3\n")
    topo = extract_evidence(read_plog(write_log(tmp_path, "plog-100_20260314100000000.log", text))).topology
    (p,) = topo.processes
    assert (p.ranks, sorted(p.devices), topo.single_process_multi_device) == ({1: 3}, [3], False)
    assert topo.ranks.missing == [0]           # rankNum 2: rank 0 is expected but absent


def test_walk_shows_ranks_incidents_and_timeline(corpus):
    from casebook.presenting import walk
    steps = {s.key: s for s in walk.build(triage(corpus / "hccl-event-timeout-2workers"))}
    topo = steps["topology"]
    ranks = dict(topo.tables)["Ranks"]
    assert ranks[["rank", "node", "device", "named by peers"]].values.tolist() == [
        [0, "worker-0", 0, 1], [1, "worker-1", 0, 1], [2, "worker-1", 1, 0]]
    assert "Rank 2 on worker-1 names rank 3 (3.0.0.0) as the remote side: `no connect`." in topo.findings
    assert any(f.startswith("Ranks missing from the bundle: 3;") for f in topo.findings)
    symptom = steps["symptom"]
    incidents = dict(symptom.tables)["Incidents, first failure first"]
    assert incidents["kind"].tolist() == ["link failure between ranks"] * 3
    (make,) = symptom.figures
    assert make.caption == "Errors per device and process"


def test_notify_timeout_names_its_remote_rank(tmp_path):
    text = ("[INFO] HCCL(100,python):2026-03-14-10:00:00.000.000 [t.cc:1][5]hcom init success, rankNum[4], rank[1], "
            "device[1]\n"
            "[ERROR] HCCL(100,python):2026-03-14-10:30:00.000.000 [t.cc:2][5]EI0002: The wait execution of the Notify "
            "register times out. Reason: The Notify register has not received the Notify record from remote rank [3].\n")
    view = extract_evidence(read_plog(write_log(tmp_path, "plog-100_20260314100000000.log", text))).topology.ranks
    (link,) = view.links
    assert (link.rank, link.peer, link.status) == (1, 3, "notify timeout")
    assert view.blamed == {3: 1} and view.missing == [0, 2, 3]


def test_every_pid_the_text_shows_counts_a_pasted_console_too(tmp_path):
    from casebook.reading.bundle import Pasted
    paste = ("[ERROR] RUNTIME(4242,python3):2026-01-01-10:00:00.000.000 [engine.cc:1]4250 ReportExceptProc:"
             "Task exception! stream_id=2, task_id=6, retCode=0x26\n")
    topo = extract_evidence(read_plog(Pasted(paste.encode()))).topology
    assert [p.pid for p in topo.processes] == [4242] and topo.single_process_multi_device is None
    t = triage(Pasted(paste.encode()))
    from casebook.presenting import walk
    topology = next(s for s in walk.build(t) if s.key == "topology")
    assert "(1 process seen)" in topology.conclusion and "pid 4242" in " ".join(topology.findings)


def test_a_pid_in_a_file_name_is_not_a_second_process_when_the_lines_carry_another(tmp_path):
    line = ("[INFO] RUNTIME(370,python3):2026-01-01-10:00:00.000.000 [engine.cc:1]371 Init: device_id=0, "
            "deviceMode=0.\n")
    write_log(tmp_path, "b/plog/plog-1216_20260101100000000.log", line)
    write_log(tmp_path, "b/device-0/device-1216_20260101100000000.log",
              "[ERROR] TSCH(-1,null):2026-01-01-10:00:00.000.000 [x.c:1] hwts aic exception\n")
    topo = extract_evidence(read_plog(tmp_path / "b")).topology
    assert [p.pid for p in topo.processes] == [370]
    assert topo.processes[0].path_devices == {0: "device-0/device-1216_20260101100000000.log"}


def test_every_process_that_wrote_a_plog_is_listed_whichever_lines_a_reading_keeps(corpus):
    # the asys collection's compile workers log INFO and WARNING lines only: a selective reading keeps none of them as
    # records, a full one keeps them all; both list the same processes
    quick = extract_evidence(read_plog(corpus / "aicore-gatherv2-asys", keep=KEEP)).topology
    full = extract_evidence(read_plog(corpus / "aicore-gatherv2-asys", keep=None)).topology
    assert len(quick.processes) == 26
    assert [(p.node, p.pid) for p in quick.processes] == [(p.node, p.pid) for p in full.processes]
