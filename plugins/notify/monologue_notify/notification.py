"""``notify``: a desktop notification when a desktop session is there, else stderr."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Any

from monologue_skills.state import SkillState

__all__ = ["notify"]


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
