"""The format catalog: every row's example, written as its log file holds it, is read by the row's own family
through the evidence code, and every row names its public source; the catalog's own checks; the gaps the
catalog closed, on real lines."""
import re
from pathlib import Path

import pytest

from casebook.evidence import aicore, hardware, membership
from casebook.evidence.cascade import classify
from casebook.evidence.codes import codes_in
from casebook.evidence.device_id import device_in
from casebook.evidence.first_error import error_lines
from casebook.evidence.registry import KEEP, extract_evidence
from casebook.knowledge import formats
from casebook.knowledge.addresses import mask48
from casebook.knowledge.errcode import parse_bit_list, parse_int
from casebook.reading.plog import read_plog
from conftest import write_log

FORMS = formats.catalog()
T = "2026-03-14-10:00:{s:02d}.000.000"
#: Report lines the tests put before a line that only adds to a fault (extend info, kernel, retCode, ...).
STARS = ("The error from device(chipId:{dev}, dieId:0), serial number is {serial}, there is an exception of aicore "
         "error, core id is {core}, error code = 0, dump info: pc start: {pc}, current: 0x124200000308, vec error info: 0.")
DAVID = ("The error from device(chipId:0, dieId:0), serial number is 1, there is an aicore error exception, core id "
         "is 0, error code = 0x0, dump info: pc start: 0x2000, current: 0x2040, sc error info: 0, su error info: 0")
OLD = ("The error from device({dev}), serial number is {serial}, there is an aicore error, core id is 99, error code = "
       "0x10, dump info: pc start: 0x1000, current: 0x1040, vec error info: 0.")
TASK = "Task exception! device_id={dev}, stream_id={stream}, task_id={task}, type=0(KERNEL_AICORE), retCode=0x26, [x]"
#: An AI Core Error Analyzer report without its register line (the register forms are the examples).
ANALYZER = ("device id : 0", "node name : trans_TransData_241", "kernel name : te_transdata_0", "start pc : 0x1000",
            "current pc : 0x1040")
#: Groups whose values are numbers (compared by value: 0x10 == 16).
NUMBERS = {"device", "serial", "core_id", "pc_start", "pc_start_second", "current", "stream", "task", "bin_size",
           "address", "rank", "rank_num", "peer", "peer_device", "tid"}


def plog_line(form: formats.Form, example: str | None = None, s: int = 1) -> str:
    """A slog header for the form's module and level, then the example as the message."""
    text = form.example if example is None else example
    level = form.level if form.level not in ("-", "TRACE") else "ERROR"
    if form.module == "KERNEL":
        return f"[{level}] KERNEL(3551,sklogd):{T.format(s=s)} [klogd.c:242]{text}"
    if form.module == "TSCH":
        return f"[{level}] TSCH(-1,null):{T.format(s=s)} 28 (cpuid:0) x.c:1 f: {text}"
    if form.module in ("HCCL", "TDT", "PROFILING"):
        return f"[{level}] {form.module}(4242,python):{T.format(s=s)} [x.cc:1]{text}"
    module = "RUNTIME" if form.module == "-" else form.module
    return f"[{level}] {module}(4242,python):{T.format(s=s)} [x.cc:1]4243 F:{text}"


def in_bbox(form: formats.Form) -> bool:
    """A bbox record (hisi_logs history.log or a bbox detail file), not a slog line."""
    return form.family == "device_event" and form.module == "-" or (form.family, form.part) == ("ecc", "address")


def write(tmp_path: Path, form: formats.Form, before: tuple[str, ...] = ()) -> Path:
    """A folder with the example in the kind of file that holds it (a plog, a device log, a bbox record);
    `before`: messages of RUNTIME ERROR lines written ahead of it."""
    if in_bbox(form):
        name = "history.log" if form.part == "history" else "20260314100000-000000001/bbox/driver.txt"
        write_log(tmp_path, f"hisi_logs/device-0/{name}", form.example + "\n")
        return tmp_path
    lines = [f"[ERROR] RUNTIME(4242,python):{T.format(s=0)} [x.cc:1]4243 F:{m}" for m in before] + [plog_line(form)]
    name = {"KERNEL": "slog/device-os-0/device-os-0_20260314100000000.log",
            "TSCH": "slog/device-0/device-0_20260314100000000.log"}.get(form.module, "plog/plog-4242_20260314100000000.log")
    write_log(tmp_path, name, "\n".join(lines) + "\n")
    return tmp_path


def the_fault(path: Path):
    (fault,) = aicore.extract(read_plog(path))
    return fault


def observe(form: formats.Form, tmp_path: Path) -> dict:
    """What the form's family took from the example, under the catalog's group names."""
    fam, part = form.family, form.part
    dev = form.expect.get("device", "0")
    if fam == "aicore_fault" and part in ("report", "outstanding"):
        f = the_fault(write(tmp_path, form))
        code = ", ".join(map(str, f.error_bit_list)) if f.error_bit_list else f.error_code
        first = part == "outstanding"
        return {"device": f.device, "serial": f.serial, "core_type": f.wording, "core_id": f.cores[0],
                "error_code": code, "pc_start": f.pc_start_first_raw if first else f.pc_start_raw,
                "current": f.current_raw, **({"pc_start_second": f.pc_start_raw} if first else {})}
    if fam == "aicore_fault" and part in ("extend", "extend_list"):
        f = the_fault(write(tmp_path, form, (DAVID if part == "extend_list" else STARS.format(
            dev=0, serial=1, core=0, pc="0x1000"),)))
        code = ", ".join(map(str, f.error_bit_list)) if part == "extend_list" else ", ".join(map(hex, f.errcode))
        return {"errcode": code, "error_str": f.error_str}
    if fam == "aicore_fault" and part == "extend_nonstars":
        f = the_fault(write(tmp_path, form, (OLD.format(dev=dev, serial=form.expect["serial"]),)))
        return {"device": f.device, "serial": f.serial, "core_id": f.cores[-1]}
    if fam == "aicore_fault" and part in ("kernel", "launch", "node"):
        st = {"stream": form.expect["stream"], "task": form.expect["task"], "dev": dev}
        report = (STARS.format(dev=dev, serial=1, core=0, pc="0x1000"),)
        f = the_fault(write(tmp_path, form, report + ((TASK.format(**st),) if part != "kernel" else ())))
        out = {"device": f.device, "stream": f.stream_id, "task": f.task_id}
        if part == "node":
            return out | {"kernel": f.op}
        pcs = [p for p, where in f.pc_peers if where.endswith(":2")]
        return out | {"kernel": f.kernel} | ({"pc_start": pcs[0]} if pcs else {})
    if fam == "aicore_fault" and part == "bin_size":
        kernel = form.expect["kernel"]
        f = the_fault(write(tmp_path, form, (STARS.format(dev=0, serial=1, core=0, pc="0x1000"),
                                             f"Aicore kernel execute failed, device_id=0, stream_id=2, "
                                             f"report_stream_id=2, task_id=1, flip_num=0, fault kernel_name={kernel}")))
        return {"kernel": f.kernel, "bin_size": f.bin_size}
    if fam == "aicore_fault" and part == "func_addr":
        pc = hex(mask48(parse_int(form.expect["address"])))
        f = the_fault(write(tmp_path, form, (STARS.format(dev=0, serial=1, core=0, pc=pc),)))
        return {"address": f.pc_start_raw} if any("function address the host logged" in n for n in f.notes) else {}
    if fam == "aicore_fault" and part == "analyzer":
        # the example among the other lines of an analyzer report, in a pasted info.txt
        lines = [line for line in ANALYZER if form.read(line) is None] + [form.example]
        write_log(tmp_path, "info.txt", "\n".join(lines) + "\n")
        f = the_fault(tmp_path)
        if form.form == "analyzer_node_name":   # the node name spells the operator of a lower-case TBE kernel
            return {"kernel": form.expect["kernel"]} if f.op in form.expect["kernel"].split("_") else {}
        return {"device": f.device, "kernel": f.kernel, "error_code": f.error_code, "pc_start": f.pc_start_raw,
                "current": f.current_raw}
    if part == "retcode":
        f = the_fault(write(tmp_path, form, (STARS.format(dev=dev, serial=1, core=0, pc="0x1000"),)))
        out = {"ret_code": f.ret_code}
        return out | ({"device": f.device} if "device" in form.expect else {}) | (
            {"stream": f.stream_id, "task": f.task_id} if "stream" in form.expect else {})
    if (fam, part) == ("set_device", "set"):
        (p,) = extract_evidence(read_plog(write(tmp_path, form))).topology.processes
        ids = p.physical_devices if form.ids == formats.PHYSICAL else p.devices
        assert p.set_device_seen and len(ids) == 1 and not (p.devices and p.physical_devices)
        ((device, threads),) = ids.items()
        return {"device": device} | ({"tid": next(iter(threads))} if "tid" in form.expect else {})
    if (fam, part) == ("set_device", "rank"):
        (info,) = membership.identities(read_plog(write(tmp_path, form))).values()
        return {"rank": info.rank, "rank_num": info.rank_num, "device": info.device, "ip": info.ip}
    if (fam, part) == ("hccl_link", "detect"):
        (d,) = extract_evidence(read_plog(write(tmp_path, form))).topology.ranks.detected
        return {"ip": d.server, "device": d.device, "peer_ip": d.peer_server, "peer_device": d.peer_device}
    if fam in ("hccl_link", "hccl_timeout") and part in ("row", "socket", "peer", "setup"):
        view = extract_evidence(read_plog(write(tmp_path, form))).topology.ranks
        if form.expect["peer"] == "unknown":
            assert view.links == []        # "remote rank [unknown]" names no rank
            return {"peer": "unknown"}
        (link,) = view.links
        return {"peer": link.peer, "peer_ip": link.peer_ip, "status": link.status, "role": link.role,
                "rank": link.rank}
    if fam == "device_event" or (fam, part) in (("ecc", "hardware"), ("ecc", "address")):
        (event,) = hardware.extract(read_plog(write(tmp_path, form)))
        kinds = {"ts_exception": "ts_exception", "pcie": "pcie_error", "driver_exception": "driver_exception",
                 "history": {"TS": "ts_exception", "DRIVER": "driver_exception"}.get(form.expect.get("module"))}
        assert event.kind == kinds.get(part, "hardware_error")
        out = {"device": event.device, "module": form.expect.get("module")}
        if "address" in form.expect:
            return out | {"address": parse_int(event.code)}
        return out | {"code": event.text if fam == "ecc" else event.code}
    return {}


def error_line_values(form: formats.Form, tmp_path: Path) -> dict:
    """What every family reading error lines takes from the example: its device and its codes."""
    out = {"ret_code": [c for c, _ in codes_in(form.example)]}
    if form.level in ("ERROR", "-") and form.module not in ("KERNEL", "TSCH") and not in_bbox(form):
        (e,) = error_lines(read_plog(write(tmp_path / "e", form)))
        return out | {"device": e.device}
    return out | {"device": device_in(form.example)}


def same(group: str, expected: str, seen) -> bool:
    if group == "ret_code" and isinstance(seen, list):
        return expected.lower() in seen
    if group == "error_code" and "," in expected:
        return parse_bit_list(expected) == parse_bit_list(str(seen))
    if group in NUMBERS and not re.match(r"-?(?:0x[0-9a-f]+|\d+)$", expected, re.I):
        return seen == expected    # "remote rank [unknown]"
    if group in NUMBERS or group == "error_code" and not isinstance(seen, str):
        return seen is not None and parse_int(expected) == int(seen)
    if group == "errcode":
        return [parse_int(x) for x in expected.split(",")] == [parse_int(x) for x in str(seen).split(",")]
    if group in ("error_str", "code") and isinstance(seen, str):
        return seen.lower().rstrip(".") == expected.lower().rstrip(".")
    return seen == expected


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f"{f.family}-{f.form}")
def test_every_form_is_read_by_its_family_from_its_example(form, tmp_path):
    assert re.match(r"https://\S+$", form.source) and form.versions
    assert form.keep in KEEP or form.level in ("ERROR", "-") or any(k in form.keep for k in KEEP), \
        f"a {form.level} line of this form would not reach its family in a big file"
    seen = observe(form, tmp_path)
    line = error_line_values(form, tmp_path)
    for group, expected in form.expect.items():
        if group == "device" and form.ids == formats.PHYSICAL and form.family != "set_device":
            # the driver's id is not the job's: the error line's device is not taken from it
            assert line["device"] != int(expected) or "device_id=" in form.example
            continue
        got = seen[group] if group in seen else line.get(group)
        assert got is not None and same(group, expected, got), f"{group}: expected {expected!r}, the family read {got!r}"
    if form.kind:
        assert classify(form.example)[1] == form.kind


def test_the_catalog_holds_each_family_and_every_version_spelling():
    families = {f.family for f in FORMS}
    assert families == set(formats.FAMILIES)
    spellings = {f.form for f in FORMS}
    # the 9.1+ error-message wordings beside the older ones
    assert {"kernel_execute_failed_dfx_info", "ai_core_kernel_execution_failed", "kernel_task_happen_error",
            "an_error_occurred_in_kernel_task", "memory_async_copy_failed", "asynchronous_memory_copy_failed",
            "stars_exception_of", "stars_error_occurs_the_error_is"} <= spellings
    assert len(FORMS) >= 150


@pytest.mark.parametrize("change, message", [
    (lambda r: r.replace("\thttps://", "\tsee ", 1), "the source must be the URL"),
    (lambda r: r.replace("serial=2569", "serial=2570", 1), "the example reads as"),
    (lambda r: r.replace("(?P<serial>", "(?P<serial_no>", 1), "unknown group(s) serial_no"),
    (lambda r: r.replace("aicore_fault\t", "aicore_faults\t", 1), "unknown family 'aicore_faults'"),
    (lambda r: r.replace("\taicore_exception\t", "\taicore_crash\t", 1), "unknown kind 'aicore_crash'"),
    (lambda r: r.replace("\tthere is an exception of\t", "\tthere was\t", 1), "is not in the example"),
    (lambda r: r.replace("\\(", "(", 1), "bad regex"),
])
def test_a_bad_row_is_refused_with_its_file_and_line(change, message):
    text = (Path(formats.__file__).parent / formats.PATH).read_text(encoding="utf-8")
    header, first, *rest = text.splitlines()
    forms, problems = formats.parse("\n".join([header, change(first), *rest]))
    assert [str(p).split(": ", 1)[0] for p in problems] == ["data/formats.tsv:2"]
    assert message in str(problems[0]) and len(forms) == len(FORMS) - 1


def test_kb_check_lists_the_catalogs_problems(monkeypatch):
    from casebook.knowledge import checks
    assert formats.problems() == [] and checks.check() == []
    bad = [formats.Problem("data/formats.tsv", 7, "the regex does not match its example")]
    monkeypatch.setattr(formats, "problems", lambda: bad)
    assert checks.check()[-1:] == bad


def test_a_form_named_twice_and_a_wrong_header_are_refused():
    text = (Path(formats.__file__).parent / formats.PATH).read_text(encoding="utf-8")
    header, first, *_ = text.splitlines()
    (form,), (problem,) = formats.parse("\n".join([header, first, first]))
    assert str(problem).startswith("data/formats.tsv:3: form 'stars_exception_of' of aicore_fault is already on line 2")
    assert "the header must be" in str(formats.parse(first)[1][0])


def test_link_table_rows_of_each_layout_name_the_peer_and_its_status(tmp_path, corpus):
    # the 8-column table (CANN 8.3+: ports and TlsStatus) from the public HCCL guide; the 4-column one of early 2025
    text = ("[INFO] HCCL(500,python):2025-11-22-17:30:00.000.000 [t.cc:1][500][HCCL_TRACE]SetupAgent rankNum[2], "
            "rank[0], rootInfo identifier[x], server[192.168.2.199], serverPort[60000]deviceType[4], logicDevId[0], "
            "phydevId[0], deviceIp[192.168.2.199]\n"
            "[ERROR] HCCL(500,python):2025-11-22-17:37:04.448.967 [hccl_socket_manager.cc:599] [3977663] "
            "| 192.168.2.198(1) | 16666 | 192.168.2.199(0) | 0 | server | time out | DISABLE |\n")
    view = extract_evidence(read_plog(write_log(tmp_path, "plog-500_20251122173000000.log", text))).topology.ranks
    (link,) = view.links
    assert (link.rank, link.peer, link.peer_ip, link.status, link.role) == (0, 1, "192.168.2.198", "time out", "server")
    assert view.blamed == {1: 1} and view.missing == [1]
    old = extract_evidence(read_plog(corpus / "hccl-event-timeout-2workers")).topology.ranks
    assert {(x.rank, x.peer, x.status) for x in old.links} == {(0, 1, "no connect"), (1, 0, "no connect"),
                                                                (2, 3, "no connect")}


def topology_of(tmp_path: Path, name: str, text: str):
    return extract_evidence(read_plog(write_log(tmp_path, name, text))).topology


def test_default_level_set_device_lines_prove_one_card_per_process(tmp_path, corpus):
    # TDT's and the profiler's EVENT lines reach run/plog at the default level; their thread is in the message
    text = ("[EVENT] TDT(946748,main):2025-05-19-15:59:07.741.638 [process_mode_manager.cpp:103][OpenProcess]"
            "[tid:947062] [ProcessModeManager] enter into open process deviceId[0] rankSize[0]\n"
            "[EVENT] PROFILING(946748,main):2025-05-19-15:59:07.755.001 [msprofiler_impl.cpp:369] >>> (tid:947062) "
            "ProfNotifySetDevice called, is open: 1, devId: 4\n")
    topo = topology_of(tmp_path, "run/plog/plog-946748_20250519155907000.log", text)
    (p,) = topo.processes
    assert (p.devices, p.physical_devices) == ({0: {"947062"}}, {4: {"947062"}})   # one card, two numberings
    assert topo.single_process_multi_device is False
    # the 2023 asys collection: the runtime's, TDT's and the profiler's lines of one process and one card
    (q,) = [x for x in extract_evidence(read_plog(corpus / "aicore-gatherv2-asys")).topology.processes if x.pid == 370]
    assert set(q.devices) == {0} and set(q.physical_devices) == {0} and q.set_device_seen


def test_two_threads_two_cards_in_the_drivers_numbering_is_several_devices(tmp_path):
    text = "".join(f"[INFO] RUNTIME(7,python):2026-03-14-10:00:0{i}.000.000 [api_impl.cc:3469]{10 + i} SetDevice: "
                   f"SetDevice success, curCtx=0xaaab1c2d3e40, drv devId={4 + i}.\n" for i in range(2))
    topo = topology_of(tmp_path, "plog-7_20260314100000000.log", text)
    assert topo.processes[0].physical_devices == {4: {"10"}, 5: {"11"}} and topo.single_process_multi_device


def test_hccl_peer_mentions_and_init_lines_are_not_set_device_proof(tmp_path):
    text = ("[INFO] HCCL(9,python):2026-03-14-10:00:00.000.000 [t.cc:1][9][HCCL_TRACE]SetupAgent rankNum[2], rank[1], "
            "logicDevId[1], phydevId[5], deviceIp[1.2.3.4]\n"
            "[ERROR] HCCL(9,python):2026-03-14-10:30:00.000.000 [t.cc:2][9]EI0002: The wait execution of the Notify "
            "register times out. Reason: The Notify register has not received the Notify record from remote rank: [0].\n")
    topo = topology_of(tmp_path, "plog-9_20260314100000000.log", text)
    (p,) = topo.processes
    assert (p.devices, p.physical_devices, p.ranks) == ({}, {}, {1: 1})
    assert topo.single_process_multi_device is None and [x.peer for x in topo.ranks.links] == [0]


@pytest.mark.parametrize("text, kind", [
    # the cascade's wording comes from the catalog: forms it had no kind for, or a wrong one
    ("The error from device(chipId:2, dieId:0), serial number is 9, hccl fftsplus task timeout occurred during task "
     "execution, stream_id:5, sq_id:5, task_id:38827, stuck notify num:1, timeout:30min(default).", "hccl_timeout"),
    ("Notify wait execution failed, device_id=1, stream_id=7, task_id=9865, flip_num=0, notify_id=17, isCountNotify=0.",
     "hccl_timeout"),
    ("[Rank 1] Watchdog caught collective operation timeout: WorkHCCL(SeqNum=196, OpType=ALLREDUCE, "
     "Timeout(ms)=3600000) ran for 3600185 milliseconds before timing out.", "hccl_timeout"),
    ("[2734049][Wait][LinkEstablish]wait socket establish timeout, role[1] rank[12] timeout[120 s]", "link_failure"),
    ("EI0013: [PID: 8812] 2026-01-08-21:44:02.339.118 An error CQE occurred during operator execution. Local "
     "information: server 10.0.0.1, device ID 3, device IP 192.168.1.13. Peer information: server 10.0.0.2, device "
     "ID 3, device IP 192.168.1.23.", "link_failure"),
    ("[DFX_INFO]AI Core kernel execution failed, device_id=0, stream_id=2, report_stream_id=2, task_id=1, flip_num=0, "
     "fault kernel_name=Add_1, fault kernel info ext=none, program id=3, hash=1.", "aicore_exception"),
    ("Asynchronous memory copy failed, device_id=0, stream_id=2, task_id=17983, flip_num=0, "
     "copy_type=RT_MEMCPY_DEVICE_TO_DEVICE, copy_method=0", "sdma_error"),
    ("RAS event detail: device_id=1, event_id=0x80f38008, event_name=\"HBMA Multi Bit Ecc\", additional_info=\"\".",
     "hardware_error"),
    ("    Cluster Exception Location[IP/ID]:[90.90.92.240/1], Arrival Time:[Thu Nov 28 11:56:34 2024], "
     "Discoverer:[90.90.92.240/0], ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has exited",
     "link_failure"),
    ("The error from device(chipId:2, dieId:0), serial number is 5, notify wait timeout occurred during task "
     "execution, stream_id:7, sq_id:7, task_id:9865, notify_id=17, timeout=1836s.", "hccl_timeout"),
    ("The error from device(chipId:0, dieId:0), serial number is 4, aicore task timeout dfx, falut_stream_id=2, "
     "falut_task_id=4411, falut_slot_id=3", "hwts_timeout"),
])
def test_the_cascade_names_the_catalogs_forms(text, kind):
    assert classify(text)[1] == kind


def test_an_ffts_kernel_line_brings_its_own_pc_start(tmp_path):
    text = "".join(f"[ERROR] RUNTIME(5,python):2026-03-14-10:00:0{i}.000.000 [x.cc:1]5 F:{m}\n" for i, m in enumerate((
        STARS.format(dev=0, serial=3, core=1, pc="0x124200000168"),
        "fftsplus task execute failed, dev_id=0, stream_id=5, task_id=911, context_id=2, thread_id=0, err_type=1[aicore "
        "exception], pc start=0x124200009000. fault kernel_name=MatMulV3_9fc2_mix_aic, blockDim=24")))
    (f,) = aicore.extract(read_plog(write_log(tmp_path, "plog-5_20260314100000000.log", text)))
    assert (f.kernel, f.stream_id, f.task_id) == ("MatMulV3_9fc2_mix_aic", 5, 911)
    assert any("also reported with pc start 0x124200009000" in n for n in f.notes)


def test_a_peer_rank_of_thousands_of_digits_is_no_rank(tmp_path):
    # a form that reads its peer with `\w+` must not hand a 4,301-digit run to int()
    text = ("[ERROR] HCCL(9,python):2026-03-14-10:30:00.000.000 [t.cc:2][9]EI0002: The wait execution of the Notify "
            "register times out. Reason: The Notify register has not received the Notify record from remote rank: ["
            + "7" * 4301 + "].\n")
    topo = topology_of(tmp_path, "plog-9_20260314100000000.log", text)
    assert topo.ranks.links == []


def test_a_selection_tries_its_forms_in_order_behind_one_literal_search():
    from casebook.knowledge.formats import Selection, catalog
    forms = catalog()
    first, second = forms[0], next(f for f in forms if f.keep != forms[0].keep)
    both = Selection((second, first))
    assert both.keep == (second.keep, first.keep)
    assert Selection(()).first("there is an exception of aicore error") is None
    assert Selection(()).keep == ()
    text = "The error from device(chipId:3, dieId:0), serial number is 2569, there is an exception of aicore error, " \
           "core id is 18, error code = 0, dump info: pc start: 0x12c0ff812000, current: 0x12c1000a3f8c"
    hit = both.first(text)
    assert hit.form is first and hit.values == {"device": "3", "serial": "2569", "core_type": "aicore error",
                                                 "core_id": "18", "error_code": "0", "pc_start": "0x12c0ff812000",
                                                 "current": "0x12c1000a3f8c"}
    assert Selection((second,)).first(text) is None
    assert both.first("no literal of any form here") is None


def test_the_checked_catalog_is_kept_on_disk_and_read_back_with_its_patterns_made_on_first_use(tmp_path, monkeypatch):
    monkeypatch.setenv("CASEBOOK_CACHE", str(tmp_path))
    fresh = formats._checked(None)
    formats.catalog.cache_clear()
    try:
        assert formats.catalog() == fresh and len(list(tmp_path.glob("formats-*.pickle"))) == 1
        formats.catalog.cache_clear()
        kept = formats.catalog()                                    # read back from the kept copy
        assert kept == fresh and kept is not fresh
        form = kept[0]
        assert form.compiled._compiled is None                      # not rebuilt until a message needs it
        assert form.read(form.example) == form.expect and form.compiled._compiled.pattern == form.regex
        assert form.groups == frozenset(form.pattern.groupindex)
        assert list(tmp_path.glob("kb-*.pickle")) == []             # its own name, beside the knowledge base's
    finally:
        formats.catalog.cache_clear()


def test_a_catalog_text_is_read_into_forms_field_by_field():
    header = "\t".join(formats.COLUMNS)
    quoted = ['op_binary', 'quoted', 'report', '-', '-', 'GE', 'ERROR', '"Cannot', r'"Cannot find (?P<kernel>\S+) now',
              'kernel=a=b', '"Cannot find a=b now', 'CANN 8.0', 'https://example.org/a.cc']
    plain = ['op_binary', 'plain', 'report', 'op_binary', 'logical', 'RUNTIME', 'WARNING', 'no bin',
             r'no bin (?P<kernel>\d+)', 'kernel=12', 'no bin 12', 'CANN 8.1', 'https://example.org/b.cc']
    text = "\n".join([header, "\t".join(quoted), "", "\t".join(plain), "a\tb", "x\t" * 12 + "y", ""])
    forms, problems = formats.parse(text, "cat.tsv")
    first, second = forms
    # a cell that starts with a quote is text as it stands (no CSV quoting), and a value may hold '='
    assert (first.family, first.form, first.part, first.kind, first.ids, first.module, first.level, first.keep,
            first.pattern.pattern, first.expect, first.example, first.versions, first.source, first.row) == (
        "op_binary", "quoted", "report", None, None, "GE", "ERROR", '"Cannot', r'"Cannot find (?P<kernel>\S+) now',
        {"kernel": "a=b"}, '"Cannot find a=b now', "CANN 8.0", "https://example.org/a.cc", 2)
    # a blank line is skipped, and the rows after it are read with their own line numbers
    assert (second.kind, second.ids, second.row, second.pattern.pattern) == (
        "op_binary", "logical", 4, r"no bin (?P<kernel>\d{1,18}(?!\d))")
    assert [str(p) for p in problems] == [
        "cat.tsv:5: 2 cells, the catalog has 13 columns",
        "cat.tsv:6: unknown family 'x' (one of " + ", ".join(formats.FAMILIES) + ")"]
    # the header is tab-separated; spaces do not make columns
    assert [str(p) for p in formats.parse(header.replace("\t", " "))[1]] == [
        "data/formats.tsv:1: the header must be the columns " + ", ".join(formats.COLUMNS) + " (tab-separated)"]


ROW = ['op_binary', 'plain', 'report', 'op_binary', 'logical', 'RUNTIME', 'WARNING', 'no bin',
       r'no bin (?P<kernel>\d+)', 'kernel=12', 'no bin 12', 'CANN 8.1', 'https://example.org/b.cc']
LONG = "no bin " + "x" * 100


@pytest.mark.parametrize("changes, message", [
    ({2: "nope"}, "unknown part 'nope' of op_binary (one of report)"),
    ({4: "both"}, "ids must be one of logical, physical, -"),
    ({6: "LOUD"}, "level must be one of ERROR, WARNING, INFO, EVENT, DEBUG, TRACE, -"),
    ({9: "kernel"}, "expect is a list of group=value, separated by '; '"),
    ({8: r"no bin (?P<kern>\d+)"}, "unknown group(s) kern (the catalog's groups: " + ", ".join(formats.GROUPS) + ")"),
    ({8: r"no bin (?P<kernel>[a-z]+)"}, "the regex does not match its example: 'no bin 12'"),
    ({8: r"no bin (?P<kernel>\d+)$", 10: LONG}, f"the regex does not match its example: {LONG[:80]!r}"),
    ({9: "kernel=13"}, "the example reads as 'kernel=12', expect says 'kernel=13'"),
    ({8: r"no (?P<module>bin) (?P<kernel>\d+)"},
     "the example reads as 'module=bin; kernel=12', expect says 'kernel=12'"),
])
def test_each_problem_of_a_row_in_its_own_words(changes, message):
    row = [changes.get(i, cell) for i, cell in enumerate(ROW)]
    forms, problems = formats.parse("\n".join(["\t".join(formats.COLUMNS), "\t".join(row)]), "cat.tsv")
    assert (forms, [str(p) for p in problems]) == ((), [f"cat.tsv:2: {message}"])


def test_a_catalog_with_bad_rows_is_refused_naming_each(monkeypatch):
    bad = [formats.Problem("data/formats.tsv", 7, "the regex does not match its example"),
           formats.Problem("data/formats.tsv", 9, "bad regex: x")]
    monkeypatch.setattr(formats, "_read", lambda: ((), bad))
    with pytest.raises(formats.FormatError) as refused:
        formats._checked(None)
    assert str(refused.value) == ("data/formats.tsv:7: the regex does not match its example\n"
                                  "data/formats.tsv:9: bad regex: x")
