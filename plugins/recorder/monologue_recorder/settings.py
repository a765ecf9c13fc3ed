"""The recorder's own setting, ``durability``; where and whether to record (``record_dir``,
``record``, ``record_max_event_bytes``) are the core's, since replay and ``monologue
sessions`` read them too."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from monologue.settings import PluginSettings


class RecorderSettings(PluginSettings):
    """How hard a recording holds on to its events."""

    durability: Literal["always", "batch", "never"] = Field(
        "batch",
        description="always: fsync every event; batch: fsync every 64 events or 200 ms and "
        "at close; never: leave it to the OS.",
    )

    @field_validator("durability", mode="before")
    @classmethod
    def _any_case(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value
