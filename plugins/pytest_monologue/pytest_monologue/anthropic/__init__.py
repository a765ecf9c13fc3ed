"""Test and development tools for code that narrates with Claude, without leaving the machine.

Nothing here is used by the narrator at run time. Plugin authors get:

- :class:`LoopbackAPI`: a real Messages API server on ``127.0.0.1`` that the real
  ``anthropic`` SDK talks to, with scripted :class:`Reply` objects and every request
  recorded as a :class:`RecordedRequest`;
- :func:`refused_base_url`, a loopback URL nothing listens on; :func:`stream_events`, a
  message as the API streams it; :func:`estimate_tokens`, the server's token estimate;
- the pytest fixtures ``loopback_api`` and ``anthropic_narrator`` in
  :mod:`pytest_monologue.anthropic.fixtures`, registered by pytest-monologue's pytest plugin,
  so they need no import. The server needs the ``anthropic`` package (the
  ``pytest-monologue[anthropic]`` extra), imported when it first answers.
"""

from __future__ import annotations

from .replies import (
    CHARS_PER_TOKEN,
    RecordedRequest,
    Reply,
    Responder,
    estimate_tokens,
    request_text,
)
from .server import DEFAULT_TEXT, DUMMY_API_KEY, LoopbackAPI, refused_base_url
from .streaming import STREAM_CHUNK, stream_events

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_TEXT",
    "DUMMY_API_KEY",
    "STREAM_CHUNK",
    "LoopbackAPI",
    "RecordedRequest",
    "Reply",
    "Responder",
    "estimate_tokens",
    "refused_base_url",
    "request_text",
    "stream_events",
]
