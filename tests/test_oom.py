"""The allocator's out-of-memory summary read as numbers: whether the process's cap or the card refused the request, and
whether what filled the card is held outside the job."""
import pytest
from casebook.evidence import oom
from casebook.judging.triage import triage
from casebook.reading.plog import read_plog
from conftest import ROOT, SAMPLES, write_log

_LINE = ("RuntimeError: NPU out of memory. Tried to allocate {request} (NPU 0; 60.96 GiB total capacity; {allocated} "
         "already allocated; {allocated} current active; {free} free; {allowed} allowed; {reserved} reserved in total "
         "by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb")


def _verdict(**sizes):
    return oom.cap_stopped(oom._SUMMARY.search(_LINE.format(**sizes)))


def test_sizes_are_read_in_the_allocators_units():
    assert oom.size("48.78 GiB") == pytest.approx(48.78 * 2 ** 30)
    assert (oom.size("512.00 MiB"), oom.size("20 bytes"), oom.size("1.5 KiB")) == (512 * 2 ** 20, 20, 1536)


def test_the_cap_refused_a_request_the_card_could_hold():
    # the fraction sample: 1.88 GiB of 30.12 free, but 29.51 reserved + 1.88 passes 30.48 allowed
    assert _verdict(request="1.88 GiB", allocated="27.34 GiB", free="30.12 GiB", allowed="30.48 GiB",
                    reserved="29.51 GiB") is True
    # what the process holds cached counts as room on the card: 3 GiB fits 2 free + 1.5 cached
    assert _verdict(request="3.00 GiB", allocated="10.00 GiB", free="2.00 GiB", allowed="12.00 GiB",
                    reserved="11.50 GiB") is True


def test_a_request_larger_than_the_card_had_fails_whatever_the_cap():
    assert _verdict(request="48.78 GiB", allocated="13.22 GiB", free="40.54 GiB", allowed="54.86 GiB",
                    reserved="13.86 GiB") is False


def test_numbers_that_explain_neither_settle_nothing():
    # it fits the card and stays under the cap: the allocator refused it for another reason (fragmentation)
    assert _verdict(request="1.00 GiB", allocated="5.00 GiB", free="20.00 GiB", allowed="30.00 GiB",
                    reserved="6.00 GiB") is None


def test_the_fact_is_read_from_the_line_with_its_file_and_line(tmp_path):
    path = write_log(tmp_path, "train.log", "step 1\n" + _LINE.format(request="48.78 GiB", allocated="13.22 GiB",
                     free="40.54 GiB", allowed="54.86 GiB", reserved="13.86 GiB") + "\n")
    fact = oom.extract(read_plog(path))[oom.CAP_STOPPED]
    assert (fact.value, fact.source, fact.file.endswith("train.log"), fact.line) == (False, "log", True, 2)
    plain = write_log(tmp_path, "other.log", "NPU out of memory. Tried to allocate 2 GiB\n")
    assert oom.extract(read_plog(plain)) == {}


def test_the_cap_case_is_ruled_out_when_the_card_could_not_hold_the_request_and_confirmed_when_it_could():
    capture = next((ROOT / "tests" / "captures").glob("1131-*")) / "capture.txt"
    t = triage(capture)
    verdicts = {h.case.id: h.verdict for h in t.candidates}
    assert verdicts["oom-per-process-memory-fraction"] == "ruled_out"
    assert t.diagnosis is not None and t.diagnosis.case.id == "npu-out-of-memory"
    shared = triage(SAMPLES / "oom-per-process-memory-fraction" / "positive-two-jobs-share-card")
    assert shared.diagnosis.case.id == "oom-per-process-memory-fraction"
    assert {h.case.id: h.verdict for h in shared.candidates}["npu-out-of-memory"] == "ruled_out"


def test_the_walk_never_asks_what_only_the_numbers_settle():
    """The cap fact is read from the message or unknown: no family's walk puts it as a question (the memory family's
    sample without a torch_npu summary asks first about ranks on device 0)."""
    from casebook.knowledge.vocabulary import FACTS
    assert FACTS[oom.CAP_STOPPED].from_logs
    t = triage(SAMPLES / "memory-allocation" / "family-mindspore-kernel-alloc")
    assert oom.CAP_STOPPED not in [q.fact for q in t.questions]


_PLAIN = ("RuntimeError: NPU out of memory. Tried to allocate {request} (NPU 0; {total} total capacity; {allocated} "
          "already allocated; {allocated} current active; {free} free; {reserved} reserved in total by PyTorch)")


def _held(**sizes):
    return oom.held_outside(oom._SUMMARY.search(_PLAIN.format(**sizes)))


def test_a_full_card_the_job_reserves_little_of_is_held_outside_the_job():
    # capture 1950: 4.37 of 60.96 GiB reserved, 7.47 MiB free; the other 56 GiB belong to someone else
    assert _held(request="88.00 MiB", total="60.96 GiB", allocated="4.24 GiB", free="7.47 MiB",
                 reserved="4.37 GiB") is True
    # the job's own reservation fills the card: its footprint, not another process
    assert _held(request="2.00 GiB", total="60.96 GiB", allocated="55.00 GiB", free="1.00 GiB",
                 reserved="57.90 GiB") is False
    # a request larger than the free memory of a card that is mostly free: the request, not the card's holders
    assert _held(request="48.78 GiB", total="60.96 GiB", allocated="13.22 GiB", free="40.54 GiB",
                 reserved="13.86 GiB") is False
    # the card had room: the allocator refused it for another reason, which these numbers do not tell
    assert _held(request="1.00 GiB", total="60.96 GiB", allocated="1.00 GiB", free="20.00 GiB",
                 reserved="2.00 GiB") is None
    # a third of the card unaccounted for: a few GiB of buffers outside the allocator, or another process
    assert _held(request="1.00 GiB", total="60.00 GiB", allocated="30.00 GiB", free="500.00 MiB",
                 reserved="38.00 GiB") is None


def test_the_held_outside_fact_is_a_sign_the_cases_name_and_is_cited_by_its_line(tmp_path):
    path = write_log(tmp_path, "train.log", "step 1\n" + _PLAIN.format(
        request="88.00 MiB", total="60.96 GiB", allocated="4.24 GiB", free="7.47 MiB", reserved="4.37 GiB") + "\n")
    fact = oom.extract(read_plog(path))[oom.HELD_OUTSIDE]
    assert (fact.value, fact.line) == (True, 2)
    t = triage(path)
    held = next(h for h in t.candidates if h.case.id == "oom-memory-held-outside-job")
    (item,) = [i for i in held.for_ if i.id == "job_holds_little_of_full_card"]
    assert (item.line, "NPU out of memory" in item.text) == (2, True)
    assert t.diagnosis.case.id == "oom-memory-held-outside-job"
    # the causes that lie in the job's own footprint are contradicted by the same numbers
    generic = next(h for h in t.candidates if h.case.id == "npu-out-of-memory")
    assert "job_holds_little_of_card" in [i.id for i in generic.against]
