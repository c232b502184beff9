"""AI Core faults: codes, pc start / current, device dumps, the walk's tables and figures, the JSON fields."""
from pathlib import Path

from casebook.evidence import aicore
from casebook.evidence.registry import extract_evidence
from casebook.judging.contract import to_dict, validate
from casebook.judging.triage import triage
from casebook.knowledge.addresses import CONSISTENT, PC_CURRENT_MISMATCH, PC_START_SUSPECT, UNKNOWN
from casebook.knowledge.errcode import NO_BIT_TEXT, decode_bit_list, meaning, parse_bit_list
from casebook.presenting import walk
from casebook.reading.plog import read_plog
from conftest import write_log
from matplotlib.figure import Figure

HDR = "[ERROR] RUNTIME(100,python):2026-03-14-10:00:{s:02d}.{ms:03d}.000 [x.cc:1]100 F:"


def line(msg, s=0, ms=0):
    return HDR.format(s=s, ms=ms) + msg + "\n"


def report(dev, serial, core, pc, cur, ec="0", what="there is an exception of aicore error"):
    return line(f"The error from device(chipId:{dev}, dieId:0), serial number is {serial}, {what}, core id is {core}, "
                f"error code = {ec}, dump info: pc start: {pc}, current: {cur}, vec error info: 0, mte error info: 0.")


def kernel(dev, name, task=1):
    return line(f"Aicore kernel execute failed, device_id={dev}, stream_id=2, report_stream_id=2, task_id={task}, "
                f"flip_num=0, fault kernel_name={name}, program id=1, hash=1.")


def binsize(name, size):
    return line(f"kernel_name={name}, kernelNameSize=20, binSize={size}.")


def faults_of(tmp_path, text, name="plog-100_20260314100000000.log"):
    return extract_evidence(read_plog(write_log(tmp_path, name, text))).aicore_faults


def test_gatherv2_decoded_with_verdict_and_reason(corpus):
    t = triage(corpus / "aicore-gatherv2-asys")
    (f,) = t.evidence.aicore_faults        # plog-370 and plog-1216 both report serial 367: counted once
    assert {r.file.rsplit("/", 1)[1][:9] for r in f.refs if r.line == 8368} == {"plog-370_", "plog-1216"}
    assert (f.error_code, f.error_bits, f.op, f.ret_code) == (0x10, ["CCU_ILLEGAL_INSTR"], "GatherV2", "0x26")
    assert (f.stream_id, f.task_id, f.family) == (2, 6, "stars")
    doc = to_dict(t)
    validate(doc)
    (j,) = doc["aicore_faults"]
    assert (j["offset"], j["offset_msaicerr"], j["offset_agrees"]) == ("0x3d2c", "0x3d2c", True)
    assert (j["pc_start"], j["pc_start_raw"], j["current"]) == ("0x124080064000", "0x1000124080064000", "0x124080067d2c")
    assert j["pc_verdict"] == UNKNOWN and "no binSize line" in j["pc_reason"] and "INFO" in j["pc_collect"]
    assert j["error_meanings"]["CCU_ILLEGAL_INSTR"].startswith("The scalar unit met an instruction")


def test_old_layout_device_dump_tied_to_the_hosts_gatherv2_kernel(corpus):
    ev = extract_evidence(read_plog(corpus / "aicore-old-slog-layout"))
    (f,) = ev.aicore_faults
    assert (f.file, f.line) == ("slog/device-0/device-0_20200909152235075.log", 204)
    assert (f.device, f.stream_id, f.task_id, f.cores) == (0, 523, 2, list(range(16)))
    assert (f.error_code, f.error_bits, f.family) == (0x10, ["CCU_ILLEGAL_INSTR"], "old")
    assert (f.pc_start_raw, f.current_raw) == (0x1000100800018000, 0x100800018130)
    assert (f.kernel, f.op) == ("0_1_GatherV2", "GatherV2")
    assert ("slog/host-0/host-0_20200909152234009.log", 2743) in {(r.file, r.line) for r in f.refs}
    assert any("equals the function address the host logged at launch" in n and ":2548" in n for n in f.notes)
    (dump,) = [d for d in ev.device_dumps if d.kind == "aicore_exception"]
    assert (dump.exception_code, len(dump.cores), dump.cores[0].aic_error) == ("0xb4060006", 16, 0x10)
    assert dump.time == f.time == "2020-09-09T15:22:37.885071"    # the dump's own TIME: field, to the microsecond


def test_error_code_zero_means_look_at_the_extend_info(tmp_path):
    (f,) = faults_of(tmp_path, report(0, 5, 1, "0x1000", "0x1100"))
    assert f.error_bits == [] and any("does not mean 'no error'" in n for n in f.notes)
    (f,) = faults_of(tmp_path, report(0, 5, 1, "0x1000", "0x1100")
                     + line("The extend info: errcode:(0, 0x8000, 0) errorStr: bus. fixp_error0 info: 0x0"), "b.log")
    assert f.error_bits == ["CCU_BUS_ERR"] and not any("does not mean" in n for n in f.notes)
    (f,) = faults_of(tmp_path, report(0, 5, 1, "0x1000", "0x1100")
                     + line("The extend info: errcode:(0, 0, 0) errorStr:  fixp_error0 info: 0x0"), "c.log")
    assert f.error_bits == [] and f.error_str == NO_BIT_TEXT


def test_950_decimal_bit_list_is_decoded_with_the_950_table(tmp_path):
    text = line("An error occurs on the device(chipId:1, dieId:0), the serial number is 9, the error is aicore error, "
                "core id is 3, error code = 4, 79, dump info: pc start: 0x2000, current: 0x2040, sc error info: 0, "
                "su error info: 0") + line("The extend info: errcode:(4, 79) errorStr: x subErrType: 0x1.")
    (f,) = faults_of(tmp_path, text)
    assert (f.family, f.device, f.serial, f.error_bit_list) == ("david", 1, 9, [4, 79])
    assert f.error_bits == ["CUBE_INVLD_INPUT", "MTE_ATM_ADD_ADDR_MISALIGN"]
    assert parse_bit_list("4 79") == [4, 79] and parse_bit_list("4, 79") == [4, 79]
    # indices from the runtime's enum: unit offsets 0/64/128/160/192/256/320/352 plus the position in the unit
    assert decode_bit_list([264, 341, 195, 1]) == [(264, "SU_CCU_BUS_ERR_T0"), (341, "VEC_UB_WRAP_AROUND"),
                                                   (195, "SC_BUS_RESP_TIMEOUT_ERR"), (1, None)]
    (g,) = faults_of(tmp_path, text.replace("4, 79", "1, 264"), "g.log")
    assert g.error_bits == ["SU_CCU_BUS_ERR_T0"] and any("[1] are not in the 950 table" in n for n in g.notes)
    # where the report line carries an errorStr of its own too, the one kept goes with the line that gave the bit
    # list: the report's when it lists the bits, the extend line's when the report gave a hex code (made-up mixes: no
    # public 950 log shows both)
    said = text.replace("su error info: 0", "su error info: 0 errorStr: from the report.")
    (h,) = faults_of(tmp_path, said, "h.log")
    (k,) = faults_of(tmp_path, said.replace("error code = 4, 79", "error code = 0x10"), "k.log")
    assert (h.error_bit_list, h.error_str, k.error_bit_list, k.error_str) == ([4, 79], "from the report", [4, 79], "x")


def test_outstanding_form_checks_the_second_pc_start(tmp_path):
    # the 950 runtime's outstanding report (device_error_proc_arch9201.cc): two tasks in flight on one core
    text = (line("The error from device(chipId:0, dieId:0), serial number is 3. There is an aicore error exception , "
                 "core id is 0, error code = 0x10, dump info: pc start: 0x5000, current:0x9040, sc error info: 0, "
                 "first pc start: 0x5000, first taskid: 1, first streamid: 2, second pc start: 0x9000, second taskid: 2, "
                 "second streamid: 2, isconcurrentexe:1.") + kernel(0, "Add_1") + binsize("Add_1", 0x100))
    (f,) = faults_of(tmp_path, text)
    assert (f.pc_start_first_raw, f.pc_start_raw) == (0x5000, 0x9000)
    assert f.pc.verdict == CONSISTENT and any("Outstanding report" in n for n in f.notes)


def test_msaicerr_low20_offset_disagrees_across_a_1mib_boundary(tmp_path):
    (f,) = faults_of(tmp_path, report(0, 1, 0, "0x1240800ff000", "0x124080100010"))
    assert any("low-20-bit offset is -0xfeff0" in n and "48-bit offset 0x1010" in n for n in f.notes)


def test_same_kernel_pc_start_compared_on_one_device_only(tmp_path):
    k = "FlashAttentionScoreGrad_8ac1_high_performance_1000"
    one_device = (report(3, 10, 1, "0x120000100000", "0x120000100100") + kernel(3, k, 1)
                  + report(3, 11, 2, "0x120000900000", "0x120000100200", what="there is an aivec error exception")
                  + kernel(3, k, 2) + binsize(k, 0x800))
    first, second = faults_of(tmp_path, one_device)
    assert first.pc.verdict == CONSISTENT
    assert second.pc.verdict == PC_START_SUSPECT and "plog-100_20260314100000000.log:1)" in second.pc.reason
    assert any("also reported with pc start 0x120000100000" in n for n in second.notes)
    two_devices = (report(3, 10, 1, "0x120000100000", "0x120000100100") + kernel(3, k, 1)
                   + report(4, 11, 2, "0x120000900000", "0x120000100200") + kernel(4, k, 2) + binsize(k, 0x800))
    a, b = faults_of(tmp_path, two_devices, "two.log")
    assert b.pc.verdict == PC_CURRENT_MISMATCH and not b.pc_peers    # each device loads its own copy


def test_cores_of_one_fault_merge_and_binsize_is_half_open(tmp_path):
    text = (report(0, 7, 1, "0x4000", "0x4100") + report(0, 7, 2, "0x4000", "0x4100") + kernel(0, "Mul_2")
            + binsize("Mul_2", 0x100))
    (f,) = faults_of(tmp_path, text)
    assert f.cores == [1, 2] and f.pc.verdict == PC_CURRENT_MISMATCH     # offset == binSize is outside


def test_walk_shows_decode_tables_and_the_address_plot(corpus):
    steps = {s.key: s for s in walk.build(triage(corpus / "aicore-gatherv2-asys"))}
    captions = [c for c, _ in steps["error_code"].tables]
    bits = dict(steps["error_code"].tables)["Error bits of the fault on device 0, serial 367"]
    assert bits.iloc[0][["word", "bit", "mask", "name"]].tolist() == ["a", 4, "0x10", "CCU_ILLEGAL_INSTR"]
    assert captions == ["Error bits of the fault on device 0, serial 367"]   # the codes are said once, in words
    said = [f for f in steps["error_code"].findings if f.strip().startswith("0x26:")]
    assert len(said) == 1 and "AI Core exception" in said[0]
    (caption, pc), = steps["pc_start"].tables
    values = dict(zip(pc["quantity"], pc["value"]))
    assert (values["offset = current - pc start"], values["msaicerr offset (low 20 bits)"]) == ("0x3d2c", "0x3d2c")
    assert values["binSize"] == "not logged" and values["verdict"] == UNKNOWN
    assert values["the two offsets agree"] == "yes"
    (make,) = steps["pc_start"].figures
    assert make.caption == "Address map of the AI Core fault on device 0, serial 367" and isinstance(make(), Figure)


def test_every_bit_has_a_meaning():
    assert meaning("CCU_BUS_ERR").startswith("A scalar load or store")
    assert meaning("CUBE_L0A_ECC") == "cube (matrix) unit: multi-bit memory error: hardware, see the RAS alarms."
    assert meaning("VEC_UB_ADDR_WRAP_AROUND").startswith("vector unit: address ran past the end")


def test_a_kernel_line_without_a_core_report_is_a_fault_of_its_own():
    captures = Path(__file__).resolve().parent / "captures"
    (fault,) = aicore.extract(read_plog(next(captures.glob("29-*")) / "capture.txt"))
    assert (fault.device, fault.kernel, fault.op, fault.stream_id, fault.task_id, fault.pc_start_raw, fault.line) == (
        3, "ApplyTopKTopPWithSorted_fp32_high_performance_0", "ApplyTopKTopPWithSorted", 2, 35872, None, 2)
    assert fault.pc.verdict == UNKNOWN
    (quoted,) = aicore.extract(read_plog(next(captures.glob("41-*")) / "capture.txt"))
    assert (quoted.device, quoted.op, quoted.stream_id, quoted.task_id, quoted.line, quoted.src_line) == (
        0, "Add", 3, 12, 8, 20436)


def test_a_retcode_naming_its_device_belongs_to_that_devices_fault_only(tmp_path):
    # the runtime's task-fail callback names stream and task but carries the device only as device_id=N in its words
    text = (report(0, 5, 1, "0x1000", "0x1100") + report(1, 6, 2, "0x2000", "0x2100")
            + line("Task fail callback, device_id=1, stream_id=2, exposed_stream_id=2, exception_task_id=7, "
                   "retCode=0x26, [aicore exception]"))
    on0, on1 = faults_of(tmp_path, text)
    assert [(f.device, f.ret_code, f.stream_id, f.task_id, [r.line for r in f.refs]) for f in (on0, on1)] == [
        (0, None, None, None, [1]), (1, "0x26", 2, 7, [2, 3])]


def test_a_fault_reported_in_a_plog_and_its_screen_copy_is_located_in_the_plog(tmp_path):
    # the same instant in both: the plog's line is the one a reader can open beside its neighbours
    plog = report(0, 5, 1, "0x1000", "0x1100")
    write_log(tmp_path, "plog/plog-100_20260314100000000.log", plog)
    write_log(tmp_path, "console.txt", "EZ9999: [PID: 100] 2026-03-14-10:00:00.000.000 " + plog.split(" F:", 1)[1])
    (f,) = aicore.extract(read_plog(tmp_path))
    assert [(r.file, r.line) for r in f.refs] == [("plog/plog-100_20260314100000000.log", 1), ("console.txt", 1)]
    assert (f.file, f.line, f.time) == ("plog/plog-100_20260314100000000.log", 1, "2026-03-14T10:00:00.000000")


def test_a_kernel_line_in_another_plog_of_the_same_node_names_the_faults_kernel(tmp_path):
    # a node's debug and run plogs split one process's lines: the kernel line may be in the other file
    report_at = "worker-0/process_log/debug/plog/plog-100_20260314100000000.log"
    kernel_at = "worker-0/process_log/run/plog/plog-100_20260314100001000.log"
    write_log(tmp_path, report_at, report(0, 5, 1, "0x1000", "0x1100"))
    write_log(tmp_path, kernel_at, kernel(0, "Mul_2", 4))
    (f,) = aicore.extract(read_plog(tmp_path))
    assert (f.node, f.file, f.kernel, f.op, f.stream_id, f.task_id) == ("worker-0", report_at, "Mul_2", "Mul", 2, 4)
    assert [(r.file, r.line) for r in f.refs] == [(report_at, 1), (kernel_at, 1)]
