"""The paste reader: what a paste wraps around log lines is recognised and peeled before the grammar reads them.

Customers seldom send a clean plog folder: they paste grep output, a launcher's console, a chat message.
WRAPPERS is the ordered table of the prefixes understood; each rule peels one prefix and says what it names
(the file and line grep quoted, the rank, the worker pid, the logging level). The rules run in table order,
again and again, until none matches, so nested wrappers peel from the outside in
(`train.log:12:[rank3]:[ERROR] ...`, a Ray actor's prefix before its worker's); a line has one grep prefix at
most. A prefix plain text can also start with (`name:12:`, `12:`, `svc | `, indentation) peels only when what
remains is a log line, or, for the sticky ones, when the same rule peeled the line before (grep output goes on
in its form). FURNITURE names whole lines that belong to the paste itself: the shell prompt and the command,
the Python prompt, grep's `--` and binary-file notes, Markdown fences. A line no rule matches is left as it is.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace
from typing import Callable

from .grammar import (KIND_CONSOLE, KIND_PASTE, KIND_UNPARSED, BlockState, Fields, number, opens_line, parse_header,
                      parse_line)


@dataclass(frozen=True)
class Cut:
    """What one rule found at the start of a line: where the wrapper ends, and what it names."""

    end: int
    rank: int | None = None
    worker_pid: int | None = None
    src_file: str | None = None
    src_line: int | None = None
    level: str | None = None   #: the level a logging prefix states


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

    @property
    def wrapper(self) -> str | None:
        """The rules that peeled the line, joined with `+`, or None."""
        return _joined(self.wrappers)


def _joined(wrappers: list[str]) -> str | None:
    """Rule names joined with `+`, or None when there are none."""
    return "+".join(wrappers) or None


@dataclass
class PasteState:
    """What one capture has shown so far: the files grep quoted, and which rules peeled the line before."""

    grep_files: set[str] = field(default_factory=set)
    #: the rules the next line is expected to go on in: those that peeled the line before, or grep's after a
    #: grep command shown with its prompt
    previous: tuple[str, ...] = ()
    grep_target: str | None = None   #: the one file the last grep command shown searched (`grep -n ERROR plog.log`)


# --- prefix rules -------------------------------------------------------------------------------------------

_QUOTE = re.compile(r"(?!>>>)(?:>[ \t]?)+")                                # Markdown / e-mail quote marks
_INDENT = re.compile(r"[ \t]+")                                             # a Markdown code block, a mail quote
_POD = re.compile(r"\[pod/[^\]\s]+\] ")                                     # kubectl logs --prefix
_RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d) ")  # kubectl / docker -t
_LEVELS = r"DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL"
#: Logging levels as the log table names them (plog's ERROR / WARNING / INFO / DEBUG).
_LEVEL_NAMES = {"WARN": "WARNING", "CRITICAL": "ERROR", "FATAL": "ERROR"}
_PY_LOGGING = re.compile(                                                   # Python logging, loguru, hydra
    r"\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?"   # asctime, maybe bracketed
    r"(?:\s*[-|]?\s*\[?(?!(?:" + _LEVELS + r")\b)[\w.]+\]?:?)?"             # a logger name before the level
    r"\s*[-|]?\s*\[?(?P<level>" + _LEVELS + r")\]?"
    r"(?:\s*[-|:]\s*(?:[\w./<>-]+(?::[\w<>]+)*:\d+\s*-\s*)?|\s+)")          # separator; some formats add file:line
_PY_LOGGING_BASIC = re.compile(r"(?P<level>" + _LEVELS + r"):[\w.]+:")            # logging.basicConfig's default format
_VLLM_LOGGING = re.compile(r"(?P<level>" + _LEVELS + r") \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[\w./<>-]+:\d+\] ?")  # vLLM
# Google's glog, the C++ services' logging (Paddle, Mooncake, brpc): `E0419 16:59:47.826516 19842 file.cpp:487] `,
# its level the first letter, the date with its year in newer releases (`E20260311 09:41:52.163968  7716 ...`)
_GLOG = re.compile(r"(?P<letter>[IWEF])(?:\d{4})?\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [\w./<>-]+:\d+\] ?")
_GLOG_LEVELS = {"I": "INFO", "W": "WARNING", "E": "ERROR", "F": "ERROR"}
_TORCHRUN = re.compile(r"\[(?:rank|default)(?P<rank>\d+)\]: ?")
# Ray actors and vLLM workers: `(pid=1)`, `(RayWorkerWrapper pid=1, ip=10.0.0.1)`, `(VllmWorker TP1 pid=1)`
_RAY = re.compile(r"\((?:[A-Za-z_][\w.]*(?: [\w.=-]+)* )?pid=(?P<pid>\d+)(?:, ip=[^)\s]+)?\) ?")
_COMPOSE = re.compile(r"[A-Za-z0-9][\w.-]*\s+\| ?")                          # docker compose `svc-1  | `
_PROGRESS = re.compile(r"\.{2,}")                                           # a progress bar's dots, no newline after
_PYTEST = re.compile(r"E {3,}")                                              # pytest's report of a failure
_GREP_MATCH = re.compile(r"(?P<file>[^\s:]+):(?P<line>\d+):")               # grep -rn, a matching line
_GREP_CONTEXT = re.compile(r"-(?P<line>\d+)-")                              # grep -rn -C, a context line
_GREP_LINE = re.compile(r"(?P<line>\d+)[:-]")                               # grep -n of one file


def _prefix(pattern: re.Pattern) -> Callable[[str, PasteState], Cut | None]:
    def rule(line: str, state: PasteState) -> Cut | None:
        m = pattern.match(line)
        if not m or not m.end():
            return None
        level = m.groupdict().get("level")
        return Cut(m.end(), level=_LEVEL_NAMES.get(level, level))
    return rule


def _glog(line: str, state: PasteState) -> Cut | None:
    m = _GLOG.match(line)
    return Cut(m.end(), level=_GLOG_LEVELS[m["letter"]]) if m else None


def _torchrun(line: str, state: PasteState) -> Cut | None:
    m = _TORCHRUN.match(line)
    return Cut(m.end(), rank=number(m["rank"])) if m and number(m["rank"]) is not None else None


def _ray(line: str, state: PasteState) -> Cut | None:
    m = _RAY.match(line)
    return Cut(m.end(), worker_pid=number(m["pid"])) if m and number(m["pid"]) is not None else None


def _indent(line: str, state: PasteState) -> Cut | None:
    """Indentation a paste added (a Markdown code block, a mail quote); not where the grammar reads the line with
    its indentation (a traceback's frame, an error block's messages)."""
    m = _INDENT.match(line)
    return Cut(m.end()) if m and not opens_line(line) else None


def _grep_file(line: str, state: PasteState) -> Cut | None:
    """`path:12:` of a matching line, or `path-12-` of a context line: a path grep quoted before, else the first
    split that leaves a log line (`-12-` may be part of a file name)."""
    m = _GREP_MATCH.match(line)
    # a line number longer than any file has is not a grep prefix: the line stays as it is
    if m and number(m["line"]) is not None:
        return Cut(m.end(), src_file=_clean(m["file"]), src_line=number(m["line"]))
    for m in _GREP_CONTEXT.finditer(line, 0, 512):
        path = line[:m.start()]
        if " " in path:
            break
        if number(m["line"]) is not None and (_clean(path) in state.grep_files or opens_line(line[m.end():])):
            return Cut(m.end(), src_file=_clean(path), src_line=number(m["line"]))
    return None


def _grep_line(line: str, state: PasteState) -> Cut | None:
    m = _GREP_LINE.match(line)
    ok = m is not None and number(m["line"]) is not None
    return Cut(m.end(), src_file=state.grep_target, src_line=number(m["line"])) if ok else None


def _clean(path: str) -> str:
    """A quoted path as grep printed it, without the `./` grep -r puts before paths under `.`."""
    return path[2:] if path.startswith("./") else path


#: How a rule may peel: always; only when what remains is a log line (GUARDED); or also when the same rule peeled
#: the line before (STICKY: the lines of grep output, of one compose service, go on in the same form).
ALWAYS, GUARDED, STICKY = "always", "guarded", "sticky"

#: The rules of grep's own prefixes.
GREP = frozenset({"grep_file", "grep_line"})
_DIGITS = "0123456789"
_LEVEL_INITIALS = "DIWECF"
_ALNUM = _DIGITS + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

#: The prefix rules, in the order they are tried: (name, rule, how it may peel, the characters its prefix can start
#: with, "" for any: a line is tried only against the rules its first character allows).
WRAPPERS: tuple[tuple[str, Callable[[str, PasteState], Cut | None], str, str], ...] = (
    ("quote", _prefix(_QUOTE), ALWAYS, ">"),
    ("progress", _prefix(_PROGRESS), GUARDED, "."),
    ("kubectl_prefix", _prefix(_POD), ALWAYS, "["),
    ("timestamp", _prefix(_RFC3339), ALWAYS, _DIGITS),
    ("python_logging", _prefix(_PY_LOGGING), ALWAYS, "[" + _DIGITS),
    ("python_logging_basic", _prefix(_PY_LOGGING_BASIC), ALWAYS, _LEVEL_INITIALS),
    ("vllm_logging", _prefix(_VLLM_LOGGING), ALWAYS, _LEVEL_INITIALS),
    ("glog", _glog, ALWAYS, "IWEF"),
    ("torchrun", _torchrun, ALWAYS, "["),
    ("ray_worker", _ray, ALWAYS, "("),
    ("compose", _prefix(_COMPOSE), STICKY, _ALNUM),
    ("pytest", _prefix(_PYTEST), STICKY, "E"),
    ("grep_file", _grep_file, STICKY, ""),
    ("grep_line", _grep_line, STICKY, _DIGITS),
    # indentation stays where it is part of the text (an error block's TraceBack lines): never sticky
    ("indent", _indent, GUARDED, " \t"),
)

# --- whole lines of the paste itself ------------------------------------------------------------------------

#: Commands a bare `$ ` or `# ` prompt must be followed by to count as one (`# ` alone starts Markdown headings).
_COMMANDS = ("grep", "egrep", "fgrep", "zgrep", "rg", "cat", "zcat", "tail", "head", "less", "more", "kubectl",
             "docker", "journalctl", "dmesg", "npu-smi", "msnpureport", "torchrun", "python", "python3", "bash",
             "sh", "ls", "cd", "find", "awk", "sed", "tar", "unzip", "export", "env", "pip", "pip3", "ascend-dmi")
_PROMPT_USER = re.compile(r"(?:\([\w.-]+\)\s*)?(?:[\w.-]+@[\w.-]+(?::\S*)?\s?[$#%]|\[[\w.-]+@[^\]]+\][$#])\s")
_PROMPT_BARE = re.compile(r"(?:\([\w.-]+\)\s*)?[$#%]\s+(?P<cmd>[\w.-]+)")
_GREP_COMMAND = re.compile(r"(?:sudo\s+)?(?:grep|egrep|fgrep|zgrep|rg)\s+\S")
_PY_PROMPT = re.compile(r">>> ")
_BINARY = re.compile(r"Binary file .+ matches$|grep: .+: binary file matches$")
_FENCE = re.compile(r"\s*(?:```|~~~)[\w+.-]*\s*$")


def command_of(line: str) -> str | None:
    """The command a shell prompt line shows (`[root@node log]# grep -rn ERROR .` -> `grep -rn ERROR .`), a grep
    command line as it is, or None."""
    if "@" in line[:160] and (m := _PROMPT_USER.match(line)):
        return line[m.end():]
    if line[:1] in "$#%(" and (m := _PROMPT_BARE.match(line)) and m["cmd"] in _COMMANDS:
        return line[m.start("cmd"):]
    return line if line[:1] in "sefgzr" and _GREP_COMMAND.match(line) else None


def _grep_words(command: str) -> list[str] | None:
    """The arguments of a grep command (after `grep`), or None when the command is not grep."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if words[:1] == ["sudo"]:
        words = words[1:]
    return words[1:] if words and words[0] in ("grep", "egrep", "fgrep", "zgrep", "rg") else None


def grep_target(command: str) -> str | None:
    """The single file a grep command searches (`grep -n ERROR plog-1_….log`), or None (several files, a folder,
    standard input, not grep)."""
    options = _grep_words(command)
    if options is None:
        return None
    operands, pattern_given = [], False
    for k, word in enumerate(options):
        if word.startswith("-") and len(word) > 1:
            short = word[1:] if not word.startswith("--") else ""
            if {"r", "R"} & set(short) or word in ("--recursive", "--dereference-recursive"):
                return None
            pattern_given |= word in ("-e", "-f") or word.startswith(("--regexp", "--file"))
            continue
        if k and options[k - 1] in ("-e", "-f", "-m", "-A", "-B", "-C"):
            continue
        operands.append(word)
    files = operands if pattern_given else operands[1:]
    return _clean(files[0]) if len(files) == 1 else None


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

def _recognised(rest: str, state: PasteState) -> bool:
    """Whether the text a guarded rule would leave is a log line, or wrapped in a wrapper that is always peeled."""
    return opens_line(rest) or any(rule(rest, state) for _, rule, how, first in WRAPPERS
                                   if how == ALWAYS and rest[:1] in first)


def peel(line: str, state: PasteState) -> Peeled:
    """The line with every wrapper it carries peeled, and what they named; the state learns from it."""
    if not line:   # no rule takes an empty line, and `"" in first` would let every rule try it
        return Peeled(line)
    for name, test, first in FURNITURE:
        if (not first or line[:1] in first) and test(line, state):
            if name == "prompt":   # a new command: what follows is its output (grep's has grep's prefixes)
                command = command_of(line)
                state.grep_target = grep_target(command)
                state.previous = tuple(GREP) if _grep_words(command) is not None else (name,)
            return Peeled(line, (name,), furniture=True)
    text, names, named = line, [], {}
    while True:
        for name, rule, how, first in WRAPPERS:
            if (name in names and name in GREP) or (first and text[:1] not in first):
                continue
            cut = rule(text, state)
            if cut is None:
                continue
            rest = text[cut.end:]
            sticky = how == STICKY and (name in state.previous or _known(cut, state))
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
    if line.strip():
        state.previous = tuple(names)
    return Peeled(text, tuple(names), **named) if names else Peeled(line)


def _known(cut: Cut, state: PasteState) -> bool:
    return cut.src_file is not None and cut.src_file in state.grep_files


def open_line(line: str, paste: PasteState) -> tuple[Fields | None, Peeled | None]:
    """An slog header line read at once (no wrapper is looked for), or None and the line's wrappers peeled."""
    f = parse_header(line)
    if f is not None:
        paste.previous = ()
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
        # which the prefix's level does not describe
        indented = not p.text[:1].strip()
        f = Fields(KIND_CONSOLE, level=None if indented else p.level, msg=p.text.strip())
    return f, (p if p.wrappers else None)


def read_line(line: str, state: BlockState, paste: PasteState) -> tuple[Fields, Peeled | None]:
    """Fields of one line, wrappers peeled first (None when it had none); an slog header line is read at once."""
    return read_peeled(*open_line(line, paste), state)
