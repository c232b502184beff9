"""What the memory's tests share: memories on both backends, thread files, and a real PostgreSQL server, started from Debian's packages (`make test` installs them) in a
temporary folder, listening on a Unix socket only, and stopped at the end of the session. PostgreSQL refuses to
run as root, so under root the server runs as `nobody`, which owns its folders."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

PORT = 5433


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder (/usr/lib/postgresql/<version>/bin)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


def _as_server_user(argv: list[str]) -> list[str]:
    if os.getuid() != 0:
        return argv
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] + argv


class Server:
    """A running server; `database()` makes an empty database and returns its postgresql:// location."""

    def __init__(self, root: Path, bin_dir: Path) -> None:
        self.root, self.bin = root, bin_dir
        self.data, self.socket = root / "data", root / "socket"

    def start(self) -> None:
        self.socket.mkdir()
        if os.getuid() == 0:
            shutil.chown(self.root, "nobody", "nogroup")
            shutil.chown(self.socket, "nobody", "nogroup")
        run = lambda *a: subprocess.run(_as_server_user([str(x) for x in a]), check=True, capture_output=True,
                                        text=True, cwd=self.root)
        run(self.bin / "initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync",
            "--locale=C")
        run(self.bin / "pg_ctl", "-D", self.data, "-l", self.root / "server.log", "-w", "-t", "60", "start",
            "-o", f"-k {self.socket} -c listen_addresses= -p {PORT} -c fsync=off -c max_connections=60")

    def stop(self) -> None:
        subprocess.run(_as_server_user([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w",
                                        "stop"]), capture_output=True, cwd=self.root)

    def location(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@/{db}?host={self.socket}&port={PORT}"

    def database(self) -> str:
        import psycopg
        name = "m" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.location(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.location(name)


@pytest.fixture(scope="session")
def postgres():
    """The session's PostgreSQL server; its absence is a setup error (`make test` installs it), not a skip."""
    bin_dir = binaries()
    assert bin_dir is not None, "PostgreSQL is expected at /usr/lib/postgresql/*/bin (apt-get install postgresql)"
    root = Path(tempfile.mkdtemp(prefix="casebook-pg-"))
    os.chmod(root, 0o755)
    server = Server(root, bin_dir)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request, tmp_path) -> str:
    """A new, empty memory on each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "memory.db")
    return request.getfixturevalue("postgres").database()


def thread(folder: Path, id_: str, **fields) -> Path:
    """A thread file as kb/threads holds them, with defaults for what a test does not care about."""
    import yaml
    record = {"id": id_, "url": f"https://github.com/example/repo/issues/{len(id_)}", "source": "issue",
              "title": f"thread {id_}", "product": "torch_npu", "versions": {}, "chip": None, "codes": [],
              "first_error": "something failed", "ops": [], "cause": {"en": "a cause", "zh": "原因"},
              "fix": {"en": "a fix", "zh": "修复"}, "case": None, "family": None, "capture": None, **fields}
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{id_}.yaml"
    path.write_text(yaml.safe_dump(record, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path
