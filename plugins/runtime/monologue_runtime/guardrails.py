"""Output guardrails: agents never speak to the user, only the narrator does.

Every event the runtime records is ``internal``. A payload that asks to reach the user (a
truthy ``render_to_user``, or a ``visibility`` of ``user``, at any depth) is refused with
:class:`PolicyViolation` before any event is built or any task changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from monologue.errors import MonologueError

Rule = Literal["render_to_user", "user_visibility"]


class PolicyError(BaseModel):
    """Which rule a payload broke, and where in it."""

    model_config = ConfigDict(frozen=True)

    rule: Rule
    path: str
    """Dotted location in the payload, e.g. ``artifacts.chart.render_to_user``."""
    message: str


class PolicyViolation(MonologueError, ValueError):
    """A payload tried to reach the user; nothing was recorded."""

    def __init__(self, policy_error: PolicyError) -> None:
        super().__init__(policy_error.message)
        self.policy_error = policy_error


def check_internal(payload: Any, where: str) -> None:
    """Raise :class:`PolicyViolation` if ``payload`` tries to reach the user anywhere.

    ``where`` names the payload in the message (``"agent_update for task 'T1'"``).
    """
    found = _route_to_user(payload, set())
    if found is None:
        return
    rule, path = found
    dotted = ".".join(reversed(path))
    asked = "sets render_to_user" if rule == "render_to_user" else "asks for visibility 'user'"
    raise PolicyViolation(
        PolicyError(
            rule=rule,
            path=dotted,
            message=(
                f"{where}: {dotted} {asked}, but agents never address the user: only the "
                "narrator does. Nothing was recorded."
            ),
        )
    )


# Values that hold nothing: most of a payload, skipped without a call (every result is
# checked on the agent's thread).
_LEAVES = (str, int, float, bool, type(None))


def _route_to_user(value: Any, seen: set[int]) -> tuple[Rule, list[str]] | None:
    """The rule ``value`` breaks and where, as the keys from the offending one up."""
    if isinstance(value, BaseModel):
        value = value.model_dump()
    items: Any
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = str(key).strip().lower()
            if name == "render_to_user" and item:
                return "render_to_user", [str(key)]
            if name == "visibility" and _is_user(item):
                return "user_visibility", [str(key)]
        items = value.items()
    elif isinstance(value, list | tuple | set | frozenset):
        items = enumerate(value)
    else:
        return None
    # A payload that contains itself would otherwise recurse forever.
    if id(value) in seen:
        return None
    seen.add(id(value))
    try:
        for key, item in items:
            if isinstance(item, _LEAVES):
                continue
            found = _route_to_user(item, seen)
            if found is not None:
                found[1].append(str(key))
                return found
    finally:
        seen.discard(id(value))
    return None


def _is_user(value: Any) -> bool:
    value = getattr(value, "value", value)  # an enum member counts by its value
    return isinstance(value, str) and value.strip().lower() == "user"
