"""The paste reader: what a paste wraps around log lines is recognised and peeled before the grammar reads them.

Customers seldom send a clean plog folder: they paste grep output, a launcher's console, a chat message.
prefixes.WRAPPERS is the ordered table of the prefixes understood; each rule peels one prefix and says what it
names (the file and line grep quoted, the rank, the worker pid, the logging level). The rules run in table order,
again and again, until none matches, so nested wrappers peel from the outside in
(`train.log:12:[rank3]:[ERROR] ...`, a Ray actor's prefix before its worker's); a line has one grep prefix, host
name, task number or line number at most (prefixes.ONCE). A prefix plain text can also start with (`name:12:`,
`12:`, `svc | `, `host-1: `, indentation) peels only when what remains is a log line, or, for the sticky ones, when
the same rule peeled the line before (grep output goes on in its form) or when the capture's lines lead with it.
What the whole capture shows is read before its lines: the margin all its lines share is peeled first
(prefixes.capture_form). FURNITURE names whole lines that belong to the paste itself: the shell prompt and the
command, the Python prompt, grep's `--` and binary-file notes, Markdown fences. A line no rule matches is left as
it is.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable

from .grammar import KIND_CONSOLE, KIND_PASTE, KIND_UNPARSED, BlockState, Fields, opens_line, parse_header, parse_line
from .prefixes import ALWAYS, GREP, ONCE, STICKY, WRAPPERS, Cut, PasteState, in_order
from .shell import command_of, grep_target, grep_words


@dataclass(frozen=True)
class Peeled:
    """A line with its wrappers peeled."""

    text: str                           #: what remains for the grammar: the line itself or a suffix of it
    wrappers: tuple[str, ...] = ()      #: names of the rules that peeled it, outermost first
    rank: int | None = None             #: torchrun's `[rank3]:` / `[default3]:`
    worker_pid: int | None = None       #: Ray / vLLM's `(Worker pid=123)`
    src_file: str | None = None         #: the file a `grep -rn` prefix names
    src_line: int | None = None         #: the line a `grep -n` prefix names
    level: str | None = None            #: the level a logging prefix states (Python logging, vLLM)
    furniture: bool = False             #: the whole line belongs to the paste (prompt and command, `--`, a fence)
    #: the line carries the very logging prefix of the line before: a later line of one message logged in several
    #: (vLLM's formatter prefixes each line of a message), which the prefix's level does not describe
    continued: bool = False

    @property
    def wrapper(self) -> str | None:
        """The rules that peeled the line, joined with `+`, or None."""
        return _joined(self.wrappers)


def _joined(wrappers: list[str]) -> str | None:
    """Rule names joined with `+`, or None when there are none."""
    return "+".join(wrappers) or None


# --- whole lines of the paste itself ------------------------------------------------------------------------

_PY_PROMPT = re.compile(r">>> ")
_BINARY = re.compile(r"Binary file .+ matches$|grep: .+: binary file matches$")
_FENCE = re.compile(r"\s*(?:```|~~~)[\w+.-]*\s*$")


def _separator(line: str, state: PasteState) -> bool:
    # grep prints `--` between groups of context lines; elsewhere a `--` line is text
    return line == "--" and bool(GREP & set(state.previous))


#: Whole-line rules: (name, test, the characters such a line can start with, "" for any).
FURNITURE: tuple[tuple[str, Callable[[str, PasteState], bool], str], ...] = (
    ("prompt", lambda line, state: command_of(line) is not None, ""),
    ("python_prompt", lambda line, state: bool(_PY_PROMPT.match(line)), ">"),
    ("grep_separator", _separator, "-"),
    ("binary_match", lambda line, state: bool(_BINARY.match(line)), "Bg"),
    ("fence", lambda line, state: bool(_FENCE.match(line)), "`~ \t"),
)

# --- full-width punctuation ---------------------------------------------------------------------------------

_FULL_WIDTH = str.maketrans("：（），［］｛｝＝；　", ":(),[]{}=; ")
_FULL_WIDTH_MARK = re.compile("[：（），［］｛｝＝；　]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def ascii_marks(text: str) -> str:
    """Full-width punctuation mapped to ASCII where it stands between ASCII text, as the grammar needs it; next to
    Chinese characters it is the text's own punctuation and stays."""
    def repl(m: re.Match) -> str:
        i = m.start()
        around = text[max(0, i - 1):i] + text[i + 1:i + 2]
        return m[0] if _CJK.search(around) else m[0].translate(_FULL_WIDTH)
    return _FULL_WIDTH_MARK.sub(repl, text)


# --- the reader ---------------------------------------------------------------------------------------------

#: What makes a logging prefix one call's: its call site (`[core.py:702]`, `train.py:58`) or a time to the millisecond.
_ONE_CALL = re.compile(r"\w\.\w+:\d+|\d\d:\d\d:\d\d[.,]\d{3}")
#: An error manager's message as a paste shows it alone (`E16005: The model has ...`, `EI0002: ...`): its code first.
CODE_FIRST = re.compile(r"E[0-9A-Z]\d{4}[:(\[]")


def _recognised(rest: str, state: PasteState) -> bool:
    """Whether the text a guarded rule would leave is a log line, an error code's message, or wrapped in a wrapper
    that is always peeled."""
    return opens_line(rest) or bool(CODE_FIRST.match(rest)) or any(
        rule(rest, state) for _, rule, how, first in WRAPPERS if how == ALWAYS and rest[:1] in first)


def peel(line: str, state: PasteState) -> Peeled:
    """The line with every wrapper it carries peeled, and what they named; the state learns from it."""
    if not line:   # no rule takes an empty line, and `"" in first` would let every rule try it
        return Peeled(line)
    # the capture's own margin first (a Markdown code block, a mail's indented quote): the lines under it are read
    # as if unindented, so a line its grammar reads by its indentation (a traceback's frame) keeps what is its own
    margin = state.margin if state.margin and line.startswith(state.margin) else ""
    body = line[len(margin):]
    for name, test, first in FURNITURE:
        if (not first or body[:1] in first) and test(body, state):
            if name == "prompt":   # a new command: what follows is its output (grep's has grep's prefixes)
                command = command_of(body)
                state.grep_target = grep_target(command)
                state.previous = tuple(GREP) if grep_words(command) is not None else (name,)
            state.prefix = None
            return Peeled(line, (name,), furniture=True)
    text, names, named = body, ["margin"] if margin else [], {}
    while True:
        for name, rule, how, first in in_order(state.led):
            if (name in names and name in ONCE) or (first and text[:1] not in first):
                continue
            cut = rule(text, state)
            if cut is None:
                continue
            rest = text[cut.end:]
            sticky = how == STICKY and (name in state.previous or _known(cut, state)
                                        or name in state.led)
            if how != ALWAYS and not sticky and not _recognised(rest, state):
                continue
            names.append(name)
            named.update({k: v for k, v in vars(cut).items() if k != "end" and v is not None})
            text = rest
            break
        else:
            break
    if "grep_file" in names:
        state.grep_files.add(named["src_file"])
    # a prefix that names its call site or a time finer than the second tells one logging call from the next: the
    # same such prefix twice is one message in several lines (two calls in one second would print the same
    # `[2026-04-09 15:02:10][ERROR] `)
    prefix = line[:len(line) - len(text)] if named.get("level") else None
    continued = prefix is not None and prefix == state.prefix and bool(_ONE_CALL.search(prefix))
    if line.strip():
        state.previous = tuple(n for n in names if n != "margin")
        state.prefix = prefix
    return Peeled(text, tuple(names), continued=continued, **named) if names else Peeled(line)


def _known(cut: Cut, state: PasteState) -> bool:
    return cut.src_file is not None and cut.src_file in state.grep_files


def open_line(line: str, paste: PasteState) -> tuple[Fields | None, Peeled | None]:
    """An slog header line read at once (no wrapper is looked for), or None and the line's wrappers peeled."""
    f = parse_header(line)
    if f is not None:
        paste.previous, paste.prefix = (), None
        return f, None
    return None, peel(line, paste)


def read_peeled(header: Fields | None, p: Peeled | None, state: BlockState) -> tuple[Fields, Peeled | None]:
    """Fields of a line opened by open_line(), and its wrappers (None when it had none)."""
    if header is not None:
        state.code, state.in_python = None, False
        return header, None
    if p.furniture:
        return Fields(KIND_PASTE, msg=p.text.strip()), p
    f = parse_line(p.text, state)
    if f.kind == KIND_UNPARSED and _FULL_WIDTH_MARK.search(p.text):
        plain = ascii_marks(p.text)
        if plain != p.text and opens_line(plain):
            f = parse_line(plain, state)
            p = replace(p, text=plain, wrappers=p.wrappers + ("full_width",))
    if f.kind == KIND_UNPARSED and p.level is not None:
        # a script's or launcher's own log line: what it says is its own, its level is its logging prefix's; an
        # indented rest is a later line of a message logged in several (vLLM prefixes each line of a traceback),
        # which the prefix's level does not describe. A later line under the very prefix of the line before stays
        # unread text at the prefix's level: the rest of one message, as the readers of a message broken over
        # lines take it (the op's complaint, a signature's joined lines), and an error line all the same
        indented = not p.text[:1].strip()
        level = None if indented else p.level
        f = replace(f, level=level) if p.continued else Fields(KIND_CONSOLE, level=level, msg=p.text.strip())
    return f, (p if p.wrappers else None)


def read_line(line: str, state: BlockState, paste: PasteState) -> tuple[Fields, Peeled | None]:
    """Fields of one line, wrappers peeled first (None when it had none); an slog header line is read at once."""
    return read_peeled(*open_line(line, paste), state)
