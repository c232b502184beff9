""""Seen before" at the root-cause step: the memory's most similar past cases, each with its similarity, what
matched, its resolution and its link, as terminal lines, Markdown lines or HTML, in English or Chinese.

A thread's title is English; a Chinese walk names a case by its cause in Chinese when the thread or the team
wrote one, and keeps an English title between backticks, as quoted text.
"""
from __future__ import annotations

from html import escape

from ..knowledge.messages import EN, say
from ..memory.similarity import Match


def _title(m: Match, lang: str) -> str:
    r = m.case.resolution
    if lang != EN and r is not None and r.cause_zh:
        return r.cause_zh
    title = m.case.title or (r.cause if r is not None and r.cause else m.case.id)
    return title if lang == EN else f"`{title}`"


def _origin(m: Match, lang: str) -> str:
    c = m.case
    if c.source == "team":
        return say(lang, "memory.team", id=c.id)
    return say(lang, "memory.thread", kind=c.kind or "thread", id=c.id)


def _said(text: str | None, text_zh: str | None, lang: str) -> str | None:
    if lang != EN:
        return text_zh or (f"`{text}`" if text else None)
    return text


def details(m: Match, lang: str = EN) -> list[str]:
    """The lines under one past case: what matched, its KB case, cause and fix (or that it is unsolved), link."""
    out = [say(lang, "memory.matched", what=m.matched(lang))]
    if m.case.fingerprint.cause:
        out.append(say(lang, "memory.case", case=m.case.fingerprint.cause))
    r = m.case.resolution
    # a Chinese walk already names the case by its Chinese cause (_title)
    cause = _said(r.cause, r.cause_zh, lang) if r and not (lang != EN and r.cause_zh) else None
    fix = _said(r.fix, r.fix_zh, lang) if r else None
    out += [say(lang, "memory.cause", text=cause)] if cause else []
    out += [say(lang, "memory.fix", text=fix)] if fix else []
    if r is None or not (r.cause or r.fix):
        out.append(say(lang, "memory.unsolved"))
    if m.case.url:
        out.append(m.case.url)
    return out


def heading(m: Match, lang: str = EN) -> str:
    """One past case's first line: `82% title (public issue id)`."""
    return f"{say(lang, 'memory.item', similarity=round(m.similarity * 100), title=_title(m, lang))} ({_origin(m, lang)})"


def console_lines(seen: list[Match] | None, lang: str, width: int, wrap) -> list[str]:
    """The terminal lines of "Seen before"; `wrap` is the walk's wrapper (console.wrap). Nothing when the memory
    was not consulted or holds nothing alike."""
    if not seen:
        return []
    out = wrap(say(lang, "memory.heading"), width, "  ", "  ")
    for m in seen:
        out += wrap(heading(m, lang), width, "  - ", "    ")
        for line in details(m, lang):
            out += wrap(line, width, "      ", "      ")
    return out


def markdown_lines(seen: list[Match] | None, lang: str, R, text, log) -> list[str]:
    """The Markdown of "Seen before"; `text` and `log` escape prose and log-derived text as the report does, and
    `R` redacts."""
    if not seen:
        return []
    out = [f"**{text(say(lang, 'memory.heading'))}**", ""]
    for m in seen:
        out.append(f"- {log(R(heading(m, lang)))}")
        out += [f"  - {log(R(line))}" for line in details(m, lang)]
    return out + [""]


def html(seen: list[Match] | None, lang: str, R) -> list[str]:
    """The HTML of "Seen before", every piece escaped (and redacted)."""
    if not seen:
        return []
    items = []
    for m in seen:
        lines = details(m, lang)
        link = m.case.url
        shown = [f"<a href='{escape(link)}'>{escape(link)}</a>" if link and line == link else escape(R(line) or "")
                 for line in lines]
        items.append(f"<li>{escape(R(heading(m, lang)) or '')}<ul>" + "".join(f"<li>{x}</li>" for x in shown)
                     + "</ul></li>")
    return [f"<p class='seen-before'><b>{escape(say(lang, 'memory.heading'))}</b></p><ul class='seen-before'>"
            + "".join(items) + "</ul>"]
