"""``webhook``: POST a narrative as JSON, retrying connection failures and 5xx answers."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from .errors import SkillFailed
from .state import SkillState

__all__ = ["WEBHOOK_SCHEMA", "webhook"]

WEBHOOK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "pattern": "^https?://"},
        "text": {"type": "string"},
        "retries": {"type": "integer", "minimum": 0, "maximum": 10},
        "timeout": {"type": "number", "exclusiveMinimum": 0},
    },
    "required": ["url", "text"],
    "additionalProperties": False,
}

_BACKOFF_S = 0.2


def webhook(params: dict[str, Any], state: SkillState) -> dict[str, Any]:
    """POST ``{"text": ...}`` to ``url``; up to ``retries`` more tries after a failure."""
    url = params["url"]
    body = json.dumps({"text": params["text"]}).encode()
    retries = params.get("retries", 3)
    problems: list[str] = []
    for attempt in range(retries + 1):
        if attempt and state.cancel.wait(_BACKOFF_S * 2 ** (attempt - 1)):
            raise SkillFailed(f"webhook to {url} cancelled after {attempt} attempt(s)")
        request = urllib.request.Request(
            url, data=body, method="POST", headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=params.get("timeout", 5.0)) as answer:
                return {"status": answer.status, "attempts": attempt + 1}
        except urllib.error.HTTPError as exc:
            problems.append(f"HTTP {exc.code}")
            if exc.code < 500:
                break  # the server refused this request; sending it again will not help
        except (urllib.error.URLError, OSError) as exc:
            problems.append(str(getattr(exc, "reason", exc)))
    raise SkillFailed(
        f"webhook to {url} failed after {len(problems)} attempt(s): {', '.join(problems)}"
    )
