from __future__ import annotations

from typing import Any

import pytest
from monologue_runtime import (
    AgentError,
    AgentResult,
    AgentRuntime,
    AgentTask,
    PolicyViolation,
    TaskEvent,
    TaskStatus,
    TaskStore,
    check_internal,
)
from runtime_fixtures import Observer, RuntimeFactory


@pytest.fixture
def claimed(store: TaskStore, make_runtime: RuntimeFactory) -> AgentRuntime:
    store.create("build", id="t1")
    runtime = make_runtime("agent-1")
    assert runtime.poll_next_task() is not None
    return runtime


def _state(store: TaskStore) -> tuple[AgentTask, list[TaskEvent]]:
    return store.get("t1"), store.events()


def _assert_nothing_recorded(
    observer: Observer, store: TaskStore, before: tuple[AgentTask, list[TaskEvent]]
) -> None:
    assert observer.of_type("agent_update", "agent_result") == []
    assert _state(store) == before
    assert store.get("t1").status is TaskStatus.IN_PROGRESS


@pytest.mark.parametrize(
    ("details", "rule", "path"),
    [
        ({"render_to_user": True}, "render_to_user", "render_to_user"),
        (
            {"chart": {"spec": {"render_to_user": "yes"}}},
            "render_to_user",
            "chart.spec.render_to_user",
        ),
        ({"visibility": "user"}, "user_visibility", "visibility"),
        (
            {"blocks": [{"text": "hi"}, {"Visibility": " USER "}]},
            "user_visibility",
            "blocks.1.Visibility",
        ),
    ],
)
def test_update_that_tries_to_reach_the_user_is_refused_and_not_recorded(
    *,
    claimed: AgentRuntime,
    store: TaskStore,
    observer: Observer,
    details: dict[str, Any],
    rule: str,
    path: str,
) -> None:
    before = _state(store)

    with pytest.raises(PolicyViolation) as caught:
        claimed.emit_update("t1", "look at this", details=details)

    violation = caught.value
    assert isinstance(violation, ValueError)
    assert (violation.policy_error.rule, violation.policy_error.path) == (rule, path)
    assert str(violation).startswith(f"agent_update for task 't1': {path} ")
    assert "only the narrator does" in str(violation)
    _assert_nothing_recorded(observer, store, before)


def test_result_that_tries_to_reach_the_user_is_refused_and_not_recorded(
    claimed: AgentRuntime, store: TaskStore, observer: Observer
) -> None:
    before = _state(store)
    result = AgentResult(task_id="t1", artifacts={"report": {"visibility": "user", "text": "Hi!"}})

    with pytest.raises(PolicyViolation) as caught:
        claimed.complete_task("t1", result)
    assert caught.value.policy_error.path == "artifacts.report.visibility"

    with pytest.raises(PolicyViolation) as caught:
        claimed.complete_task("t1", {"task_id": "t1", "render_to_user": 1})
    assert caught.value.policy_error.rule == "render_to_user"  # refused before validation
    _assert_nothing_recorded(observer, store, before)


def test_error_that_tries_to_reach_the_user_is_refused_and_not_recorded(
    claimed: AgentRuntime, store: TaskStore, observer: Observer
) -> None:
    before = _state(store)
    error = AgentError(reason="boom", details={"message": {"render_to_user": True}})

    with pytest.raises(PolicyViolation, match=r"details.message.render_to_user sets"):
        claimed.fail_task("t1", error)
    _assert_nothing_recorded(observer, store, before)


def test_internal_payloads_pass(claimed: AgentRuntime, observer: Observer) -> None:
    event = claimed.emit_update(
        "t1",
        "fine",
        details={"render_to_user": False, "visibility": "internal", "note": "user"},
    )
    assert event.visibility == "internal"
    assert len(observer.of_type("agent_update")) == 1


def test_a_payload_that_contains_itself_is_checked_without_looping() -> None:
    loop: dict[str, Any] = {"items": []}
    loop["items"].append(loop)
    check_internal(loop, "test")

    loop["items"].append({"visibility": "user"})
    with pytest.raises(PolicyViolation) as caught:
        check_internal(loop, "test")
    assert caught.value.policy_error.path == "items.1.visibility"
