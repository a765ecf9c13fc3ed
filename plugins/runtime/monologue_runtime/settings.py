"""The runtime's settings (keys ``runtime_<field>``), one model the core layers and checks."""

from __future__ import annotations

from pydantic import Field, field_validator

from monologue.settings import PluginSettings, SettingsConfigDict

DEFAULT_HEARTBEAT_TIMEOUT_S = 60.0
DEFAULT_MAX_ATTEMPTS = 3


class RuntimeSettings(PluginSettings):
    """Where the task graph lives and how patient the runtime is with its agents."""

    model_config = SettingsConfigDict(env_prefix="MONOLOGUE_RUNTIME_")

    store: str = Field(
        "file",
        description="file (the data folder) or a postgresql://user:password@host/db URL.",
    )
    max_attempts: int = Field(
        DEFAULT_MAX_ATTEMPTS, gt=0, description="Attempts a task gets before it fails for good."
    )
    heartbeat_timeout_s: float = Field(
        DEFAULT_HEARTBEAT_TIMEOUT_S,
        gt=0,
        allow_inf_nan=False,
        description="Without a heartbeat this long, a task is taken back from its owner.",
    )

    @field_validator("store")
    @classmethod
    def _file_or_postgres(cls, value: str) -> str:
        value = value.strip()
        if value != "file" and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("must be 'file' or a postgresql:// URL")
        return value
