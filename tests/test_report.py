"""The case report: every section present, log text escaped, redaction applied everywhere, figures embedded."""
import re

import pandas as pd
import pytest
from casebook.cli import main
from casebook.judging.triage import triage
from casebook.presenting import report, walk
from conftest import SAMPLES, write_log
from matplotlib.figure import Figure

POSITIVE = SAMPLES / "task-queue-shared-cache-race" / "positive-info"
HOSTILE = ("[ERROR] RUNTIME(100,python):2026-01-01-10:00:00.000.000 [x.cc:1]100 "
           "F:<script>alert(1)</script> <b>bold</b> peer 10.20.30.40 in /home/mallory/job device_id=0\n")


@pytest.fixture(scope="module")
def confirmed():
    return triage(POSITIVE, facts={"TASK_QUEUE_ENABLE": "1"})


@pytest.fixture
def hostile(tmp_path):
    write_log(tmp_path, "plog/plog-100_20260101100000000.log", HOSTILE)
    return triage(tmp_path / "plog")


def test_html_is_standalone_with_every_section(confirmed):
    html = report.render(confirmed, "html")
    assert html.startswith("<!DOCTYPE html>") and "<script" not in html
    assert not re.search(r"""(?:src|href)=['"]?https?:""", html), "nothing loaded from the network"
    for heading in ("Input", "The chain", "Hypotheses", "Answers given", "Fix"):
        assert f"<h2>{heading}</h2>" in html
    assert "<h3>1. Symptom</h3>" in html and "<h3>6. Fix</h3>" in html
    assert "plog-48213_20260314100209828.log:4173" in html                      # evidence with file:line
    assert "task-queue-shared-cache-race: confirmed" in html and "<mark>" in html   # the matched part marked
    assert "<b>Workaround now</b>: Set TASK_QUEUE_ENABLE=2" in html
    assert "TASK_QUEUE_ENABLE = 1" in html                                        # the engineer's answer
    assert re.search(r"src='data:image/png;base64,[A-Za-z0-9+/]{200,}", html)    # the timeline, embedded


def test_markdown_has_the_same_content(confirmed):
    md = report.render(confirmed, "md")
    assert md.startswith("# Case report")
    for needle in ("## The chain", "### 3. pc start / current", "**For**", "## Fix", "pc_start_suspect",
                   "plog-48213_20260314100209828.log:4173", "![Errors per device and process](data:image/png;base64,",
                   "![Address map of the AI Core fault on device 3, serial 2569](data:image/png;base64,"):
        assert needle in md, needle


def test_missing_and_against_are_reported():
    t = triage(SAMPLES / "task-queue-shared-cache-race" / "positive-error-level")
    md = report.render(t, "md", figures=False)
    assert "**Missing**" in md and "- TASK_QUEUE_ENABLE: What was TASK_QUEUE_ENABLE" in md
    t.answer("ASCEND_LAUNCH_BLOCKING", "1")
    t.answer("TASK_QUEUE_ENABLE", "unset")
    md = report.render(t, "md", figures=False)
    assert "ruled out" in md and "**Against**" in md and "No diagnosis yet" in md


def test_log_markup_is_escaped_in_both_formats(hostile):
    html = report.render(hostile, "html", figures=False)
    assert "<script>" not in html and "<b>bold" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;bold&lt;/b&gt;" in html
    md = report.render(hostile, "md", figures=False)
    assert "<script>alert(1)</script>" in md.split("~~~~")[1], "in a code block a viewer shows it as text"
    assert all("<script>" not in part for part in md.split("~~~~")[0::2]), "outside code blocks markup is escaped"


def test_redaction_reaches_every_line(hostile):
    for fmt in ("html", "md"):
        out = report.render(hostile, fmt, redact=True, figures=False)
        assert "10.20.30.40" not in out and "mallory" not in out
        assert "<ip-1>" in out or "&lt;ip-1&gt;" in out
        assert "/home/" in out


def test_step_tables_and_figures_are_rendered_escaped(hostile, monkeypatch):
    original = walk.build

    def build(t, lang="en"):
        steps = original(t, lang)
        fig = Figure()
        fig.add_subplot().plot([0, 1], [1, 0])
        steps[2].tables.append(("pc <values>", pd.DataFrame({"name": ["<i>x</i>"], "value": ["0x10"]})))
        steps[2].figures.append(lambda: fig)
        return steps
    monkeypatch.setattr(report.walk, "build", build)
    html = report.render(hostile, "html")
    assert "pc &lt;values&gt;" in html and "&lt;i&gt;x&lt;/i&gt;" in html and "<i>x</i>" not in html
    assert html.count("data:image/png;base64,") == 1, "a step's own figure replaces the default timeline"
    md = report.render(hostile, "md")
    assert "| &lt;i&gt;x&lt;/i&gt; | 0x10 |" in md


def test_collect_more_section(hostile):
    html = report.render(hostile, "html", collect_more=True, figures=False)
    assert "<h2>Collect more</h2>" in html
    assert "Collect more" not in report.render(hostile, "html", figures=False)


def test_cli_report_writes_md_and_html(tmp_path, capsys):
    out = tmp_path / "case.html"
    assert main(["report", str(POSITIVE), "--fact", "TASK_QUEUE_ENABLE=1", "-o", str(out), "--redact",
                 "--collect-more"]) == 0
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "Collect more" in out.read_text(encoding="utf-8")
    assert main(["report", str(POSITIVE), "-o", str(tmp_path / "case.md")]) == 0
    assert (tmp_path / "case.md").read_text(encoding="utf-8").startswith("# Case report")
    assert main(["report", str(POSITIVE), "-o", str(tmp_path / "case.pdf")]) == 2
    assert "written as .md or .html" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing"), "-o", str(out)]) == 2
