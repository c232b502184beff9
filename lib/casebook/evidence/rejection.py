"""The op's own complaint: an op (aclnn API, GE op, tiling function) refuses the call and says which parameter.

An op that rejects its inputs fails before any kernel runs, and its message names what it rejects: the aclnn
parameter checks (`Tensor self not implemented for DT_INT8, should be in dtype support list [...]`,
`self dtype DT_BFLOAT16 should be in dtype support list [...]`), the I/O check of the op binary's registry (`Io
input dtype or format is not supported, get io input info is x(DT_BFLOAT16, ND) ... but supported list is:`), the
tiling checks (`... must be ... when layout is TND`, `head dim ... not support`, `Tiling failed`), and platform
checks (`this platform only support ...`). Each becomes a `Rejection`: the op, the aspect rejected (dtype,
format, layout, shape, attribute, platform, or just `call` when the line names none), the parameter, the value
and the allowed values, with the line that says so. The wordings it reads are data of their own (complaints.py).
"""
from __future__ import annotations

import re
from functools import cache

from ..reading.grammar import KIND_BLOCK_LINE, KIND_BLOCK_MSG, KIND_CONTINUATION, KIND_UNPARSED
from ..reading.table import LogTable
from .complaints import FORMS, GENERIC, KEEP, NOT_A_CHECK, OP, OP_LAYER, PARAMETER_ERROR, READS, WORDED
from .items import Rejection

#: The levels an op's complaint is logged at.
COMPLAINT_LEVELS = ("ERROR", "FATAL", "CRITICAL")
#: How many lines before a complaint the call's own line (`call aclnnX failed`) may stand, and after it (the op API's
#: `aclnnXGetWorkspaceSize call failed` under its complaint).
LOOKBACK = 6
LOOKAHEAD = 2
#: A complaint of the op's tiling: its words, or a source file or function of the tiling named beside it.
_TILING = re.compile(r"[Tt]iling|TILING")


def _op(texts: list[str]) -> str | None:
    """The op a complaint is about: named on its own line, else on the nearest line before it."""
    for text in reversed(texts):
        m = OP.search(text)
        if m:
            return next(name for name in m.groups() if name)   # the one alternative that matched
    return None


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    # the op layer's own marks around a value: [FUNC:...] [FILE:...] tails, a leading tag, a source location
    value = re.sub(r"\[FUNC:.*$|\[FILE:.*$|^(?:\[[^\]]*\])+(?=\w)|\[?[\w./-]+\.(?:cpp|cc|c|h|hpp):\d+\]?\s*$", "",
                   value).strip(" ,.;:")
    value = re.sub(r"\]\s+and\s+\[", " and ", value)   # "[FRACTAL_NZ] and [FRACTAL_NZ]": one value per tensor
    if any(value.startswith(o) and value.endswith(c) for o, c in ("[]", "()", "{}")):
        value = value[1:-1]
    elif value.count("[") < value.count("]"):
        value = value.rstrip("]")
    return value.strip(" ,") or None


def _allowed(value: str | None) -> tuple[str, ...]:
    """The allowed values a complaint lists (`[DT_FLOAT16,DT_FLOAT,]`, `float16, float32`)."""
    value = _clean(value)
    if not value:
        return ()
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(value):   # commas inside brackets belong to one value ("in [0, 2]", "shape[[8, 16]]")
        depth += ch in "[({" and 1 or ch in "])}" and -1 or 0
        if depth == 0 and ch in ",|/":
            parts.append(value[start:i])
            start = i + 1
    parts.append(value[start:])
    # "less than or equal to 65535" is one bound, not two values
    return tuple(v.strip() for part in parts for v in re.split(r"\s+(?:or|and)\s+(?!equal to\b)", part) if v.strip())


def _aspect(aspect: str, groups: dict) -> str:
    """A shape refused for one with the same sizes in another order is a layout: the tensor's axes are ordered
    another way than the op reads them (NHD against BNSD), not sized wrong; a parameter's "incorrect dtype" is the
    dtype twin of its "incorrect format"."""
    if aspect == "format" and (groups.get("what") or "").startswith("d"):
        return "dtype"
    if aspect != "shape" or not groups.get("value") or not groups.get("allowed"):
        return aspect
    got, wanted = (re.findall(r"\d+", groups[k]) for k in ("value", "allowed"))
    return "layout" if len(got) > 1 and got != wanted and sorted(got) == sorted(wanted) else aspect


#: How much of a line is read for a complaint: an op's complaint is a sentence, and a line of tens of thousands of
#: characters (hostile or a dump) must cost no more than a short one.
MAX_TEXT = 1024


@cache
def _starts() -> tuple[tuple[str, re.Pattern], ...]:
    """The forms compiled; a form that opens with a name is tried only where a name can start, so a long run of
    word characters is not tried at each of its positions."""
    return tuple((aspect, re.compile((r"(?<![\w.])" if rx.startswith(("(?P<param>", "(?:Tensor")) else "") + rx, flags))
                 for aspect, (rx, flags) in FORMS)


def read_line(text: str) -> tuple[str, re.Match] | None:
    """The aspect and the match of the first form a line shows, or None."""
    text = text[:MAX_TEXT]
    if NOT_A_CHECK.search(text):
        return None
    for aspect, pattern in _starts():
        m = pattern.search(text)
        if m:
            return aspect, m
    return None


#: How many lines a pasted complaint may be broken into (a console wraps it, a paste breaks it after the code).
SPAN = 3


def _windows(msgs, files, levels, kinds, pos: int):
    """The texts a complaint at `pos` may be: the line alone, then joined with the lines after it that carry no
    header of their own (the rest of a broken paste, at most at the level of the logging prefix it repeats; every
    line of a plog has its header) or that go on one error-manager message (its title on a line, the message on the
    lines under it)."""
    text = msgs[pos]
    yield text
    for i in range(pos + 1, min(pos + SPAN, len(msgs))):
        same_message = kinds[i] == KIND_BLOCK_LINE and kinds[i - 1] in (KIND_BLOCK_MSG, KIND_BLOCK_LINE)
        if files[i] != files[pos] or (levels[i] is not None and not same_message and kinds[i] != KIND_UNPARSED):
            return
        text = f"{text} {msgs[i].strip()}"
        yield text


def _first_form(msgs, files, levels, kinds, pos: int) -> tuple[tuple[str, re.Match] | None, int]:
    """The first form the lines from `pos` show, and how many lines after `pos` it took; a bare `call` (a
    parameter error that names nothing yet) gives way to what the lines after it name."""
    bare = None
    for used, text in enumerate(_windows(msgs, files, levels, kinds, pos)):
        found = read_line(text)
        if found is not None and found[0] != "call":
            return found, used
        if found is not None and bare is None:
            bare = (found, used)
    return bare or (None, 0)


def extract(log: LogTable) -> list[Rejection]:
    """Every op complaint, in log order, each once; the lines just before a complaint name its op when it does not."""
    files, msgs, levels, kinds, codes = (log.column(c) for c in ("file", "msg", "level", "kind", "code"))
    # the message an aclnn parameter check titles is a complaint whatever its words (a title alone, its message on
    # the lines under it, is read from those lines)
    titled = [i for i in log.error_positions()
              if codes[i] == PARAMETER_ERROR and kinds[i] == KIND_BLOCK_MSG and str(msgs[i]).strip()]
    # an op complains at ERROR level, or in a paste's lines without a header; an INFO line that says a node "is
    # unknown shape which should be skip" is the graph engine at work; a paste's continuation piece is not read
    # again, since the record it continues holds its text joined to its own
    said = (i for i in log.holding(READS)
            if (levels[i] is None or levels[i] in COMPLAINT_LEVELS) and kinds[i] != KIND_CONTINUATION)
    hits = sorted({*titled, *said})
    titled = set(titled)
    out: list[Rejection] = []
    covered = -1   # a complaint read over several lines is not read again from its later lines
    for hit in hits:
        # the complaint starts on the line with the literal, else (a line without a header of its own) on one of
        # the lines just before it
        for pos in range(hit, max(covered, hit - SPAN if levels[hit] is None else hit - 1), -1):
            found, used = _first_form(msgs, files, levels, kinds, pos)
            if found is not None:
                break
        else:
            if hit in titled and hit > covered:
                out.append(_worded(log, hit))
                covered = hit
            continue
        aspect, m = found
        groups = m.groupdict()
        aspect = _aspect(aspect, groups)
        # the op is named by the failing call's lines: an INFO line near it is another op's routine work (a tiling
        # report), and a reading that keeps only some of a big plog's lines must name the same op as one that keeps all
        near = [i for i in range(max(0, pos - LOOKBACK), min(len(msgs), pos + used + 1 + LOOKAHEAD))
                if files[i] == files[pos] and (i == pos or levels[i] is None or levels[i] in COMPLAINT_LEVELS)]
        before = [msgs[i] for i in near if i <= pos]
        after = [msgs[i] for i in near if i > pos + used]
        op = _op(before)
        if aspect in GENERIC and op is None and not any(OP_LAYER.search(t) for t in (*before, m.string)) \
                and not any(codes[i] == PARAMETER_ERROR for i in near):
            covered = pos + used
            continue
        # the complaint's own line and the one just before it (a paste puts the source position above the message)
        stage = "tiling" if any(_TILING.search(t) for t in (m.string, *before[-2:])) else None
        # a form that names the op itself (the converter's type key) is read before the lines around it
        out.append(Rejection(op=groups.get("op") or op or _op(after[::-1]), aspect=aspect,
                             param=_clean(groups.get("param")), value=_clean(groups.get("value")),
                             allowed=_allowed(groups.get("allowed")),
                             file=files[pos], line=log.column("line")[pos], text=m.string, stage=stage))
        covered = pos + used
    return out


def _worded(log: LogTable, pos: int) -> Rejection:
    """The complaint of a parameter check that no form reads: its aspect from its words (`call` when they name
    none), its op from the lines before it."""
    msgs, files = log.column("msg"), log.column("file")
    text = str(msgs[pos])[:MAX_TEXT]
    aspect = next((a for a, words in WORDED if words.search(text)), "call")
    before = [msgs[i] for i in range(max(0, pos - LOOKBACK), pos + 1) if files[i] == files[pos]]
    return Rejection(op=_op(before), aspect=aspect, param=None, value=None, allowed=(), file=files[pos],
                     line=log.column("line")[pos], text=text, stage="tiling" if _TILING.search(text) else None)
