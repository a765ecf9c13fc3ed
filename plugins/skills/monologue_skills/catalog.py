"""The skills this plugin runs: the tools in ``tools_dir``.

The core's registry (``pm.hooks.skills()``) learns them through :func:`register_all`, and
routes their ``execute_skill`` calls here (:func:`execute`). The first-party skills (speak,
notify, status, webhook) are distributions of their own, built on
:class:`monologue_skills.builtin.SkillPlugin`; a tool named like one of them is reported by
the core's registry as a duplicate.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from monologue import MonologueConfig, Session, SkillCall, SkillResult

from . import settings
from .errors import StateChangeError
from .state import SkillState
from .tools import ExternalTool, discover_tools

__all__ = ["execute", "register_all"]

log = logging.getLogger("monologue.skills")


def _tools(config: MonologueConfig | None = None) -> dict[str, ExternalTool]:
    """The tools of ``config``'s ``tools_dir`` (default: the current session's, see
    :func:`settings.settings`)."""
    found: dict[str, ExternalTool] = {}
    for tool in discover_tools(settings.tools_dir(config), settings.limits(config)):
        if tool.name in found:
            log.warning(
                "skipping tool %s: the name %r is taken by %s",
                tool.path,
                tool.name,
                found[tool.name].path,
            )
            continue
        found[tool.name] = tool
    return found


def register_all(register: Callable[..., Any]) -> None:
    for name, tool in _tools().items():
        description = tool.description.description or f"external tool {tool.path.name}"
        register(name, description=description, parameters=tool.description.parameters)


def execute(session: Session | None, call: SkillCall, state: Any) -> SkillResult | None:
    config = session.config if session is not None else None
    tool = _tools(config).get(call.name)
    if tool is None:
        return None
    handle = state if isinstance(state, SkillState) else SkillState(state)
    result, changes = tool.run(
        call.args,
        state=handle.document,
        action_id=call.id,
        session_id=session.id if session is not None else None,
        limits=settings.limits(config),
        cancel=handle.cancel,
    )
    if result.ok and changes:
        try:
            handle.change(changes)
        except StateChangeError as exc:
            return SkillResult(ok=False, error=f"tool {call.name!r}: {exc}")
    return result
