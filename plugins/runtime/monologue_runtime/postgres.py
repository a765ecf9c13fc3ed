"""``PostgresTaskStore``: the task graph in PostgreSQL, for agents on several machines.

Every step is one transaction: the task row changes and the events that report it are
inserted together, so a process that dies in between leaves neither. Claims take the row
to run first with ``FOR UPDATE SKIP LOCKED``, so concurrent agents never wait on each other
and never take the same task. Whatever makes work claimable (new tasks, a retry, a finished
dependency) sends a ``NOTIFY`` when it commits; idle agents ``LISTEN`` instead of polling.
"""

from __future__ import annotations

import builtins
import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import JsonValue

from monologue.events import utcnow

from .errors import InvalidTaskError, StoreUnavailableError, UnknownTaskError
from .graph import TaskGraph
from .models import AgentError, AgentResult, AgentTask, TaskStatus
from .pg_schema import migrate
from .storage import Change, ClaimRules, TaskEvent
from .task_fields import new_task, updated_task
from .transitions import claimed, completed, failed, held, reclaimed, stale_cutoff, updated

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

__all__ = ["PostgresTaskStore", "hide_password"]

_CONNECT_TIMEOUT_S = 10
_POOL_SIZE = 4
_COLUMNS = (
    "id", "type", "status", "priority", "owner", "dependency_ids", "parent_id",
    "created_at", "updated_at", "heartbeat_at", "doc",
)  # fmt: skip
_INSERT = (
    f"INSERT INTO runtime_tasks ({', '.join(_COLUMNS)}) "
    f"VALUES ({', '.join(['%s'] * len(_COLUMNS))})"
)
_UPSERT = f"{_INSERT} ON CONFLICT (id) DO UPDATE SET " + ", ".join(
    f"{column} = EXCLUDED.{column}" for column in _COLUMNS[1:] if column != "created_at"
)
_READY = """
SELECT t.doc::text FROM runtime_tasks t
WHERE t.status = 'pending' AND t.type = %s
  AND NOT EXISTS (
    SELECT 1 FROM unnest(t.dependency_ids) AS d(id)
    LEFT JOIN runtime_tasks dep ON dep.id = d.id
    WHERE dep.status IS DISTINCT FROM 'completed')
ORDER BY t.priority DESC, t.created_at, t.id
LIMIT 1
FOR UPDATE OF t SKIP LOCKED
"""
_STALE = """
SELECT doc::text FROM runtime_tasks
WHERE status = 'in_progress' AND coalesce(heartbeat_at, updated_at) < %s
FOR UPDATE SKIP LOCKED
"""
_PRUNE = """
WITH gone AS (
  DELETE FROM runtime_tasks t
  WHERE t.status IN ('completed', 'failed') AND t.updated_at < %s
    AND NOT EXISTS (
      SELECT 1 FROM runtime_tasks u
      WHERE u.status NOT IN ('completed', 'failed')
        AND (t.id = ANY(u.dependency_ids) OR u.parent_id = t.id))
  RETURNING t.id, t.doc, t.seq)
INSERT INTO runtime_task_archive (id, archived_at, doc)
SELECT id, %s, doc FROM gone ORDER BY seq
ON CONFLICT (id) DO UPDATE SET archived_at = EXCLUDED.archived_at, doc = EXCLUDED.doc
RETURNING id
"""


def hide_password(url: str) -> str:
    """``url`` with its password (in the authority or a ``password=`` parameter) as ***."""
    parts = urlsplit(url)
    if parts.password is None and "password=" not in parts.query.lower():
        return url  # unsplitting could still change it ("x:///a" -> "x:/a")
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":***"
        netloc = f"{userinfo}@{host}"
    query = re.sub(r"(?i)(password=)[^&]*", r"\1***", parts.query)
    return urlunsplit(parts._replace(netloc=netloc, query=query))


class PostgresTaskStore:
    """The :class:`~monologue_runtime.TaskStore` in the database at ``url``.

    ``url`` is a libpq URL, ``postgresql://user:password@host:5432/dbname``; its
    ``options=-csearch_path=NAME`` parameter puts the tables in schema ``NAME``. Connecting
    (and applying migrations) happens here: a database that cannot be reached, or refuses
    the credentials, raises :class:`StoreUnavailableError` naming the URL without its
    password, here or (server gone) at any later step. ``timeout`` bounds connecting and
    waiting for a pooled connection, in seconds.
    """

    def __init__(
        self, url: str, *, pool_size: int = _POOL_SIZE, timeout: float = _CONNECT_TIMEOUT_S
    ) -> None:
        import psycopg
        from psycopg_pool import ConnectionPool

        self.url = url
        self._location = hide_password(url)
        self._listener: psycopg.Connection[tuple[Any, ...]] | None = None
        self._last_reclaim: datetime | None = None
        try:
            with psycopg.connect(url, connect_timeout=max(1, round(timeout))) as conn:
                migrate(conn)
                schema = conn.execute("SELECT current_schema()").fetchone()
        except psycopg.Error as exc:
            raise self._unavailable(exc) from None
        self.channel = f"monologue_tasks_{schema[0] if schema else 'public'}"
        self._pool: ConnectionPool[psycopg.Connection[tuple[Any, ...]]] = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"connect_timeout": max(1, round(timeout))},
            timeout=timeout,
            open=False,
        )
        self._pool.open(wait=True, timeout=timeout)

    def __repr__(self) -> str:
        return f"<PostgresTaskStore {self._location}>"

    @property
    def location(self) -> str:
        return self._location

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        self._pool.close()

    # -- reads ----------------------------------------------------------------------------

    def get(self, task_id: str) -> AgentTask:
        with self._transaction() as conn:
            return self._row(conn, task_id, lock=False)

    def list(
        self, *, status: TaskStatus | str | None = None, type: str | None = None
    ) -> builtins.list[AgentTask]:
        wanted = TaskStatus(status).value if status is not None else None
        with self._transaction() as conn:
            rows = conn.execute(
                "SELECT doc::text FROM runtime_tasks WHERE (%(s)s::text IS NULL OR status = %(s)s)"
                " AND (%(t)s::text IS NULL OR type = %(t)s) ORDER BY seq",
                {"s": wanted, "t": type},
            ).fetchall()
        return [AgentTask.model_validate_json(row[0]) for row in rows]

    def unmet_dependencies(self, task: AgentTask) -> builtins.list[str]:
        with self._transaction() as conn:
            done = {
                row[0]
                for row in conn.execute(
                    "SELECT id FROM runtime_tasks WHERE id = ANY(%s) AND status = 'completed'",
                    (task.dependency_ids,),
                )
            }
        return [dep for dep in task.dependency_ids if dep not in done]

    def events(self, task_id: str | None = None) -> builtins.list[TaskEvent]:
        with self._transaction() as conn:
            rows = conn.execute(
                "SELECT type, task_id, agent_id, at, data::text FROM runtime_task_events "
                "WHERE %(t)s::text IS NULL OR task_id = %(t)s ORDER BY seq",
                {"t": task_id},
            ).fetchall()
        return [
            TaskEvent(type=kind, task_id=tid, agent_id=aid, at=at, data=json.loads(data))
            for kind, tid, aid, at, data in rows
        ]

    def archived(self) -> builtins.list[AgentTask]:
        with self._transaction() as conn:
            rows = conn.execute(
                "SELECT doc::text FROM runtime_task_archive ORDER BY archived_at, id"
            ).fetchall()
        return [AgentTask.model_validate_json(row[0]) for row in rows]

    def wait_for_work(self, timeout: float) -> bool:
        """Wait for a notification. The first call only starts listening and returns True,
        so that work added just before is not missed: look again, then wait."""
        import psycopg

        if self._listener is None:
            try:
                self._listener = psycopg.connect(
                    self.url, autocommit=True, connect_timeout=_CONNECT_TIMEOUT_S
                )
                self._listener.execute(f'LISTEN "{self.channel}"')
            except psycopg.Error as exc:
                raise self._unavailable(exc) from None
            return True
        for _ in self._listener.notifies(timeout=timeout, stop_after=1):
            return True
        return False

    # -- steps ------------------------------------------------------------------------------

    def add(self, *tasks: AgentTask) -> builtins.list[AgentTask]:
        ids = [task.id for task in tasks]
        links = {link for task in tasks for link in (*task.dependency_ids, task.parent_id) if link}
        with self._transaction() as conn:
            taken = conn.execute(
                "SELECT id FROM runtime_tasks WHERE id = ANY(%s) LIMIT 1", (ids,)
            ).fetchone()
            if taken:
                raise InvalidTaskError(self.location, f"a task with id {taken[0]!r} already exists")
            # FOR SHARE: a task others now depend on cannot be pruned meanwhile.
            known = self._tasks(conn, "WHERE id = ANY(%s) FOR SHARE", (sorted(links),))
            graph = TaskGraph(self.location, {task.id: task for task in known})
            graph.add(tasks)
            self._write(conn, list(tasks), [], sql=_INSERT)
        return builtins.list(tasks)

    def create(self, type: str, **fields: Any) -> AgentTask:
        return self.add(new_task(self.location, type, fields))[0]

    def update(self, task_id: str, **changes: Any) -> AgentTask:
        with self._transaction() as conn:
            task = updated_task(self.location, self._row(conn, task_id, lock=True), changes)
            if {"dependency_ids", "parent_id"} & changes.keys():
                # Two link changes at once could close a cycle neither sees: one at a time.
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.links'))")
                graph = TaskGraph(self.location, {t.id: t for t in self._tasks(conn, "", ())})
                graph.put(task)
                graph.check_links([task_id])
            self._write(conn, [task], [])
        return task

    def claim(self, agent_id: str, agent_type: str, rules: ClaimRules, now: datetime) -> Change:
        with self._transaction() as conn:
            # A claim need not wait for the disk: if the server crashes before flushing it,
            # the claim and any reclaim with it are lost together, and the task is simply
            # PENDING again, as if its agent had died; the agent's result is then refused
            # (OwnershipError) and the task runs again. Results and failures stay durable.
            conn.execute("SET LOCAL synchronous_commit = off")
            taken_back: builtins.list[AgentTask] = []
            events: builtins.list[TaskEvent] = []
            if self._reclaim_due(rules, now):
                taken_back, events = self._reclaim(conn, rules, now, agent_id)
                self._write(conn, taken_back, events)  # first: a reclaimed task may run now
            row = conn.execute(_READY, (agent_type,)).fetchone()
            task = claimed(AgentTask.model_validate_json(row[0]), agent_id, now) if row else None
            if task is not None:
                self._write(conn, [task], [])
        return Change(task=task, reclaimed=taken_back, events=events)

    def heartbeat(
        self, task_id: str, agent_id: str, now: datetime, update: dict[str, JsonValue]
    ) -> Change:
        return self._step(task_id, agent_id, lambda task: updated(task, agent_id, now, update))

    def complete(self, task_id: str, agent_id: str, result: AgentResult, now: datetime) -> Change:
        return self._step(task_id, agent_id, lambda task: completed(task, agent_id, result, now))

    def fail(
        self, task_id: str, agent_id: str, error: AgentError, rules: ClaimRules, now: datetime
    ) -> Change:
        return self._step(task_id, agent_id, lambda task: failed(task, agent_id, error, rules, now))

    def reclaim_stale(self, rules: ClaimRules, now: datetime, by: str) -> Change:
        with self._transaction() as conn:
            tasks, events = self._reclaim(conn, rules, now, by)
            self._write(conn, tasks, events)
        return Change(reclaimed=tasks, events=events)

    def prune(self, older_than: timedelta, now: datetime | None = None) -> builtins.list[str]:
        now = now or utcnow()
        with self._transaction() as conn:
            rows = conn.execute(_PRUNE, (now - older_than, now)).fetchall()
        return [row[0] for row in rows]

    # -- plumbing ---------------------------------------------------------------------------

    @contextmanager
    def _transaction(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            with self._pool.connection() as conn, conn.transaction():
                yield conn
        except (psycopg.OperationalError, PoolTimeout) as exc:
            raise self._unavailable(exc) from None

    def _step(self, task_id: str, agent_id: str, change: Any) -> Change:
        with self._transaction() as conn:
            task, event = change(held(self._row(conn, task_id, lock=True), agent_id, self.location))
            self._write(conn, [task], [event])
        return Change(task=task, events=[event])

    def _reclaim_due(self, rules: ClaimRules, now: datetime) -> bool:
        """Look for stale claims at most ten times per heartbeat timeout: a dead owner's
        task comes back at most 10% later, and a busy agent saves a query per claim."""
        last = self._last_reclaim
        if last is not None and last <= now < last + timedelta(
            seconds=rules.heartbeat_timeout / 10
        ):
            return False
        self._last_reclaim = now
        return True

    def _reclaim(
        self, conn: psycopg.Connection[tuple[Any, ...]], rules: ClaimRules, now: datetime, by: str
    ) -> tuple[builtins.list[AgentTask], builtins.list[TaskEvent]]:
        rows = conn.execute(_STALE, (stale_cutoff(rules, now),)).fetchall()
        pairs = [reclaimed(AgentTask.model_validate_json(row[0]), by, rules, now) for row in rows]
        return [task for task, _ in pairs], [event for _, event in pairs]

    def _row(
        self, conn: psycopg.Connection[tuple[Any, ...]], task_id: str, *, lock: bool
    ) -> AgentTask:
        found = self._tasks(conn, "WHERE id = %s" + (" FOR UPDATE" if lock else ""), (task_id,))
        if not found:
            raise UnknownTaskError(self.location, f"no task {task_id!r}")
        return found[0]

    @staticmethod
    def _tasks(
        conn: psycopg.Connection[tuple[Any, ...]], where: str, params: Sequence[Any]
    ) -> builtins.list[AgentTask]:
        rows = conn.execute(f"SELECT doc::text FROM runtime_tasks {where}", params).fetchall()
        return [AgentTask.model_validate_json(row[0]) for row in rows]

    def _write(
        self,
        conn: psycopg.Connection[tuple[Any, ...]],
        tasks: Sequence[AgentTask],
        events: Sequence[TaskEvent],
        sql: str = _UPSERT,
    ) -> None:
        """Store ``tasks`` and ``events`` in the caller's transaction, and tell listeners
        when it makes work claimable: a task PENDING (new, or back for another attempt), or
        COMPLETED with pending tasks waiting on it. Only then is it worth a NOTIFY, which
        PostgreSQL serialises at commit across the whole server. Sent as one pipeline: one
        round trip for the whole write."""
        pending = any(task.status is TaskStatus.PENDING for task in tasks)
        done = [task.id for task in tasks if task.status is TaskStatus.COMPLETED]
        with conn.pipeline(), conn.cursor() as cur:
            if tasks:
                cur.executemany(sql, [_params(task) for task in tasks])
            if events:
                cur.executemany(
                    "INSERT INTO runtime_task_events (task_id, type, agent_id, at, data) "
                    "VALUES (%s, %s, %s, %s, %s::jsonb)",
                    [(e.task_id, e.type, e.agent_id, e.at, json.dumps(e.data)) for e in events],
                )
            if pending or done:
                cur.execute(
                    "SELECT pg_notify(%(channel)s, '') WHERE %(pending)s OR EXISTS ("
                    "SELECT 1 FROM runtime_tasks "
                    "WHERE status = 'pending' AND dependency_ids && %(done)s::text[])",
                    {"channel": self.channel, "pending": pending, "done": done},
                )

    def _unavailable(self, exc: BaseException) -> StoreUnavailableError:
        message = str(exc).strip() or type(exc).__name__
        password = urlsplit(self.url).password
        if password:
            message = message.replace(password, "***")
        return StoreUnavailableError(self._location, f"cannot use the database: {message}")


def _params(task: AgentTask) -> tuple[Any, ...]:
    return (
        task.id,
        task.type,
        task.status.value,
        task.priority,
        task.owner,
        task.dependency_ids,
        task.parent_id,
        task.created_at,
        task.updated_at,
        task.heartbeat_at,
        task.model_dump_json(),
    )
