"""Search the knowledge base: families, cases and code pages by code, kernel name, or words in English or Chinese.

Every word of the query must match somewhere in an entry; entries are ranked by where they matched
(an exact id or code first, then a kernel or op the case's signatures accept, then titles, then body text).
"""
from __future__ import annotations

from dataclasses import dataclass

from .kb import CodePage, Family, KnowledgeBase, KnownCase
from .kernels import op_of

CASE, CODE, FAMILY = "case", "code", "family"
_WEIGHTS = {"id": 10, "code": 8, "kernel": 6, "title": 4, "meaning": 3, "body": 1}


@dataclass(frozen=True)
class Hit:
    """One entry that matched, with where it matched."""

    kind: str       #: case, family or code
    id: str
    title: str
    path: str
    score: int
    matched: tuple[str, ...]   #: the fields that matched, best first

    @property
    def label(self) -> str:
        """`[case] id — title`, for a result list."""
        return f"[{self.kind}] {self.id} — {self.title}"


def _case_fields(c: KnownCase) -> dict[str, str]:
    return {"id": c.id, "code": " ".join(c.codes), "title": f"{c.title} {c.title_zh} {c.summary}",
            "body": c.body}


def _code_fields(p: CodePage) -> dict[str, str]:
    return {"id": p.code, "title": f"{p.title} {p.title_zh}", "meaning": f"{p.meaning} {p.meaning_zh}", "body": p.body}


def _family_fields(f: Family) -> dict[str, str]:
    return {"id": f.id, "title": f"{f.title} {f.title_zh} {f.summary} {f.summary_zh}", "body": f.body}


def _kernel_match(c: KnownCase, word: str) -> bool:
    """Does a kernel or op signature of the case accept this word as a kernel name (or its operator type)?"""
    op = op_of(word)
    return any((s.field == "kernel" and s.test(word)) or (s.field == "op" and (s.test(word) or (op and s.test(op))))
               for s in c.signatures)


def _score(fields: dict[str, str], words: list[str], kernel=None) -> tuple[int, list[str]]:
    total, matched = 0, []
    for given in words:
        word, best = given.lower(), None
        for name, text in fields.items():
            low = text.lower()
            if name in ("id", "code") and word in low.split():
                weight = _WEIGHTS[name] + 5      # an exact id or code beats any substring
            elif word in low:
                weight = _WEIGHTS[name]
            else:
                continue
            if best is None or weight > best[0]:
                best = (weight, name)
        if kernel is not None and kernel(given) and (best is None or best[0] < _WEIGHTS["kernel"]):
            best = (_WEIGHTS["kernel"], "kernel")
        if best is None:
            return 0, []      # every word must match somewhere
        total += best[0]
        matched.append(best[1])
    return total, matched


def search(kb: KnowledgeBase, query: str) -> list[Hit]:
    """Cases and code pages matching every word of the query, best first; an empty query lists everything."""
    words = query.split()
    hits: list[Hit] = []
    for c in kb.cases.values():
        score, matched = _score(_case_fields(c), words, lambda word, c=c: _kernel_match(c, word)) if words else (1, [])
        if score:
            hits.append(Hit(CASE, c.id, c.title, c.path, score, tuple(dict.fromkeys(matched))))
    for f in kb.families.values():
        score, matched = _score(_family_fields(f), words) if words else (1, [])
        if score:
            hits.append(Hit(FAMILY, f.id, f.title, f.path, score, tuple(dict.fromkeys(matched))))
    for p in kb.codes.values():
        score, matched = _score(_code_fields(p), words) if words else (1, [])
        if score:
            hits.append(Hit(CODE, p.code, p.title, p.path, score, tuple(dict.fromkeys(matched))))
    return sorted(hits, key=lambda h: (-h.score, h.kind, h.id))


def page(kb: KnowledgeBase, kind: str, id: str) -> str:
    """The Markdown of one entry: a short head from its front matter, then its body."""
    if kind == CASE:
        c = kb.cases[id]
        family = kb.families.get(c.family)
        head = [f"# {c.title}", "", f"*{c.title_zh}*" if c.title_zh else "", "",
                f"`{c.id}` · status {c.status} · severity {c.severity} · action {c.action} · "
                f"codes {', '.join(c.codes) or 'none'}", "",
                f"Root cause in the family **{family.title}** (`{family.id}`)" if family else "", ""]
        return "\n".join(head) + "\n" + c.body
    if kind == FAMILY:
        f = kb.families[id]
        causes = [kb.cases[c] for c in sorted(f.causes)]
        tree = [f"- `{c.id}`: {c.title}" + (f" / {c.title_zh}" if c.title_zh else "") for c in causes] or ["- none yet"]
        head = [f"# {f.title}", "", f"*{f.title_zh}*" if f.title_zh else "", "", f.summary, "",
                f"## Root causes ({len(causes)})", "", *tree, ""]
        return "\n".join(head) + "\n" + f.body
    p = kb.codes[id]
    head = [f"# {p.code} — {p.title}", "", f"*{p.title_zh}*" if p.title_zh else "", "", p.meaning, "",
            p.meaning_zh, "", f"Cases: {', '.join(p.cases) or 'none'}", ""]
    if p.extra.get("source"):   # a catalog row: no prose page, its cause and source instead
        head += [f"Usual cause: {p.extra['cause'] or 'not documented'}", "",
                 f"Catalog: `{p.table}` · source: {p.extra['source']}", ""]
    return "\n".join(head) + "\n" + p.body
