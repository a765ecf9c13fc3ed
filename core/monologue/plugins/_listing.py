"""The rows ``monologue plugins`` prints (kept apart so ``--help`` never imports pydantic)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class PluginInfo(BaseModel):
    """One plugin: where it comes from, what it implements, and whether it loaded."""

    name: str
    distribution: str | None = None
    version: str | None = None
    hooks: list[str] = []
    status: Literal["loaded", "failed"]
    error: str | None = None
