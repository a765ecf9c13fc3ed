"""``MonologueConfig``: the core's settings, and the door to every plugin's.

A config built by :func:`~monologue.settings.load_config` keeps the values every source gave
and their labels, so :meth:`MonologueConfig.settings` resolves a plugin's model from the same
sources, once per model, never per event.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from monologue.lines import DEFAULT_MAX_EVENT_BYTES, MAX_LINE_BYTES, MIN_EVENT_BYTES

from ._validate import validate

__all__ = ["MonologueConfig", "Preset", "Resolved"]

Preset = Literal["default", "terse", "verbose"]
M = TypeVar("M", bound=BaseModel)


@dataclass
class Resolved:
    """What a config was built from, and the plugin models resolved from it so far."""

    given: dict[str, Any]
    """Every value a source gave, by key (the last source's wins)."""
    sources: dict[str, str]
    """Each given key's source label."""
    tolerant: bool
    """Whether a bad value is warned about and defaulted (a session) or raised."""
    models: dict[type[BaseModel], BaseModel] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class MonologueConfig(BaseModel):
    """The core's settings of a session; :meth:`settings` reads a plugin's."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_buffer_size: int = Field(2, ge=1, description="Events to buffer before narrating.")
    max_buffer_size: int = Field(
        10, ge=1, description="At this many buffered events the narrator is asked (max_buffer)."
    )
    buffer_cap: int = Field(
        200,
        ge=1,
        description="Cap on buffered events; the oldest beyond it fold into a digest that "
        "the next narrative covers.",
    )
    history_size: int = Field(5, ge=0, description="Narratives kept as history for the narrator.")
    narrator: str = Field("auto", description="Narrator plugin name, 'auto', or 'none'.")
    model: str = Field("haiku", description="Model for model-backed narrators.")
    preset: Preset = Field("default", description="Narration style: default, terse, verbose.")
    system_prompt: str | None = Field(None, description="Replaces the preset's system prompt.")
    throttle_ms: int = Field(0, ge=0, description="Minimum time between two narratives.")
    narration_share: float = Field(
        0.2,
        gt=0,
        le=1,
        description="Largest share of the interpreter's time a session's narration takes: "
        "after a turn that used t seconds of CPU, the next one (unless final, or asked for "
        "by someone waiting) starts t * (1/share - 1) seconds later, its events joining it "
        "meanwhile. 1 never waits (replays use it).",
    )
    narrate_timeout_s: float = Field(10.0, gt=0, description="Longest wait for one narration.")
    final_wait_s: float = Field(
        3.0,
        gt=0,
        description="Longest a closing session (a decorated call's end) waits for the final "
        "narrative; a later one is dropped with a narration_suppressed reason.",
    )
    narrator_stuck_limit: int = Field(
        3,
        ge=1,
        description="Calls of one narrator still running at twice narrate_timeout_s before "
        "narration with it pauses (until they return).",
    )
    on_narrator_error: Literal["keep", "drop"] = Field(
        "keep", description="What a failed narration does with its events."
    )
    record: bool | None = Field(
        None, description="Record the session (unset: live sessions yes, replays no)."
    )
    record_max_event_bytes: int = Field(
        DEFAULT_MAX_EVENT_BYTES,
        ge=MIN_EVENT_BYTES,
        le=MAX_LINE_BYTES,
        description="Most bytes one recorded event's line may take; longer events are cut "
        "to fit and say so.",
    )
    record_dir: Path | None = Field(
        None, description="Where recordings go (default: <data_dir>/sessions)."
    )
    prompts_dir: Path | None = Field(None, description="Templates here override shipped ones.")
    data_dir: Path | None = Field(
        None, description="Plugins' data folder (default: $XDG_DATA_HOME/monologue)."
    )

    # One private attribute: each costs a trip through pydantic's __getattr__.
    _resolved: Resolved = PrivateAttr(default_factory=lambda: Resolved({}, {}, False))

    @field_validator("record", mode="before")
    @classmethod
    def _trimmed(cls, value: Any) -> Any:
        # " FALSE " from a shell or a hand-written file is as clear as "false".
        return value.strip() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _sizes_in_order(self) -> MonologueConfig:
        if self.min_buffer_size > self.max_buffer_size:
            raise ValueError(
                f"min_buffer_size ({self.min_buffer_size}) must not exceed "
                f"max_buffer_size ({self.max_buffer_size})"
            )
        if self.max_buffer_size > self.buffer_cap:
            raise ValueError(
                f"max_buffer_size ({self.max_buffer_size}) must not exceed "
                f"buffer_cap ({self.buffer_cap})"
            )
        return self

    def settings(self, model: type[M]) -> M:
        """Plugin settings ``model`` resolved from this config's sources (cached per model).

        A bad value behaves as it did for the core's settings: a session warns once and
        uses that setting's default; elsewhere it raises :class:`ConfigError`.
        """
        resolved = self._resolved
        found = resolved.models.get(model)
        if found is None:
            found = validate(model, resolved.given, resolved.sources, tolerant=resolved.tolerant)
            with resolved.lock:
                found = resolved.models.setdefault(model, found)
        assert isinstance(found, model)
        return found

    def remember_sources(self, resolved: Resolved) -> None:
        """Keep what this config was layered from, so plugin models resolve from the same
        sources (``load_config`` calls it once, before anyone reads the config)."""
        self._resolved = resolved

    def given(self) -> dict[str, Any]:
        """Every value a source gave (any plugin's too), by key: the last source's wins."""
        return dict(self._resolved.given)

    def source(self, key: str) -> str:
        """Where ``key``'s value came from: a file, ``MONOLOGUE_<KEY>``, flags, a session's
        arguments, or ``default``."""
        return self._resolved.sources.get(key, "default")

    def resolved_data_dir(self) -> Path:
        """``data_dir``, else ``$XDG_DATA_HOME/monologue`` (``~/.local/share/monologue``)."""
        if self.data_dir is not None:
            return self.data_dir.expanduser()
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "monologue"

    def resolved_record_dir(self) -> Path:
        """``record_dir``, else ``<data_dir>/sessions``."""
        if self.record_dir is not None:
            return self.record_dir.expanduser()
        return self.resolved_data_dir() / "sessions"
