"""The event envelope: everything an agent does, as one pydantic model and one JSON line.

``Event.data`` stays a plain dict (``call.data["tool_use_id"]`` is the documented way to read
it), but for every known ``type`` it is validated against a payload model on the way in, so
a bad payload fails where it enters with an error that names the field. Plugins register
their own types (``register_event_types``; the runtime's ``agent_update``, the gate's
``summary_refresh``) with a payload model; a type nobody registered keeps its data exactly
as given, so it round-trips unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final, Literal, TypeVar

from orjson import OPT_UTC_Z
from orjson import dumps as _dumps
from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from monologue.errors import EventValidationError
from monologue.redact import may_contain_secret, redact

from ._ids import new_id
from ._types import EventTypes

__all__ = [
    "FOLDED_TYPE",
    "FORMAT_VERSION",
    "KNOWN_TYPES",
    "PAYLOADS",
    "CompletionData",
    "ErrorData",
    "Event",
    "EventType",
    "EventsFoldedData",
    "HintData",
    "NarrationSuppressedData",
    "NarrativeData",
    "Payload",
    "RecordingHeader",
    "TextData",
    "ToolCallData",
    "ToolResultData",
    "Usage",
    "UserMessageData",
    "Visibility",
    "describe_validation_error",
    "new_id",
    "register_event_type",
    "silent_types",
    "summarize_data",
    "utcnow",
]

FORMAT_VERSION: Final = 1
"""Version of the recording format, written in every recording's header line."""

Visibility = Literal["internal", "user", "system"]

EventType = Literal[
    "tool_call",
    "tool_result",
    "text",
    "thinking",
    "completion",
    "error",
    "narrative",
    "narration_suppressed",
    "user_message",
    "hint",
]
"""The core's own event types; plugins add theirs with :func:`register_event_type`."""


def utcnow() -> datetime:
    return datetime.now(UTC)


class Payload(BaseModel):
    """Base of the typed payloads. Extra keys are kept: adapters may add context."""

    model_config = ConfigDict(extra="allow")


class ToolCallData(Payload):
    tool_name: str
    tool_use_id: str
    input: dict[str, Any] = Field(default_factory=dict)


class ToolResultData(Payload):
    tool_use_id: str
    tool_name: str | None = None
    output: JsonValue = ""
    is_error: bool = False


class TextData(Payload):
    text: str


class CompletionData(Payload):
    result: JsonValue = None
    is_error: bool = False


class ErrorData(Payload):
    message: str
    error_type: str | None = None


class Usage(BaseModel):
    """Token usage of one model call; extra counters (cache reads, ...) are kept."""

    model_config = ConfigDict(extra="allow")

    input_tokens: int = 0
    output_tokens: int = 0


class NarrativeData(Payload):
    text: str
    narrator: str
    model: str | None = None
    reason: str
    covers: list[str] = Field(default_factory=list)
    latency_ms: float | None = None
    usage: Usage | None = None


class NarrationSuppressedData(Payload):
    reason: str


FOLDED_TYPE: Final = "events_folded"


class EventsFoldedData(Payload):
    """A batch's first event when the buffer folded events at ``buffer_cap`` (never recorded;
    see docs/formats.md): ``ids`` while ``ids_complete``; ``*_at_least``: totals are floors."""

    text: str = ""
    count: int = 0
    first_id: str = ""
    last_id: str = ""
    first_ts: AwareDatetime | None = None
    last_ts: AwareDatetime | None = None
    ids: list[str] = Field(default_factory=list)
    ids_complete: bool = True
    types: dict[str, int] = Field(default_factory=dict)
    tools: dict[str, int] = Field(default_factory=dict)
    files: list[str] = Field(default_factory=list)
    files_total: int = 0
    files_at_least: bool = False
    commands: list[str] = Field(default_factory=list)
    commands_total: int = 0
    commands_at_least: bool = False
    edited: list[str] = Field(default_factory=list)
    edited_total: int = 0
    edited_at_least: bool = False
    commits: list[str] = Field(default_factory=list)
    commits_total: int = 0
    last_file: str = ""
    last_edited: str = ""
    last_commit: str = ""
    errors: int = 0
    error_samples: list[str] = Field(default_factory=list)


class UserMessageData(Payload):
    text: str


class HintData(Payload):
    name: str


_TYPES = EventTypes(
    {
        "tool_call": ToolCallData,
        "tool_result": ToolResultData,
        "text": TextData,
        "thinking": TextData,
        "completion": CompletionData,
        "error": ErrorData,
        "narrative": NarrativeData,
        "narration_suppressed": NarrationSuppressedData,
        "user_message": UserMessageData,
        "hint": HintData,
        FOLDED_TYPE: EventsFoldedData,
    },
    silent={"narrative", "narration_suppressed", FOLDED_TYPE},
)

PAYLOADS: Final = _TYPES.payloads
"""Payload model by event type: the core's, then those plugins registered (a live dict)."""

KNOWN_TYPES: Final = frozenset(PAYLOADS)
"""The core's own types (see :data:`EventType`)."""

_NESTED_PAYLOADS: Final = _TYPES.nested

register_event_type = _TYPES.register


def silent_types() -> set[str]:
    """The live set of types that are never narrated (read it, never change it)."""
    return _TYPES.silent


def describe_validation_error(exc: ValidationError) -> tuple[str, str]:
    """Turn a pydantic error into ``(field, message)``, e.g. ``("data.tool_name", "...")``."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    loc = [str(part) for part in first["loc"]]
    message = first["msg"]
    if first["type"] == "payload":
        # Raised by Event._validate_payload: point inside `data` at the payload's own field.
        ctx = first.get("ctx") or {}
        loc = [*loc, *str(ctx.get("field", "")).split(".")]
        message = str(ctx.get("problem", message))
    field = ".".join(part for part in loc if part) or "<root>"
    text = f"{field}: {message}"
    if len(errors) > 1:
        text += f" (and {len(errors) - 1} more problem(s))"
    return field, text


M = TypeVar("M", bound=BaseModel)


def _naming_the_field(validate: Callable[[], M], context: str = "") -> M:
    """Run a pydantic validation; its error becomes an :class:`EventValidationError` whose
    message starts with the failing field (``data.tool_name: Field required``)."""
    try:
        return validate()
    except ValidationError as exc:
        field, message = describe_validation_error(exc)
        raise EventValidationError(f"{context}{message}", field=field) from None


# What ``Event.trusted`` sets, written through the slots' own descriptors: a third of the
# cost of ``object.__setattr__`` (which looks each name up first) on every emitted event.
_new_model = BaseModel.__new__
_now = datetime.now
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


# Every trusted event shares its fields set and its (empty) extras: one container of each
# per event was half the garbage collector's work on the agent's thread (each allocation
# counts towards a collection, and a burst's events all survive into the older generations
# while they wait in the queue). Pydantic reads them, copies them (``model_copy``: the
# copies are plain, the event's own), and writes to them only when an attribute is
# assigned: every field is in the set already, and an extra attribute is refused.


class _EveryField(set[str]):
    """The fields set of every trusted event: they all set every field."""

    def add(self, name: str) -> None:
        pass

    def __copy__(self) -> set[str]:
        return set(self)


class _NoExtras(dict[str, Any]):
    """The extras of every trusted event and every event read back: none, and none can be
    assigned."""

    def __setitem__(self, name: str, value: Any) -> None:
        raise TypeError(
            f"cannot add attribute {name!r} to an event: "
            f"use event.model_copy(update={{{name!r}: ...}})"
        )

    def __copy__(self) -> dict[str, Any]:
        return {}


_ALL_FIELDS = _EveryField(
    ("id", "ts", "session_id", "agent", "task_id", "type", "visibility", "data")
)
_NO_EXTRAS = _NoExtras()


class _Redacted(set[str]):
    """The fields set of the events of one reading of a recording that says it was redacted
    under the rules in effect (:meth:`Event.recorded`): assigning a field (which pydantic
    notes here) may put back what redaction took out, and drops the mark."""

    intact = True

    def add(self, name: str) -> None:
        self.intact = False  # every field is in the set already

    def __copy__(self) -> set[str]:
        return set(self)  # a copy (model_copy) is a plain event: redacted again


class Event(BaseModel):
    """One thing that happened in a session. See docs/formats.md for the JSON shape."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(default_factory=new_id)
    ts: AwareDatetime = Field(default_factory=utcnow)
    session_id: str = ""
    agent: str = ""
    task_id: str | None = None
    type: str
    visibility: Visibility = "internal"
    data: dict[str, Any] = Field(default_factory=dict)

    @field_validator("data")
    @classmethod
    def _validate_payload(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        kind = info.data.get("type", "")
        model = PAYLOADS.get(kind)
        if model is None:
            return value
        try:
            payload = model.model_validate(value)
            if kind in _NESTED_PAYLOADS:
                return payload.model_dump()
            return {**payload.__dict__, **(payload.__pydantic_extra__ or {})}
        except ValidationError as exc:
            inner = exc.errors(include_url=False)[0]
            raise PydanticCustomError(
                "payload",
                "{field}: {problem}",
                {
                    "field": ".".join(str(part) for part in inner["loc"]),
                    "problem": inner["msg"],
                },
            ) from None

    @model_validator(mode="after")
    def _only_narratives_reach_the_user(self) -> Event:
        if self.visibility == "user" and self.type != "narrative":
            raise ValueError(
                f"visibility: only narrative events may be 'user', not a {self.type!r} event"
            )
        return self

    @classmethod
    def trusted(
        cls,
        type: str,
        data: dict[str, Any],
        session_id: str,
        agent: str,
        task_id: str | None = None,
        *,
        visibility: Visibility = "internal",
    ) -> Event:
        """An event built without validation, for payloads already type-checked.

        The session's own helpers (``tool_call``, ``text``...) check their arguments and
        build complete payloads; running pydantic over them again would cost most of the
        per-event budget. So does the session's narrative (``visibility="user"``), made of
        a validated :class:`Narration` and of values the core holds. Everything from outside
        (JSON, adapters, ``emit``) is validated.
        """
        event = _new_model(cls)
        fields = {
            "id": new_id(),
            "ts": _now(UTC),
            "session_id": session_id,
            "agent": agent,
            "task_id": task_id,
            "type": type,
            "visibility": visibility,
            "data": data,
        }
        _set_dict(event, fields)
        _set_fields_set(event, _ALL_FIELDS)
        _set_extra(event, _NO_EXTRAS)
        _set_private(event, None)
        return event

    @classmethod
    def recorded(cls, *, redacted: bool) -> Callable[[dict[str, Any]], Event]:
        """How the events of one reading of a recording are built: without validation, each
        from its line's fields (all eight, checked by the reader, and no other key).
        ``redacted``: the recording's header says its lines were redacted under the rules in
        effect, so these events are not redacted again (:attr:`already_redacted`).

        They share their fields set, which holds the mark, and their (empty) extras, as
        trusted events do: a set per line read was a tenth of reading a recording, and the
        garbage collector's work besides. Assigning a field of any of them drops the mark
        for all of them, which are then only redacted again; nothing assigns the fields of
        the events it reads back."""
        mark = _Redacted(_ALL_FIELDS) if redacted else _ALL_FIELDS

        def build(fields: dict[str, Any]) -> Event:
            event = _new_model(cls)
            _set_dict(event, fields)
            _set_fields_set(event, mark)
            _set_extra(event, _NO_EXTRAS)
            _set_private(event, None)
            return event

        return build

    @property
    def already_redacted(self) -> bool:
        """Whether this event, as read from its recording, was redacted when it was written,
        under the rules in effect (see :meth:`recorded`): the pipeline skips it. Never true of
        an event built any other way, nor of a copy, nor once a field is assigned."""
        fields = self.__pydantic_fields_set__
        return type(fields) is _Redacted and fields.intact

    def redacted(self, line: str | None = None) -> Event:
        """This event with the secrets in its payload redacted: a copy when there are any,
        else the event itself. ``line`` is the event's JSON when the caller has made it: the
        pre-check then reads only its payload's part (the last field), which most events
        pass; without it, the payload's ``repr`` (for the pre-check the JSON form's twin:
        the same keys and strings, quoted with ``'`` or ``"``, which its patterns accept
        alike). An event :attr:`already_redacted` is the event itself, unread."""
        if self.already_redacted:
            return self
        data = self.data
        if not may_contain_secret(repr(data) if line is None else line[line.find(',"data":') :]):
            return self
        clean = redact(data)
        return self if clean == data else self.model_copy(update={"data": clean})

    @classmethod
    def from_json(cls, line: str | bytes) -> Event:
        """Parse one JSON line; raise :class:`EventValidationError` naming the bad field."""
        return _naming_the_field(lambda: cls.model_validate_json(line))

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> Event:
        """Validate a decoded JSON object; raise :class:`EventValidationError` on bad fields."""
        return _naming_the_field(lambda: cls.model_validate(obj))

    def to_json(self) -> str:
        """One line of JSON, without a trailing newline: ``model_dump_json``'s line.

        A plain event (no subclass, no extra fields) is written by orjson from its fields, in
        their declared order: the same line (``tests/test_scrub.py`` holds the two to it), in
        about a third of the time, on every event a session's pipeline runs. A value orjson
        does not know (a set, bytes, a model) goes through pydantic. ``ValueError`` for an
        event JSON cannot hold (a lone surrogate in a string)."""
        if type(self) is Event and not self.__pydantic_extra__:
            try:
                return _dumps(vars(self), option=OPT_UTC_Z).decode()
            except TypeError:  # orjson.JSONEncodeError: a type it does not serialize
                pass
        return self.model_dump_json()

    @property
    def payload(self) -> BaseModel | None:
        """The typed payload of a registered type, ``None`` for a type nobody registered."""
        model = PAYLOADS.get(self.type)
        return model.model_validate(self.data) if model else None

    @property
    def text(self) -> str:
        """The narration text of a narrative event (empty for other types)."""
        return str(self.data.get("text", "")) if self.type == "narrative" else ""

    def __str__(self) -> str:
        # `on_narrative=print` should print the sentence, not a model repr.
        if self.type == "narrative":
            return self.text
        return f"[{self.type}] {summarize_data(self.type, self.data)}"


def summarize_data(event_type: str, data: dict[str, Any], limit: int = 120) -> str:
    """A one-line human summary of an event's payload, for logs and dimmed event lines."""
    if event_type == "tool_call":
        text = f"{data.get('tool_name')} {_compact(data.get('input'))}"
    elif event_type == "tool_result":
        prefix = "error: " if data.get("is_error") else ""
        text = f"{prefix}{_compact(data.get('output'))}"
    elif "text" in data:
        text = str(data["text"])
    elif "message" in data:
        text = str(data["message"])
    elif "reason" in data:
        text = str(data["reason"])
    else:
        text = _compact(data)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(f"{k}={_compact(v)}" for k, v in value.items())
    if isinstance(value, list):
        return " ".join(_compact(v) for v in value)
    return "" if value is None else str(value)


class RecordingHeader(BaseModel):
    """First line of a recording file."""

    model_config = ConfigDict(extra="allow")

    monologue: int = FORMAT_VERSION
    session_id: str
    agent: str
    started_at: AwareDatetime
    meta: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def from_json(cls, line: str | bytes) -> RecordingHeader:
        return _naming_the_field(lambda: cls.model_validate_json(line), "recording header: ")

    def to_json(self) -> str:
        return self.model_dump_json()
