"""The PostgreSQL store's schema, as numbered migrations applied once, in order, on first use.

Tables live in the connection's current schema (``search_path``), so one database can hold
several graphs. Never edit a released migration: add the next number.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import psycopg

__all__ = ["MIGRATIONS", "migrate"]

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        """
        CREATE TABLE runtime_tasks (
            seq bigserial UNIQUE,
            id text PRIMARY KEY,
            type text NOT NULL,
            status text NOT NULL,
            priority integer NOT NULL,
            owner text,
            dependency_ids text[] NOT NULL,
            parent_id text,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            heartbeat_at timestamptz,
            doc jsonb NOT NULL
        );
        CREATE INDEX runtime_tasks_ready ON runtime_tasks (type, priority DESC, created_at, id)
            WHERE status = 'pending';
        CREATE INDEX runtime_tasks_running ON runtime_tasks (coalesce(heartbeat_at, updated_at))
            WHERE status = 'in_progress';
        CREATE TABLE runtime_task_events (
            seq bigserial PRIMARY KEY,
            task_id text NOT NULL,
            type text NOT NULL,
            agent_id text NOT NULL,
            at timestamptz NOT NULL,
            data jsonb NOT NULL
        );
        CREATE INDEX runtime_task_events_task ON runtime_task_events (task_id, seq);
        CREATE TABLE runtime_task_archive (
            id text PRIMARY KEY,
            archived_at timestamptz NOT NULL,
            doc jsonb NOT NULL
        );
        """,
    ),
    (
        2,
        # Which pending tasks wait on a task, found without a scan: a completion notifies
        # idle agents only when it unblocks something (every NOTIFY serialises commits).
        """
        CREATE INDEX runtime_tasks_waiting ON runtime_tasks USING gin (dependency_ids)
            WHERE status = 'pending';
        """,
    ),
    (
        3,
        # Whether any task ever depended on this one: a completion looks for the pending
        # tasks it unblocks only then, instead of scanning them for every completion.
        """
        ALTER TABLE runtime_tasks ADD COLUMN waited_on boolean NOT NULL DEFAULT false;
        UPDATE runtime_tasks t SET waited_on = true
        WHERE EXISTS (SELECT 1 FROM runtime_tasks u WHERE t.id = ANY(u.dependency_ids));
        """,
    ),
    (
        4,
        # The order tasks were added in (seq) is only ever sorted on, never looked up, and
        # its unique index took an entry at every claim and every report (an update that
        # changes the status writes every index of the row again).
        """
        ALTER TABLE runtime_tasks DROP CONSTRAINT runtime_tasks_seq_key;
        """,
    ),
)

_LEDGER = """
CREATE TABLE IF NOT EXISTS runtime_migrations (
    version integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
)
"""


def migrate(conn: psycopg.Connection[tuple[object, ...]]) -> list[int]:
    """Apply the migrations this schema lacks, under a lock so that agents starting at
    once do not race; returns the versions applied."""
    with conn.transaction():
        conn.execute(
            "SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.monologue_runtime'))"
        )
        conn.execute(_LEDGER)
        done = {row[0] for row in conn.execute("SELECT version FROM runtime_migrations")}
        applied = []
        for version, sql in MIGRATIONS:
            if version in done:
                continue
            conn.execute(sql)
            conn.execute("INSERT INTO runtime_migrations (version) VALUES (%s)", (version,))
            applied.append(version)
    return applied
