"""SDK transports that record a live agent run, or play a recorded one back.

Both sit under the SDK's own ``query()``: the SDK parses the same raw messages into the same
message objects, runs the same hook callbacks for recorded ``control_request`` messages and
yields in the same order, whether the messages come from the ``claude`` CLI or a file.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from claude_agent_sdk import Transport

if TYPE_CHECKING:
    from claude_agent_sdk import ClaudeAgentOptions

__all__ = ["RecordingTransport", "ReplayTransport", "cli_transport"]

# Answers to the SDK's own requests carry request ids the SDK draws at random; replay makes
# fresh answers instead of keeping them.
_NOT_RECORDED = frozenset({"control_response", "transcript_mirror"})


def cli_transport(prompt: str, options: ClaudeAgentOptions) -> Transport:
    """The SDK's transport to the ``claude`` CLI subprocess (what ``query()`` uses itself)."""
    from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

    return SubprocessCLITransport(prompt=prompt, options=options)


class RecordingTransport(Transport):
    """Passes everything through to ``inner`` and keeps each raw message the CLI sent."""

    def __init__(self, inner: Transport) -> None:
        self._inner = inner
        self._messages: list[dict[str, Any]] = []

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self._messages)

    async def connect(self) -> None:
        await self._inner.connect()

    async def write(self, data: str) -> None:
        await self._inner.write(data)

    async def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        async for message in self._inner.read_messages():
            if message.get("type") not in _NOT_RECORDED:
                self._messages.append(message)
            yield message

    async def close(self) -> None:
        await self._inner.close()

    def is_ready(self) -> bool:
        return self._inner.is_ready()

    async def end_input(self) -> None:
        await self._inner.end_input()


class ReplayTransport(Transport):
    """Plays recorded messages to the SDK: answers its control requests like the CLI does,
    waits for the prompt, then sends every recorded message in order. No process, no
    network."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self._messages = [m for m in messages if m.get("type") not in _NOT_RECORDED]
        self._outbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._ready = False

    async def connect(self) -> None:
        self._ready = True

    async def write(self, data: str) -> None:
        for line in data.splitlines():
            if line.strip():
                self._receive(json.loads(line))

    def _receive(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "control_request":
            self._outbox.put_nowait(
                {
                    "type": "control_response",
                    "response": {
                        "subtype": "success",
                        "request_id": message.get("request_id"),
                        "response": {},
                    },
                }
            )
        elif kind == "user":
            # The prompt: the recorded run starts now (a prompt is only ever sent once).
            for recorded in self._messages:
                self._outbox.put_nowait(recorded)
            self._outbox.put_nowait(None)

    async def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        while (message := await self._outbox.get()) is not None:
            yield message

    async def close(self) -> None:
        self._ready = False

    def is_ready(self) -> bool:
        return self._ready

    async def end_input(self) -> None:
        """Nothing to close: the recording ends by itself."""
