"""Failed link setups read as HCCL's fault-diagnosis guide reads them (param_link_stage.md): each rank waits for the
peer its `Transport init error! createLink para:` line, link table row or socket timeout names; the waits cascade, so
the chain is followed to the rank that waited for no one, and what that rank logged decides. Lines follow the guide's
and the transport manager's forms, with pids, times, ranks and addresses of ours."""
from casebook.evidence.ranks import extract
from casebook.judging.contract import to_dict
from casebook.judging.triage import triage
from casebook.knowledge.kb import load_kb
from casebook.presenting.walk import build
from casebook.reading.plog import read_plog
from conftest import write_log

KB = load_kb()
CASE = "hccl-link-setup-peer-at-end-of-wait-chain"


def _init(pid: int, rank: int, n: int = 3) -> str:
    return (f"[INFO] HCCL({pid},python3):2026-05-12-14:31:02.420.1{rank:02d} [topoinfo_detect.cc:506] [{pid}]"
            f"[HCCL_TRACE][Flat]SetupAgent rankNum[{n}], rank[{rank}], rootInfo identifier[10.20.0.5%eth0_60000_0_1], "
            f"server[10.20.0.5%eth0], serverPort[60000]deviceType[2], logicDevId[{rank}], phydevId[{rank}], "
            f"deviceIp[192.168.60.{10 + rank}]\n")


def _create_link(pid: int, rank: int, peer: int, minute: int = 33, world: int | None = None) -> str:
    """The transport manager's line; `world` is the local world rank when it differs from the communicator's."""
    me = rank if world is None else world
    return (f"[ERROR] HCCL({pid},python3):2026-05-12-14:{minute}:05.142.013 [transport_manager.cc:1325] [{pid}]"
            f"[InitChannelStage][Timeout]Transport init error! createLink para:rank[{rank}]-localUserrank[{me}]-"
            f"localIpAddr[10.20.0.5/{rank}], remoteRank[{peer}]-remoteUserrank[{peer}]-remoteIpAddr[10.20.0.5/{peer}], "
            f"machineType[1], linkMode[1], isUsedRdma[0], tag[HcomAllReduce_4418830021734400112_0]\n")


def _triage(tmp_path, text: str):
    return triage(write_log(tmp_path, "paste.txt", text), kb=KB)


def test_both_forms_of_the_create_link_line_name_the_two_ends_by_world_rank(tmp_path):
    old = ("[ERROR] HCCL(5101,python3):2024-04-24-06:32:27.781.599 [transport_manager.cc:777] [5101][Create][DestLink]"
           "Transport init error! createLink para:rank[5]-localUserrank[4]-localIpAddr[127.10.0.1], dst_rank[6]-"
           "remoteUserrank[7]-remote_ip_addr[127.10.0.1]\n")
    (link,) = extract(read_plog(write_log(tmp_path / "old", "paste.txt", old))).links
    assert (link.rank, link.peer, link.peer_ip, link.status) == (4, 7, "127.10.0.1", "link setup")
    # the communicator's rank 1 is world rank 9: both ends are numbered alike, whatever the init lines said
    view = extract(read_plog(write_log(tmp_path / "new", "paste.txt", _init(30111, 1) + _create_link(
        30111, 1, 0, world=9))))
    assert [(x.rank, x.peer) for x in view.links] == [(9, 0)] and view.waits == {9: [0]}


def test_a_chain_of_failed_link_setups_that_ends_at_a_silent_rank_names_it_and_confirms_the_case(tmp_path):
    t = _triage(tmp_path, _init(30110, 0) + _init(30111, 1) + _init(30112, 2)
                + _create_link(30111, 1, 0, minute=33) + _create_link(30112, 2, 1, minute=35))
    view = t.evidence.topology.ranks
    assert view.waits == {1: [0], 2: [1]} and view.wait_ends == [0] and view.wait_loop == []
    fact = t.facts["link_waits_end_at_peer"]
    assert fact.value is True and fact.source == "log" and fact.line == 4
    assert "wait for rank 0, which waited for no one: it logged no error" in fact.note
    assert t.diagnosis is not None and t.diagnosis.case.id == CASE and t.diagnosis.verdict == "confirmed"
    assert "collective_order_differs" not in t.facts
    root = next(step for step in build(t) if step.key == "root_cause")
    assert any(f.startswith("Read rank 0 first: the other ranks' waits (notify waits, failed link setups) end at it")
               for f in root.findings)


def test_the_rank_at_the_end_that_failed_on_its_own_is_read_for_its_own_error(tmp_path):
    oom = ("[ERROR] APP(30110,python3):2026-05-12-14:31:40.001.002 [app.cc:1] RuntimeError: NPU out of memory. "
           "Tried to allocate 3.91 GiB\n")
    t = _triage(tmp_path, _init(30110, 0) + _init(30111, 1) + oom + _create_link(30111, 1, 0))
    assert "read its own first error (paste.txt:3)" in t.facts["link_waits_end_at_peer"].note
    # the peer's own failure is where to start: the chain case is contradicted by it
    assert [h.verdict for h in t.candidates if h.case.id == CASE] == ["possible"]


def test_two_ends_that_wait_for_each_other_were_both_there_and_rule_the_case_out(tmp_path):
    t = _triage(tmp_path, _init(41210, 0, 2) + _init(41211, 1, 2) + _create_link(41210, 0, 1)
                + _create_link(41211, 1, 0))
    fact = t.facts["link_waits_end_at_peer"]
    assert fact.value is False and "(0, 1) was itself waiting for a peer" in fact.note
    assert [h.verdict for h in t.candidates if h.case.id == CASE] == ["ruled_out"]
    # two ends of one link waiting for each other are no order of collectives that cannot complete
    assert t.evidence.topology.ranks.wait_loop == [] and "collective_order_differs" not in t.facts


def test_an_end_the_bundle_does_not_hold_states_nothing(tmp_path):
    """The rank waited for sent no logs: whether it logged anything is not known, so the fact stays open."""
    t = _triage(tmp_path, _init(30111, 1) + _create_link(30111, 1, 0))
    assert t.evidence.topology.ranks.wait_ends == [0] and "link_waits_end_at_peer" not in t.facts
    assert [h.verdict for h in t.candidates if h.case.id == CASE] == ["likely"]


def _per_node(tmp_path, end_error: str):
    """One folder per node (mind-cluster's layout): rank 0 on worker-0 logs `end_error` under another pid than its
    init line's; rank 1 on worker-1 fails to set up its link to rank 0."""
    write_log(tmp_path / "worker-0" / "run" / "plog", "plog-114725_1.log", _init(114725, 0))
    write_log(tmp_path / "worker-0" / "debug" / "plog", "plog-903_1.log", end_error)
    write_log(tmp_path / "worker-1" / "run" / "plog", "plog-114650_1.log", _init(114650, 1))
    write_log(tmp_path / "worker-1" / "debug" / "plog", "plog-114650_2.log", _create_link(114650, 1, 0))
    return triage(tmp_path, kb=KB)


def test_an_error_its_node_logged_under_another_pid_is_the_lone_ranks_own(tmp_path):
    """A rank's own process writes device errors under a thread's or a child's pid, and no other rank ran there."""
    t = _per_node(tmp_path, "[ERROR] RUNTIME(903,python3.8):2026-05-12-14:32:56.166.988 [api.cc:1] 903 aclrtMalloc: "
                            "NPU out of memory. Tried to allocate 3.91 GiB\n")
    fact = t.facts["link_waits_end_at_peer"]
    assert fact.value is True and "read its own first error (worker-0/debug/plog/plog-903_1.log:1)" in fact.note


def test_an_end_whose_own_first_error_is_of_the_link_stage_is_no_end(tmp_path):
    """HCCL's guide: a socket's recv fails on a link already set up when the far end goes away; the rank that logs it
    was in link setup itself, so the chain is lost there and the fact stays open."""
    t = _per_node(tmp_path, "[ERROR] HCCL(903,python3.8):2026-05-12-14:32:56.166.988 [adapter_hccp.cc:1357] [16542]"
                            "[Recv][RaSocket]errNo[0x000000000500000d] recv fail, data[0xfffddc0e6ef0], size[2239]\n")
    assert t.evidence.topology.ranks.wait_ends == [0] and "link_waits_end_at_peer" not in t.facts


def _detected(pid: int, local: int, src: int, dst: int) -> str:
    """HCCL's connect-timeout detection result as the card with device `local` prints it."""
    return (f"[ERROR] HCCL({pid},python3):2026-05-12-14:34:43.141.966 [detect_connect_anomalies.cc:132] [{pid}]This "
            f"node (server 10.20.0.5, device ID {local}) detects that srcRank (server 10.20.0.5, device ID {src}) fails "
            f"to connect to dstRank (server 10.20.0.6, device ID {dst}). Continue to analyze the fault based on the "
            f"logs of srcRank and dstRank.\n")


def test_hccls_own_detection_names_the_card_to_read_first_once_however_many_cards_print_it(tmp_path):
    t = _triage(tmp_path, _init(30111, 1) + _create_link(30111, 1, 0) + _detected(30111, 1, 1, 3)
                + _detected(30112, 2, 1, 3))
    (d,) = t.evidence.topology.ranks.detected
    assert (d.server, d.device, d.peer_server, d.peer_device, d.line) == ("10.20.0.5", 1, "10.20.0.6", 3, 3)
    steps = {step.key: step for step in build(t)}
    assert any("could not connect to the card at server 10.20.0.6, device 3" in f for f in steps["topology"].findings)
    # HCCL's own finding comes before the chain the bundle's ranks make
    assert [f for f in steps["root_cause"].findings if f.startswith("Read ")] == [
        "Read the card at server/device 10.20.0.6/3 first: HCCL's own connect-timeout detection names it as the end "
        "that could not be reached (see the topology step)."]
    assert to_dict(t)["topology"]["ranks"]["detected"] == [{
        "server": "10.20.0.5", "device": 1, "peer_server": "10.20.0.6", "peer_device": 3, "file": "paste.txt",
        "line": 3, "time": "2026-05-12T14:34:43.141966"}]
