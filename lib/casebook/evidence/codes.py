"""How a line names an error code: CANN E-codes, runtime return codes, task-scheduler retCodes, torch_npu ERRs,
and the codes of the other catalogs where a line names them (the sightings in error lines: errors.code_sightings)."""
from __future__ import annotations

import re
from functools import lru_cache

from ..knowledge import formats
from ..knowledge.codes import runtime_reasons
from ..knowledge.literals import required

_ECODE = re.compile(r"(?<![0-9A-Za-z])(E[0-9A-Z]\d{4})(?![0-9A-Za-z])")
# "retcode: 507011 ( model execute failed)" is MindSpore's task failure; "errorCode is 507011" a model's, "returned error
# code 207000" an application's own report of an ACL call, "rtKernelLaunchWithHandleV2 failed: 507035" the runtime's,
# "run_prepared failed with code 507018" a framework's; "(Calling Function = aclrtSynchronizeStream, Code = 507014)"
# the Vision SDK's, "acl.mdl.execute failed ret_int=507011" a pyACL sample's, "aclInit failed. ERROR: 500000" the
# CANN operator repositories' examples', "Register mem ret:207000." a transfer engine's, "aclnnXGetWorkspaceSize failed
# with aclnnStatus=561103" an op library's report of the aclnn call it made; "acl.mdl.execute error 507011" and
# "SUSPECT REMOTE ERROR 507057" applications' and serving stacks' own words, "aclError:507033" a sample's check macro,
# "failed : 507033" and "FAILED -> 507035" frameworks' and tools' reports of a call, "return[100000]" a tool's,
# "[rt result 107027]" the runtime's capture check, "CANN failure 507013" onnxruntime's CANN provider, "aicore
# exception (507015)" an op's report of the exception it saw
_RUNTIME = re.compile(
    r"(?:ErrCode=|(?i:error ?code)(?: is)?\s*[:=]?\s*|runtime result = |result = |errno:|errno\[|\bret\[|ret ?= ?|"
    r"error_code=|\bretcode: |\bfailed ?: ?|\bfailed with code:? |\bCode = |\bret_int=|\bret: ?|\bERROR: |"
    r"\baclnnStatus ?= ?|(?i:\berror) (?=\d{6}\s*(?:$|[^\w\s]))|\baclError: ?|(?i:\bfailed) -> |\breturn\[|"
    r"\brt result |\bCANN failure |\bexception \()"
    r"([1-5]\d{5})\b")
_RETCODE = re.compile(r"retCode=(0x[0-9a-fA-F]+)")
_PTA = re.compile(r"\b(ERR\d{5})\b")
#: Codes of other catalogs, each read only after the words that say what it is (a bare hex is an address or a
#: pid as often as a code): the runtime's inner code, a GE status, the AI CPU scheduler's code, DCMI's return, a
#: black-box exception id, a device daemon's health event id; HCCL's result, as its own log lines print it
#: (`errNo[0x0000000005000006]`: module 5, a submodule, the HcclResult in the low 16 bits) and as a test program or
#: an application prints what an HCCL call returned (`hccl interface return err ..., retcode: 7`,
#: `HcclGetRootInfo(&hcclID), error code is 19`, `HcclCommInit failed. ret = 4`, MindSpore's `HcomRecv failed, ret:4`).
_OTHER = (("runtime_inner", re.compile(r"\bInnerCode=(0x[0-9a-fA-F]+)\b")),
          ("hccl_errno", re.compile(r"\berrNo\[(0x0{0,9}50[0-3][0-9a-fA-F]{4})\]")),
          ("hccl", re.compile(r"(?i)\bhccl interface return err\b.*?\bretcode\s*:\s*(\d{1,5})\b")),
          ("hccl", re.compile(r"\bHccl[A-Z]\w*\([^()]*\),? error code is (\d{1,5})\b")),
          ("hccl", re.compile(r"\b(?:Hccl|Hcom)[A-Z]\w* failed[.,]?\s*ret(?:code)?\s*[=:]\s*(\d{1,5})\b")),
          ("ge", re.compile(r"\bErrorNo: (\d{10})\(")),
          # a GE status a framework prints after its own words (TorchAir's graph compile, MindSpore's task load)
          ("ge", re.compile(r"(?i:\berror code):\s*(1\d{9})\b")),
          ("ge", re.compile(r"\breturn ret: (1\d{9})\b")),
          ("aicpu", re.compile(r"during AICPU execution,.*?\berrcode:(2\d{4})\b")),
          ("dcmi", re.compile(r"(?i)\bdcmi\b.*?\bret is (-8\d{3})\b")),
          ("bbox_exception", re.compile(r"\bsystem exception code \[(0x[0-9a-fA-F]{8})\]")),
          ("device_event", re.compile(r"\bEvent id=(0x[0-9a-fA-F]{8})\b")))
#: MindIE's own codes, spelt in upper case as its log and its reference write them (`[MIE04E120407]`)
_MINDIE = re.compile(r"(?<![0-9A-Za-z])(MIE\d\d[A-Z][0-9A-F]{6})(?![0-9A-Za-z])")
#: The run every runtime code is: a message without one is not searched for the words before it (most are not).
_RUNTIME_DIGITS = re.compile(r"[1-5]\d{5}")
#: The literals each other catalog's words hold, tested before its pattern runs.
_OTHER_NEEDS = tuple(required(pattern.pattern) for _, pattern in _OTHER)
#: The AI Core error register of an analyzer report (`code : 0x10`), as the catalog's analyzer forms read it.
_ANALYZER = formats.select("aicore_fault", "analyzer")
#: The runtime's reason for a failed call, in brackets or up to its source mark: the words name the code the call
#: returns where the line prints none (CANN 6 to 9 write `reason=[X]`, earlier releases `reason=X`).
_REASON = re.compile(r"\breason=(?:\[([^\[\]]{3,80})\]|([^\[\]]{3,80}?)\s*(?:\[FUNC:|$))")
_CODE_SHAPES = {"runtime": re.compile(r"[1-5]\d{5}$"), "retcode": re.compile(r"0x[0-9a-f]+$")}


@lru_cache(maxsize=4096)   # the first error's family reads the same messages, and a big bundle repeats them
def codes_in(text: str) -> tuple[tuple[str, str], ...]:
    """(code, family) pairs in one message, in order of family: E-code, runtime, retCode, torch_npu, the other
    catalogs, and the code a catalog form names."""
    return _codes(text)


def _codes(text: str) -> tuple[tuple[str, str], ...]:
    """(code, family) pairs in one message, uncached."""
    found: list[tuple[str, str]] = []
    # "report error module_type=5, module_name=EZ9999" is the runtime filing an EZ9999 with the error manager
    found += [(c, "ecode") for c in _ECODE.findall(text)]
    if _RUNTIME_DIGITS.search(text):
        found += [(c, "runtime") for c in _RUNTIME.findall(text)]
    found += [(c.lower(), "retcode") for c in _RETCODE.findall(text)]
    if "ERR" in text:
        found += [(c, "pta") for c in _PTA.findall(text)]
    found += [(c.lower(), family) for (family, pattern), need in zip(_OTHER, _OTHER_NEEDS)
              if need is None or need.may_match(text) for c in pattern.findall(text)]
    if "MIE" in text:
        found += [(c, "mindie") for c in _MINDIE.findall(text)]
    if (register := _analyzer_register(text)) is not None:
        found.append((register, "aicore_error"))
    if (pair := _catalog_code(text)) is not None and pair not in found:
        found.append(pair)
    if "reason=" in text and not any(family == "runtime" for _, family in found):
        found += [(code, "runtime") for code in _reason_codes(text)]
    return tuple(found)


def _reason_codes(text: str) -> list[str]:
    """The runtime codes a line's reason words name (`reason=[sdma copy error]` is 507013)."""
    table = runtime_reasons()
    words = (bracketed or bare for bracketed, bare in _REASON.findall(text))
    return [code for w in words if (code := table.get(w.strip().rstrip(".").lower())) is not None]


@lru_cache(maxsize=4096)
def _analyzer_register(text: str) -> str | None:
    """The AI Core error register an analyzer report's line names (`code : 0x10`)."""
    return _register(text)


def _register(text: str) -> str | None:
    """The AI Core error register an analyzer report's line names, uncached."""
    hit = _ANALYZER.first(text)
    return hit.values["error_code"].lower() if hit is not None and "error_code" in hit.values else None


@lru_cache(maxsize=4096)   # a big bundle repeats each error message on every rank
def _catalog_code(text: str) -> tuple[str, str] | None:
    """The code a catalog form names, for forms that spell it in a way the patterns above miss
    ("error code:507035")."""
    return _catalog_pair(text)


def _catalog_pair(text: str) -> tuple[str, str] | None:
    """The (code, family) a catalog form names, uncached."""
    if (hit := formats.codes().first(text)) is None:
        return None
    code = hit.values["ret_code"].lower()
    family = next((f for f, shape in _CODE_SHAPES.items() if shape.match(code)), None)
    return (code, family) if family else None
