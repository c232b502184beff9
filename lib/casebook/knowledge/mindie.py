"""MindIE's error codes read by their fields, so that a code no reference page lists is explained as well as one it
does.

A MindIE code is twelve characters, `MIE04E120407`: the product, two digits naming the component (04 the server),
a level letter (E an error, W a warning), and six hexadecimal digits the component divides into three pairs. Most
components give the first pair to a part of theirs (the server's 12 is backend_model), the second to a stage or a
feature (the server's 04 is inference on one node), the third to the kind of failure (the server's 07: a check
failed), and MindIE's reference gives each pair's values by component: `kb/codes/mindie-fields.tsv`, one row per
value with its source. The LLM backend names the kinds of failure per part (`within`). A code whose pairs are not
all in the table is read as far as they are.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .document import Problem, table_rows

COLUMNS = ("component", "field", "within", "value", "meaning", "meaning_zh", "source")
#: The table of field values, under the knowledge base's folder.
FIELDS = Path("codes") / "mindie-fields.tsv"
#: The fields a row may give, in the order a code spells them after its component.
FIELD_NAMES = ("component", "level", "part", "stage", "type")
#: A MindIE code as its log and its reference spell it.
CODE = re.compile(r"MIE(?P<component>\d\d)(?P<level>[A-Z])"
                  r"(?P<part>[0-9A-F]{2})(?P<stage>[0-9A-F]{2})(?P<type>[0-9A-F]{2})")
_VALUE = re.compile(r"[0-9A-Z]{1,2}")
#: A field's value as the table keys it: (component, field, within, value).
Key = tuple[str, str, str, str]


@dataclass(frozen=True)
class FieldValue:
    """One value of one field of MindIE's codes, as its reference gives it."""

    component: str        #: the component's two digits, `-` for the fields every component shares
    field: str
    within: str           #: the part whose kinds of failure these are, `-` for all of the component's parts
    value: str
    meaning: str
    meaning_zh: str
    source: str
    line: int


@dataclass(frozen=True)
class MindieCode:
    """A MindIE code and what each of its fields says, as far as the table knows them."""

    code: str
    said: tuple[FieldValue, ...]   #: the fields read, in the code's order

    def _of(self, name: str) -> FieldValue | None:
        return next((f for f in self.said if f.field == name), None)

    @property
    def title(self) -> str:
        """`MindIE Server: backend_model, inference on one node`, the component and where in it."""
        where = ", ".join(f.meaning for f in self.said if f.field in ("part", "stage"))
        component = self._of("component")
        return f"{component.meaning}: {where}" if where else component.meaning

    @property
    def meaning(self) -> str:
        """The failure the code reports, in words."""
        kind, level = self._of("type"), self._of("level")
        said = kind.meaning if kind else "a failure the reference does not name"
        return f"{self.title}: {said}" + (f" ({level.meaning})" if level and level.value != "E" else "") + "."

    @property
    def meaning_zh(self) -> str:
        """The same in Chinese."""
        where = "，".join(f.meaning_zh for f in self.said if f.field in ("part", "stage"))
        kind = self._of("type")
        head = self._of("component").meaning_zh + (f"：{where}" if where else "")
        return head + (f"：{kind.meaning_zh}" if kind else "") + "。"

    @property
    def line(self) -> int:
        """The table line of the field that says the most (the kind of failure, else the part, else the component)."""
        return (self._of("type") or self._of("part") or self._of("component")).line


def load_fields(root: Path, problems: list[Problem]) -> list[FieldValue]:
    """Every row of the field table under `root` (none when the knowledge base has no table)."""
    path = root / FIELDS
    if not path.is_file():
        return []
    rel = path.relative_to(root.parent).as_posix()
    out: list[FieldValue] = []
    seen: dict[Key, int] = {}
    for no, row in table_rows(path, rel, COLUMNS, problems):
        wrong = [f"{c} is empty" for c in COLUMNS if not row[c]]
        if row["field"] not in FIELD_NAMES:
            wrong.append(f"field {row['field']!r} is none of {', '.join(FIELD_NAMES)}")
        if not _VALUE.fullmatch(row["value"]):
            wrong.append(f"value {row['value']!r} is not one or two digits or capitals")
        if not row["source"].startswith(("http://", "https://")):
            wrong.append("source is not an http(s) URL")
        key = (row["component"], row["field"], row["within"], row["value"])
        if key in seen:
            wrong.append(f"{'/'.join(key)} repeats line {seen[key]}")
        if wrong:
            problems += [Problem(rel, no, w) for w in wrong]
            continue
        seen[key] = no
        out.append(FieldValue(line=no, **row))
    return out


def index(fields: list[FieldValue]) -> dict[Key, FieldValue]:
    """The field table keyed as `decode` looks its values up (made once, when the knowledge base loads)."""
    return {(f.component, f.field, f.within, f.value): f for f in fields}


def decode(code: str, fields: dict[Key, FieldValue]) -> MindieCode | None:
    """What each field of a MindIE code says (`fields`: the table's `index`), or None when the string is no MindIE
    code or names no component the table knows."""
    m = CODE.fullmatch(code)
    if m is None:
        return None
    component = m["component"]
    said = [fields.get(("-", "component", "-", component)), fields.get(("-", "level", "-", m["level"]))]
    if said[0] is None:
        return None
    said += [fields.get((component, "part", "-", m["part"])), fields.get((component, "stage", "-", m["stage"]))]
    kind = fields.get((component, "type", m["part"], m["type"])) or fields.get((component, "type", "-", m["type"]))
    return MindieCode(code, tuple(f for f in (*said, kind) if f is not None))
