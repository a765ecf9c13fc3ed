"""monologue-skills: skills, external CLI tools, validated JSON plans with atomic state.

The agent loop it adds: context → planner (the ``plan`` hook) → JSON plan → validation →
skill and tool execution → atomic state update → narration of what was done (each action is
a ``tool_call`` / ``tool_result`` event named for its skill).

This module is imported whenever ``monologue`` runs: the hooks import their modules only
when called, so ``monologue --help`` does not pay for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from monologue import hookimpl

if TYPE_CHECKING:
    import click
    from pydantic import BaseModel

    from monologue import Session, SkillCall, SkillResult
    from monologue.plugins import MonologuePluginManager

__all__ = [
    "execute_skill",
    "plan",
    "register_commands",
    "register_hookspecs",
    "register_settings",
    "register_skills",
    "status_board",
]


@hookimpl
def register_hookspecs(pm: MonologuePluginManager) -> None:
    """Add the hooks this plugin owns (``register_skills``, ``plan``)."""
    from . import hookspecs

    pm.add_hookspecs(hookspecs)


@hookimpl
def register_settings() -> type[BaseModel]:
    from .settings import SkillsSettings

    return SkillsSettings


@hookimpl
def register_skills(register: Callable[..., Any]) -> None:
    from .catalog import register_all

    register_all(register)


@hookimpl
def execute_skill(session: Session | None, call: SkillCall, state: Any) -> SkillResult | None:
    from .catalog import execute

    return execute(session, call, state)


@hookimpl(trylast=True)
def plan(session: Session | None, context: Any) -> Any:
    """The offline deterministic planner: the default when no other planner answers."""
    from .offline import offline_plan

    return offline_plan(context)


@hookimpl
def register_commands(cli: click.Group) -> None:
    from .cli import skills

    cli.add_command(skills)


def status_board() -> dict[str, Any] | None:
    """The ``status`` board kept in the skills' state file (``state_file``); ``None`` without
    a state file or a board. A damaged state file raises its error."""
    from .settings import state_path
    from .state import StateStore

    path = state_path()
    if path is None or not path.is_file():
        return None
    board = StateStore(path).document().get("status")
    return board if isinstance(board, dict) and board else None
