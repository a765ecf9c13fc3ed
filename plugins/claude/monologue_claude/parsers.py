"""Line parsers: feed them one line of a file at a time, get the events it holds.

A parser keeps the state a conversation needs (tool names, sub-agents), so a file that grows
can be followed line by line (``monologue watch``) with the same parser that reads a whole
file. Problems raise :class:`~monologue.errors.RecordingError` naming the file, the line
and what is wrong.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pydantic import BaseModel, ValidationError

from monologue.lines import MAX_LINE_BYTES

from .convert import Converter
from .shapes import (
    UNION_TAGS,
    AttachmentLine,
    ChatLine,
    Message,
    ProgressLine,
    ResultLine,
    TextBlock,
)

if TYPE_CHECKING:
    from monologue.events import Event

    from .standalone import Alone

"""Longest line read (8 MiB): Claude Code inlines whole files and images in its lines, but a
longer line is taken as a damaged file rather than read into memory."""

_BOM = b"\xef\xbb\xbf"
_INSTANCE_OF = re.compile(r" or instance of \w+")
_ANALYSIS = re.compile(r"<analysis>.*?</analysis>", re.DOTALL)
_SUMMARY_TAGS = re.compile(r"</?summary>")
_M = TypeVar("_M", bound=BaseModel)


class ShapeError(ValueError):
    """A message does not have the shape its type requires (the text names the field)."""


class LineParser:
    """Base of the parsers: decoding, size limit and JSON; subclasses interpret objects."""

    format: ClassVar[str]

    def __init__(
        self,
        path: str | Path = "<stream>",
        *,
        agent: str = "claude",
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.path = Path(path)
        self.converter = Converter(agent)
        self.max_line_bytes = max_line_bytes

    @property
    def agent(self) -> str:
        """The main agent's name; sub-agents are named ``<agent>/<label>``."""
        return self.converter.agent

    def feed(self, line: bytes | str, lineno: int) -> list[Event]:
        """The events of one line (a blank line has none). ``lineno`` is 1-based."""
        obj = self.decode(line, lineno)
        return [] if obj is None else self.feed_object(obj, lineno)

    def feed_object(self, obj: dict[str, Any], lineno: int | None) -> list[Event]:
        """The events of one decoded message (an element of a JSON array, say)."""
        try:
            return self.interpret(obj)
        except ShapeError as exc:
            raise self.error(lineno, str(exc)) from None

    def interpret(self, obj: dict[str, Any]) -> list[Event]:
        """The events of one message; raise :class:`ShapeError` when it is malformed."""
        raise NotImplementedError

    def decode(self, line: bytes | str, lineno: int) -> dict[str, Any] | None:
        """One line as a JSON object, or ``None`` for a blank line."""
        if isinstance(line, bytes):
            raw = line.rstrip(b"\r\n")
            if lineno == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
            self.check_size(len(raw), lineno)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad = raw[exc.start : exc.start + 1]
                raise self.error(
                    lineno, f"invalid UTF-8: byte {bad!r} at offset {exc.start} of the line"
                ) from None
        else:
            text = line.rstrip("\r\n").lstrip("\ufeff")
            self.check_size(len(text.encode("utf-8", "surrogatepass")), lineno)
        if not text.strip():
            return None
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise self.error(lineno, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
        except RecursionError:
            raise self.error(lineno, "invalid JSON: nested too deeply") from None
        if not isinstance(obj, dict):
            raise self.error(lineno, f"expected a JSON object, got {json_type(obj)}")
        return obj

    def check_size(self, size: int, lineno: int | None) -> None:
        if size > self.max_line_bytes:
            raise self.error(
                lineno,
                f"line is longer than the limit of {self.max_line_bytes:,} bytes for one "
                "message (damaged file?)",
            )

    def error(self, lineno: int | None, problem: str) -> Exception:
        from monologue.errors import RecordingError

        return RecordingError(self.path, lineno, problem)


class TranscriptParser(LineParser):
    """A Claude Code session transcript (``~/.claude/projects/<project>/<session>.jsonl``).

    ``user`` and ``assistant`` lines become events; an assistant message split over several
    lines (one content block each, sharing ``message.id``) becomes its blocks in order.
    ``progress`` lines of type ``agent_progress`` carry a sub-agent's messages, and
    ``isSidechain`` lines (older versions) are a sub-agent's too: both are attributed to the
    sub-agent. A message the user typed while the agent worked is an ``attachment`` line
    (``queued_command``); Claude Code's compaction summary is a user line marked
    ``isCompactSummary``: each ``user_message`` says its origin (see
    :mod:`monologue.origins`). Hook progress, ``system``, ``file-history-snapshot``,
    ``queue-operation`` (the queue's ledger: its messages arrive as lines of their own) and
    ``summary`` lines carry nothing to narrate and are skipped.
    """

    format = "claude-code-transcript"
    _merged_agents: frozenset[str] = frozenset()
    _alone: Alone | None = None
    _briefed = False

    def read_alone(self, alone: Alone) -> None:
        """Read a sub-agent's file on its own: its lines are the main agent's (see
        :mod:`monologue_claude.standalone`), its prompt one ``subagent_task`` event; a
        compaction's summary is one ``compaction`` event."""
        self._alone = alone

    def leave_out_progress_of(self, agents: frozenset[str]) -> None:
        """Skip the ``agent_progress`` lines of these sub-agents: their own files are read
        alongside (see :mod:`monologue_claude.subagents`)."""
        self._merged_agents = agents

    def interpret(self, obj: dict[str, Any]) -> list[Event]:
        kind = message_type(obj)
        if kind in ("user", "assistant"):
            line = validate(ChatLine, obj, kind)
            alone = self._alone
            if alone is not None and alone.compaction:
                return self._compaction(line) if kind == "assistant" else []
            if alone is not None and kind == "user" and not self._briefed:
                prompt = first_text(line.message)
                if prompt and prompt.strip():
                    self._briefed = True
                    return [self._briefing(alone, prompt, line)]
            agent = ""
            if line.isSidechain and (alone is None or line.agentId not in (None, alone.agent_id)):
                agent = self.converter.sidechain(line.agentId, first_text(line.message))
            return self.converter.message(
                line.message,
                role=kind,
                agent=agent,
                ts=line.timestamp,
                user_text=line.isCompactSummary or not (line.isMeta or line.isSidechain),
                origin="compaction" if line.isCompactSummary else None,
            )
        if kind == "attachment" and _attachment_type(obj) == "queued_command":
            queued = validate(AttachmentLine, obj, "queued_command attachment")
            if queued.isSidechain:
                return []
            message = Message(content=queued.attachment.prompt)
            return self.converter.message(message, role="user", ts=queued.timestamp)
        data = obj.get("data")
        if kind == "progress" and isinstance(data, dict) and data.get("type") == "agent_progress":
            progress = validate(ProgressLine, obj, "agent_progress")
            nested = progress.data.message
            if nested is None or progress.data.agentId in self._merged_agents:
                return []
            if progress.parentToolUseID is not None:
                agent = self.converter.subagent(progress.parentToolUseID)
            else:
                agent = self.converter.sidechain(progress.data.agentId, None)
            return self.converter.message(
                nested.message,
                role=nested.type,
                agent=agent,
                ts=nested.timestamp or progress.timestamp,
                user_text=False,
            )
        return []

    def _briefing(self, alone: Alone, prompt: str, line: ChatLine) -> Event:
        """The prompt a sub-agent read alone was given: a ``subagent_task`` event naming it,
        so that it introduces itself ("I'm the Explore sub-agent; I was asked to ...")."""
        from monologue.events import Event

        data = {"name": alone.name, "text": prompt}
        if line.timestamp is None:
            return Event(type="subagent_task", data=data)
        return Event(type="subagent_task", data=data, ts=line.timestamp)

    def _compaction(self, line: ChatLine) -> list[Event]:
        """The summary a compaction wrote, without its scratch ``<analysis>``."""
        events = self.converter.message(line.message, role="assistant", ts=line.timestamp)
        return [
            e.model_copy(update={"type": "compaction", "data": {"text": _summary(e.data["text"])}})
            for e in events
            if e.type == "text"
        ]


class StreamJsonParser(LineParser):
    """``claude -p --output-format stream-json`` output: the messages the Agent SDK parses.

    ``assistant`` and ``user`` messages become events, attributed to a sub-agent when their
    ``parent_tool_use_id`` names the call that launched it; ``result`` becomes a
    ``completion``. ``system`` messages and ``stream_event`` partial deltas are skipped (the
    complete message follows every stream of deltas, so reading both would count twice).
    """

    format = "claude-stream-json"

    def interpret(self, obj: dict[str, Any]) -> list[Event]:
        kind = message_type(obj)
        if kind in ("user", "assistant"):
            line = validate(ChatLine, obj, kind)
            return self.converter.message(
                line.message,
                role=kind,
                agent=self.converter.subagent(line.parent_tool_use_id),
                ts=line.timestamp,
                user_text=line.parent_tool_use_id is None,
            )
        if kind == "result":
            result = validate(ResultLine, obj, kind)
            extra: dict[str, Any] = {
                "subtype": result.subtype,
                "num_turns": result.num_turns,
                "duration_ms": result.duration_ms,
                "total_cost_usd": result.total_cost_usd
                if result.total_cost_usd is not None
                else result.cost_usd,
            }
            failed = result.is_error or (result.subtype or "").startswith("error")
            return self.converter.completion(
                result.result,
                is_error=result.is_error,
                extra={key: value for key, value in extra.items() if value is not None},
                ending="failed" if failed else "completed",
            )
        return []


def _attachment_type(obj: dict[str, Any]) -> Any:
    attachment = obj.get("attachment")
    return attachment.get("type") if isinstance(attachment, dict) else None


def _summary(text: str) -> str:
    return _SUMMARY_TAGS.sub("", _ANALYSIS.sub("", text)).strip()


def message_type(obj: dict[str, Any]) -> str:
    kind = obj.get("type")
    if kind is None:
        raise ShapeError("type: Field required")
    if not isinstance(kind, str):
        raise ShapeError(f"type: Input should be a valid string, got {json_type(kind)}")
    return kind


def validate(model: type[_M], obj: dict[str, Any], kind: str) -> _M:
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise ShapeError(f"{kind} message: {describe(exc)}") from None


def describe(exc: ValidationError) -> str:
    """The first problem as ``field.path: message``, without the unions' tag names."""
    errors = exc.errors(include_url=False)
    loc: list[str | int] = []
    for part in errors[0]["loc"]:
        after_union = bool(loc) and (isinstance(loc[-1], int) or loc[-1] == "content")
        if not (after_union and part in UNION_TAGS):
            loc.append(part)
    message = _INSTANCE_OF.sub("", errors[0]["msg"])
    text = f"{'.'.join(str(part) for part in loc) or '<root>'}: {message}"
    if len(errors) > 1:
        text += f" (and {len(errors) - 1} more problem(s))"
    return text


def first_text(message: Message) -> str | None:
    if isinstance(message.content, str):
        return message.content
    for block in message.content:
        if isinstance(block, TextBlock):
            return block.text
    return None


def json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)
