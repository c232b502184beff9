"""Lines a terminal cut or a mail client wrapped are joined back, and read as the capture read before it was broken:
real captures carried by the two channels that break lines (judging/channels.py), and real captures whose lines
must stay apart though they look broken."""
from __future__ import annotations

from pathlib import Path

import pytest
from casebook.judging.channels import carried, write_carried
from casebook.judging.contract import to_dict
from casebook.judging.triage import triage
from casebook.reading.grammar import KIND_BLANK, KIND_CONTINUATION, KIND_PYTHON
from casebook.reading.plog import read_plog
from casebook.reading.rejoin import rewrapped

CAPTURES = Path(__file__).resolve().parent / "captures"


def capture(name: str) -> Path:
    return CAPTURES / name / "capture.txt"


def lines_read(path: Path) -> list[tuple[str, str]]:
    """(kind, message with its spaces evened) of every record of the capture as written (LogTable.whole)."""
    return [(r[2], " ".join(str(r[13]).split())) for r in read_plog(path).whole.rows if r[2] != KIND_BLANK]


@pytest.mark.parametrize("channel, name", [
    # an AMCT tool's own lines and onnxruntime's: no log line the grammar reads, two of them cut at the width
    ("terminal-100", "134-atc-quant-calibration-input-size-mismatch"),
    ("terminal-100", "160-onnxruntime-cann-aclinit-repeat-with-torch-npu"),
    # a CMake build's output: the compiler's diagnostic cut inside a path and a word
    ("terminal-100", "1562-mindspore-custom-op-faq-tilingdata-base-h-not-found"),
    # a device's SDMA report whose second piece ends with the error block's [FUNC:..][FILE:..][LINE:..]
    ("terminal-100", "07-vllm-ascend-rank0-sdma-507001"),
    # the same error line from every process, each cut at the same place
    ("terminal-100", "128-hccltest-libmpi-so-not-found"),
    # words wrapped with their space dropped, and a symbol longer than the line cut where the line ends
    ("mail-76", "309-vllm-ascend-pr-mha-aclgraph-padded-kv-tnd-e89999"),
    ("mail-76", "748-recsdk-tf-sklearn-libgomp-static-tls-import-order"),
    # one line wrapped once, where the next word would not fit in 72 columns
    ("mail-76", "782-runtime-sample-compute-group-unsupported-a2-a3-207000"),
    ("mail-76", "828-drivingsdk-protobuf-distribution-not-found"),
    # a traceback whose frame lines lost their function names to the next line
    ("mail-76", "2115-ascend-contest-2024-mindformers-tools-module-missing"),
    # one line repeated by every process, each wrapped the same way: a word wrap, not a terminal's cut
    ("mail-76", "051-vllm-ascend-tbe-subprocess-orphaned-at-exit"),
])
def test_a_capture_a_terminal_cut_or_a_mail_client_wrapped_reads_as_it_did_before(tmp_path, channel, name):
    assert lines_read(write_carried(capture(name), channel, tmp_path)) == lines_read(capture(name))


def test_a_frame_broken_before_its_function_is_one_frame_line(tmp_path):
    path = write_carried(capture("2115-ascend-contest-2024-mindformers-tools-module-missing"), "mail-76", tmp_path)
    frames = [r for r in read_plog(path).whole.rows if r[2] == KIND_PYTHON and "File " in str(r[13])]
    assert frames and all(str(r[13]).rstrip().endswith(", in <module>") for r in frames)


@pytest.mark.parametrize("name", [
    # a compiler's diagnostics of one form, one per source line: as long as each other, not pieces of one
    "118-tritonascend-linalg-binary-unsupported-alloc",
    "2111-pytorch-npu-codex-torch-nightly-symm-mem-groupinfo-api-break",
    # npu-smi's table: every row as wide as the widest line
    "37-vllm-ascend-npu-smi-table-a3",
    "2254-sglang-test-notes-old-driver-507057-aivec-mte-out-of-range",
])
def test_lines_of_one_width_that_are_whole_are_not_joined(name):
    assert rewrapped(capture(name).read_text(encoding="utf-8").split("\n")) == []


def test_a_line_the_capture_holds_again_is_not_the_rest_of_the_line_above():
    # hccl_test's parameters line is the longest and the error line after it starts in lower case, as the rest of a
    # wrapped line would; the error line comes again further down, so it is a line of its own
    log = read_plog(capture("130-hccltest-init-hcclcomm-retcode7-stale-peer"))
    assert (log.records["kind"] == KIND_CONTINUATION).sum() == 0


def test_the_whole_view_holds_a_broken_line_once_and_counts_its_pieces(tmp_path):
    path = write_carried(capture("06-pta-2021-plog-ge-op-unsupported"), "terminal-100", tmp_path)
    log = read_plog(path)
    whole = log.whole
    (f,) = log.files
    pieces = int((log.records["kind"] == KIND_CONTINUATION).sum())
    assert pieces == f.joined == 5 and len(whole.rows) == len(log.rows) - pieces
    assert f.lines == len(whole.rows) + f.joined + f.blank
    # the op store's reason, the line under the joined error line, is read as its message: the cause is named
    t = triage(path)
    assert to_dict(t)["diagnosis"] == "op-unsupported-input-dtype"
    # a capture with no broken line is its own whole view: nothing is copied
    plain = read_plog(capture("06-pta-2021-plog-ge-op-unsupported"))
    assert plain.whole is plain


def test_a_table_pasted_in_a_markdown_block_is_never_taken_for_a_terminal_cut():
    rows = capture("37-vllm-ascend-npu-smi-table-a3").read_text(encoding="utf-8").split("\n")
    assert rewrapped(carried("\n".join(rows), "markdown").split("\n")) == []


@pytest.mark.parametrize("name", [
    # a program's message after the longest line, in lower case as the rest of a line would be
    "kb/samples/file-permission-rejected/positive-runc-owner-check",
    "kb/samples/socket-ifname-not-on-host/positive-launcher-interface-missing",
    "kb/samples/python-package-not-installed/positive-bdist-wheel-missing",
    "tests/captures/1840-orangepi-aipro-nnal-install-create-dir-fail-permission",
])
def test_the_line_under_the_longest_line_is_its_own_when_only_its_case_says_otherwise(name):
    root = Path(__file__).resolve().parent.parent
    (path,) = (root / name).glob("capture.txt")
    assert (read_plog(path).records["kind"] == KIND_CONTINUATION).sum() == 0


def test_the_probes_flood_of_cut_lines_is_read_whole_and_back_as_its_error_lines(tmp_path):
    from casebook.bench import bombs
    from casebook.reading.grammar import KIND_PLOG
    from casebook.reading.plog import CAPTURE_FULL_BELOW
    # the probe's flood stays under the size a capture is read whole at, so every piece reaches the rejoin reader
    assert len(bombs.terminal_cut_lines()) < CAPTURE_FULL_BELOW
    data = bombs.terminal_cut_lines(size=20_000)
    (path := tmp_path / "capture.txt").write_bytes(data)
    rows = read_plog(path).whole.rows
    assert {(r[2], r[3]) for r in rows} == {(KIND_PLOG, "ERROR")}
    assert len(rows) == data.count(b"[ERROR]") and max(map(len, data.split(b"\n"))) == 40


@pytest.mark.parametrize("channel, name", [
    # one error line under vLLM's prefix, cut once by the terminal: the piece carries no prefix
    ("vllm", "1132-agentsdk-faq-container-hostname-not-resolvable"),
    # the cut falls right after a full stop; the piece goes on in lower case (`libldap.` / `so.2: undefined symbol`)
    ("vllm", "348-mindie-llm-curl-libcrypto-evp-md2"),
    ("torchrun", "3200-vllm-ascend-flashcomm1-multistream-dp2-507034"),
    ("torchrun", "361-pytorch-undefined-symbol-aclrtgetdeviceinfo"),
])
def test_one_line_cut_once_under_a_launchers_prefix_is_joined_back(tmp_path, channel, name):
    under = tmp_path / "under"
    under.mkdir()
    alone = lines_read(write_carried(capture(name), channel, tmp_path))
    assert lines_read(write_carried(capture(name), f"{channel}+terminal-100", under)) == alone


def test_a_message_broken_over_two_lines_is_matched_whole_when_its_first_line_was_cut(tmp_path):
    # "… T(1) should be equal to the last element" / "of the query's actual sequence lengths(9).", each line under
    # vLLM's prefix and the first cut by the terminal: the signature reads the two lines as one message
    path = write_carried(capture("1713-rtp-llm-fia-tnd-actual-seq-q-not-query-count"), "vllm+terminal-100", tmp_path)
    assert to_dict(triage(path))["diagnosis"] == "op-call-inputs-disagree"


def test_channels_compose_in_the_order_named():
    from casebook.judging.channels import parse
    assert carried("a", "torchrun+quote") == "> [rank3]: a" and carried("a", "quote+torchrun") == "[rank3]: > a"
    assert parse("vllm+terminal-100") == ("vllm", "terminal-100")
    with pytest.raises(ValueError, match="unknown channel nope"):
        parse("torchrun+nope")


def test_the_accuracy_command_refuses_a_channel_it_does_not_know(capsys):
    from casebook.cli import main
    with pytest.raises(SystemExit) as e:
        main(["kb", "accuracy", str(CAPTURES), "--as", "torchrun+nope"])
    assert e.value.code == 2 and "unknown channel nope" in capsys.readouterr().err


def test_the_probes_flood_of_broken_frames_is_read_back_as_whole_frame_lines(tmp_path):
    from casebook.bench import bombs
    data = bombs.broken_frames(size=20_000)
    (path := tmp_path / "capture.txt").write_bytes(data)
    rows = read_plog(path).whole.rows
    assert len(rows) == data.count(b"\n") // 2
    assert all(r[2] == KIND_PYTHON and str(r[13]).endswith(", in <module>") for r in rows)
