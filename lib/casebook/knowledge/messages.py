"""The message catalog: every sentence Casebook words for people, by message id, in English and Chinese.

The texts are data (`data/messages.yaml`): each id has an `en` and a `zh` template with the same `{name}`
placeholders, checked by `problems()`. Evidence and judging word their remarks as `Note`s, which are the
English text (what the JSON contract and log warnings carry) and remember their id and values, so the walk,
the report and the CLI can word them in Chinese too.
"""
from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path

from . import cache
from .document import Problem, yaml_loader

PATH = Path(__file__).with_name("data") / "messages.yaml"
LANGS = ("en", "zh")
EN, ZH = LANGS


class MessageError(KeyError):
    """An id the catalog does not have, or a template its values do not fill."""


@lru_cache(maxsize=1)
def catalog() -> dict[str, dict[str, str]]:
    """id -> {language: template}, as the YAML file holds it (a copy kept from an earlier load of the same file is
    used when there is one: cache.py)."""
    # every command words messages, and a new process read the YAML in 9 ms, the kept copy in 1
    return cache.kept(PATH.parent, _read_catalog, name="messages", kind=dict)


def _read_catalog(folder: Path) -> dict[str, dict[str, str]]:
    """The catalog parsed from the YAML file."""
    # libyaml's loader where it is built: ten times faster
    yaml, loader = yaml_loader()
    data = yaml.load((folder / PATH.name).read_text(encoding="utf-8"), Loader=loader) or {}
    return {str(k): {lang: str(v.get(lang, "")) for lang in LANGS} if isinstance(v, dict) else {}
            for k, v in data.items()}


class _Counted(string.Formatter):
    """Formats `{n:file|files}` as `1 file` or `2 files`: a count with its noun in the right number."""

    def format_field(self, value, spec: str) -> str:
        if "|" in spec:
            one, many = spec.split("|", 1)
            return f"{value} {one if value == 1 else many}"
        return super().format_field(value, spec)


_COUNTED = _Counted()


def say(lang: str, msg_id: str, /, **values) -> str:
    """The message in one language with its values filled in; `{n:line|lines}` words a count with its noun."""
    entry = catalog().get(msg_id)
    if entry is None:
        raise MessageError(f"{PATH.name}: no message {msg_id!r}")
    template = entry.get(lang) or entry[EN]
    try:
        return _COUNTED.vformat(template, (), values) if "|" in template else template.format(**values)
    except (KeyError, IndexError) as e:
        raise MessageError(f"{PATH.name}: message {msg_id!r} needs the value {e}") from None


def name(lang: str, prefix: str, code: str) -> str:
    """The catalog's words for a code name (`kind.aicore_exception`), or the code name itself when it has none."""
    key = f"{prefix}.{code}"
    return say(lang, key) if key in catalog() else code


def named(prefix: str, code: str) -> "Note | str":
    """A code name as a remark the catalog words (`kind.aicore_exception`), or the code name when it has no words."""
    return Note(f"{prefix}.{code}") if f"{prefix}.{code}" in catalog() else code


def pick(lang: str, en: str, zh: str | None) -> str:
    """Of a text kept in both languages (KB titles, questions, fixes), the one to show."""
    return zh if lang == ZH and zh else en


class Note(str):
    """A remark worded in English from the catalog that keeps its id and values, to be worded again in Chinese."""

    msg_id: str
    values: dict

    def __new__(cls, msg_id: str, /, **values) -> "Note":
        self = super().__new__(cls, say(EN, msg_id, **values))
        self.msg_id, self.values = msg_id, values
        return self

    def text(self, lang: str) -> str:
        """The remark in one language (values that are remarks too are worded in it as well, and a list reads as
        its items, not as Python writes it)."""
        return say(lang, self.msg_id, **{k: say(lang, "list.sep").join(map(str, v)) if isinstance(v, (list, tuple))
                                         else words(lang, v) for k, v in self.values.items()})

    def __reduce__(self):
        # pickled and copied as id and values: the English text is worded again from them
        return _note, (self.msg_id, self.values)


def _note(msg_id: str, values: dict) -> Note:
    return Note(msg_id, **values)


def words(lang: str, text: str) -> str:
    """A remark from the earlier stages in one language: a Note is worded again, plain text stays as it is."""
    return text.text(lang) if isinstance(text, Note) else text


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def problems(path: Path = PATH) -> list[Problem]:
    """Catalog entries missing a language, or whose languages do not take the same values; with file:line."""
    rel = f"{path.parent.name}/{path.name}"
    yaml, _ = yaml_loader()
    root = yaml.compose(path.read_text(encoding="utf-8"))
    out = []
    for key_node, value_node in root.value if root is not None else []:
        line = key_node.start_mark.line + 1
        if not isinstance(value_node, yaml.MappingNode):
            out.append(Problem(rel, line, f"{key_node.value}: a message maps en and zh to a template"))
            continue
        texts = {k.value: v.value for k, v in value_node.value}
        missing = [lang for lang in LANGS if not str(texts.get(lang, "")).strip()]
        out += [Problem(rel, line, f"{key_node.value}: no {lang} text") for lang in missing]
        extra = set(texts) - set(LANGS)
        if extra:
            out.append(Problem(rel, line, f"{key_node.value}: unknown key(s) {sorted(extra)}"))
        if missing:
            continue   # the values a missing text takes are unknown: its missing is the one problem
        try:
            en, zh = (_fields(str(texts[lang])) for lang in LANGS)
        except ValueError as e:
            out.append(Problem(rel, line, f"{key_node.value}: bad template: {e}"))
            continue
        if en != zh:
            out.append(Problem(rel, line, f"{key_node.value}: en takes {sorted(en)}, zh takes {sorted(zh)}"))
    return out
