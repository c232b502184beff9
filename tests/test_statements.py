"""Lines that state a cause in words become the fact they state, cited to their line."""
import pytest
from casebook.evidence.statements import extract
from casebook.judging.triage import triage
from casebook.reading.plog import read_plog
from conftest import write_log


@pytest.mark.parametrize("line", [
    "Malloc device memory failed, free memory size is less than half of total memory size.Device 0 Device MOC total "
    "size:34359738368 Device MOC free size:2140602368 may be other processes occupying this card, check as: ps -ef",
    "RuntimeError: Initialize: the device may be occupied by other processes, please check npu-smi info",
])
def test_a_line_that_says_the_card_is_taken_states_the_fact(tmp_path, line):
    log = read_plog(write_log(tmp_path, "console.log", "Traceback (most recent call last):\n" + line + "\n"))
    fact = extract(log)["other_processes_on_card"]
    assert (fact.value, fact.source, fact.file, fact.line) == (True, "log", "console.log", 2)


def test_a_line_without_such_words_states_nothing(tmp_path):
    log = read_plog(write_log(tmp_path, "console.log", "RuntimeError: NPU out of memory. occupying 3 GiB\n"))
    assert extract(log) == {}


def test_the_stated_fact_is_not_asked_again(tmp_path):
    t = triage(write_log(tmp_path, "console.log", "[ERROR] DEVICE(100,python):2026-02-14-11:06:37.483.027 "
                                                  "[kernel_runtime.cc:138] Malloc device memory failed, free memory "
                                                  "size is less than half of total memory size. may be other "
                                                  "processes occupying this card\n"))
    assert t.diagnosis is not None and t.diagnosis.case.id == "oom-memory-held-outside-job"
    assert t.diagnosis.verdict == "confirmed"
    assert all(m.fact != "other_processes_on_card" for m in t.questions)


def test_the_kernel_saying_another_container_holds_the_card_states_the_fact(tmp_path):
    log = read_plog(write_log(tmp_path, "dmesg.txt",
                              "[61207.451028] [ascend] [ERROR] [devdrv] [devdrv_manager_container_get_devlist_ns 1210] "
                              "<python3:2189> some devices are used by other docker, mnt_ns = 0xffff9c41e2a87d40\n"))
    fact = extract(log)["card_held_by_other_container"]
    assert (fact.value, fact.file, fact.line) == (True, "dmesg.txt", 1)


def test_pip_naming_a_missing_requirement_of_a_cann_package_states_the_fact(tmp_path):
    log = read_plog(write_log(tmp_path, "console.log",
                              "ERROR: pip's dependency resolver does not currently take into account all the packages "
                              "that are installed.\nrequests 2.31.0 requires idna, which is not installed.\n"
                              "te 0.4.0 requires cloudpickle, which is not installed.\n"))
    fact = extract(log)["cann_python_deps_installed"]
    assert (fact.value, fact.line) == (False, 3)   # requests is no CANN package: its line states nothing


def test_a_triage_of_the_kernel_lines_confirms_the_card_held_elsewhere(tmp_path):
    t = triage(write_log(tmp_path, "capture.txt",
                         "[83412.220913] [ascend] [ERROR] [devdrv] [devdrv_manager_container_table_devlist_add_ns 832] "
                         "<python3:40311> device is in used\n"
                         "[83412.223382] [ascend] [ERROR] [devdrv] [devdrv_manager_container_get_devlist_ns 1210] "
                         "<python3:40311> some devices are used by other docker, mnt_ns = 0xffff2e9a1c04b380\n"))
    assert t.diagnosis is not None and t.diagnosis.case.id == "device-held-by-another-container"
    assert t.diagnosis.verdict == "confirmed"
    assert all(m.fact != "card_held_by_other_container" for m in t.questions)


@pytest.mark.parametrize("line,fact,value", [
    ("[WARNING] ME(311:281473,MainProcess):2025-06-10-15:02:11.431.000 [mindspore/run_check/_check_version.py:357] "
     "MindSpore version 2.4.0 and Ascend AI software package (Ascend Data Center Solution)version 8.1 does not match, "
     "the version of software package expect one of ['8.0']", "mindspore_matches_cann", False),
    ("[WARNING] ME(311:281473,MainProcess):2025-06-10-15:02:12.102.000 [mindspore/run_check/_check_version.py:375] "
     "MindSpore version 2.4.0 and \"te\" wheel package version 8.1 does not match.", "mindspore_matches_cann", False),
    ("[WARNING] ME(311:281473,MainProcess):2025-06-10-15:02:11.000.000 [mindspore/run_check/_check_version.py:348] "
     "Using custom Ascend AI software package (Ascend Data Center Solution) path, package version checking is skipped.",
     "mindspore_version_checked", False),
])
def test_mindspores_version_check_states_its_finding_at_warning_level(tmp_path, line, fact, value):
    """A warning that states a cause is evidence: a fact, and a message the cases' signatures read (a line of no error
    level that an error line's observations would miss)."""
    path = write_log(tmp_path, "console.log", line + "\nSegmentation fault (core dumped)\n")
    assert extract(read_plog(path))[fact].value is value
    t = triage(path)
    if fact == "mindspore_matches_cann":   # the warning itself is the case's evidence, cited to its line
        assert t.diagnosis is not None and t.diagnosis.case.id == "mindspore-cann-version-mismatch"
        assert ("version_check_mismatch", 1) in {(i.id, i.line) for i in t.diagnosis.for_}
    else:
        assert t.diagnosis is None or t.diagnosis.case.id != "mindspore-cann-version-mismatch"


@pytest.mark.parametrize("lines,fact,value,case,signature", [
    # a CANN package's installer warns that it cannot write where it installs, then fails to create a folder there
    (["[Vendors] [2026-02-11 10:02:33] [WARNING] The directory /opt/Ascend/ascend-toolkit/latest/opp does not have "
      "sufficient permissions. Please check and modify the folder permissions (e.g., using chmod), or use the "
      "--install-path option to specify an installation path and change the environment variable.",
      "[Vendors] [2026-02-11 10:02:33] [ERROR] create /opt/Ascend/ascend-toolkit/latest/opp/vendors/customize/framework "
      "failed"], "install_path_writable", False, "file-permission-rejected", "security_check_rejected"),
    # pip puts a tool's command in a folder the shell does not search; running it by name then fails
    (["  WARNING: The script ascend-fd is installed in '/usr/local/python3.8/bin' which is not on PATH.",
      "  Consider adding this directory to PATH or, if you prefer to suppress this warning, use "
      "--no-warn-script-location.", "Successfully installed ascend-faultdiag-26.1.0"],
     "command_folder_on_path", False, "command-not-found-on-path", "installed_off_path"),
    # the system refusing a bind, logged at no level above the framework's ERROR that follows (MindSpore's cluster)
    (["Failed to call bind, url: 127.0.0.1:8118 Address already in use",
      "[ERROR] DISTRIBUTED(52,ffff8a2150f0,python):2026-01-08-09:12:41.310.214 [mindspore/ccsrc/distributed/cluster/"
      "topology/meta_server_node.cc:114] InitTCPServer] Failed to init the tcp server"],
     "port_in_use", True, "port-already-in-use", "bind_address_in_use"),
    # torch_npu's CPU fallback takes a CUDA serving library's own op, and the scheduler dies on it (sgl-project/sglang
    # issue 12545)
    (["[rank0]:[W1103 07:30:45.691519330 compiler_depend.ts:250] Warning: CAUTION: The operator "
      "'sglang::inplace_fused_experts' is not currently supported on the NPU backend and will fall back to run on the "
      "CPU. This may have performance implications. (function npu_cpu_fallback)",
      "[2025-11-03 07:30:46] Scheduler hit an exception: Traceback (most recent call last):",
      '  File "/usr/local/python3.11.13/lib/python3.11/site-packages/sglang/srt/managers/scheduler.py", line 2777, in '
      "run_scheduler_process"],
     "framework_op_runs_on_npu", False, "cuda-only-code-path-on-npu", "cuda_library_op_falls_back"),
])
def test_a_warning_that_states_where_a_step_will_fail_is_its_cause(tmp_path, lines, fact, value, case, signature):
    path = write_log(tmp_path, "console.log", "\n".join(lines) + "\n")
    assert extract(read_plog(path))[fact].value is value
    t = triage(path)
    assert t.diagnosis is not None and t.diagnosis.case.id == case
    assert (signature, 1) in {(i.id, i.line) for i in t.diagnosis.for_}
    assert fact not in {m.fact for m in t.questions}   # stated by the log, not asked


def test_a_path_warning_of_another_wording_states_nothing(tmp_path):
    path = write_log(tmp_path, "console.log", "WARNING: The repository located at mirrors.example is not a trusted or "
                                              "secure host and is being ignored.\n")
    assert {"command_folder_on_path", "install_path_writable"}.isdisjoint(extract(read_plog(path)))


def test_torchs_own_op_falling_back_to_the_cpu_states_nothing(tmp_path):
    # an aten op without an NPU kernel runs on the CPU, slower (LlamaFactory issue 4836): no CUDA path is taken
    path = write_log(tmp_path, "console.log", "[W VariableFallbackKernel.cpp:51] Warning: CAUTION: The operator "
                                              "'aten::isin.Tensor_Tensor_out' is not currently supported on the NPU "
                                              "backend and will fall back to run on the CPU. This may have performance "
                                              "implications. (function npu_cpu_fallback)\n")
    assert "framework_op_runs_on_npu" not in extract(read_plog(path))


def test_every_line_stating_a_fact_is_cited_by_the_case_that_names_it(tmp_path):
    # each rank's driver log says it: the fact is the first line's, and the sign the case names reads all of them
    lines = [f"[6120{k}.451028] [ascend] [ERROR] [devdrv] [devdrv_manager_container_get_devlist_ns 1210] "
             f"<python3:218{k}> some devices are used by other docker, mnt_ns = 0xffff9c41e2a87d4{k}" for k in range(3)]
    path = write_log(tmp_path, "dmesg.txt", "\n".join(lines) + "\n")
    fact = extract(read_plog(path))["card_held_by_other_container"]
    assert (fact.line, fact.more) == (1, (("dmesg.txt", 2), ("dmesg.txt", 3)))
    t = triage(path)
    assert t.diagnosis.case.id == "device-held-by-another-container"
    assert {("dmesg.txt", 1), ("dmesg.txt", 2), ("dmesg.txt", 3)} <= t.diagnosis.explains


@pytest.mark.parametrize("lines", [
    # gpustack/gpustack issue 5014: Ray's raylet, at WARNING level, measured the object store against /dev/shm
    ["[2026-03-25 05:44:29,435 W 39 39] (raylet) store_runner.cc:83: System memory request exceeds memory available "
     "in /dev/shm. The request is for 10200547328 bytes, and the amount available is 9663676416 bytes.",
     "2026-03-25 05:44:59,117\tERROR worker.py:1045 -- The raylet exited unexpectedly."],
    # an Ascend forum case: MindIE's model backend at ERROR level after it reported 64 MB of shared memory
    ["[2025-06-17 14:08:52.311+08:00] [5127] [5128] [mindie-server] [INFO] [share_memory.cpp:181] : [model_backend] "
     "Total shared memory size:64MB, and available shared memory size:63.625MB.",
     "[2025-06-17 14:08:52.316+08:00] [5127] [5128] [mindie-server] [ERROR] [share_memory.cpp:172] : [MIE04E120407] "
     "[model_backend] Shared memory available is not enough on the filesystem."],
])
def test_a_stack_that_measured_dev_shm_short_states_it_and_confirms_the_shared_memory_case(tmp_path, lines):
    path = write_log(tmp_path, "console.log", "\n".join(lines) + "\n")
    assert extract(read_plog(path))["shm_too_small_for_job"].value is True
    t = triage(path)
    assert t.diagnosis is not None and t.diagnosis.case.id == "container-shm-too-small"
    assert t.diagnosis.verdict == "confirmed"


def test_hccls_heartbeat_finding_the_operators_inconsistent_states_that_the_collectives_differ(tmp_path):
    """The heartbeat's operator check (heartbeat.cc, HEARTBEAT_INCONSISTENT) says in words that the ranks are in
    different collectives: the order case needs no answer, and a peer that never came is ruled out."""
    line = ("[ERROR] HCCL(52210,python):2026-02-03-14:12:09.441.350 [heartbeat.cc:1420][52381][TaskExecStage]"
            "[HeartbeatAbnormal]Cluster Exception Location[IP/ID]:[10.0.5.21/1], Arrival Time:[Tue Feb  3 13:42:09 "
            "2026], ExceptionType:[Op Inconsistent Occurred], Possible Reason:communication operator is inconsistent\n")
    facts = extract(read_plog(write_log(tmp_path, "plog-52210_1.log", line)))
    assert facts["collective_sequence_differs"].value is True and facts["collective_order_differs"].line == 1
