"""``speak`` (espeak-ng) and ``notify`` (a desktop notification, else a line on stderr)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from .errors import SkillFailed
from .state import SkillState

__all__ = ["NOTIFY_SCHEMA", "SPEAK_SCHEMA", "notify", "speak"]

SPEAK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "minLength": 1},
        "voice": {"type": "string"},
        "wav": {"type": "string", "description": "Write a WAV file here instead of playing."},
    },
    "required": ["text"],
    "additionalProperties": False,
}

NOTIFY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "message": {"type": "string", "minLength": 1},
        "urgency": {"enum": ["low", "normal", "critical"]},
    },
    "required": ["message"],
    "additionalProperties": False,
}

_SPEAK_TIMEOUT_S = 60.0


def speak(params: dict[str, Any], state: SkillState) -> dict[str, Any]:
    """Say ``text`` aloud through espeak-ng (or write it to ``wav``)."""
    program = shutil.which("espeak-ng")
    if program is None:
        raise SkillFailed(
            "speak needs espeak-ng, which is not installed (Debian: apt-get install espeak-ng)"
        )
    argv = [program]
    if params.get("voice"):
        argv += ["-v", params["voice"]]
    if params.get("wav"):
        argv += ["-w", params["wav"]]
    argv += ["--", params["text"]]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=_SPEAK_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        raise SkillFailed(f"espeak-ng did not finish in {_SPEAK_TIMEOUT_S:g} s") from None
    problem = done.stderr.strip()[:200]
    if done.returncode != 0:
        raise SkillFailed(f"espeak-ng failed ({done.returncode}): {problem}")
    if params.get("wav") and not Path(params["wav"]).is_file():
        # espeak-ng exits 0 when it cannot write the file.
        raise SkillFailed(f"espeak-ng wrote no file at {params['wav']}: {problem}")
    return {"spoken": params["text"], "wav": params.get("wav")}


def notify(params: dict[str, Any], state: SkillState) -> dict[str, Any]:
    """A desktop notification when a desktop session is there, else a line on stderr."""
    title = params.get("title") or "monologue"
    message = params["message"]
    program = shutil.which("notify-send")
    has_desktop = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if program and has_desktop:
        urgency = params.get("urgency", "normal")
        done = subprocess.run(
            [program, "-u", urgency, title, message],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if done.returncode == 0:
            return {"channel": "desktop", "title": title, "message": message}
    print(f"[{title}] {message}", file=sys.stderr, flush=True)
    return {"channel": "stderr", "title": title, "message": message}
