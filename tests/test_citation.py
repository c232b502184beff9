"""Cited log lines: the part that matters kept in every excerpt, the whole line kept, nearby lines grouped."""
import re

from casebook.presenting.citation import BURST_GAP, ELLIPSIS, Cited, bursts, cited, excerpt

LINE = ("The error from device(0), serial number is 367, there is an aicore error, core id is 0, error code = 0x10, "
        "dump info: pc start: 0x1000124080064000, current: 0x124080067d2c, vec error info: 0x1791239a, mte error "
        "info: 0x6d06000085, ifu error info: 0x2fffe7f7a0580, ccu error info: 0x8c65b2c400000000")


def test_an_excerpt_keeps_the_matched_part_and_marks_both_cuts():
    c = cited("plog.log", 8368, LINE, re.compile(r"pc start: \S+ current: \S+"))
    part = c.excerpt(80)
    assert part.match == "pc start: 0x1000124080064000, current: 0x124080067d2c,"
    assert len(str(part)) == 80 and part.before.startswith(ELLIPSIS) and part.after.endswith(ELLIPSIS)
    assert c.text == LINE and c.where == "plog.log:8368"   # the whole line stays on the record


def test_short_lines_and_lines_without_a_match_are_shown_from_their_start():
    assert str(excerpt("retCode=0x26", (0, 7), 80)) == "retCode=0x26"
    head = cited("f", 1, LINE, "no such text").excerpt(40)
    assert head.match == "" and str(head) == LINE[:39] + ELLIPSIS


def test_a_match_near_the_end_takes_its_context_from_before_it():
    text = "x" * 200 + " retCode=0x26"
    part = excerpt(text, (201, 213), 50)
    assert part.match == "retCode=0x26" and part.after == "" and len(str(part)) == 50


def test_a_match_longer_than_the_excerpt_shows_its_head():
    part = excerpt(LINE, (0, len(LINE)), 30)
    assert str(part) == LINE[:28] + ELLIPSIS


def test_nearby_lines_of_one_file_form_a_burst_in_the_order_first_cited():
    lines = [Cited("b.log", 40, "x"), Cited("a.log", 10, "y"), Cited("a.log", 10 + BURST_GAP, "z"),
             Cited("a.log", 10 + 3 * BURST_GAP, "w"), Cited(None, None, "TASK_QUEUE_ENABLE=1")]
    got = bursts(lines)
    assert [b.where for b in got] == ["b.log:40", f"a.log:10-{10 + BURST_GAP}", f"a.log:{10 + 3 * BURST_GAP}",
                                      "engineer"]
    assert [c.text for c in got[1].lines] == ["y", "z"]


def test_a_step_cites_each_line_and_each_answer_once_in_the_order_first_cited():
    from casebook.presenting.step import Step
    s = Step("symptom", "Symptom", "现象")
    answer = Cited(None, None, "TASK_QUEUE_ENABLE=1")
    for c in (Cited("a.log", 3, "x"), Cited("a.log", 3, "x again", (0, 1)), Cited("b.log", 3, "y"), answer,
              Cited("a.log", 4, "z"), answer):
        s.cite(c)
    assert [(c.file, c.line, c.text) for c in s.cited] == [("a.log", 3, "x"), ("b.log", 3, "y"),
                                                           (None, None, "TASK_QUEUE_ENABLE=1"), ("a.log", 4, "z")]
