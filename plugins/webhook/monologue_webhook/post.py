"""``webhook``: POST ``{"text": ...}`` as JSON, with retries.

httpx's transport retries a connection that cannot be made (``retries`` times); a 5xx
answer is sent again after a backoff that a cancelled plan cuts short; a 4xx answer is the
server's refusal and is not sent again. The text is redacted before it leaves the process.
"""

from __future__ import annotations

from typing import Any

from monologue_skills.errors import SkillFailed
from monologue_skills.state import SkillState

__all__ = ["webhook"]

_BACKOFF_S = 0.2


def webhook(params: dict[str, Any], state: SkillState) -> dict[str, Any]:
    """POST ``{"text": ...}`` to ``url``; up to ``retries`` more tries after a failure."""
    import httpx

    from monologue.redact import redact_text

    url = params["url"]
    shown = redact_text(url)
    retries = params.get("retries", 3)
    payload = {"text": redact_text(params["text"])}
    problems: list[str] = []
    transport = httpx.HTTPTransport(retries=retries)
    with httpx.Client(transport=transport, timeout=params.get("timeout", 5.0)) as client:
        for attempt in range(retries + 1):
            if attempt and state.cancel.wait(_BACKOFF_S * 2 ** (attempt - 1)):
                raise SkillFailed(f"webhook to {shown} cancelled after {attempt} attempt(s)")
            try:
                answer = client.post(url, json=payload)
            except httpx.TransportError as exc:
                # The transport has already tried to connect `retries` more times.
                problems.append(str(exc) or type(exc).__name__)
                break
            if answer.status_code < 400:
                return {"status": answer.status_code, "attempts": attempt + 1}
            problems.append(f"HTTP {answer.status_code}")
            if answer.status_code < 500:
                break  # the server refused this request; sending it again will not help
    tries = retries + 1 if not problems[-1].startswith("HTTP") else len(problems)
    raise SkillFailed(f"webhook to {shown} failed after {tries} attempt(s): {', '.join(problems)}")
