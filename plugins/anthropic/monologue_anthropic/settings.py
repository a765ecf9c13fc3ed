"""The narrator's settings: core fields (``model``, ``narrate_timeout_s``...) plus its own keys.

The plugin keys all start with ``anthropic_`` (``[tool.monologue] anthropic_max_tokens = 80``,
``MONOLOGUE_ANTHROPIC_MAX_TOKENS=80``, ``session(..., anthropic_max_tokens=80)``). They may
arrive as text from the environment; the core layers and checks them like every setting.
"""

from __future__ import annotations

import os

from pydantic import Field

from monologue.settings import PluginSettings, SettingsConfigDict

API_KEY_ENV = "ANTHROPIC_API_KEY"
BASE_URL_ENV = "ANTHROPIC_BASE_URL"


class AnthropicSettings(PluginSettings):
    """Everything one narration request needs besides the events (keys ``anthropic_<field>``)."""

    model_config = SettingsConfigDict(env_prefix="MONOLOGUE_ANTHROPIC_")

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
    planner_timeout_s: float = Field(
        30.0, gt=0, alias="planner_timeout_s", description="Longest wait for one plan."
    )

    def resolved_base_url(self) -> str | None:
        return self.base_url or os.environ.get(BASE_URL_ENV) or None


def api_key() -> str | None:
    """The API key from the environment, ``None`` when unset or blank."""
    return os.environ.get(API_KEY_ENV, "").strip() or None
