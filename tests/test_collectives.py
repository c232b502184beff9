"""The collectives the ranks were in when HCCL gave up: two processes of one communicator failing in collectives of
different kinds answer `collective_sequence_differs` from the log. Lines follow HCCL's task exception report as the
hicann/hccl fault-diagnosis guide prints it (notify_wait_timeout_EI0002.md), with pids, times and groups of ours."""
from casebook.evidence.collectives import extract
from casebook.judging.triage import triage
from casebook.knowledge.kb import load_kb
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
    def rank(pid: int, kind: str) -> str:
        return (f"tag[{kind}_{GROUP}], AlgType(level 0-1-2):[fullmesh-ring-NHR].\n"
                f"[ERROR] HCCL({pid},all_reduce_test):2026-01-19-21:30:44.812.406 [task_exception_handler.cc:771] "
                f"[{pid}][TaskExecStage][Timeout][Host]Task run failed, groupRank information is group:[{GROUP}], "
                f"user define information[], rankSize[4], rankId[0].\n")
    t = triage(write_log(tmp_path, "paste.txt", rank(3418207, "AllReduce") + rank(3418208, "AllGather")), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "hccl-collective-order-mismatch"
    assert t.diagnosis.verdict == "confirmed"
    assert [c.verdict for c in t.candidates if c.case.id == "hccl-notify-wait-timeout"] == ["ruled_out"]
