"""``PostgresTaskStore``: the task graph in PostgreSQL, for agents on several machines.

Every step is atomic: the task row changes and the events that report it are written
together, so a process that dies in between leaves neither. A claim is one statement on a
pooled connection, ``UPDATE ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED LIMIT n)
RETURNING ...``, so concurrent agents never wait on each other and never take the same
task. An agent's report on a task it holds (progress, result, failure) is one statement
too, written from the task as this store last stored it and guarded by its ``updated_at``;
when someone changed the task meanwhile, the report falls back to a transaction that locks
and rereads the row. Whatever makes work claimable (new tasks, a retry, a finished
dependency) sends a ``NOTIFY`` when it commits; idle agents ``LISTEN`` instead of polling.
A lost connection (a restart, a failover) is ridden out by :mod:`.pg_retry`.
"""

from __future__ import annotations

import builtins
import itertools
import json
import re
import select
import weakref
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from pydantic import AwareDatetime, JsonValue, TypeAdapter
from pydantic_core import to_json

from monologue.events import utcnow

from .errors import InvalidTaskError, StoreUnavailableError, UnknownTaskError
from .graph import TaskGraph
from .models import AgentError, AgentResult, AgentTask, TaskStatus
from .pg_retry import POOL_NAME_PREFIX, Reconnect, connection_lost
from .pg_schema import migrate
from .storage import Change, ClaimRules, TaskEvent
from .task_fields import new_task, updated_task
from .transitions import completed, failed, held, reclaimed, released, stale_cutoff, updated

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

    Connection = psycopg.Connection[tuple[Any, ...]]
    Cursor = psycopg.Cursor[tuple[Any, ...]]

__all__ = ["DEFAULT_RETRY_FOR_S", "PostgresTaskStore", "hide_password"]

T = TypeVar("T")

DEFAULT_RETRY_FOR_S = 60.0
_CONNECT_TIMEOUT_S = 10
_POOL_SIZE = 4
_HELD_CACHE = 1024
_pool_numbers = itertools.count(1)
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
# transitions.claimed(), done by the server on the rows it picks: taking tasks is one round
# trip. The set_config (an InitPlan, run once) makes this statement's commit skip waiting
# for the server's disk; see claim_batch().
_CLAIM = """
UPDATE runtime_tasks AS t
SET status = 'in_progress', owner = %(agent)s, heartbeat_at = %(now)s, updated_at = %(now)s,
    doc = t.doc || jsonb_build_object(
        'status', 'in_progress', 'owner', %(agent)s::text,
        'attempt', (t.doc ->> 'attempt')::int + 1,
        'heartbeat_at', %(stamp)s::text, 'updated_at', %(stamp)s::text)
WHERE t.id = ANY(ARRAY(
    SELECT c.id FROM runtime_tasks c
    WHERE c.status = 'pending' AND c.type = %(type)s
      AND NOT EXISTS (
        SELECT 1 FROM unnest(c.dependency_ids) AS d(id)
        LEFT JOIN runtime_tasks dep ON dep.id = d.id
        WHERE dep.status IS DISTINCT FROM 'completed')
    ORDER BY c.priority DESC, c.created_at, c.id
    LIMIT %(limit)s
    FOR UPDATE OF c SKIP LOCKED))
  AND (SELECT set_config('synchronous_commit', 'off', true)) = 'off'
RETURNING t.doc::text
"""
# An agent's report on a task it holds: the row changes only if it is still as this store
# wrote it (owner, status, updated_at), and then only in the fields the step changes (the
# rest of doc is as this store knows it), the event is logged with it, and idle agents are
# told when the report makes work claimable: pending tasks wait on it, looked for only
# when some task ever depended on it (waited_on). One row back when it was written.
_REPORT = """
WITH up AS (
  UPDATE runtime_tasks
  SET status = %(status)s, owner = %(owner)s, updated_at = %(updated_at)s,
      heartbeat_at = %(heartbeat_at)s, doc = doc || %(changed)s::jsonb
  WHERE id = %(id)s AND status = 'in_progress' AND owner = %(agent)s
    AND updated_at = %(version)s
  RETURNING id, waited_on),
logged AS (
  INSERT INTO runtime_task_events (task_id, type, agent_id, at, data)
  SELECT id, %(event_type)s, %(agent)s, %(at)s, %(data)s::jsonb FROM up)
SELECT CASE WHEN %(pending)s OR (%(done)s AND up.waited_on AND EXISTS (
    SELECT 1 FROM runtime_tasks w
    WHERE w.status = 'pending' AND w.dependency_ids && ARRAY[%(id)s::text]))
  THEN (SELECT 1 FROM pg_notify(%(channel)s, '')) END
FROM up
"""
_NOTIFY = (
    "SELECT pg_notify(%(channel)s, '') WHERE %(pending)s OR EXISTS ("
    "SELECT 1 FROM runtime_tasks "
    "WHERE status = 'pending' AND dependency_ids && %(done)s::text[])"
)
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
_STAMP: TypeAdapter[datetime] = TypeAdapter(AwareDatetime)
# Among claimed tasks, the one to run first comes first (RETURNING has no order).
_RUN_ORDER = attrgetter("created_at", "id")


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
    password. Afterwards a lost connection is retried (see :mod:`.pg_retry`) for
    ``retry_for`` seconds before a step raises :class:`StoreUnavailableError`. ``timeout``
    bounds connecting and waiting for a pooled connection, in seconds.
    """

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = _POOL_SIZE,
        timeout: float = _CONNECT_TIMEOUT_S,
        retry_for: float = DEFAULT_RETRY_FOR_S,
    ) -> None:
        import psycopg
        from psycopg_pool import ConnectionPool

        self.url = url
        self.timeout = timeout
        self._location = hide_password(url)
        self._reconnect = Reconnect(self._location, retry_for)
        self._listener: Connection | None = None
        self._last_reclaim: datetime | None = None
        # The tasks this store claimed or last reported on, as stored (the very objects it
        # returned: a report writes only the fields its step changes, so whatever a caller
        # does to a task's contents stays the caller's): the next report is written from
        # them in one statement. Bounded; a task not here takes the locking path.
        self._held: dict[str, AgentTask] = {}
        self._cursors: weakref.WeakKeyDictionary[Connection, Cursor] = weakref.WeakKeyDictionary()
        try:
            with psycopg.connect(url, connect_timeout=max(1, round(timeout))) as conn:
                migrate(conn)
                schema = conn.execute("SELECT current_schema()").fetchone()
        except psycopg.Error as exc:
            raise self._unavailable(exc) from None
        self.channel = f"monologue_tasks_{schema[0] if schema else 'public'}"
        self._pool: ConnectionPool[Connection] = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"connect_timeout": max(1, round(timeout)), "autocommit": True},
            timeout=timeout,
            check=self._check,
            name=f"{POOL_NAME_PREFIX}-{next(_pool_numbers)}",
            open=False,
        )
        self._pool.open(wait=True, timeout=timeout)

    def __repr__(self) -> str:
        return f"<PostgresTaskStore {self._location}>"

    @property
    def location(self) -> str:
        return self._location

    def close(self) -> None:
        self._drop_listener()
        self._pool.close()

    # -- reads ----------------------------------------------------------------------------

    def get(self, task_id: str) -> AgentTask:
        return self._run(lambda conn: self._row(conn, task_id, lock=False), transaction=False)

    def list(
        self, *, status: TaskStatus | str | None = None, type: str | None = None
    ) -> builtins.list[AgentTask]:
        wanted = TaskStatus(status).value if status is not None else None
        return self._run(
            lambda conn: self._tasks(
                conn,
                "WHERE (%(s)s::text IS NULL OR status = %(s)s)"
                " AND (%(t)s::text IS NULL OR type = %(t)s) ORDER BY seq",
                {"s": wanted, "t": type},
            ),
            transaction=False,
        )

    def unmet_dependencies(self, task: AgentTask) -> builtins.list[str]:
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT id FROM runtime_tasks WHERE id = ANY(%s) AND status = 'completed'",
                (task.dependency_ids,),
            ).fetchall(),
            transaction=False,
        )
        done = {row[0] for row in rows}
        return [dep for dep in task.dependency_ids if dep not in done]

    def events(self, task_id: str | None = None) -> builtins.list[TaskEvent]:
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT type, task_id, agent_id, at, data::text FROM runtime_task_events "
                "WHERE %(t)s::text IS NULL OR task_id = %(t)s ORDER BY seq",
                {"t": task_id},
            ).fetchall(),
            transaction=False,
        )
        return [
            TaskEvent(type=kind, task_id=tid, agent_id=aid, at=at, data=json.loads(data))
            for kind, tid, aid, at, data in rows
        ]

    def archived(self) -> builtins.list[AgentTask]:
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT doc::text FROM runtime_task_archive ORDER BY archived_at, id"
            ).fetchall(),
            transaction=False,
        )
        return [AgentTask.model_validate_json(row[0]) for row in rows]

    def wait_for_work(self, timeout: float) -> bool:
        """Wait for a notification. The first call only starts listening and returns True,
        so that work added just before is not missed: look again, then wait. A listening
        connection lost meanwhile returns True as well (work may have come while it was
        down), and the next call listens again."""
        import psycopg

        if self._listener is None:
            try:
                self._listener = self._reconnect.run(self._listen)
            except psycopg.Error as exc:
                raise self._unavailable(exc) from None
            return True
        try:
            for _ in self._listener.notifies(timeout=timeout, stop_after=1):
                return True
        except psycopg.Error as exc:
            self._drop_listener()
            if not connection_lost(exc):
                raise self._unavailable(exc) from None
            self._reconnect.lost(exc)
            return True
        return False

    # -- steps ------------------------------------------------------------------------------

    def add(self, *tasks: AgentTask) -> builtins.list[AgentTask]:
        ids = [task.id for task in tasks]
        links = {link for task in tasks for link in (*task.dependency_ids, task.parent_id) if link}
        tries = itertools.count()

        def add(conn: Connection) -> None:
            taken = self._tasks(conn, "WHERE id = ANY(%s)", (ids,))
            if next(tries) and _same(taken, tasks):
                return  # the first try committed; its answer was lost with the connection
            if taken:
                raise InvalidTaskError(
                    self.location, f"a task with id {taken[0].id!r} already exists"
                )
            # FOR SHARE: a task others now depend on cannot be pruned meanwhile.
            known = self._tasks(conn, "WHERE id = ANY(%s) FOR SHARE", (sorted(links),))
            graph = TaskGraph(self.location, {task.id: task for task in known})
            graph.add(tasks)
            self._write(conn, list(tasks), [], sql=_INSERT)
            self._waited_on(conn, [dep for task in tasks for dep in task.dependency_ids])

        self._run(add)
        return builtins.list(tasks)

    def create(self, type: str, **fields: Any) -> AgentTask:
        return self.add(new_task(self.location, type, fields))[0]

    def update(self, task_id: str, **changes: Any) -> AgentTask:
        def update(conn: Connection) -> AgentTask:
            task = updated_task(self.location, self._row(conn, task_id, lock=True), changes)
            if {"dependency_ids", "parent_id"} & changes.keys():
                # Two link changes at once could close a cycle neither sees: one at a time.
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.links'))")
                graph = TaskGraph(self.location, {t.id: t for t in self._tasks(conn, "", ())})
                graph.put(task)
                graph.check_links([task_id])
            self._write(conn, [task], [])
            self._waited_on(conn, task.dependency_ids)
            return task

        return self._run(update)

    def claim(self, agent_id: str, agent_type: str, rules: ClaimRules, now: datetime) -> Change:
        changes = self.claim_batch(agent_id, agent_type, rules, now, 1)
        return changes[0] if changes else Change()

    def claim_batch(
        self, agent_id: str, agent_type: str, rules: ClaimRules, now: datetime, limit: int
    ) -> builtins.list[Change]:
        """Claim up to ``limit`` ready tasks of ``agent_type`` at once, in one statement;
        one :class:`Change` per task, the first to run first. Reclaimed tasks, if any, come
        in the first change (or a change with no task, when nothing was claimed).

        Claims commit without waiting for the server's disk: if the server crashes before
        flushing one, the claim (and any reclaim before it) is lost whole, the task is
        PENDING again as if its agent had died, and that agent's report on it is refused
        (:class:`OwnershipError`), so the task runs again. A claim whose answer is lost
        with the connection is held by nobody alive: the heartbeat timeout takes it back.
        """
        taken_back: builtins.list[AgentTask] = []
        events: builtins.list[TaskEvent] = []
        if self._reclaim_due(rules, now):
            change = self.reclaim_stale(rules, now, agent_id)
            taken_back, events = change.reclaimed, change.events
        params = {
            "agent": agent_id,
            "type": agent_type,
            "now": now,
            "stamp": _STAMP.dump_python(now.astimezone(UTC), mode="json"),
            "limit": limit,
        }
        rows = self._run(
            lambda conn: self._cursor(conn).execute(_CLAIM, params, prepare=True).fetchall(),
            transaction=False,
        )
        tasks = []
        for (doc,) in rows:
            tasks.append(AgentTask.model_validate_json(doc))
            self._remember(tasks[-1])
        tasks.sort(key=_RUN_ORDER)
        tasks.sort(key=attrgetter("priority"), reverse=True)
        if not tasks:
            return [Change(reclaimed=taken_back, events=events)] if taken_back else []
        first = Change(task=tasks[0], reclaimed=taken_back, events=events)
        return [first, *(Change(task=task) for task in tasks[1:])]

    def release(
        self, task_ids: builtins.list[str], agent_id: str, now: datetime
    ) -> builtins.list[AgentTask]:
        def release(conn: Connection) -> builtins.list[AgentTask]:
            mine = self._tasks(
                conn,
                "WHERE id = ANY(%s) AND status = 'in_progress' AND owner = %s FOR UPDATE",
                (task_ids, agent_id),
            )
            order = {task_id: n for n, task_id in enumerate(task_ids)}
            tasks = [released(task, now) for task in sorted(mine, key=lambda t: order[t.id])]
            self._write(conn, tasks, [])
            return tasks

        for task_id in task_ids:
            self._held.pop(task_id, None)
        return self._run(release)

    def heartbeat(
        self, task_id: str, agent_id: str, now: datetime, update: dict[str, JsonValue]
    ) -> Change:
        return self._report(task_id, agent_id, lambda task: updated(task, agent_id, now, update))

    def complete(self, task_id: str, agent_id: str, result: AgentResult, now: datetime) -> Change:
        return self._report(task_id, agent_id, lambda task: completed(task, agent_id, result, now))

    def fail(
        self, task_id: str, agent_id: str, error: AgentError, rules: ClaimRules, now: datetime
    ) -> Change:
        return self._report(
            task_id, agent_id, lambda task: failed(task, agent_id, error, rules, now)
        )

    def reclaim_stale(self, rules: ClaimRules, now: datetime, by: str) -> Change:
        def reclaim(conn: Connection) -> Change:
            rows = conn.execute(_STALE, (stale_cutoff(rules, now),)).fetchall()
            pairs = [
                reclaimed(AgentTask.model_validate_json(row[0]), by, rules, now) for row in rows
            ]
            tasks, events = [task for task, _ in pairs], [event for _, event in pairs]
            self._write(conn, tasks, events)
            return Change(reclaimed=tasks, events=events)

        return self._run(reclaim)

    def prune(self, older_than: timedelta, now: datetime | None = None) -> builtins.list[str]:
        now = now or utcnow()
        rows = self._run(lambda conn: conn.execute(_PRUNE, (now - older_than, now)).fetchall())
        return [row[0] for row in rows]

    # -- plumbing ---------------------------------------------------------------------------

    def _run(self, work: Callable[[Connection], T], *, transaction: bool = True) -> T:
        """``work(conn)`` on a pooled connection (in a transaction unless told otherwise),
        run again on a new connection while the connection is lost."""
        import psycopg

        pool = self._pool

        def once() -> T:
            # getconn/putconn rather than pool.connection(): the same, less the context
            # managers' calls, on a path taken twice per task (a broken connection is
            # still discarded, and replaced, when it is put back).
            conn = pool.getconn()
            try:
                if not transaction:
                    return work(conn)
                with conn.transaction():
                    return work(conn)
            finally:
                pool.putconn(conn)

        try:
            return self._reconnect.run(once)
        except psycopg.OperationalError as exc:
            raise self._unavailable(exc) from None
        except Exception as exc:
            if connection_lost(exc):  # the pool's own timeout
                raise self._unavailable(exc) from None
            raise

    def _check(self, conn: Connection) -> None:
        """A connection the server closed, found before use, is an outage too (the pool
        replaces the connection, waiting for the server if it is still away)."""
        try:
            _check_connection(conn)
        except Exception as exc:
            if connection_lost(exc):
                self._reconnect.lost(exc)
            raise

    def _report(
        self,
        task_id: str,
        agent_id: str,
        change: Callable[[AgentTask], tuple[AgentTask, TaskEvent]],
    ) -> Change:
        """A report on a held task: one statement from the task as this store last wrote
        it; else (someone changed it meanwhile, or this store never had it) a transaction
        that locks the row and decides from it."""
        known = self._held.get(task_id)
        mine = None if known is None or known.owner != agent_id else change(known)

        def report(conn: Connection) -> Change:
            if mine is not None and self._write_report(conn, *mine, version=known):
                return Change(task=mine[0], events=[mine[1]])
            with conn.transaction():
                current = self._row(conn, task_id, lock=True)
                if mine is not None and _step(current) == _step(mine[0]):
                    # The statement committed before the connection was lost with its answer.
                    return Change(task=mine[0], events=[mine[1]])
                task, event = change(held(current, agent_id, self.location))
                self._write(conn, [task], [event])
                return Change(task=task, events=[event])

        try:
            done = self._run(report, transaction=False)
        except BaseException:
            self._held.pop(task_id, None)
            raise
        assert done.task is not None
        self._remember(done.task)
        return done

    def _write_report(
        self, conn: Connection, task: AgentTask, event: TaskEvent, *, version: AgentTask | None
    ) -> bool:
        assert version is not None
        cursor = self._cursor(conn)
        row = cursor.execute(
            _REPORT,
            {
                "id": task.id,
                "agent": event.agent_id,
                "version": version.updated_at,
                "status": task.status.value,
                "owner": task.owner,
                "updated_at": task.updated_at,
                "heartbeat_at": task.heartbeat_at,
                "changed": _changed(version, task),
                "event_type": event.type,
                "at": event.at,
                "data": to_json(event.data).decode(),
                "pending": task.status is TaskStatus.PENDING,
                "done": task.status is TaskStatus.COMPLETED,
                "channel": self.channel,
            },
            prepare=True,
        ).fetchone()
        return row is not None

    def _remember(self, task: AgentTask) -> None:
        """Keep a task this agent still holds, as stored."""
        if task.status is not TaskStatus.IN_PROGRESS:
            self._held.pop(task.id, None)
            return
        self._held[task.id] = task
        if len(self._held) > _HELD_CACHE:
            del self._held[next(iter(self._held))]

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

    def _cursor(self, conn: Connection) -> Cursor:
        """The connection's cursor for the statements run once or twice per task (a new
        cursor costs a third of such a statement's CPU). A pooled connection serves one
        caller at a time, and so does its cursor."""
        cursor = self._cursors.get(conn)
        if cursor is None or cursor.closed:
            cursor = self._cursors[conn] = conn.cursor()
        return cursor

    def _listen(self) -> Connection:
        import psycopg

        conn = psycopg.connect(
            self.url, autocommit=True, connect_timeout=max(1, round(self.timeout))
        )
        try:
            conn.execute(f'LISTEN "{self.channel}"')
        except BaseException:
            conn.close()
            raise
        return conn

    def _drop_listener(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def _row(self, conn: Connection, task_id: str, *, lock: bool) -> AgentTask:
        found = self._tasks(conn, "WHERE id = %s" + (" FOR UPDATE" if lock else ""), (task_id,))
        if not found:
            raise UnknownTaskError(self.location, f"no task {task_id!r}")
        return found[0]

    @staticmethod
    def _tasks(conn: Connection, where: str, params: Any) -> builtins.list[AgentTask]:
        rows = conn.execute(f"SELECT doc::text FROM runtime_tasks {where}", params).fetchall()
        return [AgentTask.model_validate_json(row[0]) for row in rows]

    def _write(
        self,
        conn: Connection,
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
                    [
                        (e.task_id, e.type, e.agent_id, e.at, to_json(e.data).decode())
                        for e in events
                    ],
                )
            if pending or done:
                cur.execute(_NOTIFY, {"channel": self.channel, "pending": pending, "done": done})

    @staticmethod
    def _waited_on(conn: Connection, task_ids: Sequence[str]) -> None:
        """Mark tasks others depend on: completing one may unblock work (see _REPORT)."""
        if task_ids:
            conn.execute(
                "UPDATE runtime_tasks SET waited_on = true WHERE id = ANY(%s) AND NOT waited_on",
                (sorted(set(task_ids)),),
            )

    def _unavailable(self, exc: BaseException) -> StoreUnavailableError:
        message = " ".join(str(exc).split()) or type(exc).__name__
        password = urlsplit(self.url).password
        if password:
            message = message.replace(password, "***")
        return StoreUnavailableError(self._location, f"cannot use the database: {message}")


def _check_connection(conn: Connection) -> None:
    """The pool's check before lending a connection, without a round trip in the common
    case: an idle connection has nothing to read unless the server spoke first, which for
    a pooled connection means it is closing it (a restart, a failover, an administrator).
    Only then is the connection asked, with psycopg_pool's own check."""
    import psycopg
    from psycopg_pool import ConnectionPool

    if conn.closed:
        raise psycopg.OperationalError("the connection is closed")
    readable, _, _ = select.select([conn.fileno()], [], [], 0)
    if readable:
        ConnectionPool.check_connection(conn)


def _changed(before: AgentTask, after: AgentTask) -> str:
    """The fields a step changed, as a JSON object: a transition copies the task with an
    update, so a field it left alone is the very same object."""
    old = before.__dict__
    changed = {name for name, value in after.__dict__.items() if value is not old[name]}
    return after.model_dump_json(include=changed)


def _step(task: AgentTask) -> tuple[object, ...]:
    """What a report writes besides the result, the error and the event: enough to tell a
    report that committed (before its answer was lost) from another change."""
    return task.status, task.owner, task.attempt, task.updated_at, task.heartbeat_at


def _same(stored: Sequence[AgentTask], tasks: Sequence[AgentTask]) -> bool:
    return sorted(stored, key=attrgetter("id")) == sorted(tasks, key=attrgetter("id"))


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
