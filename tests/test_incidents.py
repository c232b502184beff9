"""Incidents and cascades: first real failure per device and process, fallout and wrappers, consequences."""
import pytest
from casebook.evidence.cascade import CAUSE, DECORATION, FALLOUT, GENERIC, WRAPPER, _read_rules, classify, rules
from casebook.evidence.registry import extract_evidence
from casebook.reading.plog import read_plog
from conftest import write_log

HDR = "[ERROR] {mod}({pid},python):2026-03-14-10:{m:02d}:{s:02d}.000.000 [x.cc:1]{pid} F:"


def line(msg, pid=100, m=0, s=0, mod="RUNTIME"):
    return HDR.format(mod=mod, pid=pid, m=m, s=s) + msg + "\n"


def test_modelarts_device_side_incidents_per_device(corpus):
    ev = extract_evidence(read_plog(corpus / "modelarts-8rank-job"))
    device_side = [(i.device, i.rank, i.kind, i.first.time, i.first.file.rsplit("/", 1)[1], i.first.line)
                   for i in ev.incidents if i.pid is None and i.kind in ("hardware_error", "hwts_timeout")]
    assert device_side == [   # the rank is the one whose process drove that device (rank n on device n here)
        (2, 2, "hardware_error", "2021-10-05T23:07:08.350128", "device-os_20230607152207758.log", 4),
        (0, 0, "hwts_timeout", "2023-06-10T13:16:11.401438", "device-0_20230607152210099.log", 1),
        (0, 0, "hwts_timeout", "2023-06-10T13:39:55.814902", "device-0_20230607152210099.log", 21),
    ]
    hw = next(e for e in ev.device_events if e.kind == "hardware_error")
    # the kernel log's [Hardware Error] block and the bbox record of device 2 name one physical address: one event
    assert (hw.device, hw.code, len(hw.refs)) == (2, "0x400cd8d202e0", 9)
    assert "device_log/hisi_logs/device-0/20230713162044-070000011/bbox/driver.txt" in {r.file for r in hw.refs}
    timeout = next(e for e in ev.device_events if e.kind == "hwts_timeout")
    assert (timeout.device, timeout.code, timeout.text) == (0, "0xb4060007", "notify wait timeout")
    first_burst = next(i for i in ev.incidents if i.kind == "hwts_timeout")
    assert first_burst.cascade == 4 and first_burst.last_time == "2023-06-10T13:16:11.401825"
    others = {(i.device, i.kind) for i in ev.incidents if i.pid is None}
    assert {(1, "ts_exception"), (0, "ts_exception"), (0, "driver_exception"), (3, "pcie_error")} <= others


def test_hccl_link_failure_is_each_workers_incident(corpus):
    ev = extract_evidence(read_plog(corpus / "hccl-event-timeout-2workers"))
    got = {(i.node, i.rank, i.kind, i.first.line, i.first.text.split("|")[1].strip()) for i in ev.incidents}
    assert got == {("worker-0", 0, "link_failure", 5, "124.0.0.11(1)"), ("worker-1", 1, "link_failure", 5, "124.0.0.21(0)"),
                   ("worker-1", 2, "link_failure", 5, "3.0.0.0(3)")}
    # table borders and headings are layout, not errors; what follows the row is the failed op
    assert all(i.cascade == 1 and i.roles == {"cause": 1} for i in ev.incidents)


@pytest.mark.parametrize("text,role", [
    ("rtFree failed, runtime result = 507899", FALLOUT), ("ErrCode=107022, device task abort", FALLOUT),
    ("TBE Subprocess[task_distribute] raise error[], main process disappeared!", FALLOUT),
    ("aicpu exception, error code is 507018", GENERIC), ("[ERROR] ERR00100 PTA call acl api failed", WRAPPER),
    ("RuntimeError: npuSynchronizeDevice: error code is 507015", WRAPPER),
    ("Stream Synchronize failed, stream_id=2, retCode=0x26, [aicore exception].", WRAPPER),
    ("  _________________________LINK_ERROR_INFO___________", DECORATION),
    ("Kernel task happen error, retCode=0x26, [aicore exception].", CAUSE),
])
def test_cascade_roles(text, role):
    assert classify(text)[0] == role


def test_rules_table_loads_with_known_roles():
    assert len(rules()) >= 20 and all(r.role and r.why for r in rules())
    # read anew (rules() keeps its first reading): the row standing for the format catalog has no regex to narrow
    table = _read_rules()
    assert table == rules() and [(r.role, r.kind, r.needs) for r in table if r.pattern is None] == [("cause", None, None)]


def test_fallout_and_wrappers_never_stand_as_the_first_failure(tmp_path):
    text = (line("rtFree failed, runtime result = 507899", s=1) + line("aicpu exception, error code is 507018", s=2)
            + line("Kernel task happen error, device_id=0, retCode=0x26, [aicore exception].", s=3)
            + line("Stream Synchronize failed, stream_id=2, retCode=0x26", s=4))
    ev = extract_evidence(read_plog(write_log(tmp_path, "plog-100_20260314100000000.log", text)))
    (inc,) = ev.incidents
    assert (inc.first.line, inc.kind, inc.cascade) == (3, "aicore_exception", 3)
    assert inc.roles == {"fallout": 1, "generic": 1, "wrapper": 1}
    assert ev.first_error.line == 3


def test_hccl_timeout_after_another_devices_fault_is_a_consequence(tmp_path):
    write_log(tmp_path, "plog/plog-100_20260314100000000.log",
              line("Kernel task happen error, device_id=0, retCode=0x26, [aicore exception].", m=0))
    write_log(tmp_path, "plog/plog-200_20260314100000000.log",
              line("EI0002: The wait execution of the Notify register times out. device_id=1", pid=200, m=5, mod="HCCL"))
    write_log(tmp_path, "plog/plog-300_20260314100000000.log",
              line("EI0002: The wait execution of the Notify register times out. device_id=2", pid=300, m=59, mod="HCCL"))
    ev = extract_evidence(read_plog(tmp_path))
    by_dev = {i.device: i for i in ev.incidents}
    assert by_dev[0].role == "cause" and by_dev[0].kind == "aicore_exception"
    assert by_dev[1].role == "consequence" and "AI Core exception on device 0" in by_dev[1].because
    assert by_dev[2].role == "cause"          # 59 minutes later is past HCCL's own timeout: not taken as fallout


def test_a_burst_is_one_incident_and_a_gap_starts_another(tmp_path):
    text = (line("hwts timeout exception device_id=0", s=0) + line("hwts timeout exception device_id=0", s=30)
            + line("hwts timeout exception device_id=0", m=5))
    ev = extract_evidence(read_plog(write_log(tmp_path, "plog-100_20260314100000000.log", text)))
    assert [(i.first.line, i.cascade) for i in ev.incidents] == [(1, 1), (3, 0)]


def test_a_consequence_on_another_node_names_the_node_of_the_fault_it_follows(tmp_path):
    # device 0 of worker-0 and device 0 of worker-1 are two devices: the reader must be told which one failed first
    write_log(tmp_path, "worker-0/plog/plog-100_20260314100000000.log",
              line("Kernel task happen error, device_id=0, retCode=0x26, [aicore exception].", m=0))
    write_log(tmp_path, "worker-1/plog/plog-200_20260314100000000.log",
              line("EI0002: The wait execution of the Notify register times out. device_id=0", pid=200, m=5, mod="HCCL"))
    ev = extract_evidence(read_plog(tmp_path))
    cause, consequence = ev.incidents
    assert (cause.node, cause.role, consequence.node, consequence.role) == ("worker-0", "cause", "worker-1", "consequence")
    assert str(consequence.because) == ("AI Core exception on device 0 of worker-0 at 2026-03-14T10:00:00.000000 "
                                        "(worker-0/plog/plog-100_20260314100000000.log:1) came first")
