"""The NPU's network ports read from their own reports: the device log's port statistics line and hccn_tool's link
history and optical module, as a paste and as a file read the way a triage reads a big one."""
import pytest
from casebook.evidence import ports
from casebook.evidence.registry import KEEP, extract_evidence
from casebook.reading import plog
from casebook.reading.plog import read_plog
from conftest import write_log

_STATS = ("[EVENT] IMP(-2,IMP): 2025-03-02-10:00:00.000.001 70 (device_id:4 die_id:0) [IMP] present 1, mac_link {mac}, "
          "pcs_link {mac}, rf_lf {flag}, pcs_err_cnt {errors}, pcs_64_66b 0")
_HISTORY = """hccn_tool -i 1 -link_stat -g
[devid 1]current time        : Sun Mar  2 12:00:00 2025
[devid 1]link up count       : 3
[devid 1]link change records :
{records}"""


def _flaps(tmp_path, text, keep=KEEP):
    log = read_plog(write_log(tmp_path, "capture.txt", text), keep=keep)
    fact = extract_evidence(log).facts.get(ports.FACT)
    return (fact.value, fact.line) if fact is not None else None


@pytest.mark.parametrize("flag,errors,expected", [
    ("2", "0", (True, 1)),      # a remote fault: the flag alone says it
    ("1", "7", (True, 1)),      # a local fault with PCS errors counted
    ("1", "0", None),           # the local flag with no error counted: the catalog does not count it
    ("0", "12", None),          # errors without the flag
])
def test_the_port_statistics_line_states_a_fault_by_its_flag_and_errors(tmp_path, flag, errors, expected):
    text = _STATS.format(mac=0 if flag != "0" else 1, flag=flag, errors=errors)
    assert _flaps(tmp_path, text) == expected


def test_a_down_the_port_stayed_in_counts_and_a_renegotiation_blip_does_not(tmp_path):
    records = ("[devid 1]    Sun Mar  2 11:40:31 2025    LINK UP\n"
               "[devid 1]    Sun Mar  2 11:38:02 2025    LINK DOWN\n"     # down for 2 min 29 s
               "[devid 1]    Sat Mar  1 09:00:20 2025    LINK UP\n"
               "[devid 1]    Sat Mar  1 09:00:12 2025    LINK DOWN\n"     # 8 s at boot
               "[devid 1]    Sat Mar  1 09:00:01 2025    LINK UP\n")
    assert _flaps(tmp_path, _HISTORY.format(records=records)) == (True, 6)
    blip = ("[devid 1]    Sat Mar  1 09:00:20 2025    LINK UP\n"
            "[devid 1]    Sat Mar  1 09:00:12 2025    LINK DOWN\n"
            "[devid 1]    Sat Mar  1 09:00:01 2025    LINK UP\n")
    assert _flaps(tmp_path, _HISTORY.format(records=blip)) is None


def test_a_down_that_is_the_newest_record_is_a_port_still_down(tmp_path):
    records = ("[devid 1]    Sun Mar  2 11:59:58 2025    LINK DOWN\n"
               "[devid 1]    Sat Mar  1 09:00:01 2025    LINK UP\n")
    assert _flaps(tmp_path, _HISTORY.format(records=records)) == (True, 5)


def test_the_history_of_each_port_is_read_apart(tmp_path):
    # port 2's up does not end port 1's down: each port's records are its own
    text = ("[devid 1]    Sun Mar  2 11:00:00 2025    LINK DOWN\n"
            "[devid 1]    Sun Mar  2 10:00:00 2025    LINK UP\n"
            "[devid 2]    Sun Mar  2 11:00:05 2025    LINK UP\n"
            "[devid 2]    Sun Mar  2 11:00:00 2025    LINK DOWN\n"
            "[devid 2]    Sun Mar  2 10:00:00 2025    LINK UP\n")
    assert _flaps(tmp_path, text) == (True, 1)


@pytest.mark.parametrize("lines,fails", [
    (["present              : present", "Rx Los Flag          : 0xff"], True),
    (["present              : present", "Tx LoL Flag          : 0x1"], True),
    (["present              : present", "Rx Los Flag          : 0x0"], False),
    # an empty port: boards whose ports carry no module print this for each of them, with flags that mean nothing
    (["present              : not present", "Rx Los Flag          : 0xff"], False),
    (["present              : not present"], False),
])
def test_the_optical_module_states_a_fault_when_it_has_lost_a_lane(tmp_path, lines, fails):
    text = "hccn_tool -i 0 -optical -g\noptical info:\n" + "\n".join(lines) + "\ntemperature          : 47 C\n"
    assert _flaps(tmp_path, text) == ((True, 4) if fails else None)


def test_each_ports_optical_report_is_read_apart(tmp_path):
    # an empty port's report, then a port whose module lost the signal: the second report starts present again
    text = ("hccn_tool -i 0 -optical -g\noptical info:\npresent              : not present\n"
            "Rx Los Flag          : 0xff\n"
            "hccn_tool -i 1 -optical -g\noptical info:\npresent              : present\n"
            "Rx Los Flag          : 0x3\n")
    assert _flaps(tmp_path, text) == (True, 8)


_PLOG = ("[ERROR] HCCL(5120,python):2025-03-02-11:20:{s:02d}.000.001 [heartbeat.cc:1229] [5133][TaskExecStage]"
         "[HeartbeatAbnormal] rank 3 lost\n")


def test_while_the_job_ran_a_down_counts_however_short_and_outside_it_none_does(tmp_path):
    write_log(tmp_path, "plog/plog-5120_20250302112000000.log", _PLOG.format(s=0) + _PLOG.format(s=30))
    records = ("[devid 1]    Sun Mar  2 11:25:02 2025    LINK UP\n"
               "[devid 1]    Sun Mar  2 11:25:01 2025    LINK DOWN\n"      # one second, while the job ran
               "[devid 1]    Sat Mar  1 08:00:50 2025    LINK UP\n"
               "[devid 1]    Sat Mar  1 08:00:00 2025    LINK DOWN\n"      # fifty seconds, the day before
               "[devid 1]    Sat Mar  1 07:59:40 2025    LINK UP\n")
    write_log(tmp_path, "npu_info_after.txt", _HISTORY.format(records=records))
    facts = extract_evidence(read_plog(tmp_path, keep=KEEP)).facts
    fact = facts[ports.FACT]
    assert (fact.file, fact.line, fact.more) == ("npu_info_after.txt", 6, ())


def test_a_down_long_before_the_job_is_not_its_failure(tmp_path):
    write_log(tmp_path, "plog/plog-5120_20250302112000000.log", _PLOG.format(s=0))
    records = ("[devid 1]    Sat Mar  1 08:10:00 2025    LINK UP\n"
               "[devid 1]    Sat Mar  1 08:00:00 2025    LINK DOWN\n")    # ten minutes down, the day before
    write_log(tmp_path, "npu_info_after.txt", _HISTORY.format(records=records))
    assert ports.FACT not in extract_evidence(read_plog(tmp_path, keep=KEEP)).facts


@pytest.mark.parametrize("keep,big", [(None, False), (KEEP, True)], ids=["every-line", "a-big-file-read-selectively"])
def test_the_lines_are_found_whether_every_line_or_only_kept_ones_are_read(tmp_path, monkeypatch, keep, big):
    if big:
        monkeypatch.setattr(plog, "CAPTURE_FULL_BELOW", 1)
    filler = "".join(f"step {k}: loss 1.{k:03d}\n" for k in range(200))
    text = filler + _STATS.format(mac=0, flag=2, errors=3) + "\n" + filler
    assert _flaps(tmp_path, text, keep=keep) == (True, 201)
