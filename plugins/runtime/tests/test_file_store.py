"""What only the file store does: its files, their modes, crash leftovers, compaction."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import stat
import struct
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from monologue_runtime import (
    AgentResult,
    ClaimRules,
    GraphFileError,
    GraphLockTimeout,
    TaskGraphError,
    TaskGraphStore,
)
from monologue_runtime.group_commit import GroupCommit
from runtime_fixtures import at

RULES = ClaimRules(heartbeat_timeout=30, max_attempts=2)
LAYOUT = [
    "tasks.graph.json",
    "tasks.graph.json.flush",
    "tasks.graph.json.lock",
    "tasks.journal.0.jsonl",
]


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_reads_create_nothing(file_store: TaskGraphStore, data_dir: Path) -> None:
    assert file_store.list() == []
    assert not data_dir.exists()


def test_data_folder_comes_from_the_environment_when_the_store_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_NO_CONFIG_FILE", "1")
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "one"))
    first = TaskGraphStore()
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "two"))
    second = TaskGraphStore()
    monkeypatch.delenv("MONOLOGUE_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    third = TaskGraphStore()

    assert first.path == tmp_path / "one" / "tasks.graph.json"
    assert second.path == tmp_path / "two" / "tasks.graph.json"
    assert third.path == tmp_path / "xdg" / "monologue" / "tasks.graph.json"


def test_steps_append_to_the_journal_and_files_are_private(
    file_store: TaskGraphStore, data_dir: Path
) -> None:
    os.umask(0o022)
    file_store.create("build", id="a")
    file_store.create("build", id="b")

    assert _names(data_dir) == LAYOUT
    assert json.loads(file_store.path.read_text()) == {"format": 2, "generation": 0, "tasks": []}
    lines = (data_dir / "tasks.journal.0.jsonl").read_text().splitlines()
    assert [json.loads(line)["tasks"][0]["id"] for line in lines] == ["a", "b"]
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    for path in data_dir.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_every_folder_created_is_private_parents_included(tmp_path: Path) -> None:
    os.umask(0o022)
    existing = tmp_path / "existing"
    existing.mkdir(mode=0o755)
    data_dir = existing / "a" / "b" / "data"
    store = TaskGraphStore(data_dir)
    store.create("build", id="a")
    store.claim("w", "build", RULES, at(0))
    store.complete("a", "w", AgentResult(task_id="a"), at(1))
    assert store.prune(timedelta(0)) == ["a"]  # an archive, and a journal in tasks.history
    for folder in (existing / "a", existing / "a" / "b", data_dir, data_dir / "tasks.history"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    files = [path for path in data_dir.rglob("*") if path.is_file()]
    assert files and all(stat.S_IMODE(path.stat().st_mode) == 0o600 for path in files)
    assert stat.S_IMODE(existing.stat().st_mode) == 0o755  # what existed is left alone


def test_a_wide_existing_folder_gets_one_warning(
    data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data_dir.mkdir()
    data_dir.chmod(0o755)
    store = TaskGraphStore(data_dir)
    with caplog.at_level(logging.WARNING, "monologue.runtime"):
        store.create("build")
        store.create("build")
    warnings = [r.getMessage() for r in caplog.records if "mode 0755" in r.getMessage()]
    assert len(warnings) == 1 and "chmod 700" in warnings[0]


def test_compaction_writes_a_snapshot_and_keeps_the_log(
    file_store: TaskGraphStore, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("monologue_runtime.graph_files._COMPACT_MIN_LINES", 3)
    for n in range(3):
        file_store.create("build", id=f"t{n}")
    for n in range(3):
        file_store.claim("w", "build", RULES, at(n))
        file_store.complete(f"t{n}", "w", AgentResult(task_id=f"t{n}"), at(n))

    snapshot = json.loads(file_store.path.read_text())
    assert snapshot["generation"] >= 1 and len(snapshot["tasks"]) == 3
    history = data_dir / "tasks.history"
    assert stat.S_IMODE(history.stat().st_mode) == 0o700
    assert stat.S_IMODE((history / "tasks.journal.0.jsonl").stat().st_mode) == 0o600
    assert stat.S_IMODE(file_store.path.stat().st_mode) == 0o600
    assert [t.status.value for t in TaskGraphStore(data_dir).list()] == ["completed"] * 3
    assert [e.task_id for e in file_store.events()] == ["t0", "t1", "t2"]


def test_a_snapshot_written_by_hand_is_read(file_store: TaskGraphStore, data_dir: Path) -> None:
    file_store.create("build", id="a")
    document = {
        "format": 2,
        "generation": 1,  # newer than the journal: its steps are in the snapshot
        "tasks": [json.loads(file_store.get("a").model_dump_json()) | {"priority": 5}],
    }
    file_store.path.write_text(json.dumps(document, indent=2))

    fresh = TaskGraphStore(data_dir)
    assert fresh.get("a").priority == 5
    fresh.create("build", id="b")
    assert [t.id for t in fresh.list()] == ["a", "b"]
    assert "tasks.journal.1.jsonl" in _names(data_dir)
    assert (data_dir / "tasks.history" / "tasks.journal.0.jsonl").is_file()  # swept aside


def test_a_format_1_graph_is_read(tmp_path: Path) -> None:
    (tmp_path / "tasks.graph.json").write_text(
        '{"format":1,"tasks":[\n{"id":"a","type":"build","priority":3}\n]}\n'
    )
    store = TaskGraphStore(tmp_path)
    assert store.get("a").priority == 3
    store.update("a", priority=4)
    assert TaskGraphStore(tmp_path).get("a").priority == 4


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("", "not valid JSON"),
        ('{"format": 2, "tasks": [{"id": "a"}]}', "tasks.0.type"),
        ('{"format": 2, "tasks": [{"id": "a", "type": "x", "status": "zzz"}]}', "tasks.0.status"),
        ('{"format": 2, "tasks": [], "shards": 3}', "shards"),
        ('{"format": 9, "tasks": []}', "graph format 9"),
        ('{"format": 2, "tasks": [{"id": "a", "type": "x"}, {"id": "a", "type": "y"}]}', "twice"),
        ("[1, 2]", "Input should be an object"),
    ],
)
def test_unreadable_graph_is_refused_and_never_overwritten(
    file_store: TaskGraphStore, data_dir: Path, content: str, problem: str
) -> None:
    data_dir.mkdir()
    file_store.path.write_text(content)

    with pytest.raises(GraphFileError) as read_error:
        file_store.list()
    with pytest.raises(GraphFileError) as write_error:
        file_store.create("build")

    for error in (read_error.value, write_error.value):
        assert str(error).startswith(f"{file_store.path}: not a readable task graph")
        assert problem in str(error)
        assert "left untouched" in str(error)
    assert file_store.path.read_text() == content


def test_a_corrupt_journal_line_is_refused_with_its_number(
    file_store: TaskGraphStore, data_dir: Path
) -> None:
    file_store.create("build", id="a")
    with open(data_dir / "tasks.journal.0.jsonl", "a") as journal:
        journal.write('{"tasks": "nope"}\n')
    with pytest.raises(GraphFileError, match=r"tasks.journal.0.jsonl: line 2 is not a journal"):
        TaskGraphStore(data_dir).list()


def test_a_line_cut_by_a_crash_is_ignored_then_cut_off(
    file_store: TaskGraphStore, data_dir: Path
) -> None:
    file_store.create("build", id="a")
    journal = data_dir / "tasks.journal.0.jsonl"
    whole = journal.read_bytes()
    with open(journal, "ab") as handle:
        handle.write(b'{"tasks":[{"id":"half')

    reader = TaskGraphStore(data_dir)
    assert [t.id for t in reader.list()] == ["a"]
    reader.create("build", id="b")
    assert journal.read_bytes().startswith(whole + b'{"tasks":[{"id":"b"')
    assert [t.id for t in TaskGraphStore(data_dir).list()] == ["a", "b"]


def test_leftovers_of_a_crash_are_swept(file_store: TaskGraphStore, data_dir: Path) -> None:
    file_store.create("build", id="a")
    (data_dir / ".tasks.graph.json.k3j9x_2a.tmp").write_text("half a snapshot")
    (data_dir / ".notes.json.k3j9x_2a.tmp").write_text("not ours: left alone")
    TaskGraphStore(data_dir).create("build", id="b")
    assert _names(data_dir) == sorted([*LAYOUT, ".notes.json.k3j9x_2a.tmp"])


def test_a_full_disk_leaves_no_half_line_and_changes_nothing(
    file_store: TaskGraphStore, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file_store.create("build", id="a")
    journal = data_dir / "tasks.journal.0.jsonl"
    before = journal.read_bytes()
    real_write = os.write

    def disk_full(fd: int, data: bytes) -> int:
        real_write(fd, data[:10])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", disk_full)
    with pytest.raises(TaskGraphError, match=r"could not write the graph: .*No space left"):
        file_store.create("build", id="b")
    monkeypatch.undo()

    assert journal.read_bytes() == before
    assert [t.id for t in file_store.list()] == ["a"]
    assert [t.id for t in TaskGraphStore(data_dir).list()] == ["a"]


def test_a_failed_flush_is_reported(
    file_store: TaskGraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    file_store.create("build", id="a")

    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fdatasync", broken)
    with pytest.raises(TaskGraphError, match=r"could not make the change durable: .*Input/output"):
        file_store.create("build", id="b")


def test_a_held_lock_times_out_with_a_clear_error(data_dir: Path) -> None:
    store = TaskGraphStore(data_dir, lock_timeout=0.05)
    store.create("build", id="a")
    acquired, release = threading.Event(), threading.Event()

    def hold() -> None:  # another process's lock: flock on its own open file
        with open(store.lock_path, "a") as holder:
            fcntl.flock(holder, fcntl.LOCK_EX)
            acquired.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert acquired.wait(10)
        with pytest.raises(GraphLockTimeout, match=r"could not take the lock .*within 0.05 s"):
            store.update("a", priority=1)
        assert store.get("a").priority == 0  # reads never wait for the lock
    finally:
        release.set()
        thread.join()
    assert store.update("a", priority=1).priority == 1


def test_data_folder_that_cannot_be_created_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    store = TaskGraphStore(blocker / "data")

    with pytest.raises(TaskGraphError, match="cannot create the data folder"):
        store.create("build")


def test_unreadable_graph_path_is_reported(file_store: TaskGraphStore, data_dir: Path) -> None:
    file_store.path.mkdir(parents=True)  # a folder where the file should be

    with pytest.raises(GraphFileError, match="cannot be read"):
        file_store.list()


def test_the_archive_is_private_and_a_bad_line_in_it_is_named(
    file_store: TaskGraphStore, data_dir: Path
) -> None:
    file_store.create("build", id="a")
    file_store.claim("w", "build", RULES, at(0))
    file_store.complete("a", "w", AgentResult(task_id="a"), at(0))
    assert file_store.prune(timedelta(0)) == ["a"]
    archive = data_dir / "tasks.archive.jsonl"
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600

    with open(archive, "a") as handle:
        handle.write("{oops\n")
    with pytest.raises(TaskGraphError, match=r"tasks.archive.jsonl: line 2 is not a task"):
        file_store.archived()


def test_one_flush_covers_the_lines_others_wrote_before_it(tmp_path: Path) -> None:
    mark_file = tmp_path / "tasks.graph.json.flush"
    journal = os.open(tmp_path / "journal", os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    first, second = GroupCommit(mark_file), GroupCommit(mark_file)  # two processes' views

    def mark() -> tuple[int, int]:
        return struct.unpack("<QQ", mark_file.read_bytes())  # type: ignore[return-value]

    os.write(journal, b"line of the first\n")  # bytes 0..18
    os.write(journal, b"line of the second\n")  # bytes 18..37
    first.sync(journal, 0, 18)
    assert mark() == (0, 37)  # flushed what was in the file when the flush began
    second.sync(journal, 0, 37)  # covered: returns without moving the mark
    assert mark() == (0, 37)
    second.forget(0, 18)  # the file was cut back: what was flushed past 18 is gone
    assert mark() == (0, 18)
    first.sync(journal, 1, 5)  # a newer generation is never covered by an older one
    assert mark() == (1, 37)
    first.close()
    second.close()
    os.close(journal)
    assert stat.S_IMODE(mark_file.stat().st_mode) == 0o600
