"""The memory's seed: kb/threads checked by `kb check`, loaded into a new memory, measured by leave-one-out; and
`kb new --from-memory`, a draft case page from a resolved case of the memory."""
import shutil

from casebook.cli import main
from casebook.knowledge import threads
from casebook.knowledge.checks import check
from casebook.knowledge.kb import load_kb
from casebook.memory.holdout import leave_one_out
from casebook.memory.recall import open_memory
from conftest import ROOT, SAMPLES
from memories import thread

THREADS = ROOT / "kb" / "threads"
BUNDLE = SAMPLES / "task-queue-shared-cache-race" / "positive-info"
#: The leave-one-out figures of docs/memory.md, as floors: a change that loses ground fails here.
FLOOR_ALL, FLOOR_REACHABLE = 0.70, 0.78   # the target of docs/memory.md; 72.7% and 82.3% measured


def test_the_shipped_threads_pass_the_checks_and_seed_a_new_memory(tmp_path):
    kb = load_kb()
    assert threads.problems(THREADS, set(kb.cases), set(kb.families), project=ROOT) == []
    files = threads.files(THREADS)
    assert len(files) >= 300
    with open_memory(tmp_path / "m.db", THREADS) as store:
        stats = store.stats()
        assert (stats["threads"], stats["cases"]) == (len(files), 0)
        seeded = store.get(files[0].stem)
        assert seeded.source == "seed" and seeded.url.startswith("https://") and seeded.resolution.cause_zh


def test_thread_problems_name_the_file_and_line(tmp_path):
    folder = tmp_path / "threads"
    thread(folder, "fine", case="op-rejects-dtype", family="op-not-supported")
    thread(folder, "bad-url", url="github.com/x")
    thread(folder, "no-zh", fix={"en": "a fix", "zh": "a fix"})
    thread(folder, "unknown-ids", case="no-such-case", family="no-such-family", capture="tests/captures/none")
    thread(folder, "wrong-name").rename(folder / "renamed.yaml")
    (folder / "broken.yaml").write_text("id: broken\nurl: [\n", encoding="utf-8")
    # saved in Latin-1 by an editor: no YAML line to point at, so the file's first line
    (folder / "latin.yaml").write_bytes("id: latin\ntitle: café crème\n".encode("latin-1"))
    missing = thread(folder, "missing")
    missing.write_text(missing.read_text(encoding="utf-8").replace("title: thread missing\n", ""), encoding="utf-8")
    kb = load_kb()
    found = sorted(str(p) for p in threads.problems(folder, set(kb.cases), set(kb.families), project=ROOT))
    assert found == [
        "threads/bad-url.yaml:2: `url` is a public http(s) address, not 'github.com/x'",
        "threads/broken.yaml:3: unreadable thread: while parsing a flow node",
        "threads/latin.yaml:1: unreadable thread: 'utf-8' codec can't decode byte 0xe9 in position 20: invalid "
        "continuation byte",
        "threads/missing.yaml:1: `title` is required",
        "threads/no-zh.yaml:14: `fix.zh` is written in Chinese",
        "threads/renamed.yaml:1: `id` is the file's name, renamed",
        "threads/unknown-ids.yaml:17: no KB case 'no-such-case'",
        "threads/unknown-ids.yaml:18: no KB family 'no-such-family'",
        "threads/unknown-ids.yaml:19: no capture folder tests/captures/none",
    ]


def test_kb_check_checks_the_threads(tmp_path, capsys):
    kb = tmp_path / "kb"
    shutil.copytree(ROOT / "kb", kb)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "captures").symlink_to(ROOT / "tests" / "captures")   # where the threads' captures are
    thread(kb / "threads", "a-new-one", source="mailing-list")
    problems = [str(p) for p in check(kb)]
    assert problems == ["threads/a-new-one.yaml:3: `source` is one of issue, pull-request, forum, faq, docs, blog, commit"]
    # the captures the threads name are looked for beside the knowledge base: without them, each is a problem
    (tmp_path / "tests" / "captures").unlink()
    assert sum("no capture folder tests/captures/" in str(p) for p in check(kb)) > 10


def test_kb_new_from_memory_drafts_a_page_from_a_resolved_case(tmp_path, capsys):
    kb, db = tmp_path / "kb", str(tmp_path / "m.db")
    shutil.copytree(ROOT / "kb", kb)
    assert main(["memory", "add", str(BUNDLE), "--db", db, "--threads", str(tmp_path / "none")]) == 0
    case_id = capsys.readouterr().out.strip()
    assert main(["kb", "new", "--from-memory", case_id, "--db", db, "--root", str(kb)]) == 2
    assert "has no resolution yet" in capsys.readouterr().err
    assert main(["memory", "resolve", case_id, "--cause", "two streams share one cache", "--fix",
                 "TASK_QUEUE_ENABLE=0", "--confirmed-by", "a rerun", "--ticket", "T-42", "--db", db,
                 "--threads", str(tmp_path / "none")]) == 0
    capsys.readouterr()
    assert main(["kb", "new", "--from-memory", case_id, "--db", db, "--root", str(kb), "--id", "tq-memory-draft"]) == 0
    page = kb / "cases" / "tq-memory-draft.md"
    assert str(page) in capsys.readouterr().out
    loaded = load_kb(kb).cases["tq-memory-draft"]
    assert (loaded.status, loaded.family) == ("draft", "aicore-exception")
    assert loaded.signatures[0].field == "message" and loaded.signatures[0].key
    text = page.read_text(encoding="utf-8")
    assert "two streams share one cache" in text and "ticket T-42" in text and "TASK_QUEUE_ENABLE=0" in text
    assert main(["kb", "new", "--from-memory", "c000000nothere", "--db", db, "--root", str(kb)]) == 2
    assert "no case 'c000000nothere'" in capsys.readouterr().err


def test_leave_one_out_on_the_seed_holds_its_floor():
    result = leave_one_out(THREADS, ROOT)
    assert result.counted >= 150, result.as_dict()["counted"]
    figures = {k: v for k, v in result.as_dict().items() if k != "threads"}
    assert result.rate >= FLOOR_ALL and result.reachable_rate >= FLOOR_REACHABLE, figures
    # each counted thread was looked up without itself
    assert all(row["thread"] not in row["top"] for row in result.rows)


def test_a_thread_is_read_field_by_field(tmp_path):
    folder = tmp_path / "threads"
    thread(folder, "full", url="https://gitee.com/ascend/pytorch/issues/I9XYZ", source="forum", title="  EZ9999 in FA  ",
           product="torch_npu", versions={"cann": "8.0.RC3", "torch": 2.1, "python": None}, chip="910B",
           codes=["EZ9999", 507015, None], first_error="  [ERROR] fault kernel_name=FA  ", ops=["FlashAttentionScoreGrad"],
           cause={"en": "shared cache", "zh": "共享缓存"}, fix={"en": "TASK_QUEUE_ENABLE=0", "zh": "关闭任务队列"},
           case="task-queue-shared-cache-race", family="aicore-exception", capture="tests/captures/x")
    problems = []
    (read,) = threads.load(folder, problems)
    assert problems == []
    assert read == threads.Thread(
        id="full", url="https://gitee.com/ascend/pytorch/issues/I9XYZ", source="forum", title="EZ9999 in FA",
        product="torch_npu", versions={"cann": "8.0.RC3", "torch": "2.1"}, chip="910B", codes=["EZ9999", "507015"],
        first_error="[ERROR] fault kernel_name=FA", ops=["FlashAttentionScoreGrad"],
        cause={"en": "shared cache", "zh": "共享缓存"}, fix={"en": "TASK_QUEUE_ENABLE=0", "zh": "关闭任务队列"},
        case="task-queue-shared-cache-race", family="aicore-exception", capture="tests/captures/x",
        file="threads/full.yaml")
    thread(folder, "bare", title="   ", product="", chip=None, first_error=None, case="", capture=None)
    bare = threads.load(folder)[0]
    assert (bare.id, bare.title, bare.product, bare.first_error, bare.case, bare.capture) == \
        ("bare", "bare", None, None, None, None)


def test_every_field_check_of_a_thread_names_its_line(tmp_path):
    folder = tmp_path / "threads"
    thread(folder, "odd", codes="EZ9999", chip="910C", versions=["8.0"], first_error="one\ntwo",
           cause={"en": "a cause"}, fix="just do it", capture="elsewhere/x", ops="MatMul", extra=1)
    (folder / "list.yaml").write_text("- id: list\n", encoding="utf-8")
    (folder / "empty.yaml").write_text("", encoding="utf-8")
    problems = []
    assert [t.id for t in threads.load(folder, problems)] == ["odd"]
    odd = threads.load(folder)[0]
    assert (odd.codes, odd.ops, odd.versions, odd.fix) == ([], [], {}, {})
    assert sorted(str(p) for p in problems) == [
        "threads/empty.yaml:1: a thread is a YAML mapping",
        "threads/list.yaml:1: a thread is a YAML mapping",
        "threads/odd.yaml:10: `first_error` is one line",
        "threads/odd.yaml:13: `ops` is a list",
        "threads/odd.yaml:14: `cause` has `en` and `zh` texts",
        "threads/odd.yaml:16: `fix` has `en` and `zh` texts",
        "threads/odd.yaml:19: `capture` is a folder under tests/captures/",
        "threads/odd.yaml:20: unknown field `extra`",
        "threads/odd.yaml:6: `versions` is a mapping (e.g. cann: 8.0.RC3)",
        "threads/odd.yaml:8: `chip` is one of 910B, 910A, 910_93, 310P, 310B or null",
        "threads/odd.yaml:9: `codes` is a list",
        "threads/odd.yaml:9: `codes` is a list (empty when the thread shows none)",
    ]
    assert threads.lines_of("a: [\n") == {} and threads.lines_of("- a\n") == {}
    assert threads.lines_of("a: 1\nb:\n  c: 2\nd: 3\n") == {"a": 1, "b": 2, "d": 4}
    before = threads.digest(folder)
    assert len(before) == 20 and threads.digest(folder) == before and threads.digest(tmp_path / "none") != before
    (folder / "empty.yaml").write_text("\n", encoding="utf-8")
    assert threads.digest(folder) != before
    assert threads.files(tmp_path / "none") == [] and threads.folder(tmp_path) == tmp_path / "threads"
