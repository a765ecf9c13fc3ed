from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from filelock import FileLock
from monologue_runtime import (
    AgentTask,
    GraphFileError,
    GraphLockTimeout,
    InvalidTaskError,
    TaskGraphError,
    TaskGraphStore,
    TaskStatus,
    UnknownTaskError,
)


def test_create_get_list_update_round_trip(store: TaskGraphStore) -> None:
    first = store.create("build", input={"target": "wheel"}, priority=2, metadata={"by": "me"})
    second = store.create("test", dependency_ids=[first.id], parent_id=first.id, id="tests")

    assert store.get(first.id) == first
    assert store.get("tests").dependency_ids == [first.id]
    assert [t.id for t in store.list()] == [first.id, "tests"]
    assert [t.id for t in store.list(type="test")] == ["tests"]
    assert store.list(status="completed") == []

    changed = store.update(second.id, priority=7, context={"hint": "fast"})
    assert changed.priority == 7
    assert changed.updated_at > second.updated_at
    assert store.get("tests").context == {"hint": "fast"}
    assert first.status is TaskStatus.PENDING and first.attempt == 0


def test_missing_file_is_an_empty_graph_and_reads_create_nothing(
    store: TaskGraphStore, data_dir: Path
) -> None:
    assert store.list() == []
    with pytest.raises(UnknownTaskError, match="no task 'nope'"):
        store.get("nope")
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


def test_file_is_replaced_whole_and_lock_is_a_separate_file(
    store: TaskGraphStore, data_dir: Path
) -> None:
    store.create("build")
    inode = store.path.stat().st_ino
    store.create("build")

    assert store.path.stat().st_ino != inode  # a new file renamed over the old one
    assert sorted(p.name for p in data_dir.iterdir()) == [
        "tasks.graph.json",
        "tasks.graph.json.lock",
    ]
    document = json.loads(store.path.read_text())
    assert document["format"] == 1
    assert len(document["tasks"]) == 2


def test_hand_edited_graph_in_another_layout_is_read_and_rewritten(
    store: TaskGraphStore,
) -> None:
    store.create("build", id="a")
    document = json.loads(store.path.read_text())
    document["tasks"][0]["priority"] = 5
    store.path.write_text(json.dumps(document, indent=2))

    assert store.get("a").priority == 5
    store.create("build", id="b")  # the transaction reads the pretty file
    assert [(t.id, t.priority) for t in store.list()] == [("a", 5), ("b", 0)]
    assert store.path.read_text().count("\n") == 4  # back to one task per line


def test_two_stores_see_each_others_writes(data_dir: Path) -> None:
    left, right = TaskGraphStore(data_dir), TaskGraphStore(data_dir)
    left.create("build", id="a")
    right.update("a", priority=3)
    left.update("a", metadata={"seen": True})
    right.create("build", id="b")

    stored = left.get("a")
    assert (stored.priority, stored.metadata) == (3, {"seen": True})
    assert [t.id for t in right.list()] == ["a", "b"]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("", "not valid JSON"),
        ('{"format": 1, "tasks": [{"id": "a"}]}', "tasks.0.type"),
        ('{"format": 1, "tasks": [{"id": "a", "type": "x", "status": "zzz"}]}', "tasks.0.status"),
        ('{"format": 2, "tasks": [], "shards": 3}', "graph format 2"),
        ('{"format": 9, "tasks": []}', "graph format 9"),
        ('{"format": 1, "tasks": [{"id": "a", "type": "x"}, {"id": "a", "type": "y"}]}', "twice"),
        ("[1, 2]", "Input should be an object"),
    ],
)
def test_unreadable_graph_is_refused_and_never_overwritten(
    store: TaskGraphStore, data_dir: Path, content: str, problem: str
) -> None:
    data_dir.mkdir()
    store.path.write_text(content)

    with pytest.raises(GraphFileError) as read_error:
        store.list()
    with pytest.raises(GraphFileError) as write_error:
        store.create("build")

    for error in (read_error.value, write_error.value):
        assert str(error).startswith(f"{store.path}: not a readable task graph")
        assert problem in str(error)
        assert "left untouched" in str(error)
    assert store.path.read_text() == content


def test_invalid_additions_are_refused_and_nothing_is_written(store: TaskGraphStore) -> None:
    store.create("build", id="a")
    before = store.path.read_bytes()

    with pytest.raises(InvalidTaskError, match=r"depends on unknown task\(s\) 'ghost'"):
        store.create("test", dependency_ids=["a", "ghost"])
    with pytest.raises(InvalidTaskError, match="unknown parent 'ghost'"):
        store.create("test", parent_id="ghost")
    with pytest.raises(InvalidTaskError, match="a task with id 'a' already exists"):
        store.create("test", id="a")
    with pytest.raises(InvalidTaskError, match="new task: priority: Input should be a valid"):
        store.create("test", priority="high")
    with pytest.raises(InvalidTaskError, match="new task: colour: Extra inputs"):
        store.create("test", colour="blue")
    with pytest.raises(InvalidTaskError, match="new task: id: Value error, must be printable"):
        store.create("test", id=" spaced ")
    assert store.path.read_bytes() == before


def test_a_batch_may_depend_on_itself_but_not_in_a_cycle(store: TaskGraphStore) -> None:
    first = AgentTask(type="build", id="a")
    second = AgentTask(type="test", id="b", dependency_ids=["a"])
    store.add(first, second)
    assert [t.id for t in store.list()] == ["a", "b"]

    with pytest.raises(InvalidTaskError, match="dependency cycle: a -> b -> a"):
        store.update("a", dependency_ids=["b"])
    with pytest.raises(InvalidTaskError, match="dependency cycle: c -> c"):
        store.add(AgentTask(type="x", id="c", dependency_ids=["c"]))
    with pytest.raises(InvalidTaskError, match="cycle: d -> e -> d"):
        store.add(
            AgentTask(type="x", id="d", dependency_ids=["e"]),
            AgentTask(type="x", id="e", dependency_ids=["d"]),
        )
    assert store.get("a").dependency_ids == []
    assert len(store.list()) == 2


def test_update_refuses_unknown_tasks_fixed_fields_and_bad_values(store: TaskGraphStore) -> None:
    store.create("build", id="a")

    with pytest.raises(UnknownTaskError, match="no task 'zz'"):
        store.update("zz", priority=1)
    with pytest.raises(InvalidTaskError, match="created_at, id cannot be changed"):
        store.update("a", id="b", created_at="2020-01-01T00:00:00Z")
    with pytest.raises(InvalidTaskError, match="task 'a': status: Input should be"):
        store.update("a", status="sleeping")
    assert store.get("a").status is TaskStatus.PENDING


def test_failed_write_keeps_the_old_graph_and_leaves_no_temporary_file(
    store: TaskGraphStore, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.create("build", id="a")
    before = store.path.read_bytes()

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(TaskGraphError, match=r"could not write the graph: .*No space left"):
        store.create("build", id="b")
    monkeypatch.undo()

    assert store.path.read_bytes() == before
    assert sorted(p.name for p in data_dir.iterdir()) == [
        "tasks.graph.json",
        "tasks.graph.json.lock",
    ]
    assert [t.id for t in store.list()] == ["a"]


def test_a_held_lock_times_out_with_a_clear_error(data_dir: Path) -> None:
    store = TaskGraphStore(data_dir, lock_timeout=0.05)
    store.create("build", id="a")
    holder = FileLock(str(store.lock_path))
    acquired, release = threading.Event(), threading.Event()

    def hold() -> None:
        with holder:
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


def test_unreadable_graph_path_is_reported(store: TaskGraphStore, data_dir: Path) -> None:
    store.path.mkdir(parents=True)  # a folder where the file should be

    with pytest.raises(GraphFileError, match="cannot be read"):
        store.list()
