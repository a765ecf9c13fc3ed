"""What only the PostgreSQL store does: connecting, migrations, choosing it by setting."""

from __future__ import annotations

import logging
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from monologue_runtime import (
    AgentResult,
    AgentRuntime,
    ClaimRules,
    PostgresTaskStore,
    StoreUnavailableError,
    TaskGraphStore,
    open_store,
)
from monologue_runtime.pg_schema import MIGRATIONS
from monologue_runtime.postgres import hide_password
from monologue_runtime.transitions import claimed
from pytest_monologue import PluginSandbox
from pytest_monologue.postgres import ThrowawayPostgres

from monologue.errors import ConfigError
from monologue.settings import load_config


def test_refused_credentials_name_the_url_without_the_password(postgres: ThrowawayPostgres) -> None:
    url = postgres.url_with(password="s3cret-wrong")
    with pytest.raises(StoreUnavailableError) as caught:
        PostgresTaskStore(url)
    message = str(caught.value)
    assert message.startswith("postgresql://monologue:***@/postgres?host=")
    assert "password authentication failed" in message
    assert "s3cret-wrong" not in message and postgres.password not in message


def test_an_unreachable_server_is_a_clear_error() -> None:
    with tempfile.TemporaryDirectory() as nowhere:
        url = f"postgresql://me:hunter2@/db?host={nowhere}&port=5999"
        with pytest.raises(StoreUnavailableError, match=r"me:\*\*\*@/db.*cannot use the database"):
            PostgresTaskStore(url)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:pw@db.example:5432/x", "postgresql://u:***@db.example:5432/x"),
        (
            "postgresql://u@h/x?password=pw&sslmode=require",
            "postgresql://u@h/x?password=***&sslmode=require",
        ),
        ("postgresql://h/x", "postgresql://h/x"),
    ],
)
def test_passwords_are_hidden(url: str, shown: str) -> None:
    assert hide_password(url) == shown


def test_migrations_are_applied_once_and_recorded(postgres: ThrowawayPostgres) -> None:
    url = postgres.schema_url()
    PostgresTaskStore(url).close()
    PostgresTaskStore(url).close()  # a second agent starting finds them applied
    with psycopg.connect(url) as conn:
        versions = [row[0] for row in conn.execute("SELECT version FROM runtime_migrations")]
        indexes = {
            row[0]
            for row in conn.execute(
                "SELECT indexname FROM pg_indexes "
                "WHERE schemaname = current_schema() AND tablename = 'runtime_tasks'"
            )
        }
    assert versions == [version for version, _ in MIGRATIONS]
    # Migration 4: a claim or a report no longer writes an entry for seq.
    assert indexes == {
        "runtime_tasks_pkey",
        "runtime_tasks_ready",
        "runtime_tasks_running",
        "runtime_tasks_waiting",
    }


def test_the_setting_chooses_the_store(
    postgres: ThrowawayPostgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_NO_CONFIG_FILE", "1")
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path))
    assert isinstance(open_store(), TaskGraphStore)
    url = postgres.schema_url()
    monkeypatch.setenv("MONOLOGUE_RUNTIME_STORE", url)
    chosen = open_store(config=load_config())
    assert isinstance(chosen, PostgresTaskStore)
    chosen.create("build", id="t1")
    chosen.close()
    monkeypatch.setenv("MONOLOGUE_RUNTIME_STORE", "mysql://u:pw@h/x")
    with pytest.raises(
        ConfigError,
        match=r"runtime_store = 'mysql://u:\[REDACTED\]@h/x' \(from env MONOLOGUE_RUNTIME_STORE\): "
        r"must be 'file' or a postgresql:// URL",
    ):
        open_store(config=load_config())


def test_a_runtime_on_the_configured_database(
    postgres: ThrowawayPostgres, monologue_plugins: PluginSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = postgres.schema_url()
    PostgresTaskStore(url).create("build", id="t1")
    monkeypatch.setenv("MONOLOGUE_RUNTIME_STORE", url)
    with AgentRuntime("a", "build") as runtime:
        assert isinstance(runtime.store, PostgresTaskStore)
        task = runtime.poll_next_task()
        assert task is not None and task.id == "t1"
        assert "***" in repr(runtime) and postgres.password not in repr(runtime)


def test_a_server_that_stays_away_is_a_clear_error_after_retrying(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with ThrowawayPostgres() as server:
        store = PostgresTaskStore(server.schema_url(), timeout=1, retry_for=2)
        store.create("build", id="t1")
        server.stop()
        started = time.monotonic()
        with caplog.at_level(logging.DEBUG), pytest.raises(StoreUnavailableError) as caught:
            store.list()
        assert 2 <= time.monotonic() - started < 6  # retried for retry_for, then gave up
        assert str(caught.value).startswith("postgresql://monologue:***@/postgres")
        assert server.password not in str(caught.value)
        warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert [r.name for r in warnings] == ["monologue.runtime"]  # one line, not one a try
        assert "lost the database connection" in warnings[0].getMessage()
        assert server.password not in caplog.text
        store.close()


def test_the_claim_statement_does_what_the_python_transition_does(
    postgres: ThrowawayPostgres,
) -> None:
    store = PostgresTaskStore(postgres.schema_url())
    original = store.create("build", id="t1", input={"n": 1}, priority=3)
    now = datetime(2025, 1, 1, 12, 0, 0, 123456, tzinfo=UTC)
    rules = ClaimRules(heartbeat_timeout=60, max_attempts=3)
    change = store.claim("agent-1", "build", rules, now)
    expected = claimed(original, "agent-1", now)
    assert change.task == expected
    assert store.get("t1") == expected
    # The next report is written from the claimed task, guarded by its updated_at.
    done = store.complete("t1", "agent-1", AgentResult(task_id="t1"), now)
    assert done.task is not None and store.get("t1") == done.task
    assert [e.type for e in store.events("t1")] == ["agent_result"]
    store.close()


def test_a_report_writes_what_its_step_changed_and_nothing_the_caller_did(
    postgres: ThrowawayPostgres,
) -> None:
    store = PostgresTaskStore(postgres.schema_url())
    store.create("build", id="t1", input={"n": 1}, metadata={"by": "operator"})
    rules = ClaimRules(heartbeat_timeout=60, max_attempts=3)
    now = datetime(2025, 1, 1, 12, 0, 0, 123456, tzinfo=UTC)
    task = store.claim("agent-1", "build", rules, now).task
    assert task is not None
    task.input["n"] = 999  # the caller's own copy
    task.metadata.clear()
    later = now.replace(second=30)
    beat = store.heartbeat("t1", "agent-1", later, {"message": "halfway"}).task
    assert beat is not None and store.get("t1").heartbeat_at == later
    done = store.complete("t1", "agent-1", AgentResult(task_id="t1", notes="ok"), later)
    assert done.task is not None
    stored = store.get("t1")
    assert (stored.input, stored.metadata) == ({"n": 1}, {"by": "operator"})
    assert (stored.status, stored.owner, stored.attempt) == ("completed", "agent-1", 1)
    assert (stored.heartbeat_at, stored.updated_at) == (None, later)
    assert stored.result == AgentResult(task_id="t1", notes="ok")
    assert [e.type for e in store.events("t1")] == ["agent_update", "agent_result"]
    store.close()


def test_a_completion_wakes_idle_agents_only_when_it_unblocks_work(
    postgres: ThrowawayPostgres,
) -> None:
    url = postgres.schema_url()
    store, waiter = PostgresTaskStore(url), PostgresTaskStore(url)
    store.create("build", id="alone")
    store.create("build", id="needed")
    store.create("test", id="waiting", dependency_ids=["needed"])
    rules = ClaimRules(heartbeat_timeout=60, max_attempts=3)
    now = datetime.now(UTC)
    assert waiter.wait_for_work(0.01) is True  # starts listening
    for task_id, wakes in (("alone", False), ("needed", True)):
        change = store.claim("agent-1", "build", rules, now)
        assert change.task is not None and change.task.id == task_id
        store.complete(task_id, "agent-1", AgentResult(task_id=task_id), now)
        assert waiter.wait_for_work(0.5) is wakes, task_id
    store.close()
    waiter.close()
