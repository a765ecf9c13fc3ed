"""How a SWE-agent or mini-swe-agent run ended, in plain words.

Both tools end a run with an ``exit_status``: ``submitted`` when the agent submitted its
patch, ``submitted (exit_cost)`` and the like when a limit made the tool submit for it, and
``exit_cost`` / ``exit_context`` / ``exit_format`` / ``exit_error``... when it stopped
without a patch (mini-swe-agent: ``Submitted``, ``LimitsExceeded``...). The
``completion`` carries the status as it is (``exit_status``), the monologue ``ending``
(``completed``, ``failed``, ``cut_off``), the patch (``submission``), and, for a run that a
limit or an error stopped, what stopped it in plain words as its ``result``, never the
status's own jargon. A run that submitted by itself has no result beyond its patch.
"""

from __future__ import annotations

from typing import Any

from monologue.events import Event

__all__ = ["completion"]

_LIMITS = {
    "exit_cost": "the run reached its cost limit",
    "exit_context": "the run ran out of context",
    "exit_format": "the model's replies could not be parsed",
    "exit_error": "the run stopped on an error",
    "exit_api": "the model's API failed",
    "exit_command_timeout": "a command timed out",
    "exit_total_execution_time": "the run reached its time limit",
    "early_exit": "the run was stopped early",
    # mini-swe-agent's exception names
    "LimitsExceeded": "the run reached its step or cost limit",
    "FormatError": "the model's replies could not be parsed",
    "TimeoutError": "a command timed out",
}


def completion(status: Any, submitted: bool, submission: Any) -> Event:
    """The ``completion`` of a run that ended with ``status`` (``info.exit_status``, if
    any), having ``submitted`` its patch or not."""
    status = status.strip() if isinstance(status, str) and status.strip() else None
    limit = _limit(status)
    result = None
    if status is None:
        ending = "completed" if submitted else "cut_off"
    elif status.lower().startswith("submitted"):
        ending = "completed"
        if limit:
            result = f"the patch was submitted for me: {limit}"
    else:
        ending = "failed"
        result = limit or "the run stopped without submitting a patch"
    data: dict[str, Any] = {"result": result, "is_error": ending == "failed", "ending": ending}
    if status is not None:
        data["exit_status"] = status
    if isinstance(submission, str):
        data["submission"] = submission
    return Event(type="completion", data=data)


def _limit(status: str | None) -> str | None:
    for key, words in _LIMITS.items():
        if status is not None and key in status:
            return words
    return None
