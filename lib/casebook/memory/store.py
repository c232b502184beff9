"""The memory's storage: one SQLite file by default (WAL mode), or a PostgreSQL server shared by a team
(`CASEBOOK_DB=postgresql://...`, through psycopg 3). Both run the same SQL; a `schema_version` table and the
MIGRATIONS below bring an older memory up to date on first use.

Whatever keeps the memory from being used (a damaged or locked file, a newer schema, a server that is down)
is a MemoryUnavailable with one line that names the memory: the triage goes on without it.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import time
import uuid
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from . import MemoryUnavailable
from .case import Case, Resolution
from .fingerprint import Fingerprint

#: Each entry brings the schema one version up; the schema's version is the number of entries applied.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    ("CREATE TABLE cases (id TEXT PRIMARY KEY, source TEXT NOT NULL, kind TEXT, url TEXT, title TEXT, product TEXT,"
     " fingerprint TEXT NOT NULL, resolution TEXT, created TEXT NOT NULL, updated TEXT NOT NULL)",
     "CREATE INDEX cases_source ON cases (source)",
     # (key, case_id) covers a lookup by key: the candidates of a lookup never read the cases table
     "CREATE TABLE case_keys (key TEXT NOT NULL, case_id TEXT NOT NULL, PRIMARY KEY (key, case_id))",
     "CREATE INDEX case_keys_case ON case_keys (case_id)",
     "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)"),
)
SCHEMA = len(MIGRATIONS)
BACKENDS = ("sqlite", "postgresql")
#: Seconds a command waits for another writer before the memory counts as locked.
TIMEOUT = 10.0
#: An index hit on the template weighs more than one on the diagnosis, then a code, then an op, a bit or the family.
_RANK = "SUM(CASE substr(key, 1, 4) WHEN 'tpl:' THEN 4 WHEN 'case' THEN 3 WHEN 'code' THEN 2 ELSE 1 END)"
#: Cases above which an index key counts as common (see Store.candidates).
COMMON = 2000
_CASE_COLUMNS = "id, source, kind, url, title, product, fingerprint, resolution, created, updated"


def default_location() -> str:
    """`$CASEBOOK_DB`, else memory.db in the user's data folder (`$XDG_DATA_HOME/casebook`, ~/.local/share/casebook)."""
    env = os.environ.get("CASEBOOK_DB")
    if env:
        return env
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "casebook" / "memory.db")


def is_server(location: str) -> bool:
    """Whether a location names a PostgreSQL server rather than a file."""
    return location.startswith(("postgresql://", "postgres://"))


def shown(location: str) -> str:
    """A location as messages show it: a server's password hidden."""
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", location)


def now() -> str:
    """The time of a change, UTC, to the second."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_id() -> str:
    """A team case's id: short enough to type, random enough for teams that never talk to each other."""
    return "c" + uuid.uuid4().hex[:11]


class Store:
    """An open memory: cases, their index keys, and meta values (the seed's digest)."""

    def __init__(self, location: str | os.PathLike | None = None, timeout: float = TIMEOUT) -> None:
        self.location = str(location) if location is not None else default_location()
        self.backend = "postgresql" if is_server(self.location) else "sqlite"
        self.where = shown(self.location)
        try:
            self._conn = self._connect(timeout)
            self._migrate()
        except MemoryUnavailable:
            self.close()
            raise
        except Exception as e:
            self.close()
            raise self._unavailable(e) from None

    # -- connection -------------------------------------------------------------------------------------------

    def _connect(self, timeout: float):
        if self.backend == "postgresql":
            try:
                import psycopg
            except ImportError:
                raise MemoryUnavailable(f"case memory {self.where}: PostgreSQL needs psycopg "
                                        f"(pip install 'psycopg[binary]')") from None
            return psycopg.connect(self.location, autocommit=True, connect_timeout=max(1, int(timeout)))
        path = Path(self.location)
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        deadline = time.monotonic() + timeout
        while True:
            try:
                if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    # WAL: readers never wait for a writer, and two writers wait for each other instead of failing
                    conn.execute("PRAGMA journal_mode = WAL")
                break
            except sqlite3.OperationalError as e:
                # several processes opening a new memory at once: the switch to WAL needs the file alone, and SQLite
                # may refuse it at once rather than wait, so it is tried again until the timeout
                if "locked" not in str(e).lower() or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def close(self) -> None:
        """Close the connection (the store is unusable after)."""
        conn, self._conn = getattr(self, "_conn", None), None
        if conn is not None:
            conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _unavailable(self, e: Exception) -> MemoryUnavailable:
        """One line for what went wrong underneath: damaged, locked, unreachable."""
        text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        low = text.lower()
        if isinstance(e, sqlite3.DatabaseError) and ("not a database" in low or "malformed" in low):
            why = "damaged: not a readable SQLite memory (move it aside to start a new one)"
        elif "locked" in low or "busy" in low:
            why = "locked by another program (try again when it is done)"
        elif self.backend == "postgresql" and type(e).__name__ in ("OperationalError", "InterfaceError"):
            why = f"cannot reach the server: {text}"
        else:
            why = text
        return MemoryUnavailable(f"case memory {self.where}: {why}")

    def _sql(self, sql: str) -> str:
        # one SQL text for both: `?` placeholders, which psycopg writes `%s`
        return sql.replace("?", "%s") if self.backend == "postgresql" else sql

    def _rows(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        try:
            cur = self._conn.execute(self._sql(sql), tuple(params))
            return cur.fetchall() if cur.description else []
        except MemoryUnavailable:
            raise
        except Exception as e:
            raise self._unavailable(e) from None

    @contextmanager
    def transaction(self):
        """One transaction that holds the write lock from its start: a second writer waits, nothing is lost."""
        try:
            if self.backend == "postgresql":
                with self._conn.transaction():
                    self._conn.execute("SELECT pg_advisory_xact_lock(7243)")
                    yield
                return
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        except (MemoryUnavailable, KeyError, ValueError):
            raise
        except Exception as e:
            raise self._unavailable(e) from None

    def _migrate(self) -> None:
        with self.transaction():
            self._rows("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = self._rows("SELECT MAX(version) FROM schema_version")
            version = row[0][0] if row and row[0][0] is not None else 0
            if version > SCHEMA:
                raise MemoryUnavailable(f"case memory {self.where}: its schema {version} is newer than this "
                                        f"casebook's {SCHEMA}: upgrade casebook to use it")
            for statements in MIGRATIONS[version:]:
                for sql in statements:
                    self._rows(sql)
            if version < SCHEMA:
                self._rows("DELETE FROM schema_version")
                self._rows("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA,))
        self.schema = SCHEMA

    # -- cases ------------------------------------------------------------------------------------------------

    def _put(self, c: Case) -> None:
        """Insert or replace one case and its index keys (inside a transaction)."""
        self._rows(f"INSERT INTO cases ({_CASE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                   "ON CONFLICT (id) DO UPDATE SET source = excluded.source, kind = excluded.kind, "
                   "url = excluded.url, title = excluded.title, product = excluded.product, "
                   "fingerprint = excluded.fingerprint, resolution = excluded.resolution, "
                   "updated = excluded.updated",
                   (c.id, c.source, c.kind, c.url, c.title, c.product, json.dumps(c.fingerprint.as_dict()),
                    json.dumps(c.resolution.as_dict()) if c.resolution else None, c.created or now(),
                    c.updated or c.created or now()))
        self._rows("DELETE FROM case_keys WHERE case_id = ?", (c.id,))
        keys = list(dict.fromkeys(c.fingerprint.keys()))
        if keys:
            cur = self._conn.cursor()
            try:
                cur.executemany(self._sql("INSERT INTO case_keys (key, case_id) VALUES (?, ?)"),
                                [(k, c.id) for k in keys])
            except Exception as e:
                raise self._unavailable(e) from None

    def add(self, fingerprint: Fingerprint, title: str | None = None, resolution: Resolution | None = None,
            url: str | None = None, product: str | None = None) -> Case:
        """Save a team case; returns it with its new id."""
        c = Case(id=new_id(), source="team", fingerprint=fingerprint, kind="case", title=title, url=url,
                 product=product, resolution=resolution, created=now())
        with self.transaction():
            self._put(c)
        return c

    def put(self, cases: list[Case]) -> int:
        """Insert or replace whole cases (an import), in one transaction; returns how many."""
        with self.transaction():
            for c in cases:
                self._put(c)
        return len(cases)

    def get(self, case_id: str) -> Case | None:
        """One case by id, or None."""
        rows = self._rows(f"SELECT {_CASE_COLUMNS} FROM cases WHERE id = ?", (case_id,))
        return _case(rows[0]) if rows else None

    def resolve(self, case_id: str, resolution: Resolution) -> Case:
        """Record how a team case was solved (fields left None keep their earlier value)."""
        with self.transaction():
            c = self.get(case_id)
            if c is None:
                raise KeyError(f"no case {case_id!r} in the case memory {self.where}")
            if c.source != "team":
                raise ValueError(f"{case_id} is a public thread shipped with casebook; only the team's cases are resolved")
            merged = {**(c.resolution.as_dict() if c.resolution else {}), **resolution.as_dict()}
            self._rows("UPDATE cases SET resolution = ?, updated = ? WHERE id = ?",
                       (json.dumps(merged), now(), case_id))
        return self.get(case_id)

    def forget(self, case_id: str) -> bool:
        """Remove one case and its keys; False when there was none."""
        with self.transaction():
            gone = self.get(case_id) is not None
            self._rows("DELETE FROM case_keys WHERE case_id = ?", (case_id,))
            self._rows("DELETE FROM cases WHERE id = ?", (case_id,))
        return gone

    def cases(self, source: str | None = None) -> list[Case]:
        """Every case (of one source), oldest first."""
        where, params = ("WHERE source = ?", (source,)) if source else ("", ())
        return [_case(r) for r in self._rows(f"SELECT {_CASE_COLUMNS} FROM cases {where} ORDER BY created, id", params)]

    def held(self, keys: list[str]) -> dict[str, int]:
        """How many cases hold each key (keys no case holds are left out): how common a code or a word is."""
        keys = list(dict.fromkeys(keys))
        if not keys:
            return {}
        return {k: int(n) for k, n in self._rows(f"SELECT key, COUNT(*) FROM case_keys WHERE key IN "
                                                 f"({', '.join('?' * len(keys))}) GROUP BY key", keys)}

    def candidates(self, keys: list[str], limit: int = 60, held: dict[str, int] | None = None) -> list[Case]:
        """The cases sharing the most (and the weightiest) index keys with a fingerprint, best first: an index
        lookup, never a read of every case. Keys held by more than COMMON cases (EZ9999 is in a third of them)
        say little and would make the lookup count thousands of rows: they are left to the scoring, unless the
        fingerprint has no other key. `held` is held(keys), when the caller has it already."""
        keys = list(dict.fromkeys(keys))
        if not keys:
            return []
        held = self.held(keys) if held is None else held
        keys = [k for k in keys if held.get(k, 0) and held[k] <= COMMON] or \
            sorted((k for k in keys if held.get(k)), key=lambda k: held[k])[:1]
        if not keys:
            return []
        marks = ", ".join("?" * len(keys))
        ranked = self._rows(f"SELECT case_id FROM case_keys WHERE key IN ({marks}) GROUP BY case_id "
                            f"ORDER BY {_RANK} DESC, case_id LIMIT ?", (*keys, limit))
        ids = [r[0] for r in ranked]
        if not ids:
            return []
        rows = self._rows(f"SELECT {_CASE_COLUMNS} FROM cases WHERE id IN ({', '.join('?' * len(ids))})", ids)
        order = {i: n for n, i in enumerate(ids)}
        return sorted((_case(r) for r in rows), key=lambda c: order[c.id])

    def count(self, source: str | None = None) -> int:
        """How many cases (of one source)."""
        where, params = ("WHERE source = ?", (source,)) if source else ("", ())
        return int(self._rows(f"SELECT COUNT(*) FROM cases {where}", params)[0][0])

    def stats(self) -> dict:
        """{backend, cases, threads, schema}: what `casebook memory stats --json` prints."""
        return {"backend": self.backend, "location": self.where, "cases": self.count("team"),
                "threads": self.count("seed"), "schema": self.schema}

    # -- meta values ------------------------------------------------------------------------------------------

    def meta(self, name: str) -> str | None:
        """A meta value (the seed's digest), or None."""
        rows = self._rows("SELECT value FROM meta WHERE name = ?", (name,))
        return rows[0][0] if rows else None

    def set_meta(self, name: str, value: str) -> None:
        """Set a meta value (inside a transaction)."""
        self._rows("INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                   (name, value))

    def replace_source(self, source: str, cases: list[Case]) -> None:
        """Every case of one source replaced by `cases` (inside a transaction); the others are not touched."""
        self._rows("DELETE FROM case_keys WHERE case_id IN (SELECT id FROM cases WHERE source = ?)", (source,))
        self._rows("DELETE FROM cases WHERE source = ?", (source,))
        for c in cases:
            self._put(c)


def _case(row: tuple) -> Case:
    id_, source, kind, url, title, product, fingerprint, resolution, created, updated = row
    return Case(id=id_, source=source, kind=kind, url=url, title=title, product=product,
                fingerprint=Fingerprint.from_dict(json.loads(fingerprint)),
                resolution=Resolution.from_dict(json.loads(resolution)) if resolution else None,
                created=created, updated=updated)
