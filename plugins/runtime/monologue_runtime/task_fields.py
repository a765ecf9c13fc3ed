"""Validating a new task, or changed fields of one, the same way in every store."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from monologue.events import describe_validation_error, utcnow

from .errors import InvalidTaskError
from .models import AgentTask

__all__ = ["FIXED_FIELDS", "new_task", "updated_task", "validated"]

FIXED_FIELDS = frozenset({"id", "created_at"})


def validated(location: str, values: dict[str, Any], what: str) -> AgentTask:
    try:
        return AgentTask.model_validate(values)
    except ValidationError as exc:
        _, message = describe_validation_error(exc)
        raise InvalidTaskError(location, f"{what}: {message}") from None


def new_task(location: str, type: str, fields: dict[str, Any]) -> AgentTask:
    """A PENDING task of ``type`` from :class:`AgentTask` fields."""
    now = utcnow()
    return validated(
        location, {"created_at": now, "updated_at": now, **fields, "type": type}, "new task"
    )


def updated_task(location: str, current: AgentTask, changes: dict[str, Any]) -> AgentTask:
    """``current`` with ``changes``, validated whole; ``id`` and ``created_at`` are fixed."""
    fixed = sorted(FIXED_FIELDS & changes.keys())
    if fixed:
        raise InvalidTaskError(
            location, f"task {current.id!r}: {', '.join(fixed)} cannot be changed"
        )
    merged = {**current.model_dump(), **changes, "updated_at": utcnow()}
    return validated(location, merged, f"task {current.id!r}")
