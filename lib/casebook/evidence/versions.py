"""Versions the log lines themselves show: CANN, driver, firmware, torch_npu, torch, NumPy, the chip (SoC) name and
the chip a kernel compiler was asked to build for.

Plogs rarely print a version outright; they print install paths (`/usr/local/Ascend/CANN-6.4/...`,
`ascend-toolkit/8.0.RC3/...`), package names (`Ascend-cann-toolkit_8.0.RC3`), `key: value` lines in
install logs, and the runtime's SoC name. Each becomes a fact with the file and line it came from, and a
note when it is read from a path and not stated. Attachment files (version.info, pip lists) are read
elsewhere and win over these hints.
"""
from __future__ import annotations

import re

from ..knowledge.literals import Haystack, required_all
from ..knowledge.messages import Note
from ..reading.table import PLOG_COLUMNS, LogTable
from .items import Fact

_FILE, _LINE, _MSG = (PLOG_COLUMNS.index(c) for c in ("file", "line", "msg"))

_V = r"(?P<v>\d+\.\d+(?:\.(?:RC\d+|rc\d+|alpha\d+|beta\d+|post\d+|T\d+|\d+|[a-z](?![a-z])))*(?:\+\w+)?)"
#: (fact, regex, note) in order of trust: stated versions first, path hints last.
PATTERNS: tuple[tuple[str, re.Pattern, str | None], ...] = (
    ("torch_npu_version", re.compile(r"torch[_-]npu(?:\s+version)?\s*(?:==|[:=]|\s|-(?=\d))\s*v?" + _V, re.I), None),
    ("numpy_version", re.compile(r"(?<![\w.-])numpy(?:\s+version)?\s*(?:==|[:=]|\s|-(?=\d))\s*v?" + _V, re.I), None),
    ("torch_version", re.compile(r"(?<![\w.-])torch(?![_-]npu)(?:\s+version)?\s*(?:==|[:=]|\s|-(?=\d))\s*v?" + _V,
                                 re.I), None),
    ("cann_version", re.compile(r"\bCANN(?:\s+|_)version\s*[:=]?\s*" + _V, re.I), None),
    ("cann_version", re.compile(r"Ascend-cann-(?:toolkit|kernels|nnae|nnal)[_-]" + _V, re.I), Note("fact.from_package")),
    ("cann_version", re.compile(r"ascend-toolkit/" + _V + r"/"), Note("fact.from_install_path")),
    ("cann_version", re.compile(r"/Ascend/CANN-" + _V + r"/", re.I), Note("fact.from_install_path")),
    ("npu_driver_version", re.compile(r"\bdriver[ _]version\s*[:=]\s*" + _V, re.I), None),
    ("npu_driver_version", re.compile(r"Ascend-hdk-\w+-npu-driver[_-]" + _V, re.I), Note("fact.from_package")),
    ("firmware_version", re.compile(r"\bfirmware[ _]version\s*[:=]\s*" + _V, re.I), None),
    ("firmware_version", re.compile(r"Ascend-hdk-\w+-npu-firmware[_-]" + _V, re.I), Note("fact.from_package")),
    ("soc_version", re.compile(r"\bsoc[ _]?version(?: is|:|=)?\s*\[?(?P<v>Ascend\w+)\]?", re.I), None),
    # a kernel compiler (triton-ascend's BiShengIR) that has no target of the chip's name
    ("compiler_target_soc", re.compile(r"for the --target option: Cannot find option named '(?P<v>Ascend[\w-]+)'"),
     None),
)


def _spellings(*phrases: str) -> tuple[str, ...]:
    """Each phrase as logs write it, every word lower case, capitalised or upper case ("CANN version", "Driver
    Version", "SOC_VERSION"; "socVersion" from "soc|version")."""
    out: list[str] = []
    for phrase in phrases:
        words, seps = re.split(r"[ _|]", phrase), re.findall(r"[ _|]", phrase)
        forms = [""]
        for k, word in enumerate(words):
            sep = "" if k == 0 or seps[k - 1] == "|" else seps[k - 1]
            forms = [f + sep + w for f in forms for w in (word, word.capitalize(), word.upper())]
        out += forms
    return tuple(dict.fromkeys(out))


#: Lines this family reads (the reader keeps them in big files too).
# each spelling listed: the reader matches literal bytes, and a case-insensitive scan of every line would cost more;
# a stated version is named with what it is the version of ("CANN version", "driver_version": a bare "version", on
# every line of an install log's key=value records, is read by no pattern), a path says "CANN-"
KEEP = ("numpy", "torch_npu", "torch-npu", "Torch_NPU", "Torch-NPU", "CANN-", "Ascend-", "ascend-toolkit",
        "NumPy version", "SoC version", "SoC Version", "SoC_version", "Cannot find option named",
        *_spellings("numpy version", "cann version", "cann_version", "torch version", "driver version",
                    "driver_version", "firmware version", "firmware_version", "soc version", "soc_version",
                    "soc|version"))


#: Of each pattern, the sets of literals its parts require in turn (a set of one character rules out nearly no line
#: and is left out): an install log says "version" on every line, and a line must also hold "cann", "driver" or "soc"
#: before those patterns' regexes run on it.
_NEEDLES = tuple(tuple(need for need in required_all(("(?i)" if p.flags & re.I else "") + p.pattern)
                       if min(map(len, need.alternatives)) > 1) for _, p, _ in PATTERNS)


def extract(log: LogTable) -> dict[str, Fact]:
    """The first version each fact is shown with, stated values before path hints."""
    # each distinct message once, at its first line: an install log repeats its lines on every run of the installer
    rows = log.rows
    distinct: dict[str, int] = {}   # each message at the position of its first line, without a record made for each
    for i in log.holding(KEEP):
        distinct.setdefault(rows[i][_MSG], i)
    msgs = list(distinct)
    files, lines = ([rows[i][k] for i in distinct.values()] for k in (_FILE, _LINE))
    hay = Haystack(msgs)
    holding: dict = {}   # the lines holding a pattern's first literals, found once for the patterns that share them
    found: dict[str, Fact] = {}
    for (name, pattern, note), needles in zip(PATTERNS, _NEEDLES):
        if name in found:   # a pattern of more trust showed it
            continue
        candidates = list(range(len(msgs)))
        if needles:
            # a pattern's first literals are its own ("cann", "driver"); the ones after are often on every line of
            # an install log ("version"): only the lines holding the first are tested for them
            first, *then = needles
            if first not in holding:
                holding[first] = hay.holding(first)
            candidates = holding[first]
            for need in then:
                candidates = hay.holding(need, within=candidates)
        for i in candidates:
            m = pattern.search(msgs[i])
            if m is not None:
                found[name] = Fact(name, m["v"], "log", files[i], int(lines[i]), note)
                break
    return found
