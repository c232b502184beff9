"""Environment dumps customers attach: recognised, their lines accounted for, their statements made facts."""
import json

import pytest
from casebook.cli import main
from casebook.evidence.registry import KEEP, extract_evidence
from casebook.judging.contract import validate
from casebook.reading.attachments import kind_of, settings
from casebook.reading import plog
from casebook.reading.plog import read_plog
from conftest import write_log

ENV = """HOSTNAME=node-a
PATH=/usr/local/Ascend/ascend-toolkit/latest/bin:/usr/bin
LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64
TASK_QUEUE_ENABLE=2
ASCEND_RT_VISIBLE_DEVICES=0,1,2,3
HCCL_CONNECT_TIMEOUT=600
HCCL_BUFFSIZE=400
"""
EXPORT_P = """declare -x HOME="/root"
declare -x ASCEND_LAUNCH_BLOCKING="1"
declare -x PWD="/work"
export TASK_QUEUE_ENABLE='0'
"""
PIP_LIST = """Package            Version
------------------ ------------
numpy              1.24.4
torch              2.1.0
torch-npu          2.1.0.post6
"""
PIP_FREEZE = """numpy==1.24.4
torch==2.4.0+cpu
torch_npu==2.4.0.post2
transformers @ file:///tmp/transformers-4.40.0-py3-none-any.whl
"""
PIP_SHOW = """Name: torch-npu
Version: 2.1.0.post3
Summary: NPU bridge for PyTorch
---
Name: torch
Version: 2.1.0
"""
CONDA_LIST = """# packages in environment at /root/miniconda3/envs/pt:
#
# Name                    Version                   Build  Channel
numpy                     1.24.4                   pypi_0    pypi
torch                     2.1.0                    pypi_0    pypi
torch-npu                 2.1.0.post3              pypi_0    pypi
"""
CANN_INFO = """Version=8.0.RC3
version_dir=8.0.RC3
timestamp=20240923_000000
"""
DRIVER_INFO = """Version=24.1.rc2
ascendhal_version=7.35.19
tsfw_version=7.1.0.11.220
"""
INSTALL_INFO = """UserName=HwHiAiUser
UserGroup=HwHiAiUser
Install_Path_Param=/usr/local/Ascend
"""
NPU_SMI = """+------------------------------------------------------------------------------------------------+
| npu-smi 24.1.rc2                 Version: 24.1.rc2                                             |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B3               | OK            | 96.1        37                0    / 0             |
| 0                         | 0000:C1:00.0  | 0           0    / 0          3403 / 65536         |
+===========================+===============+====================================================+
"""


@pytest.mark.parametrize("name,text,kind,expected", [
    ("env.txt", ENV, "env", {"TASK_QUEUE_ENABLE": ("2", 4), "ASCEND_RT_VISIBLE_DEVICES": ("0,1,2,3", 5)}),
    ("exported.sh", EXPORT_P, "env", {"ASCEND_LAUNCH_BLOCKING": ("1", 2), "TASK_QUEUE_ENABLE": ("0", 4)}),
    ("pip_list.txt", PIP_LIST, "pip", {"torch_version": ("2.1.0", 4), "torch_npu_version": ("2.1.0.post6", 5)}),
    ("requirements.txt", PIP_FREEZE, "pip", {"torch_version": ("2.4.0+cpu", 2), "torch_npu_version": ("2.4.0.post2", 3)}),
    ("pip_show.txt", PIP_SHOW, "pip", {"torch_npu_version": ("2.1.0.post3", 2), "torch_version": ("2.1.0", 6)}),
    ("conda.txt", CONDA_LIST, "pip", {"torch_version": ("2.1.0", 5), "torch_npu_version": ("2.1.0.post3", 6)}),
    ("version.info", CANN_INFO, "cann_version", {"cann_version": ("8.0.RC3", 1)}),
    ("driver_version.txt", DRIVER_INFO, "cann_version", {"npu_driver_version": ("24.1.rc2", 1)}),
    ("ascend_install.info", INSTALL_INFO, "cann_version", {}),
    ("npu_smi.txt", NPU_SMI, "npu_smi", {"npu_driver_version": ("24.1.rc2", 2), "soc_version": ("Ascend910B3", 7)}),
])
@pytest.mark.parametrize("keep,big", [(None, False), (KEEP, False), (KEEP, True)],
                         ids=["every-line", "as-triage-reads", "as-triage-reads-a-big-file"])
def test_attachments_are_recognised_and_become_facts_with_file_and_line(tmp_path, monkeypatch, name, text, kind,
                                                                         expected, keep, big):
    if big:   # a text file as big as a capture read selectively
        monkeypatch.setattr(plog, "CAPTURE_FULL_BELOW", 1)
    log = read_plog(write_log(tmp_path, name, text), keep=keep)
    assert log.files[0].selective == (big or (keep is not None and name.endswith(".info")))
    (f,) = log.files
    assert (f.role, f.attachment, f.unparsed) == ("environment", kind, 0)
    assert set(log.records["kind"]) <= {"attachment", "blank"}
    facts = extract_evidence(log).facts
    for fact, (value, line) in expected.items():
        assert (facts[fact].value, facts[fact].source, facts[fact].file, facts[fact].line) == (value, "log", name, line)


def test_plain_text_is_not_an_attachment():
    assert kind_of("notes.txt", ["the job died at step 300", "we restarted it"]) is None
    assert kind_of("x.log", ["[INFO] APP(1,p):2026-01-01-00:00:00.000.000 a=b"]) is None
    # a note that quotes three lines of version.info is still a note: most of its lines are words
    assert kind_of("notes.txt", ["the install says", "Version=8.0.RC3", "version_dir=8.0.RC3", "timestamp=20240923",
                                 "and the job still dies", "at step 300"]) is None
    assert settings("env", [(1, "TASK_QUEUE_ENABLE=1"), (2, "TASK_QUEUE_ENABLE=2")]) == [("TASK_QUEUE_ENABLE", "1", 1)]


def test_a_setting_the_job_logged_comes_before_an_attachment(tmp_path):
    write_log(tmp_path, "env.txt", ENV)
    write_log(tmp_path, "stdout.log", "step 1\nTASK_QUEUE_ENABLE is 1\n")
    facts = extract_evidence(read_plog(tmp_path)).facts
    assert (facts["TASK_QUEUE_ENABLE"].value, facts["TASK_QUEUE_ENABLE"].file) == ("1", "stdout.log")
    assert (facts["HCCL_BUFFSIZE"].value, facts["HCCL_BUFFSIZE"].file) == ("400", "env.txt")


def test_environment_role_and_facts_in_the_json_contract(tmp_path, capsys):
    write_log(tmp_path, "env.txt", ENV)
    write_log(tmp_path, "pip.txt", PIP_LIST)
    write_log(tmp_path, "plog-1_20260101000000000.log",
              "[ERROR] APP(1,python):2026-01-01-00:00:00.000.000 [a.cc:1]1 F:boom\n")
    assert main(["triage", str(tmp_path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    roles = {f["path"]: f["role"] for f in doc["input"]["files"]}
    assert roles == {"env.txt": "environment", "pip.txt": "environment", "plog-1_20260101000000000.log": "host_plog"}
    assert doc["facts"]["torch_npu_version"] == {"value": "2.1.0.post6", "source": "log", "file": "pip.txt",
                                                 "line": 5, "src_file": None, "src_line": None, "note": None}
    assert doc["facts"]["TASK_QUEUE_ENABLE"]["file"] == "env.txt"


def test_a_chip_name_of_npu_smi_is_named_as_a_soc_version_either_way_it_is_written(tmp_path):
    from casebook.reading.attachments import NPU_SMI as KIND, settings
    for written, soc in (("910B3", "Ascend910B3"), ("Ascend910B3", "Ascend910B3"), ("ascend310P3", "ascend310P3")):
        text = NPU_SMI.replace("910B3              ", f"{written:<19}")
        got = {name: value for name, value, _ in settings(KIND, enumerate(text.splitlines(), 1))}
        assert got["soc_version"] == soc, written


def test_a_quoted_value_loses_its_quotes_and_an_empty_quoted_one_is_empty():
    from casebook.reading.attachments import _value
    assert [_value(v) for v in ("'x'", '"y"', "''", '""', "'", "'a\"", " z ")] == ["x", "y", "", "", "'", "'a\"", "z"]


def test_a_soc_version_read_from_npu_smi_says_where_it_comes_from(tmp_path):
    # npu-smi names the chip in its Name column (910B3): the reader is told the soc_version was read there
    fact = extract_evidence(read_plog(write_log(tmp_path, "npu_smi.txt", NPU_SMI))).facts["soc_version"]
    assert (fact.value, fact.file, fact.line, str(fact.note)) == ("Ascend910B3", "npu_smi.txt", 7, "from the Name column of npu-smi info")
