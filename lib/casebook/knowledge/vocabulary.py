"""The facts a diagnosis rests on: their names, the values each takes, and how an engineer's answer is read."""
from __future__ import annotations

from dataclasses import dataclass

_TRUE = {"true", "yes", "y", "1", "是", "对"}
_FALSE = {"false", "no", "n", "0", "否", "不是"}
UNSET = "unset"


@dataclass(frozen=True)
class FactSpec:
    """What a fact means and which values it takes."""

    name: str
    kind: str                      #: bool or str
    doc: str
    choices: tuple[str, ...] = ()  #: allowed values of a str fact (empty: any)
    #: a fact only the logs settle (numbers a line prints): it is read or unknown, and the walk never asks it
    from_logs: bool = False


FACTS = {s.name: s for s in (
    FactSpec("single_process_multi_device", "bool",
             "One process drives several devices, each from a thread of its own."),
    FactSpec("TASK_QUEUE_ENABLE", "str", "torch_npu task queue level; unset means the default 1.",
             ("0", "1", "2", UNSET)),
    FactSpec("ASCEND_LAUNCH_BLOCKING", "str", "1 launches ops synchronously and turns the task queue off.",
             ("0", "1", UNSET)),
    FactSpec("failure_vanished_with_debug", "bool",
             "The failure stopped once exception dump or ASCEND_LAUNCH_BLOCKING=1 was switched on."),
    FactSpec("torch_npu_version", "str", "Installed torch_npu version (pip show torch-npu)."),
    FactSpec("ASCEND_GLOBAL_LOG_LEVEL", "str", "Global plog level: 0 DEBUG, 1 INFO, 2 WARNING, 3 ERROR (default)."),
    FactSpec("ASCEND_RT_VISIBLE_DEVICES", "str", "Devices visible to the process (logical ids)."),
    FactSpec("ASCEND_HOST_LOG_FILE_NUM", "str", "Rotated plog files kept per process (default 10)."),
    FactSpec("HCCL_EXEC_TIMEOUT", "str", "HCCL execution timeout in seconds (default 1800)."),
    FactSpec("HCCL_EVENT_TIMEOUT", "str",
             "torch_npu's timeout in seconds of a stream's wait for a collective's event (default 1868; 0: none)."),
    FactSpec("HCCL_CONNECT_TIMEOUT", "str", "HCCL link setup timeout in seconds (default 120)."),
    FactSpec("PER_STREAM_QUEUE", "str", "One task queue per stream (experimental)."),
    FactSpec("multistream_overlap_shared_expert", "str",
             "vLLM-Ascend's --additional-config key that runs the shared experts on a second stream (true, false)."),
    FactSpec("cann_version", "str", "Installed CANN version (version.info, install path or log line)."),
    FactSpec("npu_driver_version", "str", "Installed NPU driver version."),
    FactSpec("firmware_version", "str", "Installed NPU firmware version."),
    FactSpec("soc_version", "str", "Chip (SoC) name the runtime reports, e.g. Ascend910B3."),
    FactSpec("compiler_target_soc", "str",
             "The chip (SoC) name a kernel compiler was asked to build for and has no target for (BiShengIR's "
             "`--target`).", from_logs=True),
    FactSpec("compiler_target_chip_supported", "bool",
             "The chip a kernel compiler has no target for is one its product supports (the chip table): the "
             "compiler's release predates that chip's name; otherwise the chip is outside what it builds for. Only "
             "a compiler's line naming the chip raises it, so the walk does not ask it of other reports.",
             from_logs=True),
    FactSpec("torch_version", "str", "Installed torch version (pip list / pip freeze)."),
    FactSpec("numpy_version", "str", "Installed NumPy version (pip list, an install line)."),
    FactSpec("numpy_is_2", "bool", "The installed NumPy is a 2.x release."),
    FactSpec("torch_matches_torch_npu", "bool",
             "The installed torch is the release the installed torch_npu is made for (kb/compat/torch-npu.yaml)."),
    FactSpec("cann_matches_torch_npu", "bool",
             "The installed CANN is a release the installed torch_npu is made for (kb/compat/torch-npu.yaml)."),
    FactSpec("HCCL_BUFFSIZE", "str", "HCCL buffer size per communicator in MB (default 200)."),
    FactSpec("ASCEND_SLOG_PRINT_TO_STDOUT", "str", "1 sends the plog lines to the screen instead of files."),
    FactSpec("single_op_replay_fails", "bool",
             "Running the failing operator alone with the same shapes and tiling (msaicerr replay) fails too."),
    FactSpec("fails_on_other_cards", "bool", "The same job fails the same way when moved to other cards."),
    FactSpec("other_processes_on_card", "bool", "Other processes held memory on the failing card (npu-smi info)."),
    FactSpec("raising_frame_in_package", "bool",
             "The frame that raised the first Python error (the last `File \"...\", line N` of its traceback outside "
             "Python's own library) is code the job called (a framework, its plugin, a library), not the job's own "
             "script."),
    FactSpec("defect_fixed_upstream", "bool",
             "The raising package's issue tracker or a later release of it fixes this error on this path (a merged "
             "pull request that names the error line or the frame's function)."),
    FactSpec("device_id_is_global_index", "bool",
             "The process passes a global rank or a card's physical number to set_device where an index among its "
             "visible cards belongs (the id printed beside ASCEND_RT_VISIBLE_DEVICES)."),
    FactSpec("oom_cap_stopped_request", "bool",
             "The out-of-memory request fit what the card had free and cached, but not under the process's memory cap "
             "(the 'allowed' amount of the allocator's message).", from_logs=True),
    FactSpec("oom_card_held_outside_job", "bool",
             "The out-of-memory request did not fit what the card had free, and over half of the card was neither free "
             "nor reserved by the job's allocator: what filled it is held outside the job's allocator.", from_logs=True),
    FactSpec("op_binaries_mismatch", "bool",
             "Operator binaries (custom ops, kernel packages, compile caches) were built for another CANN version."),
    FactSpec("peer_rank_exited_or_stalled", "bool",
             "A rank exited, hung or paused (data loading, checkpointing) before the others timed out."),
    FactSpec("link_waits_end_at_peer", "bool",
             "The failed link setups wait, directly or along a chain, for one rank that waited for no one: it never "
             "offered the link (stalled, exited or took another path before that collective)."),
    FactSpec("logic_superpod_spans_physical", "bool",
             "Ranks that HCCL_LOGIC_SUPERPOD_ID put in one logical super pod sit in different physical super pods."),
    FactSpec("link_flaps_seen", "bool", "The NPU network port shows link down/up events or growing error counters."),
    # HCCL configuration and links: communicator setup, collective timeouts, RoCE links
    FactSpec("several_jobs_share_node", "bool",
             "Another job, or a second copy of this one, ran on the same node or the same card at the same time."),
    FactSpec("named_cluster_field_wrong", "bool",
             "The field HCCL's rank-table check names holds, in the rank table or on the device (hccn_tool, "
             "/etc/hccn.conf), the wrong value the error prints: empty, invalid, repeated or unlike the other ranks'."),
    FactSpec("all_ranks_launched", "bool",
             "Every rank of the communicator was launched and reached communicator creation."),
    FactSpec("host_network_reaches_root", "bool",
             "Every node reaches the root rank's host IP and port over the NIC HCCL uses (ping, nc)."),
    FactSpec("collective_sequence_differs", "bool",
             "Ranks issued different collectives, different arguments or a different number of them."),
    FactSpec("collective_order_differs", "bool",
             "At one point of their sequences the ranks of one communicator were in collectives of different kinds, "
             "or their notify waits close a loop that one rank is waited for twice in: the collectives were issued in "
             "different orders."),
    FactSpec("collective_arguments_differ", "bool",
             "The ranks of one communicator called the same collective with a different element count or data type."),
    FactSpec("event_timeout_above_exec_timeout", "bool",
             "The timeout of a stream's wait for a collective's event (HCCL_EVENT_TIMEOUT, the `timeout=N` of an event "
             "wait line) is larger than HCCL_EXEC_TIMEOUT, as torch_npu requires."),
    FactSpec("collective_index_differs", "bool",
             "Ranks of one communicator failed at different collective indexes: the ones at the lowest are behind "
             "the others, which wait for them at a later collective."),
    FactSpec("cann_versions_match", "bool", "Every node runs the same CANN / HCCL version."),
    FactSpec("rank_process_hung", "bool",
             "The rank named by HCCL was alive but made no progress (stack dump shows a wait, a lock or the dataloader)."),
    FactSpec("roce_config_mismatch", "bool",
             "The NPU port's MTU, PFC priority or QoS/TC settings differ from the switch's, or its PFC pause counters grow."),
    # device-side faults and data loading: aicore-exception, aicore-trap-or-timeout, aicpu-exception,
    # sdma-copy-exception, dataloader-failure
    FactSpec("hccl_buffsize_below_op_need", "bool",
             "HCCL_BUFFSIZE is smaller than the window a fused MoE dispatch/combine (MC2) op needs for its batch, "
             "hidden size, top-k and expert count."),
    FactSpec("passes_with_longer_timeout", "bool",
             "With the timeout that fired raised or back at its default (operator execute timeout, "
             "ACL_DEVICE_SYNC_TIMEOUT), the same step completes."),
    FactSpec("kernel_syncs_more_blocks_than_cores", "bool",
             "The failing kernel synchronises all its blocks (SyncAll, cross-core flags) and is launched with more "
             "blocks than the cores that can run at once."),
    FactSpec("copy_fails_only_with_expandable_segments", "bool",
             "The copy failure goes away with PYTORCH_NPU_ALLOC_CONF expandable_segments:False and returns with True."),
    FactSpec("collective_buffer_invalid", "bool",
             "A collective's input or output buffer was smaller than its count, not allocated, or freed before the "
             "collective finished."),
    FactSpec("aicpu_so_staged_by_several_devices", "bool",
             "Several devices (the two dies of one card) stage a custom AI CPU .so under one file name in the shared "
             "aicpu_kernels directory at the same time."),
    FactSpec("device_ecc_errors_seen", "bool",
             "npu-smi or the device logs show uncorrectable (multi-bit) ECC errors on the card."),
    FactSpec("host_oom_kill_seen", "bool",
             "The host kernel or the container's memory limit killed a process for memory (dmesg 'Out of memory: "
             "Killed process', cgroup OOM event)."),
    FactSpec("shm_too_small_for_job", "bool",
             "Inside the container /dev/shm is full, or smaller than what the job's processes put there (an engine's "
             "IPC buffers, Ray's object store, communication buffers): `df -h /dev/shm` while the job runs."),
    FactSpec("data_pipeline_too_slow", "bool",
             "Iterating the dataset alone (no training) delivers batches slower than the device data queue waits, "
             "or stalls."),
    # memory, device and resource failures: memory-allocation, device-lost, hardware, runtime-resources
    FactSpec("oom_gone_with_expandable_segments", "bool",
             "The same job passes the failing step with PYTORCH_NPU_ALLOC_CONF=expandable_segments:True "
             "(or a max_split_size_mb limit)."),
    FactSpec("memory_grows_every_step", "bool",
             "Allocated device memory rises from step to step at constant shapes until the out-of-memory error "
             "(torch.npu.memory_allocated() logged per step)."),
    FactSpec("ranks_crowd_device_zero", "bool",
             "npu-smi shows processes of several ranks of the job on device 0, which should hold only its own rank."),
    FactSpec("device_overtemperature_event", "bool",
             "The card's event log, health query or BMC shows an over-temperature event (0x80E0020B HBM, 0x80E20207 "
             "SoC, 0x80DE0207 DDR) around the failure."),
    FactSpec("device_power_fault_event", "bool",
             "The card's event log, health query or BMC shows a power event (0x80E21007 main power overcurrent, "
             "0x80E21008 overcurrent control, 0x80E3A201 voltage adjustment) around the failure."),
    FactSpec("device_reset_during_job", "bool",
             "The card was reset while the job ran (npu-smi set -t reset, a hot reset by a monitoring or repair "
             "tool, a driver reload)."),
    FactSpec("lockup_in_driver_code", "bool",
             "The host kernel's report of a CPU lockup (its Comm: line and call trace) names a driver's code or a "
             "module being loaded (insmod, modprobe, the NPU driver's drv_* modules or devdrv_* functions)."),
    FactSpec("pcie_link_error_seen", "bool",
             "The host's kernel log shows an uncorrected PCIe error (AER 'PCIe Bus Error: severity=Uncorrected') or a "
             "link down on the card's bus around the failure."),
    FactSpec("hbm_isolation_limit_reached", "bool",
             "The card's event log or health query shows 0x80E18401 or 0x80E18402: the HBM rows isolated for "
             "multi-bit ECC errors reached their limit."),
    FactSpec("collectives_on_two_streams", "bool",
             "The job issues collectives from two streams at once (a side stream's all-gather beside the default "
             "stream's collectives, as vLLM-Ascend's shared-expert overlap with FlashComm1 does)."),
    FactSpec("multi_stream_reuse_disabled", "bool",
             "The job ran with MULTI_STREAM_MEMORY_REUSE=0, so memory used by collectives on other streams is "
             "returned late."),
    # environment, op packages and op support: environment-versions, op-binary-compile, op-not-supported
    FactSpec("npu_graph_mode_on", "bool",
             "The job captures and replays NPU graphs (vLLM or sglang graph mode, a speculative decoding graph runner)."),
    FactSpec("mindspore_matches_cann", "bool",
             "The installed MindSpore and CANN (its software package and its te and hccl wheels) are releases made to "
             "go together (MindSpore's own version check, or its installation guide's table).", from_logs=True),
    FactSpec("mindspore_version_checked", "bool",
             "MindSpore compared the CANN package with its own release at import (not skipped for a custom CANN path).",
             from_logs=True),
    FactSpec("cann_python_deps_installed", "bool",
             "Every Python package CANN needs at run time (numpy, decorator, sympy, cffi, protobuf, attrs, pyyaml, "
             "psutil, scipy, ...) is installed in the interpreter that runs the job."),
    FactSpec("runtime_call_in_new_thread", "bool",
             "The failing runtime or op call ran in a thread the program started itself, not in the thread that "
             "set the device."),
    FactSpec("npu_smi_lists_devices", "bool",
             "Inside the same container or host, `npu-smi info` lists the NPUs the job should use."),
    FactSpec("device_is_atlas_310p", "bool",
             "The job runs on an Atlas 310P chip (npu-smi info names 310P3: Atlas 300I Duo / 300I Pro / 300V cards)."),
    FactSpec("cann_set_env_sourced", "bool",
             "The shell or container entry point that starts the job sources CANN's set_env.sh (ascend-toolkit or cann "
             "folder), so LD_LIBRARY_PATH holds its lib64."),
    FactSpec("transfer_to_npu_imported", "bool",
             "The script imports torch_npu.contrib.transfer_to_npu, which maps torch.cuda calls and 'cuda' devices to "
             "the NPU."),
    FactSpec("python_supported_by_cann", "bool",
             "The Python that runs CANN's tools and compiler (the python3 found after set_env.sh) is a version the "
             "installed CANN release supports."),
    FactSpec("torch_npu_imported", "bool",
             "The process imports torch_npu (directly, or through a framework that does) before it names an npu "
             "device."),
    FactSpec("cann_toolkit_installed", "bool",
             "The CANN toolkit is installed in (or mounted into) the machine or container that runs the job."),
    # driver, CANN and build-time mismatches: environment-versions, op-binary-compile
    FactSpec("loader_path_puts_bundled_copy_first", "bool",
             "LD_LIBRARY_PATH holds a directory with an SDK's own copy of a library (libssl, libcrypto, libstdc++) "
             "ahead of the system's, so the system's libraries load that copy (`ldd` shows it)."),
    FactSpec("kernel_source_at_fault", "bool",
             "Read at the line the compiler names, the kernel's or op project's source is at fault (a call, name, type, "
             "include or size the installed release's kernel API does not allow, or code written for another release), "
             "not the compiler failing on a construct its documentation supports."),
    FactSpec("failed_during_image_build", "bool",
             "The failure happened while a container image was being built (a Dockerfile RUN step), where no NPU "
             "and no driver are mounted."),
    FactSpec("driver_matches_cann", "bool",
             "The installed NPU driver package is at or above the version the CANN release's compatibility table "
             "asks for (npu-smi info, /usr/local/Ascend/driver/version.info)."),
    FactSpec("firmware_matches_cann", "bool",
             "The NPU firmware (the device's task-scheduler firmware) is at or above the version the CANN release's "
             "compatibility table asks for (npu-smi info -t board, the firmware version.info)."),
    FactSpec("extension_built_with_other_abi", "bool",
             "The custom C++ extension was compiled with a _GLIBCXX_USE_CXX11_ABI value other than "
             "torch._C._GLIBCXX_USE_CXX11_ABI of the installed torch."),
    FactSpec("opp_file_unreadable_by_job_user", "bool",
             "The operator-package file the compiler names exists, but the user that runs the job cannot read it "
             "(CANN installed by another user without --install-for-all, or its permissions changed)."),
    FactSpec("started_in_torch_npu_source_tree", "bool",
             "Python was started in the torch_npu source checkout (or a folder holding a torch_npu directory), so "
             "`import torch_npu` finds that folder before the installed package."),
    FactSpec("ray_status_lists_npu", "bool",
             "`ray status` lists an NPU resource with every node's cards, so Ray can give NPU bundles."),
    FactSpec("checkpoint_matches_loader_release", "bool",
             "The checkpoint was written (converted, quantized) for the framework and plugin release that loads it, "
             "per the converter's or quantization tool's notes."),
    FactSpec("model_dims_divide_by_parallel_sizes", "bool",
             "Every dimension of the model that parallelism splits (attention and key-value heads, layers, vocabulary, "
             "experts) divides evenly by the tensor, pipeline and expert parallel sizes the job sets."),
    FactSpec("package_imported_from_source_folder", "bool",
             "The package a failed import names was read from a folder of source (a checkout in the working "
             "directory, on PYTHONPATH, or beside the script), not the installed release, and it is the package's own "
             "code that fails to import a part of it: `P.__file__`, printed the way the job starts, is not the copy "
             "pip lists."),
    FactSpec("running_kernel_headers_installed", "bool",
             "The headers (build tree) of exactly the running kernel are installed: /lib/modules/$(uname -r)/build/ "
             "is a directory, from the kernel-devel or linux-headers package of that release."),
    FactSpec("seccomp_unconfined_starts", "bool",
             "The same image and command start their threads when the container runs with "
             "`--security-opt seccomp=unconfined` (or under a container engine of Docker 20.10.10 or later)."),
    FactSpec("acl_initialized_by_another_component", "bool",
             "Another component of the same process started CANN before the one that failed (torch_npu or MindSpore "
             "imported first, an ONNX Runtime CANN provider beside torch_npu, the application's own aclInit)."),
    FactSpec("higher_open_files_limit_passes", "bool",
             "The job started with a higher limit of open files (`ulimit -n 65535` in its shell, the container's or "
             "service's nofile limit) runs past the step that failed."),
    FactSpec("installed_cann_has_called_api", "bool",
             "The installed CANN (the toolkit the loader or the build finds) provides the ACL or HCCL function the "
             "code calls: the function is in that release's API reference or its headers."),
    FactSpec("exporter_runtime_socket_reachable", "bool",
             "The container runtime's socket that NPU Exporter is given (-containerd, -endpoint) exists on the host "
             "and is mounted at the same path into the exporter's container."),
    FactSpec("layer_skipped_quantizes", "bool",
             "With the layer the quantisation error names left out (skip_layers in the AMCT or ATC quantisation "
             "configuration), calibration of the rest of the model passes."),
    FactSpec("input_is_baseline_jpeg", "bool",
             "The picture handed to the decoder is a real baseline JPEG (`file` says JPEG image data, baseline; it "
             "starts with FF D8), not another format renamed to .jpg nor a progressive JPEG."),
    FactSpec("job_finished_before_exit", "bool",
             "The program had finished its work (outputs written, last request answered) when it exited, and it ends "
             "without shutting down its engine or workers (no `ray.shutdown()`, no cleanup of the LLM object)."),
    FactSpec("plugin_ops_built_for_installed_release", "bool",
             "The plugin's compiled op library was built from the same release or commit as its Python code, with its "
             "custom kernels on, against the torch installed now."),
    FactSpec("host_cpu_has_build_instructions", "bool",
             "The host CPU has the instruction set extensions the failing package was built for (lscpu's model and "
             "flags: ARMv8.1 LSE atomics, later ARM features, avx2, avx512f)."),
    FactSpec("master_store_reachable_from_ranks", "bool",
             "The master's rendezvous port (MASTER_ADDR:MASTER_PORT, torch's TCPStore) answers from the node of every "
             "rank while rank 0 waits, with the same address and port given on every node."),
    FactSpec("launched_with_distributed_launcher", "bool",
             "The job was started by a distributed launcher (torchrun / python -m torch.distributed.run, deepspeed, "
             "accelerate launch, msrun, a scheduler's launcher) that sets each process's rank variables."),
    FactSpec("hccl_backend_creates_group", "bool",
             "With the hccl backend (backend='hccl' where the code names nccl, or torch_npu imported before the "
             "framework sets up its device), the process group is created."),
    FactSpec("model_files_match_source", "bool",
             "The model files' sizes and checksums match the source's listing (no cut download, no git-lfs pointer "
             "in place of a weights file)."),
    FactSpec("model_config_matches_checkpoint", "bool",
             "The model the code builds (its config: vocabulary, hidden and head sizes, layer count, parallel split) is "
             "the one the checkpoint was saved from."),
    FactSpec("lower_opset_export_converts", "bool",
             "The ONNX model exported again with a lower opset (11 or 13) passes the nodes ATC found no parser for."),
    FactSpec("onnx_model_imports_several_opsets", "bool",
             "The ONNX model's opset_import lists more than one entry (a custom or quantisation domain beside ai.onnx)."),
    FactSpec("job_python_is_cann_python", "bool",
             "The Python that runs the job sees CANN's own Python packages (te, tbe, op_compile_tool from the toolkit's "
             "python/site-packages or its wheels), e.g. `python -c \"import tbe.common\"` succeeds."),
    # causes the real-capture set documents: late reports, device management in containers, kernel arguments
    FactSpec("stack_inputs_dtypes_differ", "bool",
             "The failing step stacks or concatenates tensors whose dtypes differ (torch.stack / torch.cat on a "
             "float16 and a float32 tensor)."),
    FactSpec("dcmi_library_in_container", "bool",
             "The driver's DCMI library (libdcmi.so, /usr/local/dcmi) is present and on the loader path where the "
             "tool that failed runs."),
    FactSpec("card_held_by_other_container", "bool",
             "Another container or process has the same card open (a container started with its /dev/davinciN, a "
             "process listed on it by npu-smi on the host)."),
    FactSpec("nnal_set_env_sourced", "bool",
             "The NNAL package (Ascend Transformer Boost, /usr/local/Ascend/nnal/atb) is installed and its set_env.sh "
             "is sourced where the job starts."),
    FactSpec("driver_upgraded_without_reboot", "bool",
             "The NPU driver or firmware was installed or upgraded and the server has not been rebooted since."),
    FactSpec("script_mixes_host_and_device_tensors", "bool",
             "The failing op gets a CPU tensor and an NPU tensor as operands (e.g. cpu_tensor / npu_tensor)."),
    FactSpec("op_input_has_masked_inf", "bool",
             "The failing vector op's input holds -inf sentinel cells (masked scores or logits, e.g. TopK over a "
             "masked score tensor)."),
    FactSpec("plugin_release_pairs_framework", "bool",
             "The installed plugin (vllm-ascend, MindSpeed, triton-ascend, torch_npu) is the release or commit its "
             "version table pairs with the installed framework (vLLM, Megatron-LM, Triton, torch)."),
    FactSpec("install_path_writable", "bool",
             "The user that installs or deploys (a CANN package, a custom op package) can write where it installs."),
    FactSpec("port_in_use", "bool",
             "Another process held the port the step binds when it started (the system answered 'Address already in "
             "use')."),
    FactSpec("command_folder_on_path", "bool",
             "The folder that holds the command the step runs (a pip-installed script's bin folder) is on PATH."),
    FactSpec("torch_npu_is_release_code_names", "bool",
             "The installed torch_npu is the release the failing code, or its framework's installation guide, names."),
    FactSpec("triton_ascend_has_called_api", "bool",
             "The installed triton-ascend (its Triton base, its libdevice) provides the Triton member the failing code "
             "calls."),
    FactSpec("framework_op_runs_on_npu", "bool",
             "The custom ops the serving or kernel library calls (vllm::, sglang::, flash_attn::) run on the NPU, none "
             "taken by torch_npu's CPU fallback."),
    FactSpec("om_model_soc_matches_device", "bool",
             "The SoC an offline model (.om) was converted for (atc --soc_version) is the SoC of the device that runs "
             "it (npu-smi info)."),
    FactSpec("model_variant_supported_by_release", "bool",
             "The model (its architecture, its checkpoint's quantisation format, its kinds of layer) is on the "
             "supported-model list of the installed plugin or framework release."),
)}


class FactError(ValueError):
    """An engineer's answer that the fact does not accept."""


def normalize(name: str, raw: object) -> object:
    """The typed value of an answer: bools from yes/no words, str facts checked against their choices."""
    spec = FACTS.get(name)
    if spec is None:
        raise FactError(f"unknown fact {name!r}; known: {', '.join(FACTS)}")
    if spec.kind == "bool":
        if isinstance(raw, bool):
            return raw
        word = str(raw).strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise FactError(f"{name} takes yes/no, not {raw!r}")
    value = str(raw).strip()
    if spec.choices and value.lower() not in spec.choices:
        raise FactError(f"{name} takes one of {', '.join(spec.choices)}, not {raw!r}")
    return value.lower() if value.lower() == UNSET else value


def parse_assignments(items: list[str]) -> dict[str, object]:
    """`["K=V", ...]` from the command line as a dict of normalized answers."""
    answers = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise FactError(f"--fact takes NAME=VALUE, not {item!r}")
        answers[name.strip()] = normalize(name.strip(), value)
    return answers
