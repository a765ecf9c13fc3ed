"""``speak``: say ``text`` aloud through espeak-ng, or write it to a WAV file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from monologue_skills.errors import SkillFailed
from monologue_skills.state import SkillState

__all__ = ["speak"]

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
