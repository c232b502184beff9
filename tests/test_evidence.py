"""Evidence on the real corpus and on small inline logs: every item points to its file and line."""
import pytest
from casebook.evidence.registry import EXTRACTORS, KEEP, extract_evidence
from casebook.knowledge.addresses import (CONSISTENT, CURRENT_SUSPECT, PC_CURRENT_MISMATCH, PC_START_SUSPECT,
                                          UNKNOWN, KernelRange, judge, msaicerr_offset, offset)
from casebook.knowledge.errcode import bit_table, decode_error_code, decode_triple
from casebook.knowledge.kernels import op_of
from casebook.reading.plog import read_plog
from conftest import write_log

HDR = "[{lvl}] RUNTIME({pid},python):2026-03-14-10:00:{s:02d}.000.000 [x.cc:1]{tid} {func}:"


def line(msg, lvl="ERROR", pid=100, tid=100, s=0, func="F"):
    return HDR.format(lvl=lvl, pid=pid, tid=tid, s=s, func=func) + msg + "\n"


def test_registry_lists_every_family():
    assert list(EXTRACTORS) == ["first_error", "first_errors", "aicore_faults", "topology", "codes", "incidents",
                                "device_dumps", "device_events", "rejections", "facts"]


def test_gatherv2_fault_from_the_asys_collection(corpus):
    log = read_plog(corpus / "aicore-gatherv2-asys")
    ev = extract_evidence(log)
    assert len(ev.aicore_faults) == 1        # reported in two copies of the same plog: one fault
    f = ev.aicore_faults[0]
    assert (f.device, f.serial, f.cores) == (0, 367, [0])
    assert (f.kernel, f.op) == ("2_0_11_GatherV2", "GatherV2")
    assert (f.pc_start_raw, f.current_raw) == (0x1000124080064000, 0x124080067D2C)
    assert offset(f.pc_start_raw, f.current_raw) == 0x3D2C
    assert f.error_code == 0x10 and f.error_bits == ["CCU_ILLEGAL_INSTR"]
    assert f.ret_code == "0x26"
    assert f.error_str.startswith("Illegal instruction")
    assert f.pc.verdict == UNKNOWN and "INFO" in f.pc.collect
    assert all(log.records[(log.records.file == r.file) & (log.records.line == r.line)].msg.iloc[0] == r.text
               for r in f.refs)
    assert ev.first_error.code == "0x26" and ev.first_error.line == 8363
    assert ev.topology.single_process_multi_device is False
    assert {"507015", "0x26", "EZ9999"} <= {c.code for c in ev.codes}


def test_hccl_link_failure_on_each_worker(corpus):
    ev = extract_evidence(read_plog(corpus / "hccl-event-timeout-2workers"))
    assert {e.node for e in ev.first_errors} == {"worker-0", "worker-1"}
    assert ev.topology.single_process_multi_device is None    # peers named by HCCL prove nothing
    assert ev.aicore_faults == []


def test_fault_wordings_multi_core_merge_extend_info_and_kernel(tmp_path):
    text = (
        line("The error from device(chipId:3, dieId:0), serial number is 2569, there is an exception of fftsplus aicore "
             "error, core id is 18, error code = 0, dump info: pc start: 0x12c0ff812000, current: 0x12c1000a3f8c, vec "
             "error info: 0, mte error info: 0, ifu error info: 0, ccu error info: 0, cube error info: 0, biu error "
             "info: 0, aic error mask: 0, para base: 0x12c100000080.")
        + line("The extend info: errcode:(0, 0x8000, 0) errorStr: The scalar instruction accesses an invalid GM "
               "address. fixp_error0 info: 0x30000e0, fixp_error1 info: 0xbd, fsmId:1.")
        + line("The error from device(chipId:3, dieId:0), serial number is 2569, there is an aivec error exception, "
               "core id is 19, error code = 0, dump info: pc start: 0x12c0ff812000, current: 0x12c1000a3f90, vec error")
        + line("Kernel task happen error, retCode=0x26, [aicore exception].")
        + line("Aicore kernel execute failed, device_id=3, stream_id=2, report_stream_id=2, task_id=7, flip_num=0, "
               "fault kernel_name=FlashAttentionScoreGrad_8ac1_high_performance_1000, program id=41, hash=1.")
        + line("kernel_name=FlashAttentionScoreGrad_8ac1_high_performance_1000, kernelNameSize=50, binSize=187392.",
               lvl="INFO"))
    ev = extract_evidence(read_plog(write_log(tmp_path, "plog-100_20260314100000000.log", text)))
    (f,) = ev.aicore_faults
    assert (f.device, f.serial, f.cores, f.wording) == (3, 2569, [18, 19], "fftsplus aicore error")
    assert f.errcode == (0, 0x8000, 0) and f.error_bits == ["CCU_BUS_ERR"]
    assert (f.op, f.ret_code, f.bin_size) == ("FlashAttentionScoreGrad", "0x26", 187392)
    assert f.pc.verdict == PC_CURRENT_MISMATCH
    assert [r.line for r in f.refs] == [1, 2, 3, 4, 5, 6]


def test_topology_needs_threads_setting_devices(tmp_path):
    many = "".join(line(f"set device, device_id={d}", lvl="INFO", tid=200 + d, func="SetDevice") for d in range(4))
    ev = extract_evidence(read_plog(write_log(tmp_path, "a/plog-100_20260314100000000.log", many)))
    (p,) = ev.topology.processes
    assert sorted(p.devices) == [0, 1, 2, 3] and ev.topology.single_process_multi_device is True
    one_thread = "".join(line(f"set device, device_id={d}", lvl="INFO", tid=7, func="SetDevice") for d in range(2))
    ev = extract_evidence(read_plog(write_log(tmp_path, "b/plog-100_20260314100000000.log", one_thread)))
    assert ev.topology.single_process_multi_device is False
    hccl = "[ERROR] HCCL(100,python):2026-03-14-10:00:00.000.000 [h.cc:1][5] peer device_id=3 rank[3] timeout\n"
    ev = extract_evidence(read_plog(write_log(tmp_path, "c/plog-100_20260314100000000.log", hccl)))
    assert ev.topology.single_process_multi_device is None


def test_first_error_per_process_and_overall(tmp_path):
    write_log(tmp_path, "plog-1_20260314100000000.log", line("late", pid=1, s=9) + line("first of 1", pid=1, s=5))
    write_log(tmp_path, "plog-2_20260314100000000.log", line("earliest device_id=4", pid=2, s=3))
    ev = extract_evidence(read_plog(tmp_path))
    assert (ev.first_error.text, ev.first_error.pid, ev.first_error.device) == ("earliest device_id=4", 2, 4)
    assert {(e.pid, e.text) for e in ev.first_errors} == {(1, "first of 1"), (2, "earliest device_id=4")}


def test_settings_printed_in_logs_become_facts(tmp_path):
    ev = extract_evidence(read_plog(write_log(tmp_path, "env.txt", "PATH=/usr/bin\nTASK_QUEUE_ENABLE=2\n")))
    fact = ev.facts["TASK_QUEUE_ENABLE"]
    assert (fact.value, fact.source, fact.file, fact.line) == ("2", "log", "env.txt", 2)


def test_hccl_stating_a_variable_it_read_is_a_setting(tmp_path):
    """HCCL's start-up line for each variable it reads (externalinput.cc), as mind-cluster's scenarios carry it."""
    line = ("[INFO] HCCL(114725,python3):2025-06-19-09:27:24.674.879 [externalinput.cc:985] [114725]HCCL_EXEC_TIMEOUT "
            "set by environment to [600]s\n")
    fact = extract_evidence(read_plog(write_log(tmp_path, "plog-114725_1.log", line))).facts["HCCL_EXEC_TIMEOUT"]
    assert (fact.value, fact.line) == ("600", 1)


@pytest.mark.parametrize("line,value", [
    ("""$ vllm serve m --additional-config '{"enable_flashcomm1": true, "multistream_overlap_shared_expert": true}'""",
     "true"),
    ("additional_config={'multistream_overlap_shared_expert': False, 'enable_flashcomm1': True}", "False"),
    ("multistream_overlap_shared_expert: true", "true")])
def test_a_config_key_quoted_in_json_or_a_dict_becomes_a_fact(tmp_path, line, value):
    ev = extract_evidence(read_plog(write_log(tmp_path, "console.log", f"INFO starting\n{line}\n")))
    fact = ev.facts["multistream_overlap_shared_expert"]
    assert (fact.value, fact.file, fact.line) == (value, "console.log", 2)


def test_errcode_table_and_decoding():
    assert len(bit_table()) == 176
    assert [b.name for b in decode_triple(0, 0x8000, 0)] == ["CCU_BUS_ERR"]
    assert decode_triple(0, 0x8000, 0)[0].index == 79
    assert [b.name for b in decode_triple(0x200000000, 0, 0)] == ["MTE_GDMA_WRITE_OVERFLOW"]
    assert [b.name for b in decode_error_code(0x10)] == ["CCU_ILLEGAL_INSTR"]
    assert [b.index for b in decode_triple(0, 0, 1 << 32)] == [145]
    assert decode_triple(0, 0, 0) == []


@pytest.mark.parametrize("kernel,op", [("2_0_11_GatherV2", "GatherV2"), ("0_1_GatherV2", "GatherV2"),
                                       ("Add_ee98c6628030785f610b924ab1557b31_high_performance_210000000", "Add"),
                                       ("16805736118314619649-1_0_1_Add_35", "Add"),
                                       ("MatMulV3_1a2b_mix_aic", "MatMulV3")])
def test_op_from_kernel_name(kernel, op):
    assert op_of(kernel) == op


def test_pc_verdicts():
    assert offset(0x1000124080064000, 0x124080067D2C) == 0x3D2C == msaicerr_offset(0x1000124080064000, 0x124080067D2C)
    assert judge(0x1000, 0x1100, None).verdict == UNKNOWN
    assert judge(0x1000, 0x1100, 0x200).verdict == CONSISTENT
    assert judge(0x1000, 0x1200, 0x200).verdict == PC_CURRENT_MISMATCH      # half-open: end is outside
    assert judge(0x1000, 0x0FF0, 0x200).verdict == PC_CURRENT_MISMATCH
    real = [KernelRange(0x9000, 0x200, "plog:12")]
    assert judge(0x1000, 0x9100, 0x200, real).verdict == PC_START_SUSPECT
    assert judge(0x9000, 0x1100, 0x200, real).verdict == CURRENT_SUSPECT


def test_versions_from_log_lines(corpus, tmp_path):
    ev = extract_evidence(read_plog(corpus / "aicore-gatherv2-asys"))
    cann = ev.facts["cann_version"]
    assert (cann.value, cann.note, cann.line) == ("6.4", "from the install path", 879)
    assert ev.facts["soc_version"].value == "Ascend910A"
    text = (line("torch_npu version: 2.1.0.post3", lvl="INFO") + line("CANN version: 8.0.RC3", lvl="INFO")
            + line("load /usr/local/Ascend/ascend-toolkit/7.0.0/lib64/libruntime.so", lvl="INFO")
            + line("driver version: 24.1.rc2", lvl="INFO") + line("firmware version: 7.5.0.1.220", lvl="INFO"))
    facts = extract_evidence(read_plog(write_log(tmp_path, "plog-100_20260314100000000.log", text))).facts
    assert {k: f.value for k, f in facts.items() if k.endswith("version")} == {
        "torch_npu_version": "2.1.0.post3", "cann_version": "8.0.RC3", "npu_driver_version": "24.1.rc2",
        "firmware_version": "7.5.0.1.220"}
    assert facts["cann_version"].note is None and facts["cann_version"].line == 2   # stated beats the path hint
    # INFO lines of a plog are kept for what they name a version of, in the spellings logs use; a bare "version"
    # names none
    text = (line("Driver Version: 24.1.0", lvl="INFO") + line("NumPy version: 1.26.4", lvl="INFO")
            + line("socVersion is Ascend910B3", lvl="INFO")
            + line("te_set_version is deprecated, version=1", lvl="INFO"))
    log = read_plog(write_log(tmp_path, "plog-101_20260314100000000.log", text), keep=KEEP)
    facts = extract_evidence(log).facts
    assert {k: f.value for k, f in facts.items() if k.endswith("version")} == {
        "npu_driver_version": "24.1.0", "numpy_version": "1.26.4", "soc_version": "Ascend910B3"}
    assert sorted(log.records["line"]) == [1, 2, 3]


def test_two_device_events_are_one_when_their_kind_place_and_code_or_second_agree():
    from casebook.evidence.hardware import _same
    from casebook.evidence.items import DeviceEvent

    def ev(kind="ts_exception", device=0, node=None, time="2026-01-01T00:00:00.100", code="0x1"):
        return DeviceEvent(kind, node, device, "f", 1, time, code, "t")

    assert _same(ev("hardware_error", code="0xA"), ev("hardware_error", device=3, code="0xA"))
    assert not _same(ev("hardware_error", code=None), ev("hardware_error", code=None))
    assert not _same(ev(), ev(kind="driver_exception")) and not _same(ev(), ev(device=1))
    assert not _same(ev(), ev(node="n1"))
    # a PCIe fault: the same second, whatever the code; no time, no match
    assert _same(ev("pcie_error", code="1"), ev("pcie_error", code="2", time="2026-01-01T00:00:00.900"))
    assert not _same(ev("pcie_error"), ev("pcie_error", time="2026-01-01T00:00:01.000"))
    assert not _same(ev("pcie_error", time=None), ev("pcie_error"))
    assert not _same(ev("pcie_error"), ev("pcie_error", time=None))
    # others: the same code, and the same second unless one has no time (a bbox detail file)
    assert _same(ev(), ev(time="2026-01-01T00:00:00.999")) and _same(ev(time=None), ev())
    assert _same(ev(), ev(time=None))
    assert not _same(ev(), ev(code="0x2")) and not _same(ev(code=None), ev(code=None))
    assert not _same(ev(), ev(time="2026-01-01T00:00:01.000"))


def test_device_os_memory_errors_are_events_of_their_node_and_line(tmp_path):
    # a [Hardware Error] block is one event located at its first line; a driver line naming a multi-bit ECC error
    # in its own words (no catalog form, no address) is an event too, on the device it names
    kernel = "[ERROR] KERNEL(3551,sklogd):2021-10-05-23:07:08.{ms:03d}.128 [klogd.c:242][583733.716899] "
    text = (kernel.format(ms=350) + "{1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 0\n"
            + kernel.format(ms=351) + "{1}[Hardware Error]:   section_type: memory error\n"
            + kernel.format(ms=352) + "{1}[Hardware Error]:   physical_address: 0x0000400cd8d202e0\n"
            + kernel.format(ms=400) + "[ascend] [ERROR] [devdrv] hbm Multi Bit Ecc found, devid=1\n")
    name = "worker-0/device_log/slog/dev-os-3/debug/device-os/device-os_20230607152207758.log"
    write_log(tmp_path, name, text)
    events = extract_evidence(read_plog(tmp_path)).device_events
    assert [(e.kind, e.node, e.device, e.file, e.line, e.time, e.code, [r.line for r in e.refs]) for e in events] == [
        ("hardware_error", "worker-0", 3, name, 1, "2021-10-05T23:07:08.350128", "0x400cd8d202e0", [1, 2, 3]),
        ("hardware_error", "worker-0", 1, name, 4, "2021-10-05T23:07:08.400128", None, [4])]
