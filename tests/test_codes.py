"""The public code catalogs: rows read with their file and line, bad rows reported, rows serve as code pages; the
codes read from a log line, and every code of the capture set known to a catalog."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import yaml
from casebook.evidence import errors
from casebook.evidence.codes import codes_in
from casebook.knowledge.codes import CATALOGS, COLUMNS, load_tables, reason_rows
from casebook.knowledge.kb import load_kb
from casebook.reading.plog import read_plog
from conftest import write_log

HEADER = "\t".join(COLUMNS)


def write_table(root, catalog: str, *rows: str) -> None:
    folder = root / "kb" / "codes" / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{catalog}.tsv").write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")


def test_rows_are_read_with_their_line_and_bad_rows_are_reported(tmp_path):
    write_table(tmp_path, "runtime-codes",
                "507015\tACL_ERROR_RT_AICORE_EXCEPTION\tAI Core exception.\tAI Core 异常。\tRead the bits.\thttps://x.org/a",
                "5070x\tBAD\tmeaning\t含义\t\thttps://x.org/b",
                "507018\tACL_ERROR_RT_AICPU_EXCEPTION\tAI CPU exception.\t\t\thttps://x.org/c",
                "507001\tACL_ERROR_RT_TS_ERROR\tTS error.\t任务调度错误。\t\tftp://x.org/d",
                "507015\tAGAIN\tagain\t再次\t\thttps://x.org/e",
                "1\t2\t3")
    write_table(tmp_path, "made-up", "x")
    problems = []
    rows = load_tables(tmp_path / "kb", problems)
    assert [(r.code, r.kind, r.catalog, r.line) for r in rows] == [("507015", "runtime", "runtime-codes", 2)]
    assert [(p.file, p.line) for p in problems] == [
        ("kb/codes/tables/made-up.tsv", 1), ("kb/codes/tables/runtime-codes.tsv", 3),
        ("kb/codes/tables/runtime-codes.tsv", 4), ("kb/codes/tables/runtime-codes.tsv", 5),
        ("kb/codes/tables/runtime-codes.tsv", 6), ("kb/codes/tables/runtime-codes.tsv", 7)]
    assert "not spelled as a runtime code" in problems[1].message
    assert "meaning_zh is empty" in problems[2].message
    assert "not an http(s) URL" in problems[3].message
    assert "repeats line 2" in problems[4].message
    assert "3 cells" in problems[5].message


def test_a_wrong_header_is_one_problem(tmp_path):
    folder = tmp_path / "kb" / "codes" / "tables"
    folder.mkdir(parents=True)
    (folder / "ecodes.tsv").write_text("code,name\nEZ9999,x\n", encoding="utf-8")
    problems = []
    assert load_tables(tmp_path / "kb", problems) == []
    assert [(p.line, "header" in p.message) for p in problems] == [(1, True)]


def test_catalog_rows_become_code_pages_and_the_earlier_catalog_names_a_shared_code(tmp_path):
    write_table(tmp_path, "acl-codes", "100000\tACL_ERROR_INVALID_PARAM\tBad argument.\t参数错误。\t\thttps://x.org/acl")
    write_table(tmp_path, "hccl-codes", "4\tHCCL_E_TIMEOUT\tTimed out.\t超时。\t\thttps://x.org/h")
    write_table(tmp_path, "runtime-inner-codes", "4\tDRV_ERROR_X\tDriver.\t驱动。\t\thttps://x.org/d")
    kb = load_kb(tmp_path / "kb")
    page = kb.codes["100000"]
    assert (page.kind, page.title, page.meaning_zh, page.extra["source"]) == \
           ("acl", "ACL_ERROR_INVALID_PARAM", "参数错误。", "https://x.org/acl")
    assert kb.codes["4"].kind == "runtime_inner"   # runtime-inner-codes load before hccl-codes
    assert len(kb.catalog) == 3


def test_the_project_catalogs_hold_every_catalog_and_400_sourced_codes():
    kb = load_kb()
    catalogs = {r.catalog for r in kb.catalog}
    assert catalogs == set(CATALOGS)
    assert len({(r.catalog, r.code) for r in kb.catalog if r.source.startswith("https://")}) >= 400
    assert not [p for p in kb.problems if "/tables/" in p.file]


@pytest.mark.parametrize("line, codes", [
    ("RuntimeError: Run:/usr1/workspace/PyTorch_Apex_Daily_c20tr5/CODE/aten/src/ATen/native/npu/utils/"
     "OpParamMaker.h:280 NPU error,NPU error code is:500002", [("500002", "runtime")]),
    ("GetDNNEngineName: ErrorNo: 1343242282(assign engine failed) GetDNNEngineName:Op type "
     "SigmoidCrossEntropyWithLogitsV2 of ops kernel AIcoreEngine is unsupported", [("1343242282", "ge")]),
    ("rtGetMaxStreamAndTask:[FINAL][FINAL]ErrCode=107002, desc=[context pointer null], InnerCode=0x7070001",
     [("107002", "runtime"), ("0x7070001", "runtime_inner")]),
    ("[NNOP][NnopbaseSetOverFlowAddr][1836107] errno[361001] Assert ((rtCtxGetOverflowAddr(&addr)) == 0) failed",
     [("361001", "runtime")]),
    ("DumpTaskExceptionInfo] Task fail infos task_id: 2, stream_id: 51, tid: 3187425, device_id: 3, retcode: 507011 "
     "( model execute failed)", [("507011", "runtime")]),
    ("E39999: 2024-11-05-10:12:03.418.772  The error from device(chipId:1, dieId:0), serial number is 5, an exception "
     "occurred during AICPU execution, stream_id:3, task_id:20733, errcode:21008, msg:inner error.",
     [("E39999", "ecode"), ("21008", "aicpu")]),
    ("dcmi module initialize failed. ret is -8005", [("-8005", "dcmi")]),
    ("[2024-08-14-03:12:51.640218] system exception code [0x68020002]: ModuleName [DRIVER], ExceptionReason "
     "[DEVICE_HBL_EXCEPTION], TimeStamp [20240814031247-120538906].", [("0x68020002", "bbox_exception")]),
    ("    Other info[0]:time=2024-05-10-10:44:52.267.860, function=int_process_hwts_task_exception, line=296, "
     "error code=0x26", [("0x26", "retcode")]),
    ("code : 0x10", [("0x10", "aicore_error")]),
    ("AIC_ERROR        : 0x4000", [("0x4000", "aicore_error")]),   # msaicerr of CANN 8 pads its colons
    ("Warning: NPU warning, error code is 507048[Error]: ", [("507048", "runtime")]),
    # an application's own report of an ACL call (hicann/runtime samples), a model's, the runtime's EZ9903 and a
    # DVPP ring's
    ("[ERROR] Operation failed: aclrtGetGroupCount(&groupCount) returned error code 207000", [("207000", "runtime")]),
    ("[ascendcl_process.cpp:299]execute model failed, modelId is 1, errorCode is 507011", [("507011", "runtime")]),
    ("EZ9903: [PID: 67556] 2025-09-02-15:23:31.178.230 rtKernelLaunchWithHandleV2 failed: 207000",
     [("EZ9903", "ecode"), ("207000", "runtime")]),
    ("device=0, write_idx=1, read_idx=0, status=0, ret = 500000", [("500000", "runtime")]),
    ("RuntimeError: run_prepared failed with code 507018", [("507018", "runtime")]),   # a framework's own report
    # the Vision SDK's error tail and a pyACL sample's return value
    ("Synchronize stream execution failed. (Calling Function = aclrtSynchronizeStream, Code = 507014, Message = "
     "Unknown error code.)", [("507014", "runtime")]),
    ("acl.mdl.execute failed ret_int=507011", [("507011", "runtime")]),
    ("aclnnRecurrentGatedDeltaRuleGetWorkspaceSize failed with aclnnStatus=561103.", [("561103", "runtime")]),
    # the runtime's reason words name the code its call returns, in brackets (CANN 6 and later) or bare
    ("rtDeviceSynchronizeWithTimeout execute failed, reason=[sdma copy error][FUNC:FuncErrorReason][FILE:"
     "error_message_manage.cc][LINE:53]", [("507013", "runtime")]),
    ("rtDeviceSynchronizeWithTimeout execution failed, reason=lost heartbeat[FUNC:FuncErrorReason]",
     [("507010", "runtime")]),
    ("rtSetDevice execute failed, reason=[device id error]", [("107001", "runtime")]),
    # a code the line prints is the code: the reason words add none
    ("synchronize stream failed, runtime result = 507011, reason=[aicore exception]", [("507011", "runtime")]),
    # HCCL's errNo (module 5, a submodule, the HcclResult), as its plog lines print it in mind-cluster's scenarios
    # and the 2021 exchanger's 15-digit spelling; what an HCCL call returned, as HCCL Test and an application print it
    ("[16542][Recv][RaSocket]errNo[0x000000000500000d] recv fail, data[0xfffddc0e6ef0], size[2239]",
     [("0x000000000500000d", "hccl_errno")]),
    ("[Wait][AllClientSocketEstable]errNo[0x00000000500000b] client : device[4] rank[4] get sokcet timeout",
     [("0x00000000500000b", "hccl_errno")]),
    ("hccl interface return err ./common/src/hccl_test_common.cc:538, retcode: 7 ", [("7", "hccl")]),
    ("hccl interface return err./opbase_test/hccl_allreduce_rootinfo_test.cc:135,retcode:4", [("4", "hccl")]),
    ("HcclGetRootInfo(&hcclID), error code is 19", [("19", "hccl")]),
    ("[ERROR] HcclCommInit failed. ret = 4", [("4", "hccl")]),
    ("HcomRecv failed, ret:4", [("4", "hccl")]),
    # a code after the words of an application, a serving stack, a sample's check macro, a framework, a tool, the
    # runtime's capture check, onnxruntime's CANN provider and an op's exception report
    ("[ERROR] Execute model failed for acl.mdl.execute error 507011", [("507011", "runtime")]),
    ("Worker_TP6 SUSPECT REMOTE ERROR 507057", [("507057", "runtime")]),
    ("/catlass/examples/00_basic_matmul/basic_matmul.cpp:40 aclError:507033", [("507033", "runtime")]),
    ("Call aclrtSetDevice(device->id) failed : 507033 at file /work/Paddle/device.cc", [("507033", "runtime")]),
    ("[dirty] aclrtSynchronizeStream FAILED -> 507035 (AI Core Error expected)", [("507035", "runtime")]),
    ("2026-03-05 10:47:18.205 E | aclmdlRICaptureGetInfo failed, return[100000]", [("100000", "runtime")]),
    ("not allow to synchronize captured-stream, stream_id=1537.   [rt result 107027]", [("107027", "runtime")]),
    ("CANN failure 507013: (look for ACL_ERROR_RT in acl_base.h)", [("507013", "runtime")]),
    ("opType: 7, Cast, errno:361001, aicore exception (507015)", [("361001", "runtime"), ("507015", "runtime")]),
    # a GE status after a framework's words: TorchAir's graph compile, MindSpore's task load
    ("[Compile][Graph]Compile graph failed, error code:1343225857, session_id:0", [("1343225857", "ge")]),
    ("error msg: davinci_model : load task fail, return ret: 1343225860", [("1343225860", "ge")]),
    # MindIE's own code, in its log line's brackets (hiascend forum capture 630) and quoted in words
    ("[MIE04E120407] [model_backend] Shared memory available is not enough on the filesystem.",
     [("MIE04E120407", "mindie")]),
    ("the daemon stopped with MIE05E030001 (Initialize modelBackends_ failed)", [("MIE05E030001", "mindie")]),
])
def test_codes_are_read_after_the_words_that_name_them(line, codes):
    assert codes_in(line) == tuple(codes)


@pytest.mark.parametrize("line", [
    "MemCopySync:drvMemcpy failed: dst=0x108040288000, destMax=1240, src=0x7fe7649556d0, size=1240, kind=1",
    "hns_roce_hal_get_dev_id failed, ret is -8005",        # a ret without DCMI's name is not DCMI's
    "task_id:20733, errcode:21008, msg:inner error.",      # an errcode outside an AI CPU report
    "kernel name : te_transdata_3a91c07d52e4b8f16_8c2d4a7e19f0b53c",
    "copy failed: 1048576 bytes left",                     # six digits after "failed:" outside the codes' range
    "rtMalloc execute failed, reason=[some words no release prints]",   # reason words outside the runtime's table
    "errNo[0x0000000000000010] p2p connect timeout",        # module 0: no HCCL errNo
    "init failed, retcode: 7",                             # a retcode of no HCCL call
    "there was 1 error 123456 bytes into the file",        # six digits after "error" that go on as words
    "token XMIE04E120407 and MIE04E12040",                 # inside a longer word, or one digit short
])
def test_a_number_without_the_words_is_no_code(line):
    assert codes_in(line) == ()


def test_every_reason_names_a_runtime_code_of_the_catalog_under_its_name():
    catalog = {row.code: row.name for row in load_kb().catalog if row.catalog == "runtime-codes"}
    rows = reason_rows()
    assert rows and all(catalog.get(code) == name and source.startswith("https://") for _, code, name, source in rows)


def test_every_code_of_the_capture_set_is_in_a_catalog_or_a_known_gap():
    kb = load_kb()
    captures = Path(__file__).parent / "captures"
    expected = {str(c) for f in captures.glob("*/expect.yaml")
                for c in yaml.safe_load(f.read_text(encoding="utf-8")).get("codes") or []}
    # codes the batches brought that no catalog row explains yet: listed, so that a row added must leave the list
    gaps = yaml.safe_load((captures / "known-gaps.yaml").read_text(encoding="utf-8"))["codes"]
    assert len(expected) >= 30 and sorted(c for c in expected if not kb.explains(c)) == sorted(gaps)


def test_a_code_is_explained_by_the_catalog_of_what_named_it_in_the_log():
    kb = load_kb()
    assert kb.codes["0x10"].kind == "retcode"                              # the catalog that names the string first
    assert kb.code_page("0x10", "retcode") is kb.codes["0x10"] and kb.code_page("0x10") is kb.codes["0x10"]
    assert kb.code_page("0x10", "aicore_error") is None                    # an AI Core error register value
    inner = next(r for r in kb.catalog if r.kind == "runtime_inner" and kb.codes[r.code].kind != "runtime_inner")
    page = kb.code_page(inner.code, "runtime_inner")                      # a string two catalogs share
    assert (page.kind, page.title, page.meaning, page.line) == ("runtime_inner", inner.name, inner.meaning, inner.line)
    assert kb.code_page("ERR00100", "retcode") is None and kb.code_page("ERR00100", "pta").kind == "torch_npu"


def test_an_hccl_errno_is_explained_by_the_result_it_carries():
    kb = load_kb()
    page = kb.code_page("0x0000000005010001", "hccl_errno")   # HCOM's HCCL_E_PARA
    assert (page.kind, page.title) == ("hccl", "HCCL_E_PARA") and kb.explains("0x0000000005010001")
    assert kb.code_page("0x000000000500000d", "hccl_errno").title == "HCCL_E_TCP_TRANSFER"
    assert kb.code_page("7", "hccl").title == "HCCL_E_UNAVAIL"
    assert not kb.explains("0x0000000000000010")


def test_the_code_a_line_carries_outside_its_message_is_a_sighting_of_its_family(tmp_path):
    # torch_npu's ERR prefix and an error manager block's E-code are read off the line, not out of its words
    text = ("[ERROR] 2026-03-14-10:00:00 (PID:100, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n"
            "EZ9999: Inner Error!\n"
            "        Kernel task happen error, retCode=0x26, [aicore exception].\n")
    seen = errors.code_sightings(read_plog(write_log(tmp_path, "console.txt", text)))
    assert [(c.code, c.family, c.line, c.text) for c in seen] == [
        ("ERR00100", "pta", 1, "call acl api failed"), ("EZ9999", "ecode", 2, "EZ9999: Inner Error!"),
        ("EZ9999", "ecode", 3, "Kernel task happen error, retCode=0x26, [aicore exception]."),
        ("0x26", "retcode", 3, "Kernel task happen error, retCode=0x26, [aicore exception].")]


_PIECES = ["error code is ", "ret=", "ERR", "E", "retCode=0x", "InnerCode=0x", "ErrorNo: ", "during AICPU execution, ",
           "errcode:", "DCMI ", "ret is -8", "system exception code [0x", "507011", "1000", "99", "ab", "(", "]", " "]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_the_quick_tests_before_each_codes_pattern_never_drop_a_code(pieces):
    from casebook.evidence import codes
    text = "".join(pieces)
    every = [(c, "ecode") for c in codes._ECODE.findall(text)] + [(c, "runtime") for c in codes._RUNTIME.findall(text)]
    every += [(c.lower(), "retcode") for c in codes._RETCODE.findall(text)] + [(c, "pta") for c in codes._PTA.findall(text)]
    every += [(c.lower(), family) for family, pattern in codes._OTHER for c in pattern.findall(text)]
    assert list(codes._codes(text))[:len(every)] == every
