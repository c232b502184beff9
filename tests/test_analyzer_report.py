"""The AI Core Error Analyzer's report (msaicerr's info.txt) as an AI Core fault, in the 2020 and current layouts."""
from pathlib import Path

from casebook.evidence import aicore, analyzer_report
from casebook.reading.plog import read_plog
from conftest import write_log

CAPTURES = Path(__file__).resolve().parent / "captures"
# the current layout (padded colons, the register as AIC_ERROR), with values of our own
CURRENT = """\
***********************1. Basic information********************
error time        : 2025-03-02-11:20:05.118.204
device id         : 6
core id           : 17
task id           : 9
stream id         : 4
node name         : FlashAttentionScore_7
kernel name       : FlashAttentionScore_5d0c7e19a4b2f83e_high_performance_1
***********************2. AI Core DFX Register***********************
AIC_ERROR        : 0x800000
***********************3. Operator Error Line Number************************
start pc          : 0x12c0c2e05000
current pc        : 0x12c0c2e0595c
"""


def test_the_2020_report_of_the_capture_set_is_one_fault():
    log = read_plog(next(CAPTURES.glob("43-*")) / "capture.txt")
    (fault,) = analyzer_report.extract(log)
    assert (fault.device, fault.kernel, fault.op, hex(fault.pc_start_raw), hex(fault.current_raw), fault.error_code,
            fault.family, fault.line) == (0, "te_transdata_3a91c07d52e4b8f16_8c2d4a7e19f0b53c", "TransData",
                                          "0x101000185000", "0x1010001852a8", 0x10, "old", 3)
    assert [r.line for r in fault.refs] == [3, 7, 8, 12, 16, 17]
    (judged,) = aicore.extract(log)
    assert judged.kernel == fault.kernel and judged.pc.verdict == "unknown"   # no binSize: the offset is 0x2a8


def test_the_current_layout_and_two_reports_in_one_file(tmp_path):
    second = CURRENT.replace("device id         : 6", "device id         : 7").replace("0x12c0c2e0595c", "0x12c0c2e05010")
    log = read_plog(write_log(tmp_path, "info.txt", CURRENT + second))
    faults = analyzer_report.extract(log)
    assert [(f.device, f.op, f.error_code, hex(f.current_raw)) for f in faults] == [
        (6, "FlashAttentionScore", 0x800000, "0x12c0c2e0595c"), (7, "FlashAttentionScore", 0x800000, "0x12c0c2e05010")]


def test_a_report_without_kernel_or_registers_is_no_fault(tmp_path):
    log = read_plog(write_log(tmp_path, "info.txt", "device id : 0\ncore id : 3\ncode : 0x10\n"))
    assert analyzer_report.extract(log) == []


def test_a_report_is_worded_as_the_analyzers_and_names_no_device_it_does_not_state(tmp_path):
    (fault,) = analyzer_report.extract(read_plog(write_log(tmp_path, "info.txt", CURRENT)))
    assert fault.wording == "AI Core Error Analyzer report" and fault.device == 6 and fault.serial is None
    quiet = CURRENT.replace("device id         : 6\n", "")
    (fault,) = analyzer_report.extract(read_plog(write_log(tmp_path / "b", "info.txt", quiet)))
    assert fault.device is None and fault.op == "FlashAttentionScore"
