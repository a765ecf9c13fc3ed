"""A mini-swe-agent trajectory as events.

Each assistant message holds its reasoning and one fenced ``mswea_bash_command`` block (older
versions: a ``bash`` block): the text becomes a ``text`` event, the command a ``Bash``
``tool_call`` with id ``msg-<index>`` (the message's position; the format has no ids), and the
next user message, ``<returncode>N</returncode><output>...</output>``, its ``tool_result``.
The command that echoes ``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` ends the run: it and its
output (the submission) become the ``completion``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from monologue.events import Event

from .outcome import completion
from .shapes import ChatMessage

__all__ = ["mini_events"]

_BLOCK = re.compile(r"```(?:mswea_bash_command|bash)[^\n]*\n(.*?)```", re.DOTALL)
_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_OUTPUT = re.compile(r"<output>\n?(.*?)</output>", re.DOTALL)
SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")


def mini_events(messages: list[ChatMessage], info: dict[str, Any]) -> Iterator[Event]:
    pending: tuple[str, bool] | None = None  # the call awaiting its output, and is_submit
    told_task = False
    for index, message in enumerate(messages):
        text = _text(message.content)
        if message.role == "assistant":
            block = _BLOCK.search(text)
            thought = (text[: block.start()] if block else text).strip()
            if thought:
                yield Event(type="text", data={"text": thought})
            if block is None:
                continue
            command = block.group(1).strip()
            call_id = f"msg-{index}"
            submit = any(marker in command for marker in SUBMIT_MARKERS)
            pending = (call_id, submit)
            if not submit:
                yield Event(
                    type="tool_call",
                    data={
                        "tool_name": "Bash",
                        "tool_use_id": call_id,
                        "input": {"command": command},
                        "framework_tool": "mswea_bash_command",
                    },
                )
        elif message.role == "user" and pending is not None:
            call_id, submit = pending
            pending = None
            if submit:
                yield _completion(text, info)
                return
            yield _result(call_id, text)
        elif message.role == "user" and not told_task:
            told_task = True
            yield Event(type="user_message", data={"text": text, "origin": "user"})
    if info:
        yield _completion(None, info)


def _result(call_id: str, text: str) -> Event:
    code = _RETURNCODE.search(text)
    output = _OUTPUT.search(text)
    returncode = int(code.group(1)) if code else None
    data: dict[str, Any] = {
        "tool_use_id": call_id,
        "tool_name": "Bash",
        "output": output.group(1) if output else text,
        "is_error": returncode not in (None, 0),
    }
    if returncode is not None:
        data["returncode"] = returncode
    return Event(type="tool_result", data=data)


def _completion(submission: str | None, info: dict[str, Any]) -> Event:
    found = submission if submission is not None else info.get("submission")
    return completion(info.get("exit_status"), submission is not None, found)


def _text(content: str | list[Any]) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))
