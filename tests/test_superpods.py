"""The logical and physical super pods the ranks of a failed link report (HCCL's transport manager line, as the
link-stage guide of hicann/hccl shows it), with pids and ids of ours."""
from casebook.evidence.superpods import extract
from casebook.reading.plog import read_plog
from conftest import write_log


def _ends(tmp_path, *ends: tuple[int, str]) -> dict:
    """The facts of a paste where each process (pid 3003627, 3003628, ...) reports (physical pod, logical pod)."""
    lines = [f"[ERROR] HCCL({3003627 + i},scatter_test):2026-02-05-18:44:26.379.547 [transport_manager.cc:885] "
             f"[{3003959 + i}][TransportManager][PrintErrorInfo]local rank information: nicType[VNIC_TYPE], "
             + (f"logicSuperPodId[{logic}]" if logic else "logicSuperPodId is not set") + f", phySuperPodId[{phy}].\n"
             for i, (phy, logic) in enumerate(ends)]
    return extract(read_plog(write_log(tmp_path, "paste.txt", "".join(lines))))


def test_one_logical_super_pod_over_two_physical_ones_is_read_from_the_two_ends(tmp_path):
    fact = _ends(tmp_path, (0, "logic_1"), (1, "logic_1"))["logic_superpod_spans_physical"]
    assert (fact.value, fact.source, fact.line) == (True, "log", 2)
    assert fact.note == "ranks of logical super pod logic_1 report physical super pods 0, 1"


def test_ends_in_one_physical_super_pod_say_the_configuration_holds(tmp_path):
    fact = _ends(tmp_path, (0, "logic_1"), (0, "logic_1"))["logic_superpod_spans_physical"]
    assert fact.value is False and "the 2 processes of logical super pod logic_1" in fact.note


def test_one_end_alone_or_no_logical_super_pod_states_nothing(tmp_path):
    assert _ends(tmp_path / "one", (0, "logic_1")) == {}
    assert _ends(tmp_path / "unset", (0, ""), (1, "")) == {}
    # two logical pods, each whole in its own physical one: neither spans
    assert _ends(tmp_path / "two", (0, "logic_1"), (1, "logic_2")) == {}
