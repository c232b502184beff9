"""Redaction of log text before it leaves the support team: addresses, host names, user names and paths, secrets.

Each distinct value gets a stable placeholder (`<ip-1>`, `<host-2>`, `<user-1>`, `<mac-1>`, `<secret-1>`) for
the life of one Redactor, so the same address reads the same in every line of a report and lines can still be
compared. User names are learnt from the places that name them (home directories, `/data/users/…`, `~name`,
`user@host`, `user:password@` in a URL, `USER=`, `HOME=`) and host names from theirs (`user@host`, `HOSTNAME=`,
names with a domain, the folders a bundle is split into per node); a learnt name is then replaced wherever it
stands as a word, host names in any case. `learn()` over every line first makes the mapping independent of the
order lines are shown in.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

IP = "ip"
HOST = "host"
USER = "user"
MAC = "mac"
SECRET = "secret"
KINDS = (IP, HOST, USER, MAC, SECRET)

# leading zeros too (010.002.003.004 is an address to ping and to people)
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|0?\d?\d)"
# inside a word too (rank_10.22.32.42_dev, ip10.21.31.41): only a digit or a dot may touch it, so versions with
# more parts (7.0.0.5.242) and numbers with more digits stay
_IPV4 = re.compile(rf"(?<![\d.]){_OCTET}(?:\.{_OCTET}){{3}}(?![\d.]*\d)")
# IPv6 only in its unmistakable forms: with '::' or eight groups; plog times (10:02:09) never match
_H = r"[0-9a-fA-F]{1,4}"
_IPV6 = re.compile(rf"(?<![\w:])(?:(?:{_H}:){{7}}{_H}|(?:{_H}:){{1,6}}:(?:{_H}(?::{_H}){{0,5}})?|::(?:{_H}:){{0,5}}{_H})"
                   rf"(?![\w:])")
# six pairs of hex digits joined by one kind of separator (00:1a:2b:3c:4d:5e, 00-1A-2B-3C-4D-5E); a pair may be a
# mask of an error template (<NUM>:1a:2b:3c:4d:5e), whose other pairs are still the address
_PAIR = r"(?:[0-9A-Fa-f]{2}|<[A-Z]+>|<\*>)"
_MAC = re.compile(rf"(?<![\w:.-]){_PAIR}([:-]){_PAIR}(?:\1{_PAIR}){{4}}(?![\w:.-])")
# user folders, whatever the script of the name (/home/张三); the rest of the path stays readable
_HOME = re.compile(r"(?P<pre>/(?:home|homes|users|Users)/|[A-Za-z]:\\Users\\)(?P<user>[\w.][\w.-]*)")
_TILDE = re.compile(r"(?<![\w~:])~(?P<user>[^\W\d][\w.-]*)(?=[/\s'\",;:)]|$)")   # ~name, not a C++ ~Destructor(
_HOME_KEY = re.compile(r"\bHOME\s*[=:]\s*['\"]?(?P<path>/[^\s'\";]*)")   # HOME=/data/lisi: its last folder is the user
# places that name a user or a host
_USER_KEY = re.compile(r"\b(?:USER|LOGNAME|USERNAME|user|username|owner)\s*[=:]\s*['\"]?(?P<user>[^\W\d][\w.-]*)")
_URL_USER = re.compile(r"\b[A-Za-z][\w+.-]*://(?P<user>[^\s:@/]+)(?::(?P<password>[^\s@/]*))?@")
_USER_AT = re.compile(r"(?<![\w.@/-])(?P<user>[^\W\d][\w.-]*)@(?P<host>[A-Za-z][\w-]*(?:\.[\w-]+)*|\d+(?:\.\d+){3})")
_HOST_KEY = re.compile(r"\b(?:HOSTNAME|hostname|host_name|hostName|host|server|node_name|nodeName)\s*[=:]\s*['\"]?"
                       r"(?P<host>[A-Za-z][\w-]*(?:\.[\w-]+)*)")
# names with a domain, in any case: generic and site-local suffixes after one label or more; country codes after
# two or more, and only those that are no file suffix or torch function (hccl.cc, model.om, torch.mm, torch.ge)
_GENERIC = ("com|net|org|edu|gov|io|ai|co|cloud|cn|local|localdomain|internal|lan|corp|intra|intranet|cluster|svc|"
            "arpa|example|huawei|huaweicloud|myhuaweicloud")
_COUNTRY = "de|fr|uk|jp|kr|sg|hk|tw|ru|br|it|nl|es|ch|se|us|ca|au|eu|ae|sa|tr|pk|za|mx|ar|vn|th|my"
_FQDN = re.compile(rf"(?<![\w.-])(?P<host>(?:[A-Za-z0-9][\w-]*\.)+(?i:{_GENERIC})|"
                   rf"(?:[A-Za-z0-9][\w-]*\.){{2,}}(?i:{_COUNTRY}))(?![\w-])")
#: names that are never personal: system accounts, words keys are followed by, the placeholders' own kinds
_NOT_NAMES = {"root", "localhost", "none", "null", "unknown", "default", "true", "false", "admin", "nobody",
              "hwhiaiuser", "huawei", "ma-user", "work", "home", "user", "users", "local", "node", "server", "master",
              "worker", "data", "opt", "mnt", "tmp", "var", "srv", "share", "ascend", "log", *KINDS}

#: folders where a CANN log layout starts (~/ascend/log, the old slog/, asys and process_log collections)
_LAYOUT_ROOTS = {"ascend", "slog", "plog", "asys", "dfx", "process_log", "hisi_logs", "npu", "log", "logs"}
_ARCHIVE = re.compile(r"(?:\.tar)?\.(?:gz|tgz|tar|zip|zst|tzst|xz|bz2)$", re.I)
_HOST_LIKE = re.compile(r"(?=.*[A-Za-z])[A-Za-z0-9][\w.-]*")   # with a letter: a folder 0 or 17 is no machine
# folders that name a rank, device or role, not a machine
_NOT_NODE = re.compile(r"(?:rank|device|dev-os|host|process|proc|pid|debug|run|security|var|tmp|data)[-_]?\d*", re.I)


@dataclass
class Redactor:
    """Replaces sensitive values with stable placeholders; one instance per case so numbering stays stable."""

    hosts: set[str] = field(default_factory=set)   #: extra host names to hide (e.g. node names from the paths)
    users: set[str] = field(default_factory=set)   #: extra user names to hide
    secrets: set[str] = field(default_factory=set)   #: passwords found in URLs
    placeholders: dict[tuple[str, str], str] = field(default_factory=dict)

    def placeholder(self, kind: str, value: str) -> str:
        """The placeholder for a value, created on first sight: `<kind-n>` (host names in any case are one)."""
        key = (kind, value.lower() if kind in (HOST, MAC) else value)
        if key not in self.placeholders:
            n = sum(1 for k, _ in self.placeholders if k == kind) + 1
            self.placeholders[key] = f"<{kind}-{n}>"
        return self.placeholders[key]

    def learn(self, text: str) -> None:
        """Note the user and host names a line reveals (so earlier lines that mention them get hidden too)."""
        for m in _URL_USER.finditer(text):
            if m["password"]:
                self.secrets.add(m["password"])
            self._add_user(m["user"])
        for pattern in (_HOME, _TILDE, _USER_KEY):
            for m in pattern.finditer(text):
                self._add_user(m["user"])
        for m in _HOME_KEY.finditer(text):
            self._add_user(m["path"].rstrip("/").rsplit("/", 1)[-1])
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
        if name and name.lower() not in _NOT_NAMES and name not in self.secrets and not _IPV4.fullmatch(name):
            self.users.add(name)

    def _add_host(self, name: str) -> None:
        if name.lower() not in _NOT_NAMES and not _IPV4.fullmatch(name):
            self.hosts.add(name)

    def __call__(self, text: str | None) -> str | None:
        """The text with every known or recognisable sensitive value replaced."""
        if not text:
            return text
        self.learn(text)
        # a password first: whatever it holds (an address, a name) is hidden whole
        for secret in sorted(self.secrets, key=len, reverse=True):
            text = re.sub(rf"(?<!\w){re.escape(secret)}(?!\w)", self.placeholder(SECRET, secret), text)
        text = _MAC.sub(lambda m: self.placeholder(MAC, m.group()), text)
        text = _IPV4.sub(lambda m: self.placeholder(IP, m.group()), text)
        text = _IPV6.sub(lambda m: self.placeholder(IP, m.group()) if _looks_v6(m.group()) else m.group(), text)
        # longest names first, so "node-10" is not eaten by "node-1"; an underscore is no part of a host name, so
        # the name inside rank_gpu17_dev is found too
        for host in sorted(self.hosts, key=len, reverse=True):
            text = re.sub(rf"(?<![A-Za-z0-9.<-]){re.escape(host)}(?![A-Za-z0-9>-])", self.placeholder(HOST, host),
                          text, flags=re.IGNORECASE)
        text = _HOME.sub(lambda m: m["pre"] + self.placeholder(USER, m["user"]), text)
        for user in sorted(self.users, key=len, reverse=True):
            text = re.sub(rf"(?<![\w<-]){re.escape(user)}(?![\w>-])", self.placeholder(USER, user), text)
        return text

    def legend(self) -> list[tuple[str, str]]:
        """(kind, placeholder) pairs in the order they were made; the hidden values stay out of it."""
        return [(kind, ph) for (kind, _), ph in self.placeholders.items()]


def node_folders(files: Iterable[str], given: Iterable[str] = ()) -> set[str]:
    """The folders a bundle is split into per node, named after its machines: the folder right above where a
    CANN log layout starts in a file's display path (`gpu-a17/ascend/log/…`, `gpu-a17.tgz!/ascend/…`), and the
    folders given, named with a digit, when the files' paths start with the layout itself. Rank, device and role
    folders are none."""
    found, bare = set(), False
    for path in files:
        parts = [_ARCHIVE.sub("", p) for p in re.split(r"!/|/", path) if p]
        bare |= bool(parts) and parts[0] in _LAYOUT_ROOTS
        found |= {above for above, part in zip(parts, parts[1:]) if part in _LAYOUT_ROOTS}
    if bare:
        # the folder given is a machine's only when it is named like one (`node-a07`, `worker3`): a ticket's or a
        # sample's name (`positive-info`) has no digit and stays readable
        names = (_ARCHIVE.sub("", p.rstrip("/").rsplit("/", 1)[-1]) for p in given)
        found |= {name for name in names if any(ch.isdigit() for ch in name)}
    return {f for f in found if _HOST_LIKE.fullmatch(f) and f.lower() not in _NOT_NAMES | _LAYOUT_ROOTS
            and not _NOT_NODE.fullmatch(f)}


def _looks_v6(s: str) -> bool:
    # "::" alone or C++ scopes like "a::b" are not addresses; a real one has a digit group
    return s != "::" and any(ch.isdigit() for ch in s) and s.count(":") >= 2


def no_redaction(text: str | None) -> str | None:
    """The identity: what the report applies when redaction is off."""
    return text
