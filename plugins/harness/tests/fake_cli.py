"""A stand-in for the ``claude`` CLI that plays a scripted agent run chosen by the prompt.

It speaks the SDK's side of the stream-json control protocol (answers ``initialize``, reads
the prompt), then picks the first scenario of SCRIPT.json whose ``match`` strings all occur
in the prompt, and plays its steps: ``{"send": message}`` writes a message, ``{"sleep": s}``
waits, ``{"exit": code}`` dies. Each run appends ``{"prompt": ...}`` to LOG.jsonl first.
Usage: ``fake_cli.py SCRIPT.json LOG.jsonl`` (the SDK's own arguments are ignored).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive() -> dict[str, Any] | None:
    line = sys.stdin.readline()
    return json.loads(line) if line else None


def prompt_text(message: dict[str, Any]) -> str:
    content = message["message"]["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content)


def main(script_path: str, log_path: str) -> None:
    with open(script_path, encoding="utf-8") as handle:
        scenarios = json.load(handle)
    init = receive()
    assert init is not None and init["request"]["subtype"] == "initialize", init
    send(
        {
            "type": "control_response",
            "response": {"subtype": "success", "request_id": init["request_id"], "response": {}},
        }
    )
    prompt = receive()
    assert prompt is not None and prompt["type"] == "user", prompt
    text = prompt_text(prompt)
    with open(log_path, "a", encoding="utf-8") as log:
        log.write(json.dumps({"prompt": text}) + "\n")
    chosen = next((s for s in scenarios if all(m in text for m in s["match"])), None)
    if chosen is None:
        sys.stderr.write(f"fake claude: no scenario matches the prompt:\n{text}\n")
        raise SystemExit(3)
    for step in chosen["steps"]:
        if "send" in step:
            send(step["send"])
        elif "sleep" in step:
            time.sleep(step["sleep"])
        elif "exit" in step:
            sys.stdout.flush()
            os._exit(step["exit"])
    while receive() is not None:
        pass


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
