"""Shell furniture a capture carries between log lines: `ls -l` listings, the Python interpreter's banner, the
shell's report of a job a signal killed, and a compiler's diagnostics in a build's output. Each rule reads one named
form and returns its Fields, or None. Also the prompt and command a capture shows (`[root@node log]# grep -rn ERROR
.`), which tell the paste reader what output follows (paste.py).
"""
from __future__ import annotations

import re
import shlex
from typing import Callable

from .fields import KIND_CONSOLE, KIND_PASTE, BlockState, Fields

#: `ls -l`: mode, links, owner, group, size, date in the locale's form (`8月 14 03:12`, `Aug 14 03:12`,
#: `2024-08-14 03:12`), name; and the `total` line before, in English or Chinese
_LS_ROW = re.compile(r"^[-dlcbps][rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+\d[\d,]*\s+\S+\s+\S+\s+\S+\s+\S")
_LS_TOTAL = re.compile(r"^(?:total|总用量|合计|合計)\s+\d+(?:[.,]\d+)?[KMGTP]?\s*$")
#: `python` started at a prompt: `Python 3.8.18 (default, ...)`, `[GCC 11.2.0] :: Anaconda, Inc. on linux`,
#: `Type "help", "copyright", "credits" or "license" for more information.`
_PY_BANNER = re.compile(r'^(?:Python \d+\.\d+\.\d+\S* \(.*\)|\[(?:GCC|Clang|MSC)[^\]]*\].* on \w+'
                        r'|Type "help", "copyright", "credits" or "license" for more information\.)\s*$')
#: bash's report of a job a signal ended: `Aborted (core dumped)`, `bash: line 1: 4242 Killed   python x.py`
_JOB_KILLED = re.compile(r"^(?:(?:\w+: line \d+: )?(?P<pid>\d+) +)?(?P<what>Aborted|Segmentation fault|Killed|Bus error"
                         r"|Floating point exception|Illegal instruction)(?: +\(core dumped\))?"
                         r"(?(pid)\s+\S.*|)\s*$")   # after a pid, the command follows

#: a compiler's diagnostic as GCC, Clang and the toolchains built on them (BiSheng, ccec) print it:
#: `src/a.cpp:12:10: fatal error: acl/acl.h: No such file or directory`, `x.c:3: warning: ...`
_DIAGNOSTIC = re.compile(r"^(?P<path>[^\s:][^:\s]*):(?P<line>\d+)(?::\d+)?: "
                         r"(?P<severity>fatal error|error|warning|note): (?P<msg>\S.*?)\s*$")
#: a diagnostic with no position, as the compiler driver, its backend and the linker print it: `error: stack frame
#: size (47928) exceeds limit (32768) in function 'k'`, `fatal error: error in backend: Cannot select: ...`,
#: `ld.lld: error: undefined symbol: ...`, `g++: internal compiler error: Segmentation fault ...`; and the linker's own
#: line, which says no `error:` (`/usr/bin/ld: cannot find -lascendcl`), but for its warnings. pip's summary of an
#: error it already printed (`error: subprocess-exited-with-error`, a bare slug) is left to the lines before it
_TOOL_DIAGNOSTIC = re.compile(r"^(?:(?:[A-Za-z][\w.+-]{0,40}: )?(?:fatal error|error|internal compiler error): "
                              r"(?![a-z]+(?:-[a-z]+)+\s*$)\S"
                              r"|(?:/\S*/)?(?:ld(?:\.\w+)?|collect2): (?!warning:)\S"
                              # the linker's unresolved name, under the object file's section (`main.cpp:(.text+0x1f4):
                              # undefined reference to ...`) or alone where a paste kept only it
                              r"|(?:\S+:\(\.[\w.]+(?:\+0x[0-9a-fA-F]+)?\): )?undefined reference to \S)")
#: a diagnostic's severity -> the level of its line
_SEVERITY = {"fatal error": "ERROR", "error": "ERROR", "warning": "WARNING", "note": "INFO"}


def _listing(line: str, state: BlockState) -> Fields | None:
    return Fields(KIND_PASTE, msg=line.strip()) if _LS_ROW.match(line) or _LS_TOTAL.match(line) else None


def _banner(line: str, state: BlockState) -> Fields | None:
    return Fields(KIND_PASTE, msg=line.strip()) if _PY_BANNER.match(line) else None


def _job_killed(line: str, state: BlockState) -> Fields | None:
    """The process died of a signal: the shell says so, and that is an error."""
    m = _JOB_KILLED.match(line)
    if not m:
        return None
    f = Fields(KIND_PASTE, level="ERROR", msg=line.strip())
    f.extra["signal"] = m["what"]
    return f


def _diagnostic(line: str, state: BlockState) -> Fields | None:
    """A compiler's diagnostic: its severity is the line's level, its message what the compiler says, its source the
    position in the code compiled (as a stack frame's is: the code's, not the log's)."""
    m = _DIAGNOSTIC.match(line)
    if not m:
        return None
    return Fields(KIND_CONSOLE, level=_SEVERITY[m["severity"]], src=f"{m['path']}:{m['line']}",
                  msg=f"{m['severity']}: {m['msg']}")


def _tool_diagnostic(line: str, state: BlockState) -> Fields | None:
    """A compiler's, backend's or linker's error that names no position in the code: the line is its message whole, the
    tool's name with it (`ld.lld: error: ...` says a link failed)."""
    return Fields(KIND_CONSOLE, level="ERROR", msg=line.strip()) if _TOOL_DIAGNOSTIC.match(line) else None


#: The rules, in the order they are tried.
RULES: tuple[tuple[str, Callable[[str, BlockState], Fields | None]], ...] = (
    ("listing", _listing),
    ("banner", _banner),
    ("job_killed", _job_killed),
    ("diagnostic", _diagnostic),
    ("tool_diagnostic", _tool_diagnostic),
)
#: Of the rules that read a line only when one of their patterns matches at its start, whatever the block state:
#: those patterns (grammar.parse_other tries such a rule only on a line one of them can begin; firsts.py).
STARTS: dict[str, tuple[re.Pattern, ...]] = {"listing": (_LS_ROW, _LS_TOTAL), "banner": (_PY_BANNER,)}


# --- the prompt and the command a capture shows ------------------------------------------------------------

#: Commands a bare `$ ` or `# ` prompt must be followed by to count as one (`# ` alone starts Markdown headings).
_COMMANDS = ("grep", "egrep", "fgrep", "zgrep", "rg", "cat", "zcat", "tail", "head", "less", "more", "kubectl",
             "docker", "journalctl", "dmesg", "npu-smi", "msnpureport", "torchrun", "python", "python3", "bash",
             "sh", "ls", "cd", "find", "awk", "sed", "tar", "unzip", "export", "env", "pip", "pip3", "ascend-dmi")
_PROMPT_USER = re.compile(r"(?:\([\w.-]+\)\s*)?(?:[\w.-]+@[\w.-]+(?::\S*)?\s?[$#%]|\[[\w.-]+@[^\]]+\][$#])\s")
_PROMPT_BARE = re.compile(r"(?:\([\w.-]+\)\s*)?[$#%]\s+(?P<cmd>[\w.-]+)")
_GREP_COMMAND = re.compile(r"(?:sudo\s+)?(?:grep|egrep|fgrep|zgrep|rg)\s+\S")


def command_of(line: str) -> str | None:
    """The command a shell prompt line shows (`[root@node log]# grep -rn ERROR .` -> `grep -rn ERROR .`), a grep
    command line as it is, or None."""
    if "@" in line[:160] and (m := _PROMPT_USER.match(line)):
        return line[m.end():]
    if line[:1] in "$#%(" and (m := _PROMPT_BARE.match(line)) and m["cmd"] in _COMMANDS:
        return line[m.start("cmd"):]
    return line if line[:1] in "sefgzr" and _GREP_COMMAND.match(line) else None


def grep_words(command: str) -> list[str] | None:
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
    options = grep_words(command)
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
    return quoted_path(files[0]) if len(files) == 1 else None


def quoted_path(path: str) -> str:
    """A quoted path as grep printed it, without the `./` grep -r puts before paths under `.`."""
    return path[2:] if path.startswith("./") else path
