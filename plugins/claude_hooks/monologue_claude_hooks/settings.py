"""The plugin's settings, one model the core layers and checks (``monologue config``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from monologue.settings import PluginSettings

from .chapters import DEFAULT_IDLE_S as CHAPTER_IDLE_S
from .haiku import DEFAULT_TIMEOUT_S as CHAPTER_TIMEOUT_S

# The collector's defaults live here, not in collector.py, so that reading the settings
# never imports the collector (sockets, threads, the session machinery).
HOOK_IDLE_S = 1800.0
SERVE_PORT = 8765


class ClaudeHooksSettings(PluginSettings):
    """Chapters for every session, and the hook collector's knobs."""

    chapters: bool = Field(True, description="Add chapter events to sessions.")
    chapter_idle_s: float = Field(
        CHAPTER_IDLE_S, gt=0, description="A pause this long (seconds) starts a new chapter."
    )
    chapter_timeout_s: float = Field(
        CHAPTER_TIMEOUT_S,
        gt=0,
        description="How long a chapter waits for Claude Haiku (when the anthropic narrator "
        "is in use) before the offline chapter goes out.",
    )
    hook_dir: Path | None = Field(
        None,
        description="The hook client's folder (read from MONOLOGUE_HOOK_DIR only; default: "
        "the user's runtime folder).",
    )
    hook_idle_s: float = Field(
        HOOK_IDLE_S, gt=0, description="The collector closes a session this long idle."
    )
    speak_command: str | None = Field(
        None, description="Command that speaks text (default: espeak-ng, or say on macOS)."
    )
    hook_speak_wav_dir: Path | None = Field(
        None, description="Write spoken audio here as WAV files instead of playing it."
    )
    hook_serve_port: int = Field(
        SERVE_PORT, ge=0, le=65535, description="Port of collector --serve's web viewer."
    )
