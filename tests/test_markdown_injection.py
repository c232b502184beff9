"""The Markdown report rendered by a CommonMark renderer holds no markup that came from log text or file names:
a CR that would end a fence, a fence of its own, raw HTML, links, images, emphasis or code spans all show as
the text they are."""
from html.parser import HTMLParser

import pytest
from casebook.judging.triage import triage
from casebook.presenting import report
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

HEAD = "[ERROR] RUNTIME(100,python):2026-01-01-10:00:{:02d}.000.000 [x.cc:1]100 F:"
PAYLOADS = [
    "first\r<img src=x onerror=alert(1)>",
    "~~~~\r<script>alert(2)</script>",
    "```\n".rstrip("\n") + "\r<iframe src=javascript:alert(3)>",
    "[click](javascript:alert(4)) ![pixel](http://evil.example/p.png) <http://evil.example/auto>",
    "*emphasised* _also_ __strong__ `code` ~~struck~~ \\<b>escaped\\</b> &lt;entity&gt; &#60;numeric&#62;",
    "[ref]: http://evil.example/ref\r[ref]",
    "<!-- comment --> <?php x ?> <![CDATA[x]]> <div onmouseover=alert(5)>",
]
#: Every element the report's own Markdown makes (figures off), and the attributes it may carry: the summary box
#: is a quote, and the folded parts of a step are `<details>` the report writes itself, their captions escaped.
ALLOWED = {"h1", "h2", "h3", "p", "ul", "ol", "li", "strong", "em", "code", "pre", "blockquote", "details", "summary"}


class Markup(HTMLParser):
    """The elements and attributes of rendered HTML, and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.text.append(data)

    def handle_comment(self, data):
        self.tags.append(("<!--", [data]))

    def handle_pi(self, data):
        self.tags.append(("<?", [data]))

    def unknown_decl(self, data):
        self.tags.append(("<!", [data]))


def rendered(md: str) -> Markup:
    parser = Markup()
    parser.feed(MarkdownIt("commonmark").render(md))
    return parser


def hostile_triage(tmp_path, messages: list[str], name: str = "plog-100_20260101100000000.log"):
    plog = tmp_path / "plog"
    plog.mkdir(exist_ok=True)
    (plog / name).write_text("".join(HEAD.format(n) + m + "\n" for n, m in enumerate(messages)), encoding="utf-8",
                             newline="")
    return triage(plog)


def check(md: str) -> Markup:
    html = rendered(md)
    assert {tag for tag, _ in html.tags} <= ALLOWED, html.tags
    assert all(attrs in ([], [("class", "language-text")], [("class", "language-sh")]) for _, attrs in html.tags)
    return html


@pytest.mark.parametrize("payload", PAYLOADS)
def test_log_lines_and_names_make_no_markup_in_the_markdown_report(tmp_path, payload):
    name = "plog-100_2026~~~~`x`<img src=y onerror=alert(6)>.log"
    t = hostile_triage(tmp_path, [payload], name=name)
    t.answer("TASK_QUEUE_ENABLE", "1")
    for redact in (False, True):
        html = check(report.render(t, "md", redact=redact, collect_more=True, figures=False))
        if not redact:   # the cited line shows as it is, its CR as ␍, and so does the file name
            text = "".join(html.text)
            assert payload.replace("\r", "␍") in text and "`x`<img src=y onerror=alert(6)>.log" in text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.sampled_from(list("<>&;#!*_`~[]()\\|-+=:/.\"' \t\rabcxyz0")), min_size=1, max_size=60))
def test_any_log_text_renders_as_plain_text(tmp_path_factory, message):
    t = hostile_triage(tmp_path_factory.mktemp("md"), [message])
    check(report.render(t, "md", figures=False))
