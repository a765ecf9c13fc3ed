"""Claude Agent SDK golden recordings: one agent run kept as a JSON object
``{scenarioId, category, timestamp, messages, metadata}`` whose ``messages`` are the SDK's
own message dicts (stream-json shapes: system/init, assistant, user, result), as test
harnesses record them to replay an agent without the network.

The messages are read like stream-json; the ``scenarioId`` is the session's title.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

from .parsers import StreamJsonParser, describe

if TYPE_CHECKING:
    from monologue.events import Event

__all__ = ["GoldenFile", "is_golden"]

_SNIFF_BYTES = 4096
_OPENS_WITH_SCENARIO = re.compile(rb'^\s*\{\s*"scenarioId"\s*:\s*(?P<id>"(?:[^"\\]|\\.)*")?')


class GoldenRecording(BaseModel):
    """The wrapper; the messages are checked one by one as they are read."""

    model_config = ConfigDict(extra="allow")

    scenarioId: str
    category: str | None = None
    messages: list[dict[str, Any]]
    metadata: dict[str, Any] | None = None


def _opening(path: Path) -> re.Match[bytes] | None:
    try:
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError:
        return None
    return _OPENS_WITH_SCENARIO.match(head.removeprefix(b"\xef\xbb\xbf"))


def is_golden(path: Path) -> bool:
    """Whether the file opens as a golden recording (its first key is ``scenarioId``)."""
    return _opening(path) is not None


def _title(path: Path) -> str | None:
    opening = _opening(path)
    if opening is None or opening.group("id") is None:
        return None
    title = json.loads(opening.group("id"))
    return title if isinstance(title, str) and title.strip() else None


class GoldenFile:
    """The events of a golden recording, read when iterated, then the run's ending."""

    format = "claude-agent-sdk-golden"

    def __init__(self, path: str | Path, *, agent: str = "claude") -> None:
        self.path = Path(path)
        self.agent = agent
        self.title = _title(self.path)
        """The recording's ``scenarioId``: the session's title."""

    def __repr__(self) -> str:
        return f"<GoldenFile {self.path}>"

    def __iter__(self) -> Iterator[Event]:
        from monologue.errors import RecordingError
        from monologue.lines import load_json_document

        document = load_json_document(self.path)
        try:
            recording = GoldenRecording.model_validate(document)
        except ValidationError as exc:
            raise RecordingError(self.path, None, f"golden recording: {describe(exc)}") from None
        parser = StreamJsonParser(self.path, agent=self.agent)
        for number, message in enumerate(recording.messages):
            try:
                yield from parser.feed_object(message, None)
            except RecordingError as exc:
                raise RecordingError(
                    self.path, None, f"messages[{number}]: {exc.problem}"
                ) from None
        yield from parser.converter.finish()
