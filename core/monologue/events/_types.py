"""The registry of event types: the core's, and those plugins register with a payload model.

One :class:`EventTypes` (in :mod:`monologue.events`) owns the tables; the envelope reads them
on every event it validates, the session reads which types are never narrated.
"""

from __future__ import annotations

from typing import Any, get_args

from pydantic import BaseModel


def _holds_model(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_holds_model(arg) for arg in get_args(annotation))


def _nested(model: type[BaseModel]) -> bool:
    return any(_holds_model(field.annotation) for field in model.model_fields.values())


class EventTypes:
    """Payload models by type, who registered each, and which types are not narrated."""

    def __init__(self, core: dict[str, type[BaseModel]], silent: set[str]) -> None:
        self.payloads: dict[str, type[BaseModel]] = dict(core)
        """The live table the envelope validates against."""
        self.silent = set(silent)
        """Types never narrated and never a reason to ask whether to speak (live)."""
        # Types whose payload holds a nested model (a narrative's usage) must be dumped to
        # plain dicts; the others become a dict straight from the validated fields, which
        # saves a microsecond on every event read or created.
        self.nested = {name for name, model in core.items() if _nested(model)}
        self._owners = dict.fromkeys(core, "monologue")

    def register(
        self, name: str, payload: type[BaseModel], *, narrated: bool = True, plugin: str = ""
    ) -> None:
        """Make ``name`` a known event type whose ``data`` is validated against ``payload``.

        Plugins call this through the ``register_event_types`` hook, never directly. Events
        of a type registered with ``narrated=False`` are recorded and seen by ``on_event`` but
        never buffered for the narrator. Registering the same model again is a no-op; another
        model for a taken name raises ``ValueError`` naming both owners.
        """
        if not isinstance(payload, type) or not issubclass(payload, BaseModel):
            raise TypeError(f"event type {name!r}: payload must be a pydantic model class")
        current = self.payloads.get(name)
        if current is not None and current is not payload:
            raise ValueError(
                f"event type {name!r} is already registered by {self._owners[name]!r}; "
                f"{plugin or 'a plugin'!r} cannot register it again with another payload"
            )
        self.payloads[name] = payload
        self._owners[name] = plugin
        if _nested(payload):
            self.nested.add(name)
        if not narrated:
            self.silent.add(name)
