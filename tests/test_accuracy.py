"""Scoring one capture's triage against the cause its source states (judging/accuracy.py)."""
import pytest
from casebook.judging.accuracy import Expected, figures, read_expected, score


def doc(diagnosis, family, *candidates):
    return {"diagnosis": diagnosis, "family": {"id": family} if family else None,
            "candidates": [{"case": c, "verdict": v} for c, v in candidates]}


WANT = Expected("x", ("op-rejects-dtype",), "op-not-supported", 2, "the op refuses bf16")


def test_right_family_top3_and_a_wrong_confirmation_are_told_apart():
    right = score(WANT, doc("op-rejects-dtype", "op-not-supported", ("op-rejects-dtype", "confirmed")))
    assert (right.right, right.family, right.top3, right.confirmed_wrong) == (True, True, True, ())
    family = score(WANT, doc(None, "op-not-supported", ("a", "possible"), ("b", "possible"), ("c", "possible"),
                             ("op-rejects-dtype", "possible")))
    assert (family.right, family.family, family.top3) == (False, True, False)
    wrong = score(WANT, doc("a", "memory-allocation", ("a", "confirmed"), ("op-rejects-dtype", "likely")))
    assert (wrong.right, wrong.family, wrong.top3, wrong.confirmed_wrong) == (False, False, True, ("a",))


def test_a_ruled_out_candidate_is_not_in_the_top_three():
    s = score(WANT, doc(None, None, ("op-rejects-dtype", "ruled_out"), ("a", "possible")))
    assert s.top3 is False


def test_a_capture_without_a_documented_cause_is_right_when_nothing_is_claimed():
    none = Expected("y", ("undocumented",), None, 0, "")
    assert score(none, doc(None, "hccl-timeout")).right is True
    assert score(none, doc("hccl-notify-wait-timeout", "hccl-timeout")).right is False


def test_figures_count_documented_captures_and_every_wrong_confirmation():
    none = Expected("y", ("undocumented",), None, 0, "")
    scores = [score(WANT, doc("op-rejects-dtype", None)), score(WANT, doc(None, "op-not-supported")),
              score(none, doc(None, None, ("a", "confirmed")))]
    f = figures(scores, "2")
    assert (f.n, f.documented, f.right, f.family, f.top3, f.confirmed_wrong) == (3, 2, 1, 2, 0, 1)


def test_an_expectation_reads_its_accepted_ids_family_and_batch(tmp_path):
    (tmp_path / "expect.yaml").write_text("diagnosis: a-slug\naccept: [op-rejects-dtype]\nfamily: none\nbatch: 3\n"
                                          "cause: words\n", encoding="utf-8")
    e = read_expected(tmp_path)
    assert (e.cases, e.family, e.batch, e.cause, e.documented) == (("a-slug", "op-rejects-dtype"), None, 3, "words",
                                                                   True)


def test_an_expectation_without_a_diagnosis_is_undocumented(tmp_path):
    """A thread that never found the cause names none: the capture counts as undocumented, with no family."""
    (tmp_path / "expect.yaml").write_text("family: hccl-timeout\n", encoding="utf-8")
    assert read_expected(tmp_path) == Expected(tmp_path.name, ("undocumented",), "hccl-timeout", 0, "")
    assert read_expected(tmp_path).documented is False


def test_a_folder_without_captures_is_refused_in_one_line(tmp_path, capsys):
    from casebook.cli import main
    assert main(["kb", "priors", str(tmp_path / "missing")]) == 2
    assert main(["kb", "accuracy", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("no capture folder") == 2


def test_the_known_gaps_are_written_in_the_words_of_the_capture_tests(tmp_path, capsys):
    """`kb accuracy FOLDER --write-gaps` lists, per check, what each capture misses today, and the codes no catalog
    explains; the file's opening comment stays."""
    import shutil
    from pathlib import Path
    import yaml
    from casebook.cli import main
    captures = Path(__file__).resolve().parent / "captures"
    for name in ("369", "3717", "295"):   # right now; no case for its cause and no first error; a wrong confirmation
        src = next(captures.glob(f"{name}-*"))
        shutil.copytree(src, tmp_path / src.name)
    gaps = tmp_path / "known-gaps.yaml"
    gaps.write_text("# what is not right yet\ncodes:\n  - E19025\ncause:\n  gone-capture: an old reason\n", encoding="utf-8")
    assert main(["kb", "accuracy", str(tmp_path), "--write-gaps"]) == 0
    text = gaps.read_text(encoding="utf-8")
    doc = yaml.safe_load(text)
    assert text.startswith("# what is not right yet\n") and doc["codes"] == []   # 369, 3717, 295: every code known
    assert set(doc) == {"codes", "cause", "confirmed_wrong", "reading"}
    assert doc["cause"] == {
        "3717-mindcluster-fd-kg-parse-host-kernel-pcie-dma-copy-failed": "no case of the knowledge base covers "
        "pcie-dma-or-bar-transfer-data-error; the triage names no diagnosis (no family)",
        "295-hiascend-forum-chatglm-libtorch-npu-undefined-symbol-cann601": "the source names no cause, but the "
        "triage names torch-npu-torch-version-mismatch"}
    assert doc["confirmed_wrong"] == {
        "295-hiascend-forum-chatglm-libtorch-npu-undefined-symbol-cann601": "torch-npu-torch-version-mismatch is "
        "confirmed"}
    assert "369-mindspeedmm-ep-lora-experts-unfrozen-oom" not in doc["reading"]
    assert main(["kb", "accuracy", str(tmp_path), "--write-gaps", "--batch", "21"]) == 2
    assert "--write-gaps" in capsys.readouterr().err


def test_captures_read_as_a_channel_carries_them_score_as_they_do_plain(tmp_path, capsys):
    """`kb accuracy FOLDER --as NAME` puts NAME's prefix on every line of each pasted capture before the triage; a
    collection of log files is read as it is; the proven cases and the gaps are written from the plain captures only."""
    import json
    import shutil
    from pathlib import Path
    from casebook.cli import main
    captures = Path(__file__).resolve().parent / "captures"
    for name in ("369", "01", "3712"):   # pasted, pasted, a collection of plog files
        src = next(captures.glob(f"{name}-*"))
        shutil.copytree(src, tmp_path / src.name)
    runs = {}
    for channel in (None, "pdsh", "vllm"):
        capsys.readouterr()
        assert main(["kb", "accuracy", str(tmp_path), "--json", *(["--as", channel] if channel else [])]) == 0
        runs[channel] = json.loads(capsys.readouterr().out)
    assert runs[None]["figures"]["right"] == 3
    assert runs["pdsh"]["captures"] == runs[None]["captures"] == runs["vllm"]["captures"]
    assert main(["kb", "accuracy", str(tmp_path), "--as", "pdsh", "--write-proven"]) == 2
    assert "--as" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        main(["kb", "accuracy", str(tmp_path), "--as", "telnet"])
    assert stop.value.code == 2 and "unknown channel telnet" in capsys.readouterr().err
