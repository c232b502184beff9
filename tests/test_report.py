"""The case report: every section present, log text escaped, redaction applied everywhere, figures embedded."""
import html
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
    for heading in ("Input", "The chain", "Hypotheses", "Answers given"):
        assert f"<h2>{heading}</h2>" in html
    assert "<h3>1. Symptom</h3>" in html and "<h3>6. Fix</h3>" in html
    assert "<h2>Fix</h2>" not in html, "the fix is said once, in its step"
    box = html[html.index("<div class='summary'>"):html.index("</div>")]
    assert "<b>Conclusion</b>: The root cause is" in box and "<b>Fix</b>: Apply the fix" in box
    assert html.index("<div class='summary'>") < html.index("<h2>Input</h2>")
    assert "plog-48213_20260314100209828.log:4173" in html                      # evidence with file:line
    assert "task-queue-shared-cache-race: confirmed" in html and "<mark>" in html   # the matched part marked
    assert html.count("Workaround now: Set TASK_QUEUE_ENABLE=2") == 1
    assert "TASK_QUEUE_ENABLE says. Answer: 1 (the engineer&#x27;s answer)" in html   # the engineer's answer
    assert re.search(r"src='data:image/png;base64,[A-Za-z0-9+/]{200,}", html)    # the timeline, embedded


def test_markdown_has_the_same_content(confirmed):
    md = report.render(confirmed, "md")
    assert md.startswith("# Case report")
    assert md.startswith("# Case report\n\n> **Conclusion**: The root cause is")
    assert "## Fix" not in md and md.count("Workaround now: Set TASK_QUEUE_ENABLE=2") == 1
    for needle in ("## The chain", "### 3. pc start / current", "**For**", "### 6. Fix", "> **Fix**: Apply the fix",
                   "plog-48213_20260314100209828.log:4173", "![Errors per device and process](data:image/png;base64,",
                   "![Address map of the AI Core fault on device 3, serial 2569](data:image/png;base64,"):
        assert needle in md, needle


def test_missing_and_against_are_reported():
    t = triage(SAMPLES / "task-queue-shared-cache-race" / "positive-error-level")
    md = report.render(t, "md", figures=False)
    assert "**Missing**" in md and "- What was TASK_QUEUE_ENABLE" in md
    t.answer("ASCEND_LAUNCH_BLOCKING", "1")
    t.answer("TASK_QUEUE_ENABLE", "unset")
    md = report.render(t, "md", figures=False)
    assert "- task-queue-shared-cache-race: ruled out (score" in md, "past the leading three, one line each"
    assert "> **Fix**: No fix yet" in md


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
    monkeypatch.setattr(walk, "build", build)
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


def sections(md: str, level: str = "### ") -> dict[str, str]:
    """Markdown sections by heading, each up to the next heading of the same or a higher level."""
    out, head = {}, None
    for line in md.splitlines():
        if line.startswith("#") and not line.startswith("#" * (len(level) - 1) + "#"):
            head = line if line.startswith(level) else None
            if head:
                out[head] = ""
            continue
        if head:
            out[head] += line + "\n"
    return out


def test_each_step_has_its_heading_and_each_cited_line_appears_once_under_it(every_triage):
    for name, t in every_triage.items():
        md = report.render(t, "md", figures=False)
        steps = walk.build(t)
        chain = md.split("## The chain", 1)[1].split("## Hypotheses", 1)[0]
        parts = sections(chain)
        assert list(parts) == [f"### {n}. {s.title}" for n, s in enumerate(steps, start=1)], name
        for s, text in zip(steps, parts.values()):
            # Markdown punctuation in the conclusion is escaped (it may hold log text): compare it unescaped
            unescaped = html.unescape(re.sub(r"\\(.)", r"\1", text.lstrip()))
            assert unescaped.startswith(f"**{s.conclusion}**"), (name, s.key)
            listed, file = [], None   # the evidence names a file once, then its lines as `  line: text`
            evidence = text.split("Evidence:\n\n~~~~text\n", 1)[-1].split("\n~~~~", 1)[0]
            for line in evidence.splitlines() if s.cited else []:
                if line.startswith("  ") and file:
                    listed.append(f"{file}:{line.split(':', 1)[0].strip()}")
                elif line.endswith(":") and " " not in line:
                    file = line[:-1]
                else:
                    file = None
                    listed.append(line.split(": ", 1)[0])
            for c in s.cited:
                if c.file:
                    assert listed.count(c.where) == 1, (name, s.key, c.where)


def test_no_table_cell_reads_none_nan_or_a_float_integer(every_triage):
    bad = re.compile(r"<td>(?:None|NaN|nan|&lt;NA&gt;|-?\d+\.0)</td>|\| (?:None|NaN|nan|<NA>|-?\d+\.0) \|")
    for name, t in every_triage.items():
        for fmt in ("html", "md"):
            out = report.render(t, fmt, figures=False)
            assert not bad.search(out), (name, fmt, bad.search(out))


def test_the_chinese_report_has_no_english_sentence(every_triage, logged):
    from conftest import english_sentences, quoted_log
    found = []
    for name, t in every_triage.items():
        md = report.render(t, "md", figures=False, lang="zh", collect_more=True)
        assert md.startswith("# 案例报告") and "## 分析链" in md and "### 1. 现象" in md and "## 补充收集" in md
        # code blocks hold log lines and warnings as logged, and the shell commands to run
        prose = re.sub(r"```sh\n.*?```", "", md, flags=re.S).split("~~~~")[0::2]
        text = "\n".join(line.rsplit("|", 2)[0] if line.startswith("| ") else line   # skipped: the reader's reason
                         for part in prose for line in part.splitlines())
        found += [(name, e) for e in english_sentences(text) if not quoted_log(e, logged, t.kb)]
    assert found == []


def test_the_report_command_writes_chinese(tmp_path):
    out = tmp_path / "case.html"
    assert main(["report", str(POSITIVE), "-o", str(out), "--lang", "zh"]) == 0
    html = out.read_text(encoding="utf-8")
    assert "<html lang='zh-CN'>" in html and "<h3>1. 现象</h3>" in html and "<h2>分析链</h2>" in html


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_corpus_report_is_under_25_kb_of_markdown_with_the_summary_box_first(every_triage, lang, tmp_path):
    from conftest import COLLECTIONS
    for name in COLLECTIONS:
        t = every_triage[f"corpus/{name}"]
        written = report.write(t, tmp_path / f"{name}.md", lang=lang)   # figures and all, as a ticket gets it
        md = written.read_text(encoding="utf-8")
        assert len(md.encode("utf-8")) < 25_000, (name, len(md.encode("utf-8")))
        box = md.split("\n\n")[1]
        assert box.startswith("> **") and box.count("\n>\n") >= 1, (name, box[:80])
        root = walk.build(t, lang)[4]
        assert html.unescape(re.sub(r"\\(.)", r"\1", box)).split("\n")[0].endswith(root.conclusion), name
        hyp = md.split("## " + ("Hypotheses" if lang == "en" else "假设"), 1)[1]
        full = re.findall(r"^### ", hyp, re.M)
        assert len(full) <= 3 and len(full) == len([c for c in root.causes if t.candidate(c.id)]), name
        for block in re.split(r"^### ", hyp, flags=re.M)[1:]:
            for part in re.split(r"^\*\*", block, flags=re.M):
                cited = re.findall(r"^- `+([^`]+:\d+)`+", part, re.M)
                assert len(cited) == len(set(cited)), (name, "a line cited twice in one list")


def test_a_markdown_report_links_its_figures_written_beside_it(confirmed, tmp_path):
    stale = tmp_path / "case-figures" / "figure-9.png"
    stale.parent.mkdir()
    stale.write_bytes(b"an earlier report's figure")
    md = report.write(confirmed, tmp_path / "case.md").read_text(encoding="utf-8")
    pngs = sorted(p.name for p in (tmp_path / "case-figures").iterdir())
    assert pngs == [f"figure-{n}.png" for n in range(1, len(pngs) + 1)] and pngs, "the earlier figure removed"
    assert "data:image/png;base64," not in md
    for name in pngs:
        assert f"](case-figures/{name})" in md
        assert (tmp_path / "case-figures" / name).read_bytes().startswith(b"\x89PNG")
    html = report.write(confirmed, tmp_path / "case.html").read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") == len(pngs)   # the page stands alone


def test_a_ticket_lists_the_first_rows_and_says_how_many_more(every_triage):
    """The incidents of a mixed collection (23) and its other candidates: a ticket shows the first FOLD_ROWS of each
    and says how many the app and --wide hold besides."""
    from casebook.presenting.contents import FOLD_ROWS
    t = every_triage["corpus/modelarts-8rank-job"]
    md = report.render(t, "md", figures=False)
    incidents = md.split("*Incidents, first failure first*", 1)[1].split("\n\n", 2)[1]
    assert len([r for r in incidents.splitlines() if r.startswith("| ")]) == 1 + FOLD_ROWS   # the header and rows
    assert f"… and {len(t.evidence.incidents) - FOLD_ROWS} more rows (in the app, or with casebook triage --wide)." in md
