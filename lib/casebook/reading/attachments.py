"""What customers attach beside their logs, and what each attachment says.

Four kinds, recognised from their text (and a few CANN file names): `env` (`env`, `printenv`,
`export -p` output), `pip` (`pip list`, `pip freeze`, `pip show`, `conda list`), `cann_version`
(CANN or driver `version.info`, `ascend_install.info`) and `npu_smi` (`npu-smi info`). `settings()`
turns an attachment's lines into (name, value, line) triples; which names become facts is for
evidence/attachments.py to say.
"""
from __future__ import annotations

import re
from typing import Iterable

ENV = "env"
PIP = "pip"
CANN_VERSION = "cann_version"
NPU_SMI = "npu_smi"
KINDS = (ENV, PIP, CANN_VERSION, NPU_SMI)

_ASSIGN = re.compile(r"^(?:export\s+|declare\s+-x\s+)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*)$")
_PIP_HEAD = re.compile(r"^(?:Package\s+Version\b|#\s*Name\s+Version\s+Build\b)")   # pip list, conda list
_PIP_SHOW = re.compile(r"^(?P<key>Name|Version):\s*(?P<value>\S+)\s*$")
_PIP_RULE = re.compile(r"^-{3,}\s+-{3,}")
_PIP_ROW = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._\-]*)\s+(?P<version>\d[\w.!+\-]*)(?:\s+\S.*)?$")
_FREEZE = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._\-]*)(?:\[[^\]]*\])?\s*"
                     r"(?:===?\s*(?P<version>[^\s;#]+)|\s+@\s+\S+)")
_CANN_KEY = re.compile(r"^(?:[Vv]ersion|version_dir|timestamp|UserName|UserGroup|\w*Install_Path_Param|\w+_version)$")
_DRIVER_KEY = re.compile(r"^(?:ascendhal_version|tsfw_version|Driver_Install_Path_Param|firmware_version)$")
_SMI_VERSION = re.compile(r"npu-smi\s+(?P<tool>\S+)\s+Version:\s*(?P<version>\S+)")
_SMI_CHIP = re.compile(r"^\|\s*(?P<npu>\d+)\s+(?P<chip>[0-9A-Za-z][\w\-]*\d\w*)\s+\|\s*(?P<health>[A-Za-z]+)\s*\|")
_SAMPLE = 400   # lines looked at to recognise a kind


def _value(raw: str) -> str:
    v = raw.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        v = v[1:-1]
    return v


def _package(name: str) -> str:
    """pip's normal form of a distribution name (`torch_npu`, `Torch-NPU` -> `torch-npu`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def kind_of(name: str, lines: Iterable[str]) -> str | None:
    """Which attachment a text file is (by its name and first lines), or None."""
    text = [x.strip() for _, x in zip(range(_SAMPLE), lines) if x.strip()]
    if not text:
        return None
    if name in ("version.info", "ascend_install.info") or name.endswith("_install.info"):
        return CANN_VERSION
    if any("npu-smi" in x for x in text[:5]) and sum(1 for x in text if x[:1] in "+|") >= len(text) / 2:
        return NPU_SMI
    if any(_PIP_HEAD.match(x) for x in text[:3]) and (
            any(_PIP_RULE.match(x) for x in text[:4]) or text[0].startswith("#")):
        return PIP
    if [m["key"] for x in text[:2] if (m := _PIP_SHOW.match(x))] == ["Name", "Version"]:
        return PIP   # pip show
    assigns = [m for x in text if (m := _ASSIGN.match(x))]
    if len(assigns) >= 3 and len(assigns) >= 0.6 * len(text):
        keys = [m["name"] for m in assigns]
        if sum(1 for k in keys if _CANN_KEY.match(k)) >= 0.5 * len(keys):
            return CANN_VERSION
        if sum(1 for k in keys if k.isupper()) >= 0.5 * len(keys):
            return ENV
    if len(text) >= 2 and sum(1 for x in text if _FREEZE.match(x)) >= 0.8 * len(text):
        return PIP
    return None


def packages(lines: Iterable[tuple[int, str]]) -> list[tuple[str, str, int]]:
    """(package in pip's normal form, version, line) for every package a `pip list`, `pip freeze`, `pip show` or
    `conda list` names with a version, in the order listed."""
    out = []
    shown = None   # the package a `pip show` block is about
    for no, text in lines:
        if m := _PIP_SHOW.match(text.strip()):
            if m["key"] == "Name":
                shown = _package(m["value"])
            elif shown is not None:
                out.append((shown, m["value"], no))
            continue
        m = _PIP_ROW.match(text.strip()) or _FREEZE.match(text.strip())
        if m and m["version"]:
            out.append((_package(m["name"]), m["version"], no))
    return out


def settings(kind: str, lines: Iterable[tuple[int, str]]) -> list[tuple[str, str, int]]:
    """(name, value, line) for everything the attachment states; the first statement of a name wins."""
    found: dict[str, tuple[str, str, int]] = {}

    def put(name: str, value: str, no: int) -> None:
        if value and name not in found:
            found[name] = (name, value, no)

    rows = list(lines)
    if kind == ENV:
        for no, text in rows:
            if m := _ASSIGN.match(text.strip()):
                put(m["name"], _value(m["value"]), no)
    elif kind == PIP:
        for package, version, no in packages(rows):
            if package in ("torch", "torch-npu"):
                put(package.replace("-", "_") + "_version", version, no)
    elif kind == CANN_VERSION:
        keys = {m["name"] for _, t in rows if (m := _ASSIGN.match(t.strip()))}
        target = "npu_driver_version" if any(_DRIVER_KEY.match(k) for k in keys) else "cann_version"
        for no, text in rows:
            m = _ASSIGN.match(text.strip())
            if m and m["name"] in ("Version", "version"):
                put(target, _value(m["value"]), no)
    elif kind == NPU_SMI:
        for no, text in rows:
            if m := _SMI_VERSION.search(text):
                put("npu_driver_version", m["version"], no)
            elif m := _SMI_CHIP.match(text.strip()):
                chip = m["chip"]
                put("soc_version", chip if chip.lower().startswith("ascend") else f"Ascend{chip}", no)
    return list(found.values())
