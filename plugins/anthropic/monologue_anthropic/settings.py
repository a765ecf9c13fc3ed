"""The narrator's settings: core fields (``model``, ``narrate_timeout_s``...) plus its own keys.

The plugin keys all start with ``anthropic_`` (``[tool.monologue] anthropic_max_tokens = 80``,
``MONOLOGUE_ANTHROPIC_MAX_TOKENS=80``, ``session(..., anthropic_max_tokens=80)``). They may
arrive as text from the environment; a bad value is a :class:`~monologue.errors.ConfigError`
that names the key, raised when the session starts.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from monologue.errors import ConfigError

if TYPE_CHECKING:
    from monologue.settings import MonologueConfig

API_KEY_ENV = "ANTHROPIC_API_KEY"
BASE_URL_ENV = "ANTHROPIC_BASE_URL"
PREFIX = "anthropic_"


class AnthropicSettings(BaseModel):
    """Everything one narration request needs besides the events."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tokens: int = Field(150, ge=1, le=4096, description="Longest reply, in tokens.")
    max_retries: int = Field(
        2, ge=0, le=10, description="Retries after a 429, 5xx or 529 answer (within the timeout)."
    )
    backoff_s: float = Field(
        0.5, gt=0, description="First wait before a retry when the server names none; doubles."
    )
    max_backoff_s: float = Field(
        8.0, gt=0, description="Longest wait before a retry; a longer retry-after is not waited."
    )
    base_url: str | None = Field(
        None, description="API endpoint; default: $ANTHROPIC_BASE_URL, else the SDK's."
    )
    max_events: int = Field(
        30, ge=1, description="Most events shown in one request; older ones are summarised."
    )
    input_limit: int = Field(200, ge=20, description="Characters of a tool's salient input.")
    output_limit: int = Field(300, ge=20, description="Characters of a tool's result.")
    text_limit: int = Field(400, ge=20, description="Characters of agent text or thinking.")

    @classmethod
    def from_config(cls, config: MonologueConfig) -> AnthropicSettings:
        """The ``anthropic_*`` keys of ``config``; raises :class:`ConfigError` naming a bad one."""
        extras = config.model_extra or {}
        unknown = sorted(
            key
            for key in extras
            if key.startswith(PREFIX) and key[len(PREFIX) :] not in cls.model_fields
        )
        if unknown:
            known = ", ".join(PREFIX + name for name in cls.model_fields)
            raise ConfigError(f"unknown setting {', '.join(unknown)} (known: {known})")
        values = {
            name: extras[PREFIX + name]
            for name in cls.model_fields
            if extras.get(PREFIX + name) is not None
        }
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problems = [
                f"{PREFIX}{error['loc'][0]} = {values.get(str(error['loc'][0]))!r}: {error['msg']}"
                for error in exc.errors(include_url=False)
            ]
            raise ConfigError(
                "invalid monologue-anthropic setting: " + "; ".join(problems)
            ) from None

    def resolved_base_url(self) -> str | None:
        return self.base_url or os.environ.get(BASE_URL_ENV) or None


def api_key() -> str | None:
    """The API key from the environment, ``None`` when unset or blank."""
    return os.environ.get(API_KEY_ENV, "").strip() or None
