"""A stand-in for the ``claude`` CLI, for the Claude Agent SDK to drive as a subprocess.

It speaks the SDK's side of the stream-json control protocol: answers ``initialize`` (and
remembers the hook callback ids the SDK registered), reads the prompt, then plays a script:
``{"send": message}`` writes a message to stdout; ``{"hook": event, "input": {...}}`` asks
the SDK to run the callbacks registered for ``event`` and waits for each answer, which it
appends to the log file as JSON lines. After the script it waits for stdin to close, as the
real CLI does. Usage: ``fake_claude.py SCRIPT.json LOG.jsonl`` (the SDK's own arguments are
ignored).
"""

from __future__ import annotations

import json
import sys
from typing import Any

_waiting: list[dict[str, Any]] = []


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive() -> dict[str, Any] | None:
    line = sys.stdin.readline()
    return json.loads(line) if line else None


def answer_to(request_id: str) -> dict[str, Any]:
    while True:
        message = receive()
        if message is None:
            raise SystemExit(f"stdin closed while waiting for the answer to {request_id}")
        response = message.get("response", {})
        if message.get("type") == "control_response" and response.get("request_id") == request_id:
            return response  # type: ignore[no-any-return]
        _waiting.append(message)


def main(script_path: str, log_path: str) -> None:
    with open(script_path, encoding="utf-8") as handle:
        script = json.load(handle)
    init = receive()
    assert init is not None and init["request"]["subtype"] == "initialize", init
    callbacks = {
        event: [cid for matcher in matchers for cid in matcher["hookCallbackIds"]]
        for event, matchers in (init["request"].get("hooks") or {}).items()
    }
    send(
        {
            "type": "control_response",
            "response": {"subtype": "success", "request_id": init["request_id"], "response": {}},
        }
    )
    prompt = receive()
    assert prompt is not None and prompt["type"] == "user", prompt
    asked = 0
    with open(log_path, "a", encoding="utf-8") as log:
        for step in script:
            if "send" in step:
                send(step["send"])
                continue
            for callback_id in callbacks.get(step["hook"], []):
                asked += 1
                request_id = f"hook-{asked}"
                send(
                    {
                        "type": "control_request",
                        "request_id": request_id,
                        "request": {
                            "subtype": "hook_callback",
                            "callback_id": callback_id,
                            "input": step["input"],
                            "tool_use_id": step["input"].get("tool_use_id"),
                        },
                    }
                )
                response = answer_to(request_id)
                log.write(json.dumps({"hook": step["hook"], "response": response}) + "\n")
                log.flush()
    while receive() is not None:
        pass


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
