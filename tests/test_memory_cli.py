"""`casebook memory` and "Seen before" through the command line, on both backends; and a memory that cannot be
used (damaged, locked, of a newer schema, a server that is down): one warning line, and the triage still runs."""
import json
import os
import subprocess
import sys

from casebook.judging.contract import validate
from casebook.memory.store import SCHEMA, Store
from conftest import ROOT, SAMPLES
from memories import location, postgres  # noqa: F401 (fixtures)

BUNDLE = SAMPLES / "task-queue-shared-cache-race" / "positive-info"


def cli(*args, db: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "casebook.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "CASEBOOK_DB": db, **env}, timeout=300)


def ok(r: subprocess.CompletedProcess) -> str:
    """The standard output of a command that succeeded (its stderr in the message when it did not)."""
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_add_search_resolve_export_import_and_stats(location, tmp_path):
    stats = json.loads(ok(cli("memory", "stats", "--json", db=location)))
    assert set(stats) >= {"backend", "cases", "threads", "schema"} and stats["cases"] == 0
    assert stats["backend"] == ("postgresql" if location.startswith("postgresql") else "sqlite")
    r = cli("memory", "add", BUNDLE, "--ticket", "T-1", db=location)
    assert r.returncode == 0, r.stderr
    case_id = r.stdout.strip()
    # the triage finds it: in the JSON contract, the walk and the report
    doc = json.loads(ok(cli("triage", BUNDLE, "--json", db=location)))
    validate(doc)
    mine = [s for s in doc["similar"] if s["id"] == case_id]
    assert mine and mine[0]["similarity"] == 1.0 and mine[0]["source"] == "team"
    assert mine[0]["cause"] == "task-queue-shared-cache-race" and "same diagnosis" in mine[0]["matched"]
    assert mine[0]["resolution"] == {"ticket": "T-1"}
    r = cli("memory", "resolve", case_id, "--cause", "shared cache race", "--fix", "TASK_QUEUE_ENABLE=0",
            "--confirmed-by", "rerun", "--who", "wang", db=location)
    assert r.returncode == 0 and r.stdout.strip() == f"{case_id}: resolved", r.stderr
    walk = cli("triage", BUNDLE, db=location).stdout
    seen = walk[walk.index("Seen before"):]
    assert f"team case {case_id}" in seen and "cause: shared cache race" in seen and "fix: TASK_QUEUE_ENABLE=0" in seen
    assert walk.index("Seen before") > walk.index("== 5.") and walk.index("Seen before") < walk.index("== 6.")
    zh = cli("triage", BUNDLE, "--lang", "zh", db=location).stdout
    assert "以前见过" in zh and f"团队案例 {case_id}" in zh
    report = tmp_path / "r.md"
    assert cli("report", BUNDLE, "-o", report, db=location).returncode == 0
    assert "Seen before" in report.read_text(encoding="utf-8")
    html = tmp_path / "r.html"
    assert cli("report", BUNDLE, "-o", html, db=location).returncode == 0
    assert "class='seen-before'" in html.read_text(encoding="utf-8")
    found = json.loads(ok(cli("memory", "search", BUNDLE, "--json", db=location)))
    assert found[0]["id"] == case_id and found[0]["resolution"]["who"] == "wang"
    # export, then import into another memory
    exported = tmp_path / "team.jsonl"
    assert cli("memory", "export", "-o", exported, db=location).returncode == 0
    lines = exported.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == [case_id]
    other = str(tmp_path / "other.db")
    r = cli("memory", "import", exported, db=other)
    assert r.returncode == 0 and r.stdout.startswith("1 case(s) imported"), r.stderr
    assert json.loads(ok(cli("memory", "stats", "--json", db=other)))["cases"] == 1
    assert json.loads(ok(cli("memory", "search", BUNDLE, "--json", db=other)))[0]["id"] == case_id


def test_add_with_redact_hides_host_and_user_names(tmp_path):
    log = tmp_path / "plog" / "plog-1.log"
    log.parent.mkdir()
    log.write_text("[ERROR] HCCL(4123,python):2024-03-01-10:11:12.123.456 [transport.cc:88]4123 Connect: "
                   "connect to worker-gpu17.corp.example.com as user zhangwei failed EI0006\n", encoding="utf-8")
    db = str(tmp_path / "m.db")
    plain = json.loads(cli("memory", "add", log, "--json", db=db).stdout)
    redacted = json.loads(cli("memory", "add", log, "--json", "--redact", db=db).stdout)
    assert "worker-gpu17.corp.example.com" in plain["fingerprint"]["template"]
    assert "worker-gpu17" not in redacted["fingerprint"]["template"]
    assert "<host-1>" in redacted["fingerprint"]["template"]


def test_bad_input_to_memory_commands_is_one_line(tmp_path):
    db = str(tmp_path / "m.db")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "c1", "source": "team"}\n{"id": 3}\n', encoding="utf-8")
    r = cli("memory", "import", bad, db=db)
    assert r.returncode == 2 and r.stderr.strip() == f"casebook: {bad}:2: a case needs an `id` string"
    r = cli("memory", "resolve", "nope", "--cause", "x", db=db)
    assert r.returncode == 2 and "no case 'nope'" in r.stderr and len(r.stderr.splitlines()) == 1
    r = cli("memory", "resolve", "nope", db=db)
    assert r.returncode == 2 and "--cause" in r.stderr


def _without_memory(db: str, why: str, **env) -> None:
    """The triage runs, says in one line that the memory cannot be used, and shows no "Seen before"."""
    r = cli("triage", BUNDLE, "--json", db=db, **env)
    assert r.returncode == 0 and json.loads(r.stdout)["similar"] == []
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: case memory ") and why in lines[0], r.stderr
    r = cli("triage", BUNDLE, db=db, **env)
    assert r.returncode == 0 and "== 6." in r.stdout and "Seen before" not in r.stdout
    assert [line for line in r.stderr.splitlines() if "case memory" in line] == lines


def test_a_damaged_memory_file_is_one_warning(tmp_path):
    db = tmp_path / "m.db"
    db.write_bytes(b"this is no database\n" * 300)
    _without_memory(str(db), "damaged")


def test_a_newer_memory_schema_is_one_warning(tmp_path):
    db = str(tmp_path / "m.db")
    with Store(db) as s:
        s._rows("UPDATE schema_version SET version = ?", (SCHEMA + 5,))
    _without_memory(db, f"its schema {SCHEMA + 5} is newer")


def test_a_locked_memory_file_is_one_warning(tmp_path):
    db = str(tmp_path / "m.db")
    Store(db).close()
    holder = ("import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
              "c.execute('PRAGMA locking_mode = EXCLUSIVE'); c.execute('BEGIN EXCLUSIVE'); "
              "c.execute('INSERT INTO meta (name, value) VALUES (\"held\", \"1\")'); print('held', flush=True); "
              "time.sleep(120)")
    p = subprocess.Popen([sys.executable, "-c", holder, db], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "held"
        _without_memory(db, "locked")
    finally:
        p.kill()
        p.wait()


def test_a_server_that_is_down_is_one_warning(tmp_path):
    (tmp_path / "socket").mkdir()
    _without_memory(f"postgresql://postgres@/postgres?host={tmp_path / 'socket'}&port=1", "cannot reach the server")


def test_a_server_password_is_never_shown():
    from casebook.memory.store import shown
    assert shown("postgresql://team:s3cret@db.example.com/casebook") == "postgresql://team:***@db.example.com/casebook"
