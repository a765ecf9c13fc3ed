"""``status``: a status board in the state that narration can refer to.

The board is ``/status`` in the state document: ``task`` (the current task),
``files_touched`` (in first-touched order, no repeats) and ``last_test`` (outcome and
summary of the last test run).
"""

from __future__ import annotations

from typing import Any

from .state import SkillState

__all__ = ["STATUS_SCHEMA", "status"]

STATUS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "task": {"type": "string"},
        "files_touched": {"type": "array", "items": {"type": "string"}},
        "test_outcome": {"enum": ["passed", "failed", "error"]},
        "test_summary": {"type": "string"},
    },
    "additionalProperties": False,
    "minProperties": 1,
}


def status(params: dict[str, Any], state: SkillState) -> dict[str, Any]:
    """Update the board with what is given; the rest stays as it was."""
    found = state.document.get("status")
    board = dict(found) if isinstance(found, dict) else {}
    if "task" in params:
        board["task"] = params["task"]
    if "files_touched" in params:
        files = list(board.get("files_touched") or [])
        files += [f for f in params["files_touched"] if f not in files]
        board["files_touched"] = files
    if "test_outcome" in params:
        board["last_test"] = {
            "outcome": params["test_outcome"],
            "summary": params.get("test_summary", ""),
        }
    state.change([{"op": "add", "path": "/status", "value": board}])
    return board
