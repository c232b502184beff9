"""Log templates: the parse-tree grouping of the unexplained errors gives the groups the Drain3 library gives, line
for line, on generated lines that reach every branch of the tree (counts, digits, the wildcard, a full node)."""
from __future__ import annotations

from hypothesis import given, strategies as st

from casebook.judging.templates import WILDCARD, Miner
from casebook.judging.unexplained import MASKS


def drain3_groups(lines: list[str], similarity: float = 0.5) -> list[tuple[str, int]]:
    """The library's templates and sizes, in the order it made them, with the same masks and settings."""
    from drain3 import TemplateMiner
    from drain3.masking import MaskingInstruction
    from drain3.template_miner_config import TemplateMinerConfig
    config = TemplateMinerConfig()
    config.masking_instructions = [MaskingInstruction(rx, name) for rx, name in MASKS]
    config.drain_sim_th = similarity
    miner = TemplateMiner(config=config)
    for line in lines:
        miner.add_log_message(line)
    return [(c.get_template(), c.size) for c in miner.drain.clusters]


def groups(lines: list[str], similarity: float = 0.5) -> list[tuple[str, int]]:
    miner = Miner(MASKS, similarity=similarity)
    for line in lines:
        miner.add(line)
    return [(g.template, g.size) for g in miner.groups]


# few words, so that lines share first tokens and fixed tokens; numbers, hex and paths, so that masks and the
# digit rule take part; `<*>` itself, as a log may print it
WORDS = st.sampled_from(["open", "device", "failed", "ret", "EZ9999", "aclnnAdd", "stream", "rank[3]", "0x1f",
                         "12", "/usr/lib", "<*>", "x", "y", "2026-01-02T03:04:05.6", "10.0.0.1"])
LINES = st.lists(st.lists(WORDS, min_size=0, max_size=6).map(" ".join), max_size=40)


@given(LINES, st.sampled_from([0.3, 0.5, 0.8]))
def test_groups_are_drain3s(lines, similarity):
    assert groups(lines, similarity) == drain3_groups(lines, similarity)


def test_a_full_node_sends_new_first_tokens_to_the_wildcard():
    # 122 distinct first tokens of one count: the node keeps 99 of its own and the wildcard; the 23 past its width
    # share the wildcard child and make one group
    lines = [f"word{'abcdefghij'[i % 10]}{'klmnopqrst'[i // 10 % 10]}{'uvwxyz'[i // 100]} failed on stream"
             for i in range(120)] + ["wordakv failed on stream", "other failed on stream"]
    assert groups(lines) == drain3_groups(lines)
    assert (f"{WILDCARD} failed on stream", 23) in groups(lines)


def test_variable_tokens_become_the_wildcard():
    miner = Miner(similarity=0.5)
    a = miner.add("send to rank 3 failed")
    b = miner.add("send to rank 5 failed")
    c = miner.add("recv from host timed out")
    assert a is b and c is not a and a.size == 2
    assert a.template == f"send to rank {WILDCARD} failed"
    assert miner.groups == [a, c]
