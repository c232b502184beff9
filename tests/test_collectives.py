"""The collectives the ranks were in when HCCL gave up, compared across a communicator as HCCL's fault-diagnosis guide
compares them: another kind at one index, other arguments, another index; and the notify waits as a graph. Lines
follow HCCL's task exception report as the hicann/hccl fault-diagnosis guide prints it (notify_wait_timeout_EI0002.md,
task_exec_stage.md), with pids, times and groups of ours."""
from casebook.evidence.collectives import behind, extract, failures
from casebook.judging.contract import to_dict
from casebook.judging.triage import triage
from casebook.knowledge.kb import load_kb
from casebook.presenting.walk import build
from casebook.reading.plog import read_plog
from conftest import write_log

KB = load_kb()
GROUP = "127.10.0.1%enp_60000_0_1768829307415862"


def _failed(pid: int, kind: str, group: str = GROUP, head: str = "[ERROR] HCCL") -> str:
    return (f"{head}({pid},all_reduce_test):2026-01-19-21:30:44.812.406 [task_exception_handler.cc:908] [{pid}]"
            f"[TaskExecStage][Timeout][Host]Task run failed, base information is streamID:[2], taskID[21], "
            f"tag[{kind}_{group}], AlgType(level 0-1-2):[fullmesh-ring-NHR].\n")


def _facts(tmp_path, text: str) -> dict:
    return extract(read_plog(write_log(tmp_path, "paste.txt", text)))


def test_ranks_of_one_communicator_in_different_collectives_state_that_the_sequences_differ(tmp_path):
    facts = _facts(tmp_path, _failed(4101, "AllReduce") + _failed(4102, "AllGather"))
    fact = facts["collective_sequence_differs"]
    assert (fact.value, fact.source, fact.line) == (True, "log", 2)
    assert "AllReduce and AllGather" in fact.note and GROUP in fact.note


def test_the_same_collective_on_every_rank_states_nothing(tmp_path):
    assert _facts(tmp_path, _failed(4101, "AllReduce") + _failed(4102, "AllReduce")) == {}


def test_one_process_in_two_collectives_is_not_two_ranks_disagreeing(tmp_path):
    assert _facts(tmp_path, _failed(4101, "AllReduce") + _failed(4101, "Broadcast")) == {}


def test_communicators_are_compared_apart(tmp_path):
    assert _facts(tmp_path, _failed(4101, "AllReduce") + _failed(4102, "AllGather", group="10.0.0.2%eth_60000_1_99")) == {}


def test_collectives_at_work_are_not_failures(tmp_path):
    entry = ("[INFO] HCCL({pid},python):2025-03-07-11:43:32.305.623 [hccl_opbase_atrace_info.cc:56][{pid}]"
             "Entry-Hccl{kind}: tag[{kind}_{group}], count[1024], dataType[float32], localRank[0], streamId[7]\n")
    text = entry.format(pid=4101, kind="AllReduce", group=GROUP) + entry.format(pid=4102, kind="AllGather", group=GROUP)
    assert _facts(tmp_path, text) == {}


def test_graph_modes_prefix_and_a_releases_index_do_not_split_a_communicator(tmp_path):
    text = _failed(4101, "HcomAllReduce", group="8841200917745501_1") + _failed(4102, "Broadcast", group="8841200917745501_2")
    assert _facts(tmp_path, text)["collective_sequence_differs"].note.startswith("AllReduce and Broadcast")


def test_a_paste_that_broke_the_line_keeps_the_tag_with_the_process_after_it(tmp_path):
    """A paste of two ranks' reports whose tags sit on lines of their own, each before its process's next header."""
    def rank(pid: int, kind: str, rank_id: int) -> str:
        return (f"tag[{kind}_{GROUP}], AlgType(level 0-1-2):[fullmesh-ring-NHR].\n"
                f"[ERROR] HCCL({pid},all_reduce_test):2026-01-19-21:30:44.812.406 [task_exception_handler.cc:771] "
                f"[{pid}][TaskExecStage][Timeout][Host]Task run failed, groupRank information is group:[{GROUP}], "
                f"user define information[], rankSize[4], rankId[{rank_id}].\n")
    t = triage(write_log(tmp_path, "paste.txt", rank(3418207, "AllReduce", 0) + rank(3418208, "AllGather", 1)), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "hccl-collective-order-mismatch"
    assert t.diagnosis.verdict == "confirmed"
    assert [c.verdict for c in t.candidates if c.case.id == "hccl-notify-wait-timeout"] == ["ruled_out"]


# The guide's later form puts the op's index and data on a line of their own, after the rank in its communicator.
def _reported(pid: int, kind: str, rank: int, index: int, count: int = 256, dtype: str = "float32") -> str:
    head = f"[ERROR] HCCL({pid},all_reduce_test):2025-10-24-11:18:29.597.0{pid % 100:02d} "
    return (_failed(pid, kind)
            + head + f"[task_exception_handler.cc:771] [{pid}][TaskExecStage][Timeout][Host]Task run failed, groupRank "
            f"information is group:[{GROUP}], user define information[], rankSize[4], rankId[{rank}].\n"
            + head + f"[task_exception_handler.cc:704] [{pid}][TaskExecStage][Timeout][Host]Task run failed, opData "
            f"information is timeStamp:[2025-10-24-11:16:55.490.253], deviceId[{rank}], index[{index}], count[{count}], "
            f"reduceType[sum], src[0x12c0c0013000], dst[0x12c0c0014000], dataType[{dtype}].\n")


def test_the_reports_lines_give_each_failure_its_rank_index_and_data(tmp_path):
    fails = failures(read_plog(write_log(tmp_path, "paste.txt", _reported(4101, "AllReduce", 2, 21, 256, "float32"))))
    assert [(f.process, f.kind, f.rank, f.index, f.count, f.dtype, f.group) for f in fails] == [
        (4101, "AllReduce", 2, 21, 256, "float32", GROUP)]


def test_different_kinds_at_one_index_are_collectives_issued_in_different_orders(tmp_path):
    facts = _facts(tmp_path, _reported(4101, "AllReduce", 0, 21) + _reported(4102, "AllGather", 1, 21))
    assert facts["collective_sequence_differs"].value and facts["collective_order_differs"].value
    assert "collective_arguments_differ" not in facts and "collective_index_differs" not in facts


def test_one_collective_called_with_other_counts_or_types_is_an_argument_mismatch(tmp_path):
    for second in ({"count": 512}, {"dtype": "float16"}):
        facts = _facts(tmp_path, _reported(4101, "AllReduce", 0, 21) + _reported(4102, "AllReduce", 1, 21, **second))
        assert facts["collective_arguments_differ"].value and "collective_order_differs" not in facts
        assert str(next(iter(second.values()))) in facts["collective_arguments_differ"].note


def test_ranks_at_different_indexes_name_the_one_behind_and_compare_no_kinds(tmp_path):
    """The rank at the lowest index is behind: its other kind is another collective of its sequence, not a mismatch."""
    text = (_reported(4101, "AllReduce", 0, 22) + _reported(4102, "Broadcast", 1, 21)
            + _reported(4103, "AllReduce", 2, 22))
    facts = _facts(tmp_path, text)
    assert set(facts) == {"collective_index_differs"}
    assert facts["collective_index_differs"].note.startswith("rank 1 failed at collective 21")
    assert [f.rank for f in behind(failures(read_plog(write_log(tmp_path, "paste.txt", text))))] == [1]


def test_the_walk_and_the_json_show_the_collective_each_rank_failed_in(tmp_path):
    t = triage(write_log(tmp_path, "paste.txt", _reported(4101, "AllReduce", 0, 22) + _reported(4102, "AllReduce", 1, 21)),
               kb=KB)
    view = t.evidence.topology.ranks
    assert view.behind == [1] and [f.index for f in view.collectives] == [22, 21]
    doc = to_dict(t)["topology"]["ranks"]
    assert doc["behind"] == [1] and [c["rank"] for c in doc["collectives"]] == [0, 1]
    text = "\n".join(f for step in build(t) for f in step.findings)
    assert "Rank 1 failed at an earlier collective" in text


def _waiting(pid: int, rank: int, peer: int, node_file: str) -> str:
    """One rank's init line and its notify timeout naming the peer it waited for (the plog forms mind-cluster's
    fault-diagnosis scenarios carry)."""
    head = f"HCCL({pid},python3):2024-04-08-02:55:04.900.6{rank:02d}"
    return (f"[INFO] {head} [topoinfo_detect.cc:208][{pid}][HCCL_TRACE]SetupAgent rankNum[3], rank[{rank}], rootInfo "
            f"identifier[{GROUP}], server[10.136.181.175%enp179s0f0], logicDevId[{rank}], phydevId[{rank}], "
            f"deviceIp[192.168.13.16]\n"
            f"[ERROR] {head} [task_exception_handler.cc:452][{pid}][TaskExceptionHandler][Callback]Task run failed, "
            f"base information is streamID:[3], taskID[76651905], taskType[Notify Wait], tag[AllReduce_{GROUP}].\n"
            f"[ERROR] {head} [task_exception_handler.cc:454][{pid}][TaskExceptionHandler][Callback]Task run failed, "
            f"para information is notify id:[0x0000000700000048], stage:[ffffffff], remote rank:[{peer}].\n")


def _bundle(tmp_path, waits: dict[int, int], pid=None):
    for rank, peer in waits.items():
        write_log(tmp_path / "bundle", f"plog-{7000 + rank}_1.log", _waiting(pid or 7000 + rank, rank, peer, ""))
    return triage(tmp_path / "bundle", kb=KB)


def test_a_loop_of_waits_one_rank_is_waited_for_twice_in_is_an_order_of_collectives_that_cannot_complete(tmp_path):
    t = _bundle(tmp_path, {0: 1, 1: 2, 2: 1})
    view = t.evidence.topology.ranks
    assert view.waits == {0: [1], 1: [2], 2: [1]} and view.wait_loop == [1, 2]
    assert t.facts["collective_order_differs"].value is True
    assert t.diagnosis is not None and t.diagnosis.case.id == "hccl-collective-order-mismatch"
    assert [c.verdict for c in t.candidates if c.case.id == "hccl-notify-wait-timeout"] == ["ruled_out"]


def test_a_ring_of_waits_is_no_loop_and_a_chain_ends_at_the_rank_to_look_at(tmp_path):
    ring = _bundle(tmp_path / "ring", {0: 2, 1: 0, 2: 1}).evidence.topology.ranks
    assert ring.wait_loop == [] and ring.wait_ends == []
    chain = _bundle(tmp_path / "chain", {1: 0, 2: 1}).evidence.topology.ranks
    assert chain.wait_ends == [0] and chain.wait_loop == []


def test_files_that_repeat_a_pid_with_their_own_ranks_are_processes_of_their_own(tmp_path):
    """Copied logs, or containers that number their processes alike, repeat a pid on one node: each file's own init
    line names its rank."""
    view = _bundle(tmp_path, {0: 1, 1: 2, 2: 1}, pid=69402).evidence.topology.ranks
    assert view.waits == {0: [1], 1: [2], 2: [1]}
    assert sorted(f.rank for f in view.collectives) == [0, 1, 2]


def _at(pid: int, rank: int, kind: str, time: str) -> str:
    """A rank's task exception report in one collective, failed at `time` (hh:mm:ss)."""
    return _reported(pid, kind, rank, 21).replace("2026-01-19-21:30:44", f"2025-10-24-{time}").replace(
        "2025-10-24-11:18:29", f"2025-10-24-{time}")


def test_failures_of_one_collective_further_apart_than_the_timeout_say_a_rank_came_late(tmp_path):
    """The guide's third check: each rank waits HCCL_EXEC_TIMEOUT from when it arrives, so failures further apart
    than that arrived apart, and the later rank was held up before the collective."""
    fact = _facts(tmp_path, _at(4101, 0, "AllReduce", "11:18:29") + _at(4102, 1, "AllReduce", "11:51:00"))[
        "peer_rank_exited_or_stalled"]
    assert fact.value is True and fact.line == 4 and "rank 1 came late" in fact.note and "1951 s" in fact.note
    assert "peer_rank_exited_or_stalled" not in _facts(tmp_path, _at(4101, 0, "AllReduce", "11:18:29")
                                                       + _at(4102, 1, "AllReduce", "11:24:09"))


def test_the_timeout_the_job_logged_is_the_one_compared(tmp_path):
    """The guide's example: failures 5 min 44 s apart under HCCL_EXEC_TIMEOUT=300."""
    setting = "[INFO] HCCL(4101,all_reduce_test):2025-10-24-11:16:52.000.001 [env.cc:1] HCCL_EXEC_TIMEOUT=300\n"
    facts = _facts(tmp_path, setting + _at(4101, 0, "AllReduce", "22:03:14") + _at(4102, 1, "AllReduce", "22:08:58"))
    assert "344 s apart, longer than HCCL_EXEC_TIMEOUT (300 s)" in facts["peer_rank_exited_or_stalled"].note


def test_two_runs_of_one_rank_table_communicator_are_not_compared(tmp_path):
    """A folder that keeps an earlier run's plogs holds a rank's failure twice under the same communicator name."""
    text = (_at(4101, 0, "AllReduce", "11:18:29") + _at(4102, 1, "Broadcast", "11:18:30")
            + _at(5101, 0, "AllReduce", "14:00:00") + _at(5102, 1, "AllReduce", "14:00:01"))
    assert _facts(tmp_path, text) == {}


def test_the_root_cause_step_says_which_rank_to_read_first(tmp_path):
    """Beside the cause, the step where the engineer decides names the rank the ranks' own reports point at."""
    behind = triage(write_log(tmp_path, "paste.txt", _reported(4101, "AllReduce", 0, 22)
                              + _reported(4102, "AllReduce", 1, 21)), kb=KB)
    root = next(step for step in build(behind) if step.key == "root_cause")
    assert any(f.startswith("Read rank 1 first: it failed at an earlier collective") for f in root.findings)
    chain = _bundle(tmp_path / "chain", {1: 0, 2: 1})
    root = next(step for step in build(chain) if step.key == "root_cause")
    assert any(f.startswith("Read rank 0 first: the other ranks' waits (notify waits, failed link setups) end at it")
               for f in root.findings)


def _event_wait(timeout: int) -> str:
    """The device scheduler's report of a stream's event wait past its timeout (the MindSpore forum's form)."""
    return (f"EE9999: [PID: 30512] 2026-03-09-10:33:19.088.455 The error from device(chipId:2, dieId:0), serial number "
            f"is 1, event wait timeout occurred during task execution, stream_id:4, sq_id:4, task_id:4211, event_id=97, "
            f"timeout={timeout}.[FUNC:ProcessStarsWaitTimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1395]\n")


def _exec_timeout(seconds: int) -> str:
    return (f"[INFO] HCCL(30512,python):2026-03-09-10:02:11.301.552 [externalinput.cc:985] [30512]HCCL_EXEC_TIMEOUT set "
            f"by environment to [{seconds}]s\n")


def test_an_event_timeout_not_above_the_exec_timeout_is_read_from_the_log(tmp_path):
    """torch_npu requires HCCL_EVENT_TIMEOUT above HCCL_EXEC_TIMEOUT: the event wait's own timeout against the one the
    job logged."""
    below = _facts(tmp_path, _exec_timeout(3600) + _event_wait(1868))["event_timeout_above_exec_timeout"]
    assert (below.value, below.source, below.line) == (False, "log", 2)
    assert _facts(tmp_path, _exec_timeout(1800) + _event_wait(1980))["event_timeout_above_exec_timeout"].value is True


def test_without_the_exec_timeout_in_the_log_its_longest_default_is_taken_and_said(tmp_path):
    fact = _facts(tmp_path, _event_wait(1980))["event_timeout_above_exec_timeout"]
    assert (fact.value, fact.source) == (True, "default") and "longest default, 1836 s" in fact.note
    t = triage(write_log(tmp_path, "paste.txt", _event_wait(1980)), kb=KB)
    assert t.facts["event_timeout_above_exec_timeout"].source == "default"
    assert t.candidate("hccl-event-timeout-not-above-exec-timeout").verdict == "ruled_out"


def test_the_event_timeout_the_job_set_counts_without_an_event_wait_line_and_zero_never_times_out(tmp_path):
    setting = "[INFO] 2026-03-09 10:02:11 launch: export HCCL_EVENT_TIMEOUT=0\n"
    assert _facts(tmp_path, _exec_timeout(3600) + setting)["event_timeout_above_exec_timeout"].value is True
    assert "event_timeout_above_exec_timeout" not in _facts(tmp_path, _exec_timeout(3600))
