"""``status``: update the board in the state with what is given; the rest stays."""

from __future__ import annotations

from typing import Any

from monologue_skills.state import SkillState

__all__ = ["status"]


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
