"""Redaction of log text before it leaves the support team: IP addresses, host names, user paths, user names.

Each distinct value gets a stable placeholder (`<ip-1>`, `<host-2>`, `<user-1>`) for the life of one
Redactor, so the same address reads the same in every line of a report and lines can still be compared.
User names are learnt from the places that name them (home directories, `user@host`, `USER=`), and a
learnt name is then replaced wherever it stands as a word; `learn()` over every line first makes the
mapping independent of the order lines are shown in.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

IP = "ip"
HOST = "host"
USER = "user"
KINDS = (IP, HOST, USER)

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = re.compile(rf"(?<![\w.]){_OCTET}(?:\.{_OCTET}){{3}}(?![\w.]*\d)")
# IPv6 only in its unmistakable forms: with '::' or eight groups; plog times (10:02:09) never match
_H = r"[0-9a-fA-F]{1,4}"
_IPV6 = re.compile(rf"(?<![\w:])(?:(?:{_H}:){{7}}{_H}|(?:{_H}:){{1,6}}:(?:{_H}(?::{_H}){{0,5}})?|::(?:{_H}:){{0,5}}{_H})"
                   rf"(?![\w:])")
# user paths: the user part of a home directory; the rest of the path stays readable
_HOME = re.compile(r"(?P<pre>/home/|/Users/|/export/home/|[A-Za-z]:\\Users\\)(?P<user>[A-Za-z0-9_.][\w.-]*)")
# places that name a user or a host
_USER_KEY = re.compile(r"\b(?:USER|LOGNAME|USERNAME|user|username|owner)\s*[=:]\s*['\"]?(?P<user>[A-Za-z_][\w.-]*)")
_USER_AT = re.compile(r"(?<![\w.@/-])(?P<user>[A-Za-z_][\w.-]*)@(?P<host>[A-Za-z][\w-]*(?:\.[\w-]+)*)")
_HOST_KEY = re.compile(r"\b(?:HOSTNAME|hostname|host_name|hostName|host|server|node_name|nodeName)\s*[=:]\s*['\"]?"
                       r"(?P<host>[A-Za-z][\w-]*(?:\.[\w-]+)*)")
# fully qualified names end in a known top-level or site-local suffix (file names like x.cc never do)
_FQDN = re.compile(r"(?<![\w.-])(?P<host>(?:[A-Za-z0-9][\w-]*\.)+(?:com|net|org|cn|io|edu|gov|local|internal|lan|"
                   r"corp|intra|cluster|svc|huawei|huaweicloud|myhuaweicloud))(?![\w-])")
#: names that are never personal: system accounts and words keys are followed by
_NOT_NAMES = {"root", "localhost", "none", "null", "unknown", "default", "true", "false", "admin", "nobody",
              "hwhiaiuser", "huawei", "ma-user", "work", "home", "user", "users", "local"}


@dataclass
class Redactor:
    """Replaces sensitive values with stable placeholders; one instance per case so numbering stays stable."""

    hosts: set[str] = field(default_factory=set)   #: extra host names to hide (e.g. node names from the paths)
    users: set[str] = field(default_factory=set)   #: extra user names to hide
    placeholders: dict[tuple[str, str], str] = field(default_factory=dict)

    def placeholder(self, kind: str, value: str) -> str:
        """The placeholder for a value, created on first sight: `<kind-n>`."""
        key = (kind, value)
        if key not in self.placeholders:
            n = sum(1 for k, _ in self.placeholders if k == kind) + 1
            self.placeholders[key] = f"<{kind}-{n}>"
        return self.placeholders[key]

    def learn(self, text: str) -> None:
        """Note the user and host names a line reveals (so earlier lines that mention them get hidden too)."""
        for m in _HOME.finditer(text):
            self._add_user(m["user"])
        for m in _USER_KEY.finditer(text):
            self._add_user(m["user"])
        for m in _USER_AT.finditer(text):
            self._add_user(m["user"])
            self._add_host(m["host"])
        for m in _HOST_KEY.finditer(text):
            self._add_host(m["host"])
        for m in _FQDN.finditer(text):
            self._add_host(m["host"])

    def learn_all(self, texts) -> None:
        """`learn()` over many lines."""
        for t in texts:
            if t:
                self.learn(t)

    def _add_user(self, name: str) -> None:
        if name.lower() not in _NOT_NAMES and not _IPV4.fullmatch(name):
            self.users.add(name)

    def _add_host(self, name: str) -> None:
        if name.lower() not in _NOT_NAMES and not _IPV4.fullmatch(name):
            self.hosts.add(name)

    def __call__(self, text: str | None) -> str | None:
        """The text with every known or recognisable sensitive value replaced."""
        if not text:
            return text
        self.learn(text)
        text = _IPV4.sub(lambda m: self.placeholder(IP, m.group()), text)
        text = _IPV6.sub(lambda m: self.placeholder(IP, m.group()) if _looks_v6(m.group()) else m.group(), text)
        # longest names first, so "node-10" is not eaten by "node-1"
        for host in sorted(self.hosts, key=len, reverse=True):
            text = re.sub(rf"(?<![\w.-]){re.escape(host)}(?![\w-])", self.placeholder(HOST, host), text)
        text = _HOME.sub(lambda m: m["pre"] + self.placeholder(USER, m["user"]), text)
        for user in sorted(self.users, key=len, reverse=True):
            text = re.sub(rf"(?<![\w<-]){re.escape(user)}(?![\w>-])", self.placeholder(USER, user), text)
        return text

    def legend(self) -> list[tuple[str, str]]:
        """(kind, placeholder) pairs in the order they were made; the hidden values stay out of it."""
        return [(kind, ph) for (kind, _), ph in self.placeholders.items()]


def _looks_v6(s: str) -> bool:
    # "::" alone or C++ scopes like "a::b" are not addresses; a real one has a digit group
    return s != "::" and any(ch.isdigit() for ch in s) and s.count(":") >= 2


def no_redaction(text: str | None) -> str | None:
    """The identity: what the report applies when redaction is off."""
    return text
