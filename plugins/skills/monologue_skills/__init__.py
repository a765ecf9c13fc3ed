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

__all__ = ["execute_skill", "plan", "register_commands", "register_settings", "register_skills"]


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
