"""monologue-runtime: a task graph several agents share safely, with lifecycle events and
output guardrails.

Agents take tasks from a :class:`TaskStore`: files in the data folder (:class:`TaskGraphStore`,
the default) or a PostgreSQL database (:class:`PostgresTaskStore`), chosen by the
``runtime_store`` setting (:func:`open_store`). They
report progress and results as ``agent_update`` / ``agent_result`` events through the
monologue pipeline (:class:`AgentRuntime`), and never speak to the user: only the narrator
does (:class:`PolicyViolation`). ``monologue tasks list|add|show`` inspects the graph.

This module is imported whenever ``monologue`` runs, so the public names load lazily
(PEP 562) and the hook below imports the command module only when asked for commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from monologue import hookimpl, lazy_exports

if TYPE_CHECKING:
    from collections.abc import Callable

    import click
    from pydantic import BaseModel

    from .agent import BaseAgent, TaskFailed
    from .errors import (
        GraphFileError,
        GraphLockTimeout,
        InvalidTaskError,
        OwnershipError,
        StoreUnavailableError,
        TaskGraphError,
        UnknownTaskError,
    )
    from .graph import TaskGraph
    from .guardrails import PolicyError, PolicyViolation, check_internal
    from .models import AgentError, AgentResult, AgentTask, TaskStatus
    from .payloads import AgentResultPayload, AgentUpdatePayload
    from .postgres import PostgresTaskStore
    from .runtime import AgentRuntime
    from .storage import Change, ClaimRules, TaskEvent, TaskStore
    from .store import TaskGraphStore
    from .stores import open_store

__all__ = [
    "AgentError",
    "AgentResult",
    "AgentResultPayload",
    "AgentRuntime",
    "AgentTask",
    "AgentUpdatePayload",
    "BaseAgent",
    "Change",
    "ClaimRules",
    "GraphFileError",
    "GraphLockTimeout",
    "InvalidTaskError",
    "OwnershipError",
    "PolicyError",
    "PolicyViolation",
    "PostgresTaskStore",
    "StoreUnavailableError",
    "TaskEvent",
    "TaskFailed",
    "TaskGraph",
    "TaskGraphError",
    "TaskGraphStore",
    "TaskStatus",
    "TaskStore",
    "UnknownTaskError",
    "check_internal",
    "open_store",
]

_LAZY = {
    "AgentError": "models",
    "AgentResult": "models",
    "AgentTask": "models",
    "TaskStatus": "models",
    "AgentResultPayload": "payloads",
    "AgentUpdatePayload": "payloads",
    "AgentRuntime": "runtime",
    "BaseAgent": "agent",
    "TaskFailed": "agent",
    "GraphFileError": "errors",
    "GraphLockTimeout": "errors",
    "InvalidTaskError": "errors",
    "OwnershipError": "errors",
    "TaskGraphError": "errors",
    "UnknownTaskError": "errors",
    "TaskGraph": "graph",
    "PolicyError": "guardrails",
    "PolicyViolation": "guardrails",
    "check_internal": "guardrails",
    "TaskGraphStore": "store",
    "PostgresTaskStore": "postgres",
    "StoreUnavailableError": "errors",
    "Change": "storage",
    "ClaimRules": "storage",
    "TaskEvent": "storage",
    "TaskStore": "storage",
    "open_store": "stores",
}


@hookimpl
def register_settings() -> type[BaseModel]:
    from .settings import RuntimeSettings

    return RuntimeSettings


@hookimpl
def register_event_types(register: Callable[..., None]) -> None:
    from .event_types import AgentResultData, AgentUpdateData

    register("agent_update", AgentUpdateData)
    register("agent_result", AgentResultData)


@hookimpl
def register_commands(cli: click.Group) -> None:
    from .cli import tasks

    cli.add_command(tasks)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
