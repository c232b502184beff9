"""Facts resolved from logs, answers and defaults, and symptom families with their open causes and next question,
on small made-up inputs, by exact values; and lines that place a family on their own."""
import dataclasses
from pathlib import Path
from types import SimpleNamespace

import pytest
from casebook.evidence.items import Fact
from casebook.judging.facts import resolve
from casebook.judging.families import (PRIOR, FamilyVerdict, _answers, _rules_out, judge_families, split_questions,
                                       supported_family)
from casebook.judging.observed import Observation, Observed
from casebook.judging.ranking import CONFIRMED, LIKELY, judge
from casebook.judging.triage import triage
from casebook.knowledge.kb import Family, KnowledgeBase, KnownCase, load_kb
from casebook.knowledge.rules import Condition, Signature
from conftest import write_log


def evidence(facts=(), spmd=None, processes=()):
    topology = SimpleNamespace(single_process_multi_device=spmd, processes=list(processes))
    return SimpleNamespace(facts={f.name: f for f in facts}, topology=topology)


def process(pid, several, devices=(), physical=(), refs=()):
    return SimpleNamespace(pid=pid, drives_several_devices=several, devices=list(devices),
                           physical_devices=list(physical), refs=[SimpleNamespace(file=f, line=n) for f, n in refs])


def test_log_facts_answers_and_defaults():
    ev = evidence([Fact("TASK_QUEUE_ENABLE", " 2 ", "log", "env.log", 3, "from env"),
                   Fact("ASCEND_LAUNCH_BLOCKING", "maybe", "log", "env.log", 4)])
    facts = resolve(ev)
    # a value the fact does not take says nothing
    assert facts == {"TASK_QUEUE_ENABLE": Fact("TASK_QUEUE_ENABLE", "2", "log", "env.log", 3, "from env")}
    assert resolve(ev, {"TASK_QUEUE_ENABLE": "0"})["TASK_QUEUE_ENABLE"] == Fact("TASK_QUEUE_ENABLE", "0", "engineer")
    unset = resolve(evidence(), {"TASK_QUEUE_ENABLE": "unset", "ASCEND_LAUNCH_BLOCKING": "unset"})
    assert [(f.name, f.value, f.source, f.note) for f in unset.values()] == [
        ("TASK_QUEUE_ENABLE", "1", "default", "unset: torch_npu's default is 1"),
        ("ASCEND_LAUNCH_BLOCKING", "0", "default", "unset: default 0")]
    off = resolve(evidence(), {"TASK_QUEUE_ENABLE": "unset", "ASCEND_LAUNCH_BLOCKING": "1"})["TASK_QUEUE_ENABLE"]
    assert (off.value, off.source, off.note) == (
        "0", "default", "unset, and ASCEND_LAUNCH_BLOCKING=1 turns the task queue off")
    assert resolve(evidence(), {"ASCEND_LAUNCH_BLOCKING": "1"})["ASCEND_LAUNCH_BLOCKING"].value == "1"
    assert off.name == "TASK_QUEUE_ENABLE" and unset["TASK_QUEUE_ENABLE"].name == "TASK_QUEUE_ENABLE"
    # a refused log value is skipped, and the facts after it are still read
    later = resolve(evidence([Fact("ASCEND_LAUNCH_BLOCKING", "maybe", "log"), Fact("TASK_QUEUE_ENABLE", "2", "log")]))
    assert list(later) == ["TASK_QUEUE_ENABLE"]


def test_one_process_on_several_devices_is_proved_by_its_last_line():
    procs = [process(7, False, [0], refs=[("a.log", 1)]), process(9, True, [3, 1], refs=[("b.log", 5), ("b.log", 8)]),
             process(11, True, [], [5, 4], refs=[("c.log", 2)])]
    fact = resolve(evidence(spmd=True, processes=procs))["single_process_multi_device"]
    assert fact == Fact("single_process_multi_device", True, "log", "b.log", 8, "pid 9 uses devices [1, 3]")
    fact = resolve(evidence(spmd=True, processes=procs[2:]))["single_process_multi_device"]
    assert (fact.line, fact.note) == (2, "pid 11 uses devices [4, 5]")
    fact = resolve(evidence(spmd=False, processes=[process(9, True, [1])]))["single_process_multi_device"]
    assert fact == Fact("single_process_multi_device", False, "log", None, None, None)
    assert "single_process_multi_device" not in resolve(evidence(spmd=None, processes=procs))


def test_the_answers_a_fact_can_take():
    assert _answers("single_process_multi_device", []) == [True, False]
    assert _answers("ASCEND_LAUNCH_BLOCKING", []) == ["0", "1"]
    conds = [Condition("torch_npu_version", "in", ["2.1", "2.2"]), Condition("torch_npu_version", "equals", "2.1"),
             Condition("torch_npu_version", "equals", "2.3")]
    assert _answers("torch_npu_version", conds) == ["2.1", "2.2", "2.3", "(another value)"]


def cause(id, against=(), requires=(), supports=()):
    return KnownCase(id, f"cases/{id}.md", status="verified", family="fam", against=list(against),
                     requires=list(requires), supports=list(supports),
                     signatures=[Signature(f"{id}-sig", "message", "contains", id, 1, True, "w")])


def test_questions_are_ordered_by_the_mass_an_answer_removes():
    one = Condition("single_process_multi_device", "equals", True, ask="one process?")
    blocking = Condition("ASCEND_LAUNCH_BLOCKING", "equals", "1", ask="blocking?", ask_zh="阻塞?")
    a, b, c = cause("a", requires=[one]), cause("b", against=[blocking]), cause("c", supports=[blocking])
    fam = Family("fam", "families/fam.md", questions=[Condition("torch_npu_version", "equals", "x", ask="version?")])
    got = split_questions(fam, [a, b, c], {"a": 0.6, "b": 0.3, "c": 0.1}, {})
    # one process: half the answers remove a (0.6) -> 0.3; blocking: one of two answers removes b -> 0.15
    assert [(m.fact, m.ask, m.ask_zh, m.required) for m in got] == [
        ("single_process_multi_device", "one process?", None, False), ("ASCEND_LAUNCH_BLOCKING", "blocking?", "阻塞?",
                                                                       False)]
    # a known fact is not asked; equal gains keep the order they were named in
    assert [m.fact for m in split_questions(fam, [a, b, c], {"a": 0.6, "b": 0.3, "c": 0.1}, {
        "single_process_multi_device": Fact("single_process_multi_device", True, "log")})] == ["ASCEND_LAUNCH_BLOCKING"]
    assert [m.fact for m in split_questions(fam, [b, a, c], {"a": 0.5, "b": 0.5, "c": 0.0}, {})] == [
        "ASCEND_LAUNCH_BLOCKING", "single_process_multi_device"]
    # an `against` alone words no question: without c's supporting fact, blocking is not asked
    assert [m.fact for m in split_questions(fam, [a, b], {"a": 0.6, "b": 0.3}, {})] == ["single_process_multi_device"]
    # a fact nobody words a question for is not asked
    silent = cause("d", requires=[Condition("single_process_multi_device", "equals", True)])
    assert split_questions(Family("f2", "f2.md"), [silent], {"d": 1.0}, {}) == []


def test_families_their_open_causes_and_the_supported_one():
    sig = Signature("fam-sig", "message", "contains", "boom", 1, True, "family sign")
    ruled = Condition("ASCEND_LAUNCH_BLOCKING", "equals", "1", ask="blocking?")
    fam = Family("fam", "families/fam.md", signatures=[sig], causes=["b", "a", "gone", "draft"], questions=[ruled])
    other = Family("other", "families/other.md", signatures=[Signature("o", "message", "contains", "zzz", 1, False,
                                                                          "w")])
    a, b = cause("a"), cause("b", against=[ruled])
    draft = KnownCase("draft", "cases/draft.md", family="fam")
    kb = KnowledgeBase(root=Path("kb"), cases={"a": a, "b": b, "draft": draft}, families={"fam": fam, "other": other})
    obs = Observed([Observation("message", t, t, "p.log", n) for n, t in enumerate(("boom", "a here"), 1)])
    hyps = [judge(a, obs, {})]
    (v,) = judge_families(kb, obs, {}, hyps)
    assert (v.family.id, v.verdict, v.score, v.open_causes) == ("fam", CONFIRMED, 1.0, ["a", "b"])
    assert v.next_question.fact == "ASCEND_LAUNCH_BLOCKING"
    blocked = {"ASCEND_LAUNCH_BLOCKING": Fact("ASCEND_LAUNCH_BLOCKING", "1", "engineer")}
    (v,) = judge_families(kb, obs, blocked, hyps)
    assert v.open_causes == ["a"] and v.next_question is None
    assert supported_family([v], hyps[0]) is v and supported_family([v], None) is v
    weak = FamilyVerdict(other, "possible", 0.5)
    assert supported_family([weak], None) is None and supported_family([weak, v], hyps[0]) is v
    assert PRIOR == 0.1


def test_an_answer_rules_a_cause_out_through_its_own_fact_only():
    c = cause("c", against=[Condition("ASCEND_LAUNCH_BLOCKING", "equals", "1", why="w")],
              requires=[Condition("single_process_multi_device", "equals", True, ask="one?")])
    assert [_rules_out(c, "ASCEND_LAUNCH_BLOCKING", v) for v in ("1", "0")] == [True, False]
    assert [_rules_out(c, "single_process_multi_device", v) for v in (True, False)] == [False, True]
    # an answer to another fact rules nothing out, whatever value it shares with the conditions
    assert [_rules_out(c, "TASK_QUEUE_ENABLE", v) for v in ("1", True, False)] == [False, False, False]


def test_the_expected_mass_removed_is_averaged_over_a_facts_answers():
    one = Condition("single_process_multi_device", "equals", True, ask="one process?")
    version = Condition("torch_npu_version", "in", ["2.1", "2.2", "2.3"], ask="version?")
    a, b = cause("a", requires=[one]), cause("b", requires=[version])
    # one process: 1 of 2 answers removes a -> 0.3; version: 1 of 4 answers (2.1, 2.2, 2.3, another) removes b -> 0.15
    fam = Family("fam", "families/fam.md", questions=[Condition("torch_npu_version", "asks", None)])
    got = split_questions(fam, [a, b], {"a": 0.6, "b": 0.6}, {})
    assert [(m.fact, m.ask) for m in got] == [("single_process_multi_device", "one process?"),
                                              ("torch_npu_version", "")]


def test_families_rank_confirmed_first_then_by_score_and_open_causes_by_weight():
    sig = Signature("boom", "message", "contains", "boom", 1, True, "w")
    half = Signature("half", "message", "contains", "never", 1, False, "w")
    contradicted = Family("a-contradicted", "families/a.md", signatures=[sig],
                          contradicted_by=[Signature("no", "message", "contains", "boom", 1, False, "w")])
    halfway = Family("b-halfway", "families/b.md", signatures=[sig, half], causes=["z", "a"])
    whole = Family("c-whole", "families/c.md", signatures=[sig], causes=[])
    z, a = cause("z"), cause("a")
    kb = KnowledgeBase(root=Path("kb"), cases={"z": z, "a": a},
                       families={f.id: f for f in (contradicted, halfway, whole)})
    obs = Observed([Observation("message", "boom z", "boom z", "p.log", 1)])
    hyps = [judge(z, obs, {})]
    found = judge_families(kb, obs, {}, hyps)
    # 1.0 confirmed, 0.5 confirmed, then the contradicted one: 0.5 too, but possible
    assert [(v.family.id, v.verdict, v.score) for v in found] == [
        ("c-whole", CONFIRMED, 1.0), ("b-halfway", CONFIRMED, 0.5), ("a-contradicted", "possible", 0.5)]
    b = found[1]
    # z has evidence of its own (1.0), a only the prior: z first although a comes first by id
    assert b.open_causes == ["z", "a"]
    assert ([i.id for i in b.for_], [i.id for i in found[2].against]) == (["boom"], ["no"])
    # the diagnosis's own family wins even when it is only possible; without one, the best confirmed family
    assert supported_family(found, SimpleNamespace(case=SimpleNamespace(family="a-contradicted"))) is found[2]
    assert supported_family(found, SimpleNamespace(case=SimpleNamespace(family="elsewhere"))) is found[0]
    assert supported_family(found[2:], None) is None


def test_a_diagnosis_places_its_family_when_the_familys_own_signs_do_not_show():
    fam = Family("fam", "families/fam.md", signatures=[Signature("fam-sig", "message", "contains", "boom", 1, True,
                                                                 "family sign")], causes=["a", "b"])
    loud = Family("loud", "families/loud.md", signatures=[Signature("loud-sig", "message", "contains", "bang", 1, True,
                                                                    "its own sign")], causes=[])
    a, b = cause("a"), cause("b")
    kb = KnowledgeBase(root=Path("kb"), cases={"a": a, "b": b}, families={"fam": fam, "loud": loud})
    quiet = Observed([Observation("message", "a here", "a here", "p.log", 3)])
    lead = judge(a, quiet, {})
    assert lead.verdict == CONFIRMED
    (v,) = judge_families(kb, quiet, {}, [lead])
    # the family is as sure as its cause and shows the cause's evidence; the cause is its leading open cause
    assert (v.family.id, v.verdict, v.score, [i.id for i in v.for_], v.open_causes) == (
        "fam", CONFIRMED, lead.score, ["a-sig"], ["a", "b"])
    assert supported_family([v], lead) is v
    # no diagnosis, no family
    assert judge_families(kb, quiet, {}, []) == []
    # a family confirmed by its own signs is not displaced by a likely diagnosis of another family
    both = Observed([Observation("message", t, t, "p.log", n) for n, t in enumerate(("a here", "bang"), 1)])
    likely = dataclasses.replace(judge(a, both, {}), verdict=LIKELY)
    found = judge_families(kb, both, {}, [likely])
    assert [(f.family.id, f.verdict) for f in found] == [("loud", CONFIRMED)]
    # a confirmed cause is as sure as those signs: its family is placed beside them, and it is the family supported
    sure = judge(a, both, {})
    found = judge_families(kb, both, {}, [sure])
    assert [(f.family.id, f.verdict) for f in found] == [("fam", CONFIRMED), ("loud", CONFIRMED)]
    assert supported_family(found, sure).family.id == "fam"


def test_a_fallback_family_comes_after_every_other_family_the_evidence_places_and_yields_to_a_diagnosis():
    generic = Family("a-generic", "families/a.md", signatures=[Signature("err", "message", "contains", "Error", 1, True,
                                                                         "any error")], causes=[], fallback=True)
    weak = Family("b-weak", "families/b.md", causes=["a"],
                  signatures=[Signature("boom", "message", "contains", "boom", 1, True, "w"),
                              Signature("never", "message", "contains", "never", 1, False, "w")])
    a = dataclasses.replace(cause("a"), family="b-weak")
    kb = KnowledgeBase(root=Path("kb"), cases={"a": a}, families={f.id: f for f in (generic, weak)})
    both = Observed([Observation("message", "boom Error", "boom Error", "p.log", 1)])
    found = judge_families(kb, both, {}, [])
    # the generic family's signs match whole (1.0) and the other's half (0.5): the other still comes first
    assert [(v.family.id, v.verdict, v.score) for v in found] == [("b-weak", CONFIRMED, 0.5),
                                                                 ("a-generic", CONFIRMED, 1.0)]
    assert supported_family(found, None) is found[0]
    # alone, it is the family the evidence supports
    alone = judge_families(kb, Observed([Observation("message", "Error", "Error", "p.log", 1)]), {}, [])
    assert supported_family(alone, None).family.id == "a-generic"
    # a diagnosis places its own family though the generic one is confirmed by its signs
    quiet = Observed([Observation("message", t, t, "p.log", n) for n, t in enumerate(("a here", "Error"), 1)])
    lead = judge(a, quiet, {})
    found = judge_families(kb, quiet, {}, [lead])
    assert supported_family(found, lead).family.id == "b-weak"


def test_a_fallback_that_is_not_a_boolean_is_a_problem(tmp_path):
    kb_root = tmp_path / "kb"
    (kb_root / "families").mkdir(parents=True)
    (kb_root / "families" / "f.md").write_text(
        "---\nid: f\ntitle: t\ntitle_zh: t\nsummary: s\nsummary_zh: s\nfallback: maybe\nsignatures: []\n"
        "references: []\n---\n\n## Symptom\n\nx\n\n## How the causes differ\n\nx\n\n## References\n\nx\n",
        encoding="utf-8")
    kb = load_kb(kb_root)
    assert any("fallback is true or false" in p.message for p in kb.problems)
    assert kb.families["f"].fallback is False


def test_the_separation_of_a_fact_is_the_expected_product_of_mass_removed_and_kept_then_the_mass_removed():
    from casebook.judging.families import separation
    one = Condition("single_process_multi_device", "equals", True, ask="one process?")
    a, b, c = cause("a", requires=[one]), cause("b"), cause("c", against=[one])
    weights = {"a": 0.6, "b": 0.3, "c": 0.1}
    # answers True / False: True removes c (0.1, keeps 0.9), False removes a (0.6, keeps 0.4)
    got = separation("single_process_multi_device", [a, b, c], weights)
    assert got == pytest.approx(((0.1 * 0.9 + 0.6 * 0.4) / 2, (0.1 + 0.6) / 2))
    assert separation("not_a_fact", [a, b], weights) == (0.0, 0.0)
    assert separation("TASK_QUEUE_ENABLE", [b], weights) == (0.0, 0.0)   # no answer removes b


def test_the_leading_open_cause_real_reports_state_most_is_named_with_the_familys_count(tmp_path):
    """`most_often` tells the engineer how often the leading cause was the real one: of the family's documented
    captures, 0 when none was filed under the family (a capture can state a cause under another family)."""
    fam = Family("fam", "families/fam.md", signatures=[Signature("fam-sig", "message", "contains", "boom", 1, True,
                                                                 "w")], causes=["a", "b"])
    kb = KnowledgeBase(root=tmp_path, cases={"a": cause("a"), "b": cause("b")}, families={"fam": fam})
    (tmp_path / "priors.yaml").write_text("cases:\n  a: 1\n  b: 3\nfamilies:\n  other: 4\n", encoding="utf-8")
    obs = Observed([Observation("message", "boom", "boom", "p.log", 1)])
    (v,) = judge_families(kb, obs, {}, [])
    # a and b both weigh the prior only: b leads, as the cause stated more often
    assert (v.open_causes, v.most_often) == (["b", "a"], ("b", 3, 0))


@pytest.mark.parametrize("lines,family", [
    # a compiler's diagnostic on a tile-level kernel, its `error:` prefix cut by the paste
    (["no matching function for call to 'TLOAD'"], "op-binary-compile"),
    (["use of undeclared identifier 'Tile'"], "op-binary-compile"),
    (["static assertion failed: TEXTRACT feed mismatch"], "op-binary-compile"),
    # the kernel toolchain's own words: BiSheng IR's dialects, an error about the op's tiling data
    (["error: 'hivm.hir.vadd' op failed to verify that operand at index 0 is vector-only"], "op-binary-compile"),
    (["solve_tril_tiling.h:14:8: error: redefinition of 'SolveTrilTilingData'"], "op-binary-compile"),
    # torch_npu's broken-up paste of a 507015: the ACL words alone place the AI Core exception
    (["RuntimeError:", "error code is 507015", "The aicore execution is abnormal."], "aicore-exception"),
    # a framework's own report of the runtime code it failed with
    (["RuntimeError: run_prepared failed with code 507018"], "aicpu-exception"),
    # MindSpore's op check of two inputs whose shapes do not broadcast
    (["For 'Add', x.shape and y.shape need to broadcast."], "op-not-supported"),
    # HCCL's older wording of the P2P wait
    (["connect p2p timeout, timeout: 120s."], "hccl-init-failure"),
    # the framework refusing how the program uses it, on any device
    (["RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they "
      "have already been freed)."], "framework-usage"),
    (["RuntimeError: Only dense CPU tensors can be pinned"], "framework-usage"),
    (["RuntimeError: Cannot run aclop operators during NPU graph capture. Current working aclop is Identity"],
     "framework-usage"),
    # a compiler's diagnostic about a kernel's own source or the kernel instruction library's headers, whatever its
    # message says
    (["/ci/runs/pr996/syncall_binding/syncall_binding_kernel.cpp:96:3: error: no matching function for call to "
      "'SYNCALL'"], "op-binary-compile"),
    (["/src/pto-isa/include/pto/common/event.hpp:232:34: error: use of undeclared identifier 'PIPE_FIX'"],
     "op-binary-compile"),
    # a C++ compiler stopping on the language, with or without the position it names: the source does not build
    # against the headers it was given (an Ascend C kernel's, an op project's, a library's tiling code)
    (["error: no matching function for call to 'Duplicate'"], "op-binary-compile"),
    (["recurrent_kda.cpp:36:34: error: use of undeclared identifier 'DTYPE_STATE'"], "op-binary-compile"),
    (["tiling_util.cpp:28:18: error: ‘DAV_3510’ is not a member of ‘NpuArch’"], "op-binary-compile"),
    (["error: invalid use of incomplete type 'class fe::PlatFormInfos'"], "op-binary-compile"),
    (["error: the range of 1st parameter must be [4, 6]"], "op-binary-compile"),
    # an AI Core function's refusal of half-precision scalar arithmetic (tilelang-ascend's Hadamard kernel)
    (["error: half precision operation is not allowed in aicore function"], "op-binary-compile"),
    # a tensor on another device than the communicator it is handed to; a framework's distributed start-up without
    # the variables its own launcher exports
    (["AssertionError: this hccl communicator is created to work on npu:0, but the input tensor is on cpu"],
     "framework-usage"),
    (["RuntimeError: Environment variables RANK_ID has not been exported, please export variables 'RANK_ID'."],
     "framework-usage"),
    # a header the build names is not on its include path, with or without the compiler's `fatal error:`
    (["third_party/acl/inc/acl/acl_base.h: No such file or directory"], "environment-versions"),
    # a platform's own words that the CANN and driver versions do not match
    (["Cann软件与Ascend驱动版本不匹配"], "environment-versions"),
    # the op execution's own codes: its tiling refused the inputs (EZ1008), their dtype or format is not the op
    # prototype's (EZ1009)
    (["Failed to execute operator Softsign_0. Reason: Failed to execute tiling function."], "op-not-supported"),
    (["Execution_Error(EZ1009): Failed to execute operator aclnnMoeInitRoutingV3_3915. Reason: The dtype or format of "
      "the actual input or output parameter of the operator is inconsistent with that defined in the operator "
      "prototype OpDef."], "op-not-supported"),
    # the kubelet that cannot give a pod the NPUs its device plugin advertises
    (["Warning  UnexpectedAdmissionError  kubelet", "  Allocate failed due to no healthy devices present;",
      "  cannot allocate unhealthy devices huawei.com/Ascend910B4-1"], "environment-versions"),
    # the buffers the application hands a model are not the sizes it infers (a dynamic-shape model, an output buffer)
    (["[ERROR] GE(1234,app):2024-01-02-03:04:05.678.901 [graph_executor.cc:88]1234 CheckInputs: tensor size "
      "mismatches.expected: 524320, but given 32."], "framework-usage"),
    (["malloc size must be greater than zero"], "framework-usage"),
    # an ATB operation refusing its inputs at setup (op-plugin's ATB path)
    (["[rank0]:[E731 07:58:03.605457886 compiler_depend.ts:429] RopeOperation setup failed!"], "op-not-supported"),
    # ACL's own initialisation failing, as the CANN operator repositories' examples print it
    (["[2026-07-02 10:21:42] aclInit failed. ERROR: 500000"], "environment-versions"),
    # HCCL's RDMA agent that could not start a device's NIC, and the root info call that failed with it
    (["HcclGetRootInfo(&hcclID), error code is 19", "ra init failed, return[19] devicePhyId_[4], nicPosition[0]"],
     "hccl-init-failure"),
    # a build or install step of the stack: the environment, not a job that ran
    (["ld.lld: error: unable to find library -lstdc++fs"], "environment-versions"),
    (["ninja: error: loading 'build.ninja': No such file or directory"], "environment-versions"),
    # a link that misses a library's symbol: the versions or the ABI the program was built against
    (["main.cpp:(.text+0x3c): undefined reference to `aclrtDevResLimitType'"], "environment-versions"),
    (["[ERROR]Driver_ko_install failed, details in : /var/log/ascend_seclog/ascend_install.log."],
     "environment-versions"),
    # a tensor or a call on another device than the code meant, or on none: the program's own placement
    (["AssertionError: The values for attribute 'device' do not match: npu:1 != cpu."], "framework-usage"),
    (["RuntimeError: Could not compute stream ID for 0xffff8b21c6a0 on device -1 (something went wrong)"],
     "framework-usage"),
    (["Check failed: (device_names.size() > 0): 0!>0 No device specified."], "framework-usage"),
    (["RuntimeError: Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype"], "framework-usage"),
    # the job could not open, set, find or name its device, or its launcher counted none: which devices it may use
    (["[ERROR] [Init] Acl open device 2 failed."], "environment-versions"),
    (["RuntimeError: Failed to infer device type, please check your environment."], "environment-versions"),
    (["ValueError: Total available GPUs 0 is less than total desired GPUs 4."], "environment-versions"),
    (["RuntimeError: Invalid device ID. Check the number of processes against the devices visible."],
     "environment-versions"),
    # Triton's `0 active drivers`: no installed package registered a backend (triton-ascend absent, or shadowed by
    # upstream Triton), placed with the environment's packages though no cause is known yet
    (["  File \"/usr/local/lib/python3.11/site-packages/triton/runtime/driver.py\", line 8, in _create_driver",
      "    raise RuntimeError(f\"{len(actives)} active drivers ({actives}). There should only be one.\")",
      "RuntimeError: 0 active drivers ([]). There should only be one."], "environment-versions"),
    # torch.distributed refuses what the program hands a collective, or the program moves a storage between devices
    (["RuntimeError: Tensors must be contiguous"], "framework-usage"),
    (["RuntimeError: trying to initialize the default process group twice!"], "framework-usage"),
    (["ValueError: Invalid rank 9, rank should be in the interval [0, 7]"], "framework-usage"),
    (['RuntimeError: Attempted to set the storage of a tensor on device "cpu" to a storage on different device "npu:0".'],
     "framework-usage"),
    # the runtime found no context in the calling thread (a transfer engine's worker, Mooncake's words)
    (["aclrtGetDevice failed", "rtGetDevMsg execution failed, the context is a null pointer"], "environment-versions"),
])
def test_a_familys_words_place_a_short_paste(tmp_path, lines, family):
    from casebook.judging.triage import triage
    from casebook.knowledge.kb import load_kb
    paste = tmp_path / "paste.txt"
    paste.write_text("\n".join(lines) + "\n", encoding="utf-8")
    t = triage(paste, kb=load_kb())
    assert t.family is not None and t.family.family.id == family


@pytest.mark.parametrize("line,family", [
    # the Vision SDK's tail names the code: 507014, an AI Core task that timed out
    ("Synchronize stream execution failed. (Calling Function = aclrtSynchronizeStream, Code = 507014, Message = "
     "Unknown error code.)", "aicore-trap-or-timeout"),
    # HCCL's task exception report of a failed Notify Wait (mind-cluster's fault-diagnosis test plogs), and its
    # report of a transport to a peer it could not build
    ("[ERROR] HCCL(4410,python3):2024-04-08-02:55:04.898.194 [task_exception_handler.cc:452][4410][TaskExceptionHandler]"
     "[Callback]Task run failed, base information is streamID:[3], taskID[765], taskType[Notify Wait], tag[AllReduce_1]",
     "hccl-timeout"),
    ("[ERROR] HCCL(903,python3.8):2025-07-30-19:36:56.167.730 [transport_manager.cc:777] [16542][Create][DestLink]"
     "Transport init error! createLink para:rank[3]-localUserrank[3]-localIpAddr[], dst_rank[0]", "hccl-init-failure"),
    # the runtime's own code for an AI Core or a vector core exception, with no other word of it
    ("Synchronize stream failed,error code is 507015", "aicore-exception"),
    ("RuntimeError: NPU function error: device error type 3, error code is 507035", "aicore-exception"),
    # hccl_test stops at its communicator's creation with the line and return code of that step
    ("hccl interface return err ./common/src/hccl_test_common.cc:499, retcode: 11", "hccl-init-failure"),
    ("[rank1]: RuntimeError: create_config:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:102 HCCL function "
     "error: hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is 15",
     "hccl-init-failure"),
    # the forms of the vendor's fault-diagnosis catalog (mind-cluster kg-config): the driver's resource manager, the
    # runtime's SDMA completion report, HCCL's set-up steps and links in use, the AI CPU side's start
    ("[ERROR] DRV(20411,python3):2025-03-02-10:11:12.345.678 [trs_res_id.c:210]20411 trs_res_id_alloc: No res. "
     "(devId=0; tsid=0; res_type=3)", "runtime-resources"),
    ("[ERROR] RUNTIME(20411,python3):2025-03-02-10:11:12.345.678 [device_error_proc.cc:1120]20411 "
     "ProcessStarsSdmaErrorInfo:[INIT][DEFAULT]The error from device(chipId:0, dieId:0), serial number is 9, "
     "cqeStatus=0x3", "sdma-copy-exception"),
    ("[ERROR] HCCL(20411,python3):2025-03-02-10:11:12.345.678 [topoinfo_exchange_agent.cc:301][20411][Recv]"
     "[ClusterInfoMsg]receive msg length from fdhandle failed, ret[11]", "hccl-init-failure"),
    ("[ERROR] HCCL(20411,python3):2025-03-02-10:11:12.345.678 [transport_roce.cc:512][20411][Send][RaWr]send wqe "
     "failed, ret[-22]", "hccl-link-error"),
    ("[ERROR] RUNTIME(20411,python3):2025-03-02-10:11:12.345.678 [device.cc:733]20411 Init:Start aicpu executor "
     "failed, retCode=0x7020010", "aicpu-exception"),
])
def test_a_line_of_one_family_places_it_alone(tmp_path, line, family):
    t = triage(write_log(tmp_path, "console.log", line + "\n"))
    assert t.family is not None and t.family.family.id == family


def test_a_failed_notify_wait_task_makes_the_notify_timeout_likely_never_confirmed(tmp_path):
    # every cause of the family stops a rank at such a wait: the report places the timeout, not its cause
    line = ("[ERROR] HCCL(4410,python3):2024-04-08-02:55:04.898.194 [task_exception_handler.cc:452][4410]"
            "[TaskExceptionHandler][Callback]Task run failed, base information is streamID:[3], taskID[765], "
            "taskType[Notify Wait], tag[AllReduce_1]")
    t = triage(write_log(tmp_path, "plog-4410_20240408025500000.log", line + "\n"))
    assert (t.diagnosis.case.id, t.diagnosis.verdict) == ("hccl-notify-wait-timeout", "likely")
    # the same report of HCCL's AI CPU mode, written by the device's aicpu_scheduler
    aicpu = ("[ERROR] HCCL(5375,aicpu_scheduler):2025-08-06-23:09:01.834.041 [aicpu_communicator.cc:3083] [5792]"
             "[TaskException]base information is streamId:149, sqid:153, head:1488, tail:136, type:NOTIFY WAIT, "
             "localRank:1, remoteRank:0, taskId:26064, notifyId:760, addr1High:0x0, addr1Low:0x0.")
    t = triage(write_log(tmp_path, "plog-5375_20250806230900000.log", aicpu + "\n"))
    assert (t.diagnosis.case.id, t.diagnosis.verdict) == ("hccl-notify-wait-timeout", "likely")


def test_the_host_drivers_own_lost_heartbeat_line_is_the_lost_heartbeat(tmp_path):
    # the kernel log (syslog's messages) of the host NPU driver, as mind-cluster's fault-diagnosis tests hold it
    line = ("Aug  1 08:38:31 node-3 kernel: [ 1197.584409] [ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] "
            "<kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; new_count=1104; lost_count=4; "
            "total_lost_count=4; total_10s_count=0; total_15s_count 0).")
    t = triage(write_log(tmp_path, "messages_0x40F84E00", line + "\n"))
    assert (t.diagnosis.case.id, t.diagnosis.verdict, t.family.family.id) == (
        "device-heartbeat-lost", "confirmed", "device-lost")


def test_a_device_log_alone_places_the_ai_core_exception_by_the_firmwares_handler(tmp_path):
    # the 2020 layout's device log, no host plog beside it (hicann/oam-tools's msaicerr test data)
    device = tmp_path / "slog" / "dev-os-0" / "device-0"
    device.mkdir(parents=True)
    (device / "device-0_20201224011054112.log").write_text(
        "[ERROR] TSCH(-1,null):2020-12-23-17:10:54.121.809 2179 (cpuid:0) ../../tsch/firmware/feature/src/bs/"
        "ai_core_dispatcher.c:903 aicore_exception_aic_reset: SOC_AIC_SC_REG_RUN_STALL_REG=0x1\n", encoding="utf-8")
    t = triage(tmp_path)
    assert t.family is not None and t.family.family.id == "aicore-exception"


@pytest.mark.parametrize("line,diagnosis", [
    # torch_npu's allocator and a copy found no context in a thread of a process that had set its device up
    ("RuntimeError: allocate:/usr1/ws/pytorch/torch_npu/csrc/core/npu/NPUCachingAllocator.cpp:1406 NPU error, "
     "error code is 107002", "setdevice-missing-in-thread"),
    ('{"detail":"[address=10.0.0.2:41877, pid=9] getDevice:torch_npu/csrc/aten/common/CopyKernel.cpp:41 NPU error, '
     'error code is 107002', "setdevice-missing-in-thread"),
    # the same code from the device's set-up is no such proof: which of the two causes is open
    ("RuntimeError: initDevice:torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl.cpp:191 NPU error, error code is 107002",
     None),
])
def test_a_missing_context_found_after_set_up_is_a_thread_that_never_set_its_device(tmp_path, line, diagnosis):
    context = "[Error]: The context is empty.\n        Check whether acl.rt.set_context or acl.rt.set_device is called.\n"
    t = triage(write_log(tmp_path, "console.log", line + "\n" + context))
    assert t.family.family.id == "environment-versions"
    assert (t.diagnosis.case.id if t.diagnosis else None) == diagnosis
    ids = [h.case.id for h in t.candidates[:2]]
    assert set(ids) == {"setdevice-missing-in-thread", "no-device-context"}


def test_a_device_daemons_fault_event_is_an_error_line_of_the_device_log_and_places_its_family(tmp_path):
    # tsdaemon's health event for an AI CPU service process it could not clean up, in the device OS log; and a port's
    # link-fault flag in a device log (mind-cluster's fault-diagnosis test data, as logged)
    tsd = write_log(tmp_path / "a", "device-os_20231031164139951.log",
                    "[EVENT] TDT(4717,tsdaemon):2023-10-31-16:41:39.400.001 [tsdaemon.cpp:900][Start][tid:4717] started\n"
                    "[EVENT] TDT(4717,tsdaemon):2023-10-31-16:41:39.406.087 [tsdaemon.cpp:1811][RunSpecialProcess]"
                    "[tid:4717] [TsdEVENT] Event id=0x8c17a005.\n")
    t = triage(tsd)
    assert t.evidence.first_error.line == 2 and t.evidence.first_error.code == "0x8c17a005"
    assert t.family.family.id == "aicpu-exception"
    port = write_log(tmp_path / "b", "device-1/device-1_20241204162140159.log",
                     "[EVENT] IMP(-2,IMP): 2024-12-04-08:21:54.994.714 70 (device_id:1 die_id:0) [IMP] present 1, "
                     "mac_link 1, pcs_link 1, rf_lf 1, pcs_err_cnt 5, pcs_64_66b 4681\n")
    assert triage(port).family.family.id == "hccl-link-error"
    # the same event line in a host plog, and a port whose flag is clear, report no fault of a device
    host = write_log(tmp_path / "c", "plog/plog-4717_20231031164139000.log",
                     "[EVENT] TDT(4717,python3):2023-10-31-16:41:39.406.087 [tsd.cpp:1811]4717 f: Event id=0x8c17a005.\n")
    assert triage(host).evidence.first_error is None
    clear = write_log(tmp_path / "d", "device-1/device-1_20241204162140159.log",
                      "[EVENT] IMP(-2,IMP): 2024-12-04-08:21:54.994.714 70 (device_id:1 die_id:0) [IMP] present 1, "
                      "mac_link 1, pcs_link 1, rf_lf 0, pcs_err_cnt 0, pcs_64_66b 4681\n")
    assert triage(clear).evidence.first_error is None
