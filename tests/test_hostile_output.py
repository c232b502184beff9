"""What Casebook writes when the logs are built to hurt whoever reads its output: no
escape code from a log reaches the terminal, `--redact` leaves none of the listed values in any output (figures
included), a `$` in a name is drawn as a dollar sign, and an I/O error on a standard stream or on the report's
file ends in exit 2 and one line. Each test builds its own input."""
import html
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest
from casebook.cli import main
from casebook.evidence.items import AicoreFault
from casebook.presenting import contents, plots, report
from casebook.presenting.redact import Redactor, node_folders
from casebook.presenting.terminal import inert_json, visible
from conftest import ROOT
from matplotlib.text import Text


def stamp(second: int) -> str:
    return f"2026-01-01-10:00:{second:02d}.000.000"


def fault(pid: int, device: int, kernel: str, second: int) -> list[str]:
    """The lines of one AI Core fault, as CANN 8 logs it: the task, the core's registers, the error bits, the
    retCode and the kernel's name."""
    head = f"[ERROR] RUNTIME({pid},python):{stamp(second)} [%s]{pid} "
    return [
        head % "stars_engine.cc:1321" + f"ProcLogicCqReport:Task run failed, device_id={device}, stream_id=2, "
        "task_id=166, sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0",
        head % "device_error_core_proc.cc:645" + f"PrintCoreInfo:The error from device(chipId:{device}, dieId:0), "
        "serial number is 5, there is an exception of fftsplus aicore error, core id is 1, error code = 0, dump info: "
        "pc start: 0x12c0ff812000, current: 0x12c1000a3f8c, vec error info: 0, mte error info: 0xbd030000e0, ifu "
        "error info: 0x1000000000000, ccu error info: 0, cube error info: 0, biu error info: 0, aic error mask: "
        "0x6500020bd00028c, para base: 0x12c100000080.",
        head % "device_error_core_proc.cc:645" + "PrintCoreInfo:The extend info: errcode:(0, 0x8000, 0) errorStr: "
        "The scalar instruction accesses an invalid GM address. fixp_error0 info: 0x30000e0, fsmId:1, subErrType:4.",
        head % "davinci_kernel_task.cc:1729" + "PreCheckTaskErr:Kernel task happen error, retCode=0x26, "
        "[aicore exception].",
        head % "davinci_kernel_task.cc:950" + f"PrintErrorInfoForDavinciTask:Aicore kernel execute failed, "
        f"device_id={device}, stream_id=2, report_stream_id=2, task_id=166, flip_num=0, fault kernel_name={kernel}, "
        "fault kernel info ext=none, program id=41, hash=1.",
    ]


def plog(folder: Path, pid: int, lines: list[str]) -> Path:
    """A debug plog of one process under `folder`, in the ~/ascend/log layout."""
    path = folder / "ascend" / "log" / "debug" / "plog" / f"plog-{pid}_20260101100000000.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- item 2: escape codes ----------------------------------------------------------------------------------------
ESCAPES = {
    "window title (OSC 0)": "\x1b]0;owned\x07",
    "clipboard (OSC 52)": "\x1b]52;c;cm0gLXJmIH4=\x07",
    "hyperlink (OSC 8)": "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "clear screen (CSI)": "\x1b[2J\x1b[H",
    "C1 CSI": "\x9b2J",
    "C1 OSC and ST": "\x9d0;owned\x9c",
    "every C1 control": "".join(map(chr, range(0x80, 0xa0))),
    "CR, backspace, DEL": "\rfake\x08\x7f",
}
#: what a terminal may obey: C0 controls but the tab and the line feed, DEL, C1
OBEYED = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def escapes(tmp_path) -> Path:
    """A bundle whose error lines, kernel name and one file name carry every escape sequence, and one line holding
    a raw (not UTF-8) C1 byte."""
    lines = [f"[ERROR] HCCL(100,python):{stamp(1 + n)} [hccl.cc:12][100] connect failed{seq}, retCode=0x7{n} "
             f"at {seq}peer" for n, seq in enumerate(ESCAPES.values())]
    lines += fault(100, 0, "Add" + "".join(ESCAPES.values()).replace(" ", "") + "_1", 20)
    path = plog(tmp_path / "bundle", 100, lines)
    with path.open("ab") as f:
        f.write(f"[ERROR] RUNTIME(100,python):{stamp(30)} [x.cc:1]100 raw C1 ".encode() + b"\x9b2J \x1b[31mred\n")
    (tmp_path / "bundle" / "train\x1b]0;x\x07\u009b.log").write_text(
        f"[ERROR] RUNTIME(7,python):{stamp(31)} [x.cc:1]7 F:fails\x1b[2J here\n", encoding="utf-8")
    return tmp_path / "bundle"


@pytest.mark.parametrize("mode", [[], ["--wide"], ["--lang", "zh"], ["--lang", "zh", "--wide"], ["--json"]],
                         ids=["walk", "wide", "zh", "zh-wide", "json"])
def test_no_escape_code_from_a_log_reaches_the_terminal(escapes, capsys, mode):
    assert main(["triage", str(escapes), "--progress", "never", *mode]) == 0
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and not OBEYED.search(out + err), OBEYED.findall(out + err)[:5]
    if mode == ["--json"]:   # the JSON value keeps the text as logged: only its form on the terminal changed
        assert any(seq in json.dumps(json.loads(out), ensure_ascii=False) for seq in ESCAPES.values())
    else:                    # shown, not dropped: the cited lines carry the sequences as text
        assert "\\x1b]0;owned\\x07" in out and "\\x9b2J" in out


def test_a_pasted_capture_prints_no_escape_byte(escapes):
    pasted = next(escapes.rglob("plog-*.log")).read_bytes()
    for mode in ([], ["--wide"], ["--json"]):
        r = subprocess.run([sys.executable, "-m", "casebook.cli", "triage", "-", *mode], input=pasted,
                           capture_output=True, cwd=ROOT)
        assert r.returncode == 0, r.stderr.decode()
        assert b"\x1b" not in r.stdout + r.stderr
        assert not OBEYED.search((r.stdout + r.stderr).decode("utf-8"))
        assert mode or b"\\x1b]0;owned\\x07" in r.stdout   # the walk shows the sequence as text


def test_visible_and_inert_json_keep_the_text_readable():
    assert visible("a\x1b[2Jb\tc\x9bd\re") == "a\\x1b[2Jb\tc\\x9bd\\x0de"
    assert visible(visible("\x1b")) == "\\x1b"   # nothing left to escape the second time
    text = json.dumps({"m": "x\x1b\x9b\x7fy"}, ensure_ascii=False)
    assert json.loads(inert_json(text)) == {"m": "x\x1b\x9b\x7fy"} and not OBEYED.search(inert_json(text))


# -- item 5: redaction -------------------------------------------------------------------------------------------
#: every form the issue lists: (what a log line says, the values that must not show in any redacted output)
FORMS = {
    "IP inside a word": ("connect to rank_10.22.32.42_dev", ["10.22.32.42"]),
    "IP glued to a word": ("bind ip10.21.31.41 refused", ["10.21.31.41"]),
    "zero-padded IP": ("peer 010.002.003.004 lost", ["010.002.003.004"]),
    "upper-case host name": ("host GPU-NODE-07.CLUSTER.LOCAL down", ["GPU-NODE-07"]),
    "host name of another TLD": ("mirror trainer3.example.de slow", ["trainer3.example.de", "trainer3"]),
    "short host name of a node folder": ("peer gpu-a17 unreachable", ["gpu-a17"]),
    "user:password@ in a URL": ("pip from https://zhao:Hunter2pw@pypi.mirror.example.com/simple",
                                ["zhao", "Hunter2pw", "pypi.mirror.example.com"]),
    "name@host": ("ssh qian@gpu-b18 failed", ["qian", "gpu-b18"]),
    "~user": ("load ~sunli/ckpt/model.pt", ["sunli"]),
    "non-ASCII user folder": ("script /home/张三/train.py", ["张三"]),
    "HOME= value": ("HOME=/mnt/nfs/zhouwu", ["zhouwu"]),
    "/data/users/…": ("out /data/users/wuqi/run.sh", ["wuqi"]),
    "MAC address": ("nic 00:1a:2b:3c:4d:5e and A4-BB-6D-11-22-33", ["00:1a:2b:3c:4d:5e", "1a:2b:3c:4d:5e",
                                                                    "A4-BB-6D-11-22-33", "A4-BB-6D"]),
    "node names on the timeline": ("", ["gpu-c19", "gpu-c20"]),
}


@pytest.fixture
def sensitive(tmp_path) -> list[Path]:
    """Three paths read as one case: a bundle whose node folder is named after a short host name (gpu-a17) and
    whose first error lines hold every form (three lines, so the walk cites each), and two per-node bundles
    (gpu-c19, gpu-c20) whose node names the timeline draws as labels."""
    said = [text for text, _ in FORMS.values() if text]
    lines = [f"[ERROR] HCCL(300,python):{stamp(1)} [hccl.cc:12][300] {' '.join(said[k::3])} failed" for k in range(3)]
    plog(tmp_path / "bundle" / "gpu-a17", 300, lines + fault(300, 2, "MatMul_1", 5))
    plog(tmp_path / "nodes" / "gpu-c19", 1, fault(100, 0, "Add_2", 10))
    plog(tmp_path / "nodes" / "gpu-c20", 1, fault(200, 1, "Add_2", 11))
    return [tmp_path / "bundle", tmp_path / "nodes" / "gpu-c19", tmp_path / "nodes" / "gpu-c20"]


def svg_text(fig) -> str:
    """The texts a figure draws, as its SVG holds them (text kept as text, not as glyph outlines)."""
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(buf, format="svg")
    return html.unescape(buf.getvalue())


def test_redaction_leaves_no_listed_value_in_any_output(sensitive, tmp_path, monkeypatch, capsys):
    drawn: list[str] = []
    png_of = contents.png_of
    monkeypatch.setattr(contents, "png_of", lambda fig: drawn.append(svg_text(fig)) or png_of(fig))
    values = [v for _, vs in FORMS.values() for v in vs]

    def write(name: str, *redact: str) -> str:
        drawn.clear()
        assert main(["report", *map(str, sensitive), "-o", str(tmp_path / name), *redact]) == 0
        assert len(drawn) >= 3, "the timeline and an address map per fault"
        return (tmp_path / name).read_text(encoding="utf-8") + "\n".join(drawn)

    plain = write("plain.md")   # each value reaches the report when nothing is redacted: its absence below counts
    assert [v for v in values if v.lower() not in plain.lower()] == []
    for name in ("case.md", "case.html"):
        out = html.unescape(write(name, "--redact"))
        assert [v for v in values if v.lower() in out.lower()] == [], name
        assert {"<ip-1>", "<host-1>", "<user-1>", "<mac-1>", "<secret-1>"} <= set(re.findall(r"<[a-z]+-1>", out))
        assert "retCode=0x26" in out and "rank_<ip-1>_dev" in out   # the rest of the line stays readable
        timeline = next(svg for svg in drawn if "device 0" in svg and "pid 100" in svg)
        assert "gpu-c19" not in timeline and "<host-" in timeline


def test_the_redactor_form_by_form():
    r = Redactor()
    assert r("rank_10.22.32.42_dev ip10.21.31.41 010.002.003.004") == "rank_<ip-1>_dev ip<ip-2> <ip-3>"
    assert r("CANN 7.0.0.5.242, torch 2.1.0, pc 0x12c0ff812000") == "CANN 7.0.0.5.242, torch 2.1.0, pc 0x12c0ff812000"
    assert r("https://zhao:Hunter2pw@pypi.example.com/simple") == "https://<user-1>:<secret-1>@<host-1>/simple"
    assert r("GPU-NODE-07.CLUSTER.LOCAL then gpu-node-07.cluster.local") == "<host-2> then <host-2>"
    assert r("torch.mm torch.ge model.om hccl.cc run.py version.info") == \
        "torch.mm torch.ge model.om hccl.cc run.py version.info"
    hidden = r("~sunli/x at::~Tensor() HOME=/mnt/nfs/zhouwu /data/users/wuqi /home/张三")
    assert re.sub(r"<user-\d>", "<user>", hidden) == \
        "~<user>/x at::~Tensor() HOME=/mnt/nfs/<user> /data/users/<user> /home/<user>"
    assert r("nic 00:1a:2b:3c:4d:5e, template <NUM>:1a:2b:3c:4d:5e, time 10:02:09") == \
        "nic <mac-1>, template <mac-2>, time 10:02:09"


def test_node_folders_are_the_folders_above_a_log_layout():
    files = ["gpu-a17/ascend/log/debug/plog/plog-1_1.log", "hpc-b2.tar.gz!/ascend/log/run/plog/plog-2_1.log",
             "rank_3/plog/plog-3_1.log", "device-0/device-4_1.log", "0/plog/plog-5_1.log"]
    assert node_folders(files) == {"gpu-a17", "hpc-b2"}
    assert node_folders(["ascend/log/debug/plog/plog-1_1.log"], ["/cases/gpu-a17/"]) == {"gpu-a17"}
    assert node_folders(["train.log"], ["/cases/gpu-a17"]) == set()


# -- item 6: a `$` in a name -------------------------------------------------------------------------------------
def test_dollars_in_op_kernel_and_node_names_are_drawn_as_text(tmp_path, monkeypatch):
    paths = [tmp_path / "gpu$^^$a", tmp_path / "gpu$\\frac{b$"]
    plog(paths[0], 1, fault(100, 0, "MatMul$^^$x_1", 10))
    plog(paths[1], 1, fault(200, 1, "Add$\\frac{y$_2", 11))
    drawn: list[str] = []
    png_of = contents.png_of
    monkeypatch.setattr(contents, "png_of", lambda fig: drawn.append(svg_text(fig)) or png_of(fig))
    for name in ("case.md", "case.html"):
        assert main(["report", *map(str, paths), "-o", str(tmp_path / name)]) == 0
    shown = "\n".join(drawn)
    for text in ("MatMul$^^$x", "Add$\\frac{y$", "gpu$^^$a / device 0", "gpu$\\frac{b$ / device 1"):
        assert text in shown, text   # as logged, dollars and all


def test_every_text_of_a_figure_is_plain():
    assert plots.timeline([]) is None, "nothing to show is no figure"
    fig = plots.address_map(AicoreFault(file="p.log", line=1, time=None, node=None, pid=1, device=0, serial=5,
                                        cores=[0], wording="aicore error", pc_start_raw=None, current_raw=None,
                                        error_code=0x10))
    fig.axes[0].set_title("$\\frac{")
    with matplotlib.rc_context({"text.usetex": True}):   # a user's matplotlibrc may turn TeX on
        fig.axes[0].set_xlabel("MatMul$^^$x")
    texts = plots.plain(fig).findobj(Text)
    assert texts and all(not t.get_parse_math() and not t.get_usetex() for t in texts)
    svg_text(fig)   # drawn without a ValueError


# -- item 8: I/O errors ------------------------------------------------------------------------------------------
CASEBOOK = str(Path(sys.executable).with_name("casebook"))


@pytest.fixture
def small(tmp_path) -> Path:
    plog(tmp_path / "small", 100, fault(100, 0, "Add_1", 1))
    return tmp_path / "small"


def shell(command: str, *args) -> subprocess.CompletedProcess:
    """`casebook ARGS` run by sh with `command`'s redirections (`"$@" 0<&-`), stdout and stderr as text."""
    return subprocess.run(["sh", "-c", f"exec {command}", "sh", CASEBOOK, *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


def ends_in_one_line(r: subprocess.CompletedProcess, names: str) -> None:
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith("casebook: ") and names in r.stderr, r.stderr


def test_a_closed_standard_input(small):
    ends_in_one_line(shell('"$@" 0<&-', "triage", "-"), "standard input is closed")
    ends_in_one_line(shell('"$@" 0<&-', "report", "-", "-o", small.parent / "r.md"), "standard input is closed")


def test_an_endless_standard_input_is_refused_at_the_byte_limit(small):
    """`yes | casebook triage -` is copied to the spool as it comes, not held in memory, and refused in one line at
    --max-bytes; a stream that ends within it is read."""
    r = shell('yes | "$@"', "triage", "-", "--max-bytes", 3 << 20)
    ends_in_one_line(r, f"-: refused: standard input goes on past {3 << 20} bytes (--max-bytes)")
    r = shell('yes | head -c 1000 | "$@"', "triage", "-", "--max-bytes", 1000, "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["input"]["lines"] == 500, r.stderr
    text = small.parent / "ticket.txt"   # a file as standard input is copied as it is read, not spliced
    text.write_text("y\n" * 600)
    ends_in_one_line(shell(f'"$@" < {text}', "triage", "-", "--max-bytes", 1000), "past 1000 bytes (--max-bytes)")
    r = shell(f'"$@" < {text}', "triage", "-", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["input"]["lines"] == 600, r.stderr


def test_a_closed_standard_output(small):
    for mode in ([], ["--json"]):
        ends_in_one_line(shell('"$@" >&-', "triage", small, *mode), "standard output: closed")


def test_standard_output_to_dev_full(small):
    for args in (["triage", small], ["triage", small, "--json"], ["kb", "stats"]):   # kb stats: fits the buffer
        ends_in_one_line(shell('"$@" >/dev/full', *args), "standard output: No space left on device")


def test_the_report_onto_a_folder_or_into_proc(small, tmp_path):
    folder = tmp_path / "case.md"
    folder.mkdir()
    ends_in_one_line(shell('"$@"', "report", small, "-o", folder), f"{folder}: cannot write the report: Is a directory")
    ends_in_one_line(shell('"$@"', "report", small, "-o", "/proc/casebook-case.html"),
                     "/proc/casebook-case.html: cannot write the report")


def test_a_closed_standard_error_keeps_warnings_out_of_the_json(small):
    with next(small.rglob("*.log")).open("a", encoding="utf-8") as f:
        f.write(f"[ERROR] RUNTIME(100,python):{stamp(9)} [x.cc:1]100 progress 10%\rprogress 20%\n")   # a warning
    r = shell('"$@" 2>&-', "triage", small, "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["input"]["lines"] == 6
