"""Recognising SWE-agent and mini-swe-agent files by their content, and reading them.

Both are one JSON document written when the run ends (not appended to), so they are read
whole and there is no line parser to ``watch`` them. Recognition reads the first bytes only;
a file that is recognised but has the wrong shape is a
:class:`~monologue.errors.RecordingError` naming the JSON path and what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from monologue.errors import NotMyFormat, RecordingError
from monologue.events import Event
from monologue.lines import json_path, load_json_document, sniff

from .mini import mini_events
from .shapes import ChatMessage, MiniTrajectory, Trajectory
from .trajectory import trajectory_events

__all__ = ["Format", "SweFile", "detect", "read_session"]

Format = Literal["swe-agent", "mini-swe-agent"]

_M = TypeVar("_M", bound=BaseModel)
_TRAJ_KEYS = re.compile(rb'"(?:trajectory|history)"\s*:\s*\[')
_MINI_MARKS = re.compile(rb"mswea_bash_command|mini_version|mini-swe-agent")
_CHAT = re.compile(rb'^\[\s*\{\s*"(?:role|content)"')


def detect(path: Path) -> Format:
    """Which of the two formats ``path`` is in; :class:`NotMyFormat` says why neither."""
    head = sniff(path)
    if not head.startswith((b"{", b"[")):
        raise NotMyFormat(f"not a JSON document (starts with {head[:12]!r})")
    if head.startswith(b"{") and _TRAJ_KEYS.search(head):
        return "swe-agent"
    if _MINI_MARKS.search(head) and (head.startswith(b"{") or _CHAT.match(head)):
        return "mini-swe-agent"
    if head.startswith(b"{"):
        raise NotMyFormat(
            "a JSON object without a 'trajectory' or 'history' list nor mini-swe-agent marks"
        )
    raise NotMyFormat("a JSON array that is not a mini-swe-agent message list")


class SweFile:
    """The events of a SWE-agent or mini-swe-agent file, read when iterated; ``agent``
    (the format's name) names the replayed session."""

    def __init__(self, path: str | Path, format: Format) -> None:
        self.path = Path(path)
        self.format = format
        self.agent: str = format

    def __repr__(self) -> str:
        return f"<SweFile {self.format} {self.path}>"

    def __iter__(self) -> Iterator[Event]:
        document = load_json_document(self.path)
        if self.format == "swe-agent":
            yield from trajectory_events(self._validate(Trajectory, document))
            return
        if isinstance(document, list):
            messages = self._validate(_Messages, {"messages": document}).messages
            yield from mini_events(messages, {})
            return
        mini = self._validate(MiniTrajectory, document)
        yield from mini_events(mini.messages, mini.info)

    def _validate(self, model: type[_M], document: Any) -> _M:
        try:
            return model.model_validate(document)
        except ValidationError as exc:
            raise RecordingError(self.path, None, _problem(exc, self.format, document)) from None


class _Messages(BaseModel):
    messages: list[ChatMessage]


def _problem(exc: ValidationError, format: str, document: Any) -> str:
    first = exc.errors(include_url=False)[0]
    loc = list(first["loc"])
    if isinstance(document, dict) and set(document) == {"messages"}:
        loc = ["$", *loc[1:]]  # a bare message list: the path starts at the array
    more = len(exc.errors()) - 1
    tail = f" (and {more} more problem(s))" if more else ""
    return f"not a valid {format} file: at {json_path(loc)}: {first['msg']}{tail}"


def read_session(path: str | Path) -> SweFile:
    """The events of a SWE-agent ``.traj`` or mini-swe-agent trajectory.

    Raises :class:`~monologue.errors.RecordingError` when the file is in neither format (the
    message says why); problems inside the file are raised while iterating.
    """
    path = Path(path)
    try:
        return SweFile(path, detect(path))
    except NotMyFormat as exc:
        problem = f"not a SWE-agent nor mini-swe-agent file: {exc.reason}"
        raise RecordingError(path, None, problem) from None
