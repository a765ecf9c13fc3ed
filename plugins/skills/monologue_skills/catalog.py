"""The skills this plugin runs: the first-party ones and the tools in ``tools_dir``.

The core's registry (``pm.hooks.skills()``) learns them through :func:`register_all`, and
routes their ``execute_skill`` calls here (:func:`execute`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from monologue import Session, SkillCall, SkillResult

from . import settings
from .errors import SkillFailed, StateChangeError
from .speech import NOTIFY_SCHEMA, SPEAK_SCHEMA, notify, speak
from .state import SkillState
from .status import STATUS_SCHEMA, status
from .tools import ExternalTool, discover_tools
from .webhook import WEBHOOK_SCHEMA, webhook

__all__ = ["BUILTINS", "Builtin", "execute", "register_all"]

log = logging.getLogger("monologue.skills")

Handler = Callable[[dict[str, Any], SkillState], Any]


@dataclass(frozen=True)
class Builtin:
    description: str
    parameters: dict[str, Any]
    handler: Handler


BUILTINS: dict[str, Builtin] = {
    "speak": Builtin("Say a sentence aloud (espeak-ng).", SPEAK_SCHEMA, speak),
    "notify": Builtin("Show a desktop notification, else a line on stderr.", NOTIFY_SCHEMA, notify),
    "status": Builtin(
        "Update the status board: current task, files touched, last test outcome.",
        STATUS_SCHEMA,
        status,
    ),
    "webhook": Builtin("POST a narrative to a URL, with retries.", WEBHOOK_SCHEMA, webhook),
}


def _tools() -> dict[str, ExternalTool]:
    found: dict[str, ExternalTool] = {}
    for tool in discover_tools(settings.tools_dir(), settings.limits()):
        if tool.name in BUILTINS or tool.name in found:
            taken = "a first-party skill" if tool.name in BUILTINS else str(found[tool.name].path)
            log.warning("skipping tool %s: the name %r is taken by %s", tool.path, tool.name, taken)
            continue
        found[tool.name] = tool
    return found


def register_all(register: Callable[..., Any]) -> None:
    for name, builtin in BUILTINS.items():
        register(name, description=builtin.description, parameters=builtin.parameters)
    for name, tool in _tools().items():
        description = tool.description.description or f"external tool {tool.path.name}"
        register(name, description=description, parameters=tool.description.parameters)


def execute(session: Session | None, call: SkillCall, state: Any) -> SkillResult | None:
    handle = state if isinstance(state, SkillState) else SkillState(state)
    builtin = BUILTINS.get(call.name)
    if builtin is not None:
        try:
            output = builtin.handler(call.args, handle)
        except (SkillFailed, StateChangeError) as exc:
            return SkillResult(ok=False, error=str(exc))
        return SkillResult(ok=True, output=output)
    tool = _tools().get(call.name)
    if tool is None:
        return None
    result, changes = tool.run(
        call.args,
        state=handle.document,
        action_id=call.id,
        session_id=session.id if session is not None else None,
        limits=settings.limits(),
        cancel=handle.cancel,
    )
    if result.ok and changes:
        try:
            handle.change(changes)
        except StateChangeError as exc:
            return SkillResult(ok=False, error=f"tool {call.name!r}: {exc}")
    return result
