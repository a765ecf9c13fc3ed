"""Narrate a Claude Agent SDK run through the SDK's hooks, leaving the caller's loop alone.

.. code-block:: python

    options = ClaudeAgentOptions(hooks=sdk_hooks())
    async for message in query(prompt="...", options=options):
        ...                                   # unchanged

``PreToolUse`` becomes a ``tool_call``, ``PostToolUse`` a ``tool_result`` (and
``PostToolUseFailure`` one with ``is_error``), ``Stop`` the end of the turn. Events go to
the session given, else to the session current when the hook runs (``@monologue`` or
``with session(...)`` around the loop), else to a session the hooks open at the first tool
call and close at ``Stop``, after the final narration. A hook that fails is logged and
answers ``{}`` like the others: narration never blocks nor changes what the agent does.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

from .hook_log import hook_events
from .sdk import parser_of

if TYPE_CHECKING:
    from monologue import Session
    from monologue.events import Event

log = logging.getLogger("monologue.claude")

HOOK_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop")


class HookNarration:
    """The hook callback of :func:`sdk_hooks` (one for every hook), and its session."""

    def __init__(self, session: Session | None, agent: str, config: dict[str, Any]) -> None:
        self.session = session
        self.agent = agent
        self.config = config
        self.owned: Session | None = None

    def target(self, open_one: bool = True) -> tuple[Session | None, bool]:
        """The session to report to, and whether these hooks opened it (and close it)."""
        from monologue import Session, current

        if self.session is not None:
            return self.session, False
        running = current()
        if running is not None and running.active:
            return running, False
        if (self.owned is None or not self.owned.active) and open_one:
            self.owned = Session(self.agent, **self.config).start()
        return self.owned, True

    async def __call__(
        self, input_data: dict[str, Any], tool_use_id: str | None, context: Any
    ) -> dict[str, Any]:
        """The callback of every hook: report, never fail, never decide anything."""
        hook = input_data.get("hook_event_name")
        try:
            session, owned = self.target(open_one=hook != "Stop")
            if session is None:
                return {}  # a turn without tool calls, and nobody to tell
            converter = parser_of(session).converter
            events: list[Event] = []
            if hook == "Stop":
                result = input_data.get("last_assistant_message")
                if owned:
                    # Delivers the final narration before the agent's turn ends.
                    self.owned = None
                    await session.aclose(result=result)
                else:
                    events = converter.completion(result)
            else:
                events = hook_events(converter, input_data, tool_use_id)
            for event in events:
                session.dispatch(event)
        except Exception:
            log.exception("monologue-claude: %s hook failed; narration skipped it", hook)
        return {}

    def matchers(self) -> dict[Any, list[Any]]:
        try:
            # Imported by name: the SDK is optional, and absent where the types are checked.
            hook_matcher = importlib.import_module("claude_agent_sdk").HookMatcher
        except ImportError as exc:
            raise ImportError(
                "sdk_hooks() builds hooks for the Claude Agent SDK, which is not installed: "
                "pip install claude-agent-sdk (or monologue-claude[sdk])"
            ) from exc
        return {event: [hook_matcher(hooks=[self])] for event in HOOK_EVENTS}


def sdk_hooks(
    session: Session | None = None, *, agent: str = "claude", **config: Any
) -> dict[Any, list[Any]]:
    """Hooks for ``ClaudeAgentOptions(hooks=...)`` that narrate the run, by hook event name
    (keys typed ``Any``: the SDK types them as its ``HookEvent`` literals).

    ``session``: where events go (default: the current session when a hook runs, else one
    these hooks open for ``agent`` with ``config`` and close at ``Stop``). To add hooks of
    your own, extend the lists: ``hooks["PreToolUse"].append(HookMatcher(...))``.
    """
    return HookNarration(session, agent, config).matchers()
