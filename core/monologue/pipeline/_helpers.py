"""Small helpers of a session: the argument checks of its typed event helpers
(``s.tool_call(...)``...), a function's result made JSON for the completion event, and an
object's keys named in a warning."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["DICT_OR_NONE", "SCALARS", "STR_OR_NONE", "check", "describe_keys", "jsonable"]

SCALARS = (str, int, float, bool, type(None))
STR_OR_NONE = (str, type(None))
DICT_OR_NONE = (dict, type(None))
_RESULT_LIMIT = 2000


def check(helper: str, name: str, value: Any, expected: type, *, optional: bool = False) -> None:
    if (value is None and optional) or isinstance(value, expected):
        return
    raise TypeError(
        f"{helper}(): {name} must be {expected.__name__}"
        f"{' or None' if optional else ''}, not {type(value).__name__}"
    )


def jsonable(value: Any) -> Any:
    """A JSON-safe, bounded rendering of a function's return value for the completion event."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return value if len(value) <= _RESULT_LIMIT else value[:_RESULT_LIMIT] + "…"
    try:
        text = json.dumps(value, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    else:
        if len(text) <= _RESULT_LIMIT:
            return json.loads(text)
    return text if len(text) <= _RESULT_LIMIT else text[:_RESULT_LIMIT] + "…"


def describe_keys(obj: Any, limit: int = 10) -> str:
    """The first ``limit`` keys (of a dict) or attributes (of an object), for a message."""
    if isinstance(obj, dict):
        keys = sorted(map(str, obj))
    elif hasattr(obj, "__dict__"):
        keys = sorted(vars(obj))
    else:
        return "none"
    return ", ".join(keys[:limit]) + (", ..." if len(keys) > limit else "") or "none"
