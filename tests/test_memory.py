"""The case memory on both backends: the same tests on a SQLite file and on a real PostgreSQL server the session
starts (tests/memories.py). Saving, resolving, finding by similarity, seeding and reseeding, migrations, and
parallel writers that lose nothing."""
import json
import subprocess
import sys
import textwrap

import pytest
from casebook.memory.case import Case, Resolution
from casebook.memory.fingerprint import Fingerprint, chip, template
from casebook.memory.recall import open_memory
from casebook.memory.seed import seed
from casebook.memory.similarity import compare, similar
from casebook.memory.store import SCHEMA, MemoryUnavailable, Store
from memories import location, postgres, thread  # noqa: F401 (fixtures)

CAST = Fingerprint(codes=("EZ1001", "161002"), template=template("call aclnnCast failed, detail:EZ1001: dtype 7 at 0x12ab"),
                   ops=("aclnnCast",), family="op-not-supported", cause="op-rejects-dtype",
                   versions={"cann": "8.0.RC3"}, chip="910A")


@pytest.fixture
def store(location):
    with Store(location) as s:
        yield s


def test_a_new_memory_has_the_current_schema_and_reports_its_backend(store, location):
    stats = store.stats()
    assert (stats["backend"], stats["cases"], stats["threads"], stats["schema"]) == (
        "postgresql" if location.startswith("postgresql") else "sqlite", 0, 0, SCHEMA)
    if stats["backend"] == "sqlite":
        assert store._rows("PRAGMA journal_mode")[0][0] == "wal"


def test_a_saved_case_is_found_again_and_says_why(store):
    saved = store.add(CAST, title="Cast rejects int8")
    other = store.add(Fingerprint(codes=("507015",), template="aicore exception <NUM>", chip="910B"))
    found = similar(store, CAST)
    assert [m.case.id for m in found] == [saved.id]
    assert found[0].similarity == 1.0
    assert found[0].matched() == ("same EZ1001 template, same code 161002, same op aclnnCast, same diagnosis "
                                  "op-rejects-dtype, same family op-not-supported, same CANN 8.0.RC3, same chip 910A")
    assert found[0].matched("zh").startswith("相同的 EZ1001 报错模板，")
    assert store.get(other.id).fingerprint.codes == ("507015",)


def test_a_weaker_match_ranks_below_and_unrelated_cases_are_not_shown(store):
    near = store.add(Fingerprint(codes=("EZ1001",), ops=("aclnnCast",), chip="910B"))
    exact = store.add(CAST)
    store.add(Fingerprint(codes=("507015",), ops=("aclnnAdd",)))
    found = similar(store, CAST)
    assert [m.case.id for m in found] == [exact.id, near.id]
    assert 0.15 <= found[1].similarity < found[0].similarity
    assert "same chip" not in found[1].matched()


def test_resolve_records_the_resolution_and_keeps_what_it_does_not_change(store):
    c = store.add(CAST)
    store.resolve(c.id, Resolution(cause="int8 into Cast", who="li"))
    done = store.resolve(c.id, Resolution(fix="cast to float16 first", ticket="T-7", confirmed_by="rerun"))
    assert done.resolution.as_dict() == {"cause": "int8 into Cast", "fix": "cast to float16 first",
                                         "confirmed_by": "rerun", "ticket": "T-7", "who": "li"}
    assert similar(store, CAST)[0].as_dict()["resolution"]["fix"] == "cast to float16 first"
    with pytest.raises(KeyError):
        store.resolve("no-such-case", Resolution(cause="x"))


def test_export_and_import_move_cases_between_memories(store, tmp_path):
    a = store.add(CAST, title="Cast", resolution=Resolution(cause="c", fix="f"))
    lines = [json.dumps(c.as_dict()) for c in store.cases("team")]
    with Store(tmp_path / "other.db") as other:
        other.put([Case.from_dict(json.loads(line)) for line in lines])
        again = other.get(a.id)
        assert (again.title, again.fingerprint, again.resolution) == ("Cast", CAST, Resolution(cause="c", fix="f"))
        assert [m.case.id for m in similar(other, CAST)] == [a.id]


def test_seed_loads_once_refreshes_on_change_and_never_touches_team_cases(store, tmp_path):
    folder = tmp_path / "threads"
    thread(folder, "cast-int8", codes=["EZ1001"], first_error="call aclnnCast failed, detail:EZ1001: dtype 9 at 0x77",
           ops=["aclnnCast"], chip="910A", case="op-rejects-dtype", family="op-not-supported")
    team = store.add(CAST)
    assert seed(store, folder) is True and seed(store, folder) is False
    assert store.stats()["threads"] == 1
    found = similar(store, CAST)
    assert {m.case.id for m in found} == {team.id, "cast-int8"}
    seeded = next(m for m in found if m.case.source == "seed")
    assert seeded.case.url.startswith("https://") and seeded.case.resolution.cause_zh == "原因"
    assert seeded.matched().startswith("same EZ1001 template, same op aclnnCast")
    # an upgrade: one thread changed, one added, one gone
    thread(folder, "cast-int8", codes=["EZ1001"], first_error="call aclnnCast failed", title="renamed")
    thread(folder, "hccl-timeout", codes=["EI0002"], first_error="wait notify timeout")
    assert seed(store, folder) is True
    assert store.stats()["threads"] == 2 and store.get("cast-int8").title == "renamed"
    (folder / "hccl-timeout.yaml").unlink()
    assert seed(store, folder) is True
    assert [c.id for c in store.cases("seed")] == ["cast-int8"]
    assert [c.id for c in store.cases("team")] == [team.id] and store.get(team.id).fingerprint == CAST


def test_a_newer_schema_is_refused_in_one_line(location):
    with Store(location) as s:
        s._rows("UPDATE schema_version SET version = ?", (SCHEMA + 1,))
    with pytest.raises(MemoryUnavailable, match=rf"schema {SCHEMA + 1} is newer than this casebook's {SCHEMA}"):
        Store(location)


def test_an_older_schema_is_migrated(location, monkeypatch):
    import casebook.memory.store as store_module
    with Store(location) as s:
        s.add(CAST)
    extra = ("CREATE TABLE notes (case_id TEXT NOT NULL, text TEXT NOT NULL)",)
    monkeypatch.setattr(store_module, "MIGRATIONS", store_module.MIGRATIONS + (extra,))
    monkeypatch.setattr(store_module, "SCHEMA", SCHEMA + 1)
    with store_module.Store(location) as s:
        assert s.stats()["schema"] == SCHEMA + 1 and s.count("team") == 1
        s._rows("INSERT INTO notes (case_id, text) VALUES (?, ?)", ("x", "y"))


WRITER = textwrap.dedent("""
    import sys
    from casebook.memory.fingerprint import Fingerprint
    from casebook.memory.recall import open_memory
    location, folder, me, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    with open_memory(location, folder) as store:
        for i in range(n):
            store.add(Fingerprint(codes=(f"E{me}{i:04d}",), template=f"writer {me} case {i}"))
""")


def test_parallel_writers_lose_nothing(location, tmp_path):
    folder = tmp_path / "threads"
    thread(folder, "one", codes=["EZ9999"])
    writers, each = 4, 25
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, location, str(folder), str(w), str(each)],
                              stderr=subprocess.PIPE, text=True) for w in range(writers)]
    errors = [p.communicate(timeout=240)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * writers, errors
    with open_memory(location, folder) as store:
        assert store.stats()["cases"] == writers * each and store.stats()["threads"] == 1
        codes = {c.fingerprint.codes[0] for c in store.cases("team")}
        assert len(codes) == writers * each


def test_the_lookup_reads_index_candidates_only(store):
    for i in range(300):
        store.add(Fingerprint(codes=(f"E{i:05d}",), template=f"unrelated {i}"))
    hit = store.add(CAST)
    assert [c.id for c in store.candidates(CAST.keys())] == [hit.id]
    assert store.candidates([]) == []


def test_comparison_weighs_codes_and_templates_over_versions_and_chip():
    same_template = Fingerprint(codes=CAST.codes, template=CAST.template)
    same_setting = Fingerprint(versions=CAST.versions, chip=CAST.chip, family=CAST.family)
    assert compare(CAST, same_template)[0] > compare(CAST, same_setting)[0] > 0
    assert compare(CAST, Fingerprint())[0] == 0 and compare(Fingerprint(), CAST) == (0.0, [])


def test_templates_mask_what_varies_and_chips_have_short_names():
    a = template("[ERROR] RUNTIME(4123,python):2024-03-01-10:11:12.123.456 [stream.cc:12]4123 Sync: "
                 "stream 3 failed at 0x7f00aa, file /home/li/run.py, id deadbeefdeadbeefdead")
    b = template("[ERROR] RUNTIME(99,python):2025-01-02-00:00:00.000.001 [stream.cc:12]99 Sync: "
                 "stream 8 failed at 0x1, file /data/x.py, id 0123456789abcdef0123")
    assert a == b and "<HEX>" in a and "<PATH>" in a and "li" not in a
    assert template("  ") is None
    assert [chip(x) for x in ("Ascend910B3", "Ascend910_9391", "Ascend910A", "Ascend910ProB", "Ascend310P3",
                              "910_93", "Ascend310B1", None, "gpu")] == [
        "910B", "910_93", "910A", "910A", "310P", "910_93", "310B", None, None]
