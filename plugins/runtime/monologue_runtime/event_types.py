"""The envelope of the runtime's event types, as any recording must carry them.

The runtime writes the stricter :mod:`~monologue_runtime.payloads`; these models are what a
reader may rely on in an ``agent_update`` or ``agent_result`` from any source, and what the
core validates once the plugin registered them (``register_event_types``).
"""

from __future__ import annotations

from monologue.events import Payload

__all__ = ["AgentResultData", "AgentUpdateData"]


class AgentUpdateData(Payload):
    """``agent_update``: progress on a task."""

    message: str
    progress: float | None = None


class AgentResultData(Payload):
    """``agent_result``: how an attempt at a task ended."""

    outcome: str
