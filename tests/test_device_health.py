"""The card's own report of its health, and the host kernel's of a PCIe bus, read into the facts the device-lost and
hardware cases ask: the event ids a daemon logs and npu-smi's health query lists, and the AER driver's uncorrected
errors. Lines follow the public forms (the npu-smi health query and tsdaemon's event line as Ascend/mind-cluster's
fault-diagnosis test data prints them; the kernel's AER messages) with devices, times and ids of our own."""
import pytest
from casebook.evidence import device_health
from casebook.evidence.registry import KEEP, extract_evidence
from casebook.judging.triage import triage
from casebook.knowledge.kb import load_kb
from casebook.reading import plog
from casebook.reading.plog import read_plog
from conftest import write_log

KB = load_kb()
_LOST = ("[ERROR] RUNTIME(40411,python):2025-08-22-16:25:51.904.517 [device_error_proc.cc:1340][40502]Device[6] lost "
         "heartbeat.\n")


def _facts(tmp_path, text, keep=KEEP):
    return extract_evidence(read_plog(write_log(tmp_path, "capture.txt", text), keep=keep)).facts


@pytest.mark.parametrize("line,fact", [
    ("\tError Code                     : 80E21007 80E18401", {"device_power_fault_event", "hbm_isolation_limit_reached"}),
    ("\tError Code                     : 80E0020B", {"device_overtemperature_event"}),
    ("[EVENT] TDT(4717,tsdaemon):2025-08-22-16:25:50.101.201 [tsdaemon.cpp:1811][RunSpecialProcess][tid:4717] "
     "[TsdEVENT] Event id=0x80e20207.", {"device_overtemperature_event"}),
    # an event id no fact is about, and a line of numbers that is no list of ids
    ("\tError Code                     : A4025021 8C03A000", set()),
    ("Error Code : 42", set()),
])
def test_the_event_ids_a_card_reports_state_their_facts(tmp_path, line, fact):
    facts = _facts(tmp_path, "npu-smi info -t health -i 6\n\tHealth Status                  : Alarm\n" + line + "\n")
    stated = {name for name in device_health.EVENTS if name in facts}
    assert stated == fact
    for name in stated:
        assert (facts[name].value, facts[name].line) == (True, 3)


@pytest.mark.parametrize("line", [
    "[ 8123.441023] pcieport 0000:60:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, "
    "(Receiver ID)",
    "[ 8123.441001] pcieport 0000:60:00.0: AER: Uncorrected (Non-Fatal) error received: 0000:61:00.0",
])
def test_an_uncorrected_pcie_error_of_the_host_kernel_states_a_pcie_link_error(tmp_path, line):
    facts = _facts(tmp_path, _LOST + line + "\n")
    assert facts[device_health.PCIE_FACT].line == 2
    t = triage(write_log(tmp_path / "t", "capture.txt", _LOST + line + "\n"), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "device-pcie-link-error"
    assert t.diagnosis.verdict == "confirmed"


def test_a_corrected_pcie_error_states_nothing(tmp_path):
    line = "[ 8120.001200] pcieport 0000:60:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)"
    assert device_health.PCIE_FACT not in _facts(tmp_path, _LOST + line + "\n")


def test_a_power_event_in_the_health_query_confirms_the_power_fault(tmp_path):
    text = _LOST + "\tHealth Status                  : Critical\n\tError Code                     : 80E21007\n"
    t = triage(write_log(tmp_path, "capture.txt", text), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "device-power-fault"
    assert t.diagnosis.verdict == "confirmed"


def test_a_big_file_read_selectively_keeps_the_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(plog, "CAPTURE_FULL_BELOW", 1)
    filler = "".join(f"step {k}: loss 1.{k:03d}\n" for k in range(300))
    facts = _facts(tmp_path, filler + "\tError Code                     : 80E0020B\n" + filler)
    assert facts["device_overtemperature_event"].line == 301
