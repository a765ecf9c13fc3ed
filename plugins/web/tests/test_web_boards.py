"""The task graph and status board panels, read from the real runtime and skills plugins."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from monologue_runtime import AgentTask, TaskGraphStore
from monologue_skills.state import StateStore
from web_fixtures import Server

from monologue.events import RecordingHeader


@pytest.fixture
def task_session(record_dir: Path) -> str:
    header = RecordingHeader(
        session_id="TASKED", agent="coder", started_at="2026-11-21T22:48:17Z", task_id="T2"
    )
    (record_dir / "TASKED.jsonl").write_text(header.to_json() + "\n")
    return "TASKED"


@pytest.fixture
def graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TaskGraphStore:
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "data"))
    store = TaskGraphStore(tmp_path / "data")
    store.add(
        AgentTask(id="T1", type="explore"), AgentTask(id="T2", type="fix", dependency_ids=["T1"])
    )
    store.update("T1", status="completed")
    return store


@pytest.fixture
def board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    path = tmp_path / "state.json"
    monkeypatch.setenv("MONOLOGUE_STATE_FILE", str(path))
    value = {"task": "fix the retry limit", "files_touched": ["src/retry.py"]}
    StateStore(path).apply(
        [{"op": "add", "path": "/status", "value": value}], skill="status", action_id="a1"
    )
    return value


def test_the_boards_show_the_task_graph_and_the_status_board(
    serve: Callable[..., Server], task_session: str, graph: TaskGraphStore, board: dict[str, Any]
) -> None:
    boards = httpx.get(serve().url(f"/api/sessions/{task_session}/boards")).json()
    rows = {row["id"]: row for row in boards["tasks"]}
    assert rows["T1"]["status"] == "completed" and not rows["T1"]["current"]
    assert rows["T2"] == {
        "id": "T2",
        "type": "fix",
        "status": "pending",
        "owner": None,
        "depends_on": ["T1"],
        "current": True,
    }
    assert boards["tasks"][0]["id"] == "T2"
    assert boards["status"] == board


def test_without_the_plugins_or_their_data_there_are_no_boards(
    serve: Callable[..., Server],
    task_session: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "empty"))
    server = serve()
    url = server.url(f"/api/sessions/{task_session}/boards")
    expected = {"tasks": None, "tasks_problem": None, "status": None}
    assert httpx.get(url).json() == expected
    monkeypatch.setitem(sys.modules, "monologue_runtime", None)
    monkeypatch.setitem(sys.modules, "monologue_skills.state", None)
    assert httpx.get(url).json() == expected


def test_an_unreadable_task_store_is_said_on_the_page(
    serve: Callable[..., Server], task_session: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_RUNTIME_STORE", "sqlite:///nowhere")
    boards = httpx.get(serve().url(f"/api/sessions/{task_session}/boards")).json()
    assert boards["tasks"] is None
    assert boards["tasks_problem"].startswith("the task graph cannot be read: ")
    assert "runtime_store" in boards["tasks_problem"]


def test_the_page_shows_both_panels(
    page: Any,
    serve: Callable[..., Server],
    task_session: str,
    graph: TaskGraphStore,
    board: dict[str, Any],
) -> None:
    server = serve()
    page.goto(server.url(f"/?session={task_session}"))
    page.locator("#boards:not([hidden])").wait_for()
    assert page.locator("#tasks li.current .kind").text_content() == "fix"
    assert page.locator('#tasks li[data-id="T1"] .task-state').text_content() == "completed"
    assert page.locator("#status dt").all_text_contents() == ["task", "files_touched"]
    assert page.locator("#status dd").first.text_content() == "fix the retry limit"


def test_a_damaged_state_file_hides_the_board_with_a_warning(
    serve: Callable[..., Server],
    task_session: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = tmp_path / "state.json"
    path.write_text("{not json")
    monkeypatch.setenv("MONOLOGUE_STATE_FILE", str(path))
    with caplog.at_level(logging.WARNING, "monologue.web"):
        boards = httpx.get(serve().url(f"/api/sessions/{task_session}/boards")).json()
    assert boards["status"] is None
    assert "the status board cannot be read" in caplog.text
