"""What the logs show, as the values signatures are tested on: each value of a signature field with the line that
shows it (an error line's message, a code, a fault's bits, a fact a line states), grouped so that a signature is
tested once per distinct value."""
from __future__ import annotations

from dataclasses import dataclass

from ..evidence.items import Evidence
from ..knowledge.literals import Haystack, Index
from ..knowledge.rules import NO_BIT, Signature, stated
from ..reading.fields import KIND_UNPARSED
from ..reading.table import LogTable, Record, line_after


@dataclass(frozen=True)
class Observation:
    """One value of one signature field, and the line that shows it (None for derived values)."""

    field: str
    value: object
    text: str
    file: str | None
    line: int | None


#: How many lines without a header may go on an error record's message.
CONTINUED = 3


def error_lines(log: LogTable, errors: list[int] | None = None) -> list[Record]:
    """The error records (`errors`, the positions evidence.errors.positions gives; else the ERROR-level ones), each
    with the lines right after it that no grammar reads (no header, no form of their own): the rest of a message that
    holds newlines (the graph engine's reason per op store, a RuntimeError's second line), as `message` signatures
    read it."""
    keep = set(log.error_positions() if errors is None else errors)
    kind, file, line, msg, joined = (log.column(c) for c in ("kind", "file", "line", "msg", "joined"))
    # only the few lines right after an error are looked at: a bundle has far more records than error lines
    run = sorted(keep)
    for _ in range(CONTINUED):
        run = [i for i in (j + 1 for j in run if j + 1 < len(kind)) if kind[i] == KIND_UNPARSED
               and file[i] == file[i - 1] and line[i] == line_after(line[i - 1], joined[i - 1])
               and str(msg[i]).strip()]
        keep.update(run)
    return log.picked(sorted(keep))


def observations(evidence: Evidence, errors: list[Record]) -> list[Observation]:
    """The values signatures are tested on, each with its line."""
    obs: list[Observation] = []
    for fault in evidence.aicore_faults:
        head = fault.refs[0] if fault.refs else None
        where = (head.text, head.file, head.line) if head else ("", fault.file, fault.line)
        obs.append(Observation("aicore_fault", True, *where))
        # every line of the report (each core, each copy in a screen capture) belongs to the one fault
        obs += [Observation("aicore_fault", True, r.text, r.file, r.line) for r in fault.refs[1:]]
        extends = [r for r in fault.refs if "errcode:" in r.text] or ([head] if head else [])
        no_bit = fault.errcode is not None and not any(fault.errcode) and not fault.error_bits
        for bit in fault.error_bits or ([NO_BIT] if no_bit else []):
            obs += [Observation("error_bits", bit, r.text, r.file, r.line) for r in extends] or [
                Observation("error_bits", bit, bit, None, None)]
        kernel_ref = next((r for r in fault.refs if "kernel_name=" in r.text), head)
        if fault.kernel:
            for name, value in (("kernel", fault.kernel), ("op", fault.op)):
                obs.append(Observation(name, value, kernel_ref.text, kernel_ref.file, kernel_ref.line))
        if fault.pc:
            obs.append(Observation("pc_verdict", fault.pc.verdict, fault.pc.reason, fault.file, fault.line))
    for c in evidence.codes:
        obs.append(Observation("code", c.code, c.text, c.file, c.line))
    # a yes-or-no fact a line states (a framework's words, an out-of-memory summary's arithmetic) is a sign too,
    # cited by that line: a signature names the fact instead of spelling the line's wording a second time
    stating = [(stated(f.name, f.value), at) for f in evidence.facts.values()
               if f.source == "log" and f.file is not None and f.line is not None and isinstance(f.value, bool)
               for at in ((f.file, f.line), *f.more)]
    if stating:   # the text of each stating line, from the error records (a statement's line is read as one)
        wanted = {at for _, at in stating}
        texts = {at: r.msg for r in errors if (at := (r.file, int(r.line))) in wanted}
        obs += [Observation("fact", value, texts.get(at, value), *at) for value, at in stating]
    for r in evidence.rejections:   # the op's own complaint, said in words: op, aspect, value, what it takes
        # a format refused by the tiling passed the formats the op registers (its definition, checked when the op is
        # selected): the tiling may lack the branch for one of them. A layout is the tiling's own rule to check
        at = "format_in_tiling" if r.stage == "tiling" and r.aspect == "format" else r.aspect
        obs.append(Observation("rejected", at, r.said(), r.file, r.line))
        if r.states_rule():   # ... naming what it accepts: the call is outside a rule the op states
            obs.append(Observation("rejected_rule", r.aspect, r.said(), r.file, r.line))
    joined: list[Observation] = []
    for at, (file, line, msg, func, src, pieces) in enumerate((r.file, r.line, r.msg, r.func, r.src, r.joined)
                                                              for r in errors):
        obs.append(Observation("message", msg, msg, file, int(line)))
        # a message a paste broke over two lines ("T(1) should be equal to the last element" / "of the query's actual
        # sequence lengths(9).") is matched whole too, cited by its first line as logged; after every line alone, so
        # that a sign one line shows by itself is cited by that line
        after = errors[at + 1] if at + 1 < len(errors) else None
        if (after is not None and after.kind == KIND_UNPARSED and after.file == file
                and after.line == line_after(line, pieces)):
            joined.append(Observation("message", f"{msg} {after.msg.strip()}", msg, file, int(line)))
        # the function a log header names says what failed where the message is only values (the task scheduler's
        # `bs_done_exception_proc_timeout: slot_id=0, ... fault_task=7`)
        if isinstance(func, str) and func:
            obs.append(Observation("function", func, msg, file, int(line)))
        # the code position an error line names (a compiler's diagnostic: the file it compiled) says what was being
        # built where the message is the language's own ("no matching function for call to 'SYNCALL'")
        if isinstance(src, str) and src:
            obs.append(Observation("source", src, msg, file, int(line)))
    return obs + joined


class Observed:
    """Observations grouped by field and distinct value, in the order first seen: a big bundle repeats one
    message on every rank, and each signature is tested once per distinct value."""

    def __init__(self, obs: list[Observation], needles: dict[str, Index] | None = None):
        self.groups: dict[str, dict[object, list[Observation]]] = {}
        self._needles = needles or {}   # the knowledge base's literal index of each field (kb.needles)
        for o in obs:   # every observed value is a str, an int or a bool (observations())
            self.groups.setdefault(o.field, {}).setdefault(o.value, []).append(o)
        self._hits: dict[int, list[list[Observation]]] = {}
        self._texts: dict[str, Haystack] = {}
        self._lines: dict[int, frozenset[tuple[str, int]]] = {}   # a family's signatures recur in every cause

    def hits(self, sig: Signature) -> list[list[Observation]]:
        """The groups of observations whose value the signature matches."""
        if id(sig) not in self._hits:
            groups = list(self.groups.get(sig.field, {}).values())
            if sig.needles is not None and groups:
                # only the values holding one of the regex's literals can match: found in one pass over them all
                texts = self._texts.get(sig.field)
                if texts is None:
                    texts = self._texts[sig.field] = Haystack([str(g[0].value) for g in groups],
                                                              self._needles.get(sig.field))
                groups = [groups[i] for i in texts.candidates(sig.needles)]
                # each of these holds a literal the regex needs: only the regex is left to run, unless it is
                # nothing but its literals
                self._hits[id(sig)] = groups if sig.needles.exact else \
                    [group for group in groups if sig.pattern.search(str(group[0].value))]
            else:
                self._hits[id(sig)] = [group for group in groups if sig.test(group[0].value)]
        return self._hits[id(sig)]

    def lines(self, sig: Signature) -> frozenset[tuple[str, int]]:
        """(file, line) of every observation the signature matches."""
        if id(sig) not in self._lines:
            self._lines[id(sig)] = frozenset((o.file, o.line) for group in self.hits(sig) for o in group
                                             if o.file is not None)
        return self._lines[id(sig)]

    def first(self, sig: Signature) -> Observation | None:
        """The earliest observation the signature matches."""
        hits = self.hits(sig)
        return hits[0][0] if hits else None
