"""One skill as a plugin: what monologue-speak, -notify, -status and -webhook are made of.

A distribution that brings one skill makes a :class:`SkillPlugin` and exposes its hooks at
module level; the handler is named by a ``module:function`` string and imported only when
the skill runs, so ``monologue --help`` does not pay for it::

    _SKILL = SkillPlugin("status", "Update the board.", SCHEMA, "monologue_status.board:status")
    register_hookspecs = _SKILL.register_hookspecs
    register_skills = _SKILL.register_skills
    execute_skill = _SKILL.execute_skill

``register_skills`` is monologue-skills' own hook; such a distribution depends on
monologue-skills and declares the hook itself too, so that it loads (and its skill is
registered) even where monologue-skills is installed but not loaded.

The handler gets the parameters and a :class:`~monologue_skills.state.SkillState`, returns
the action's output, and raises :class:`~monologue_skills.errors.SkillFailed` to fail it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from monologue import hookimpl

if TYPE_CHECKING:
    from monologue import Session, SkillCall, SkillResult
    from monologue.plugins import MonologuePluginManager

__all__ = ["SkillPlugin"]


class SkillPlugin:
    """The ``register_hookspecs``, ``register_skills`` and ``execute_skill`` hooks of a plugin
    with one skill."""

    def __init__(
        self, name: str, description: str, parameters: dict[str, Any], handler: str
    ) -> None:
        self.name = name
        self.description = description
        self.parameters = parameters
        self._handler = handler

    @hookimpl
    def register_hookspecs(self, pm: MonologuePluginManager) -> None:
        from . import hookspecs

        pm.add_hookspecs(hookspecs)  # once per manager, whoever adds it first

    @hookimpl
    def register_skills(self, register: Callable[..., Any]) -> None:
        register(self.name, description=self.description, parameters=self.parameters)

    @hookimpl
    def execute_skill(
        self, session: Session | None, call: SkillCall, state: Any
    ) -> SkillResult | None:
        if call.name != self.name:
            return None
        from monologue import SkillResult

        from .errors import SkillFailed, StateChangeError
        from .state import SkillState

        module, _, function = self._handler.partition(":")
        handler = getattr(importlib.import_module(module), function)
        handle = state if isinstance(state, SkillState) else SkillState(state)
        try:
            output = handler(call.args, handle)
        except (SkillFailed, StateChangeError) as exc:
            return SkillResult(ok=False, error=str(exc))
        return SkillResult(ok=True, output=output)
