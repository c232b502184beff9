"""MindIE's error codes (knowledge/mindie.py): read by their fields, each field value with its source, and the codes
the reference describes one by one; on the codes real MindIE logs print (hiascend forum captures 544, 546 and 630)."""
from pathlib import Path

import pytest
from casebook.judging.triage import triage
from casebook.knowledge import mindie
from casebook.knowledge.document import Problem
from casebook.knowledge.kb import load_kb

CAPTURES = Path(__file__).parent / "captures"


@pytest.fixture(scope="module")
def kb():
    return load_kb()


@pytest.mark.parametrize("code, meaning", [
    # the server's codes by part, stage and kind: the shared memory check of 630, the engine start of 546
    ("MIE04E120407", "MindIE Server: backend_model, inference on one node: a check failed."),
    ("MIE04E120414", "MindIE Server: backend_model, inference on one node: an error passed on from another part."),
    ("MIE04E06011C", "MindIE Server: infer_backend_manager, service start-up: initialisation failed."),
    # a warning says so; the LLM backend names its kinds of failure per part (544's BACKEND, 01)
    ("MIE04W010106", "MindIE Server: daemon, service start-up: a state is abnormal (warning) (a warning: the "
                     "component goes on working)."),
    ("MIE05E030001", "MindIE LLM: BACKEND: the LLM manager could not be initialised."),
    ("MIE05E04FF01", "MindIE LLM: LLM_MANAGER: LLMInferModels could not be initialised."),
])
def test_a_code_is_read_by_its_fields(kb, code, meaning):
    read = mindie.decode(code, kb.mindie_fields)
    assert read.meaning == meaning
    assert all(f.source.startswith("https://") for f in read.said)


def test_a_code_is_read_as_far_as_the_table_knows_it(kb):
    # a part the table does not list: the component and the kind of failure are still read
    read = mindie.decode("MIE04E990407", kb.mindie_fields)
    assert read.meaning == "MindIE Server: inference on one node: a check failed."
    assert read.meaning_zh == "MindIE Server（服务化）：单机推理：校验未通过。"
    # a component the reference does not name, or a string that is no MindIE code
    assert mindie.decode("MIE09E000001", kb.mindie_fields) is None
    assert mindie.decode("MIE04E12040", kb.mindie_fields) is None
    assert mindie.decode("mie04e120407", kb.mindie_fields) is None


def test_a_row_of_the_reference_names_its_code_first_and_the_fields_explain_the_rest(kb):
    # MIE05E030001 has a row of its own; the server's codes do not (two numberings), and are read by their fields
    row = kb.code_page("MIE05E030001", "mindie")
    assert (row.kind, row.title) == ("mindie", "LLM manager init failed")
    page = kb.code_page("MIE04E120407", "mindie")
    assert (page.kind, page.path, page.title) == ("mindie", "kb/codes/mindie-fields.tsv",
                                                   "MindIE Server: backend_model, inference on one node")
    assert page.extra["source"].startswith("https://www.hiascend.com/")
    assert kb.explains("MIE04E120407") and not kb.explains("MIE09E000001")
    assert kb.code_page("MIE04E120407", "runtime") is None   # a sighting of another kind is not this catalog's
    assert not [r for r in kb.catalog if r.catalog == "mindie-codes" and r.code.startswith("MIE04")]


def test_the_field_table_is_checked_row_by_row(tmp_path):
    root = tmp_path / "kb"
    (root / "codes").mkdir(parents=True)
    (root / mindie.FIELDS).write_text(
        "\t".join(mindie.COLUMNS) + "\n"
        "-\tcomponent\t-\t04\tMindIE Server\tMindIE Server\thttps://example.org/a\n"
        "04\tpart\t-\t12\tbackend_model\tbackend_model\tfile:///x\n"
        "04\tphase\t-\t04\tone node\t单机\thttps://example.org/a\n"
        "04\ttype\t-\t07\ta check failed\t\thttps://example.org/a\n"
        "-\tcomponent\t-\t04\tagain\tagain\thttps://example.org/a\n"
        "04\ttype\t-\t07x\ttoo long\t太长\thttps://example.org/a\n", encoding="utf-8")
    problems: list[Problem] = []
    rows = mindie.load_fields(root, problems)
    assert [r.line for r in rows] == [2]
    assert sorted((p.line, p.message.split(" ")[0]) for p in problems) == [
        (3, "source"), (4, "field"), (5, "meaning_zh"), (6, "-/component/-/04"), (7, "value")]
    assert all(p.file == "kb/codes/mindie-fields.tsv" for p in problems)


def test_a_mindie_log_reads_its_first_error_and_explains_its_codes():
    # capture 630: the server's shared memory check in a container of 64 MB, and the failure it passes on
    t = triage(CAPTURES / "630-hiascend-forum-mindie-container-shm-64mb" / "capture.txt")
    first = t.evidence.first_error
    assert (first.line, first.code, first.pid) == (4, "MIE04E120407", 5127)
    assert list(dict.fromkeys(c.code for c in t.evidence.codes)) == ["MIE04E120407", "MIE04E120414"]
    assert t.kb.code_page("MIE04E120414", "mindie").meaning.endswith("an error passed on from another part.")
