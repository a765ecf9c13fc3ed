"""A stand-in for the ``claude`` CLI, for the Claude Agent SDK to drive as a subprocess.

It speaks the SDK's side of the stream-json control protocol: answers ``initialize`` (and
remembers the hook callback ids the SDK registered), reads the prompt, then plays the first
scenario of SCRIPT.json whose ``match`` strings all occur in the prompt. A step is
``{"send": message}`` (write a message), ``{"sleep": seconds}``, ``{"exit": code}`` (die
at once), or ``{"hook": event, "input": {...}}`` (ask the SDK to run the callbacks registered
for ``event`` and wait for each answer). The log file gets a JSON line for the prompt and
one per hook answer. After the script it waits for stdin to close, as the real CLI does.

Usage: ``python -m pytest_monologue.claude.fake_cli SCRIPT.json LOG.jsonl`` (the SDK's own
arguments that follow are ignored).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from collections.abc import Callable
from typing import IO, Any

_waiting: list[dict[str, Any]] = []
_request_ids = itertools.count(1)


def _send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _receive() -> dict[str, Any] | None:
    if _waiting:
        return _waiting.pop(0)
    line = sys.stdin.readline()
    return json.loads(line) if line else None


def _answer_to(request_id: str) -> dict[str, Any]:
    held: list[dict[str, Any]] = []
    while True:
        line = sys.stdin.readline()
        if not line:
            raise SystemExit(f"stdin closed while waiting for the answer to {request_id}")
        message = json.loads(line)
        response = message.get("response", {})
        if message.get("type") == "control_response" and response.get("request_id") == request_id:
            _waiting.extend(held)
            return response  # type: ignore[no-any-return]
        held.append(message)


def _expect(what: str, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    message = _receive()
    if message is None or not test(message):
        raise SystemExit(f"fake claude: expected the SDK's {what}, got {message!r}")
    return message


def _prompt_text(message: dict[str, Any]) -> str:
    content = message["message"]["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content)


def _log(log: IO[str], row: dict[str, Any]) -> None:
    log.write(json.dumps(row) + "\n")
    log.flush()


def _ask_hooks(step: dict[str, Any], callbacks: dict[str, list[str]], log: IO[str]) -> None:
    for callback_id in callbacks.get(step["hook"], []):
        request_id = f"hook-{next(_request_ids)}"
        _send(
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
        _log(log, {"hook": step["hook"], "response": _answer_to(request_id)})


def main(script_path: str, log_path: str) -> None:
    with open(script_path, encoding="utf-8") as handle:
        scenarios = json.load(handle)
    init = _expect("initialize request", lambda m: m["request"]["subtype"] == "initialize")
    callbacks = {
        event: [cid for matcher in matchers for cid in matcher["hookCallbackIds"]]
        for event, matchers in (init["request"].get("hooks") or {}).items()
    }
    _send(
        {
            "type": "control_response",
            "response": {"subtype": "success", "request_id": init["request_id"], "response": {}},
        }
    )
    prompt = _expect("prompt", lambda m: m["type"] == "user")
    text = _prompt_text(prompt)
    with open(log_path, "a", encoding="utf-8") as log:
        _log(log, {"prompt": text})
        chosen = next((s for s in scenarios if all(m in text for m in s["match"])), None)
        if chosen is None:
            sys.stderr.write(f"fake claude: no scenario matches the prompt:\n{text}\n")
            raise SystemExit(3)
        for step in chosen["steps"]:
            if "send" in step:
                _send(step["send"])
            elif "sleep" in step:
                time.sleep(step["sleep"])
            elif "exit" in step:
                sys.stdout.flush()
                os._exit(step["exit"])
            else:
                _ask_hooks(step, callbacks, log)
    while _receive() is not None:
        pass


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
