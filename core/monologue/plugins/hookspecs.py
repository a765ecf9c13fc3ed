"""The hook specifications: the contract between the core and every plugin.

Broadcast hooks are called one implementation at a time; an exception in one is logged
against its plugin and counted, and the others still run. "First answer wins" hooks stop at
the first implementation that returns something other than ``None``; ``tryfirst`` /
``trylast`` order them as in pluggy. Implementations may accept any subset of the arguments.

**Threads.** No hook runs on the agent's (emitting) thread: emitting only stamps an event
and queues it. A session's *pipeline thread* (``monologue-pipeline-<session id>``) runs its
event hooks, one at a time and in event order: ``on_session_start``, ``adapt`` (for
``feed``), ``on_event``, ``on_tool_call`` / ``on_tool_result`` / ``on_text``,
``should_speak``, ``on_narrative`` and ``on_complete``; their implementations never run
concurrently for one session, so per-session state needs no lock against them (only against
narrators). ``narrate`` runs on a narrator pool thread
(``monologue-narrator-N``), or, in an instant replay whose narrator answers
``narrator_in_place``, on the pipeline thread; ``register_event_types``,
``narrator_priority`` and ``narrator_unavailable`` on the pipeline thread when a session
starts. Hooks of no session (readers, skills, commands, settings), and
``narrator_in_place``, run on the caller's thread.

**Plugins' own hooks.** A hook that only plugins call on plugins ships with the plugin that
owns it: monologue-gate declares ``control`` and ``narrator_context``, monologue-skills
``register_skills`` and ``plan``. The owner adds them in ``register_hookspecs`` (as pytest's
``pytest_addhooks``); a plugin implementing another's hook marks the implementation
``@hookimpl(optionalhook=True)``, so that it loads, unused, when the owner is not installed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from monologue._markers import hookspec

if TYPE_CHECKING:
    import click
    from pydantic import BaseModel

    from monologue.checking import ClaimCheck
    from monologue.events import Event
    from monologue.events._narration import Narration
    from monologue.events._skills import SkillCall, SkillResult
    from monologue.lines import LineParser
    from monologue.pipeline._session import Session
    from monologue.plugins._manager import MonologuePluginManager
    from monologue.settings import MonologueConfig

__all__ = [
    "adapt",
    "check_narrative",
    "execute_skill",
    "line_parser",
    "load_session",
    "narrate",
    "narrator_in_place",
    "narrator_priority",
    "narrator_unavailable",
    "on_complete",
    "on_event",
    "on_narrative",
    "on_session_start",
    "on_text",
    "on_tool_call",
    "on_tool_result",
    "register_commands",
    "register_event_types",
    "register_hookspecs",
    "register_settings",
    "should_speak",
]


@hookspec
def on_session_start(session: Session) -> None:
    """A session has started, before its first event. The return value is ignored.

    Pipeline thread; ``Session.start()`` waits for it."""


@hookspec
def on_tool_call(session: Session, event: Event) -> None:
    """A ``tool_call`` event was emitted, right after ``on_event`` saw it (pipeline thread)."""


@hookspec
def on_tool_result(session: Session, event: Event) -> None:
    """A ``tool_result`` event was emitted, right after ``on_event`` saw it (pipeline
    thread)."""


@hookspec
def on_text(session: Session, event: Event) -> None:
    """A ``text`` or ``thinking`` event was emitted, right after ``on_event`` saw it (pipeline
    thread)."""


@hookspec
def on_complete(session: Session, event: Event) -> None:
    """The session ended: called exactly once, from ``finally``, with the completion event.

    By then the final narration has been delivered (or given up after ``narrate_timeout_s``),
    so this is the place to flush and close. Pipeline thread, after every queued event and
    narrative; ``close()`` waits for it up to ``final_wait_s``.
    """


@hookspec
def on_event(session: Session, event: Event) -> None:
    """Every event of every type, narratives included, in the order they happened, already
    redacted. Pipeline thread: this is where sinks (the recorder) do their I/O."""


@hookspec(firstresult=True)
def should_speak(session: Session, event: Event) -> bool | str | None:
    """Asked after each narratable event: is it time to narrate ``session.pending``?

    ``True`` speak now, ``False`` hold, ``None`` no opinion; the first non-``None`` answer
    wins and no answer at all means hold. A non-empty string means *speak now* and names the
    reason passed on to the narrator (the gate answers ``"gate: "`` and what called for
    speech, e.g. ``"gate: tool failed: Bash"``). When several requests wait for one turn the
    strongest reason is kept, in this order: ``buffer``, ``max_buffer``, any reason a plugin
    names, ``idle``, ``final``. Whatever the answers, the
    core asks the narrator with reason ``max_buffer`` once ``max_buffer_size`` events wait,
    unless an implementation explicitly answered ``False``. Pipeline thread, right after the
    event's ``on_event``.
    """


@hookspec
def narrate(
    session: Session,
    events: list[Event],
    history: list[str],
    reason: str,
    feedback: list[str] | None,
) -> str | Narration | None:
    """Turn buffered events into narration. Called only on the selected narrator plugin.

    Runs on a narrator pool thread (on the pipeline thread in an instant replay, when the
    narrator answers ``narrator_in_place``), never on the agent's path, with at most
    ``max_buffer_size`` events (older ones come folded into one ``events_folded`` digest,
    first); a call abandoned after ``narrate_timeout_s`` finds its ``events`` list emptied.
    The events are redacted already: the pipeline redacted each before any hook saw it.
    ``history`` holds the last ``history_size`` narratives, oldest first; ``reason`` is
    ``buffer``, ``max_buffer``, ``final``, ``idle``, or the reason a ``should_speak`` plugin
    named (the gate's);
    ``session.is_first`` is true until a narrative has been delivered. Return the text or a
    :class:`~monologue.Narration` (text, model, usage); ``None``, ``""`` or ``"..."`` mean
    *wait*: the events stay buffered for the next call.

    ``feedback`` is ``None`` on the first call. A narrator that accepts the argument can be
    asked once more when a claim checker found its answer false: ``feedback`` then lists
    each false claim and what the events show instead, and the answer should say only what
    the events show.
    """


@hookspec(firstresult=True)
def check_narrative(
    session: Session, events: list[Event], text: str, reason: str
) -> ClaimCheck | None:
    """Check the claims of narration ``text`` against the ``events`` it covers. First answer
    wins.

    Runs where ``narrate`` runs, inside the narrator's deadline, after ``narrate`` answered
    and before the narrative is delivered; never on the agent's thread. Return a
    :class:`~monologue.checking.ClaimCheck`: its ``violations`` (empty when every claim
    holds) and a ``safe_text`` told only from verified facts, delivered instead of a false
    narration. ``None`` means no opinion: the narration goes out as it is.
    """


@hookspec(firstresult=True)
def narrator_priority() -> int | None:
    """Asked of each narrator plugin when a session with ``narrator = "auto"`` starts.

    Return a number: ``auto`` picks the usable narrator (see ``narrator_unavailable``) with
    the highest one, ties broken by plugin name. ``None``, or no implementation, keeps the
    narrator out of ``auto``; it can still be named explicitly. The offline template narrator
    answers 0; a model-backed narrator answers more, to be preferred when it can run.
    """


@hookspec(firstresult=True)
def narrator_in_place(config: MonologueConfig) -> bool | None:
    """Asked of the selected narrator plugin when an instant replay starts, on the thread
    that starts it, before its first event: is ``narrate``
    quick work done in this process on the processor alone (no network, no model, no file,
    no waiting), so that it may run on the session's pipeline thread itself?

    ``True`` lets an instant replay (``speed=0``, which waits for each turn anyway) run its
    narration turns, all but the final one, on its pipeline thread, where it reads its
    events, and deliver each narrative there: no narrator pool, no worker thread, and no
    ``narrate_timeout_s``, so a call that blocks blocks the replay. ``None``, ``False``, or
    no implementation keep every turn on the narrator pool with its timeout. Live sessions
    always narrate on the pool. The offline template narrator answers ``True``.
    """


@hookspec
def register_event_types(register: Callable[..., None]) -> None:
    """Declare the event types your plugin emits: ``register(name, payload, narrated=True)``.

    ``payload`` is a pydantic model; events of that type are validated against it wherever
    they are created or read, and a bad one raises
    :class:`~monologue.errors.EventValidationError` naming the field. ``narrated=False``
    types are recorded and seen by ``on_event`` but never buffered for the narrator. Called
    before a plugin manager's first session starts or first file is read (not at plugin
    load, so import your models inside the implementation); a type another plugin already
    registered with a different model is reported against you and skipped.
    """


@hookspec(firstresult=True)
def narrator_unavailable(config: MonologueConfig) -> str | None:
    """Asked of the selected narrator plugin when a session starts.

    Return ``None`` when it can narrate with this configuration, or a sentence saying what is
    missing (``"ANTHROPIC_API_KEY is not set"``): an explicitly selected narrator then fails
    the session's start with that message, and ``narrator="auto"`` skips it.
    """


@hookspec
def on_narrative(session: Session, narrative: Event) -> None:
    """A narrative was delivered (a ``narrative`` event, visibility ``user``): pipeline
    thread, right after the narrative's ``on_event``, before the session's subscribers."""


@hookspec(historic=True)
def register_hookspecs(pm: MonologuePluginManager) -> None:
    """Add the hooks your plugin owns: ``pm.add_hookspecs(your_hookspecs_module)``.

    Fires once per plugin, when it is registered (historic: also for plugins registered
    after the manager was made), before monologue checks the plugin's own implementations.
    Mark the specifications with ``monologue.hookspec``.
    """


@hookspec(firstresult=True)
def execute_skill(session: Session | None, call: SkillCall, state: Any) -> SkillResult | None:
    """Run a skill. Routed to the plugin that registered ``call.name``; return the result."""


@hookspec(firstresult=True)
def adapt(obj: Any, session: Session | None) -> list[Event] | None:
    """Turn a foreign object (an SDK message, a stream event, a dict) into events.

    Return ``None`` when the object is not yours; a list (possibly empty, for objects that
    carry nothing to narrate) when it is. Returned events need not carry ``session_id``,
    ``agent`` or ``task_id``: the session fills them in. ``session`` is given when the object
    was fed to a live session, so stream adapters can keep per-session state in
    ``session.state``.
    """


@hookspec(firstresult=True)
def load_session(path: Path) -> Iterable[Event] | None:
    """Read a recording or transcript in a format you recognise, else return ``None``.

    Detect cheaply (name, first bytes) and return a lazy iterable. Problems in the file raise
    :class:`~monologue.errors.RecordingError` naming the path and line, *from the iterator*,
    after the good events before them have been produced.
    """


@hookspec(firstresult=True)
def line_parser(path: Path) -> LineParser | None:
    """A parser to follow ``path`` line by line as it grows (``monologue watch``), if it is in
    your format and your format can be read incrementally; else ``None``.
    """


@hookspec
def register_settings() -> type[BaseModel] | None:
    """Your plugin's settings: one model (subclass :class:`monologue.settings.PluginSettings`),
    each field one flat key of ``[tool.monologue]`` and one ``MONOLOGUE_<KEY>`` variable.

    The core layers every source into it, lists it in ``monologue config``, refuses keys no
    model declares and handles a bad value (a session warns and uses the default, the CLI
    errors). Read the values with ``session.config.settings(YourSettings)``. Import the
    model inside this function, so that ``monologue --help`` stays fast.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add ``monologue`` subcommands: ``cli.add_command(...)``. Failures are reported, skipped."""
