"""The typed facade through which the core calls hooks.

Business code calls ``Hooks`` methods, never ``pm.hook.*``. One plugin's exception is logged
against it, counted in :attr:`Hooks.errors`, and never stops the other plugins nor the
agent: the manager guards every implementation at registration (``_guard.py``), so most
methods here are plain pluggy calls, ``firstresult`` included. Three kinds of call keep a
loop of their own, each for a reason pluggy's loop cannot serve:

- the per-event hooks (:meth:`Hooks.event`, :meth:`Hooks.should_speak`, and
  :meth:`Hooks.narrative`, which an instant replay calls every few events) run on every event;
  a lean loop over the unguarded functions, calling with the arguments as given, costs a
  third to a half of pluggy's loop through the guards (``benchmarks/bench_facade.py``);
- hooks routed to one plugin (``narrate``, ``execute_skill``, the narrator's own questions)
  or asked of each plugin with its own arguments or for an answer kept by plugin
  (``register_event_types``, ``register_skills``, ``register_settings``);
- the readers (:meth:`Hooks.open_session`), which collect each plugin's refusal, and the claim
  checker, whose exception must reach the caller.

This module only calls implementations: which narrator a session uses is decided in
``_narrators.py``, and skill calls are routed in ``_skill_router.py``; the methods here for
them keep one stable name for callers.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from monologue.errors import NotMyFormat, RecordingError, UnknownFormat

from . import _narrators
from ._env import is_strict
from ._guard import answered_by, unguarded

if TYPE_CHECKING:
    import click
    from pluggy import HookImpl
    from pydantic import BaseModel

    from monologue.checking import ClaimCheck
    from monologue.events import Event
    from monologue.events._narration import Narration
    from monologue.events._skills import SkillCall, SkillResult, SkillSpec
    from monologue.lines import LineParser
    from monologue.pipeline._session import Session
    from monologue.settings import MonologueConfig

    from ._manager import MonologuePluginManager

log = logging.getLogger("monologue.hooks")

_TYPE_HOOKS = {
    "tool_call": "on_tool_call",
    "tool_result": "on_tool_result",
    "text": "on_text",
    "thinking": "on_text",
}
_Call = tuple["Callable[..., Any]", tuple[str, ...], str, str]
"""An implementation as the per-event loop calls it: (function, argument names, plugin,
hook)."""

_EVENT_ARGS = ("session", "event")
"""The per-event hooks' arguments, in their specs' order."""
_NARRATIVE_ARGS = ("session", "narrative")
"""``on_narrative``'s."""

# Log a failing plugin's traceback this many times per hook, then only every 100th time.
_LOUD_FAILURES = 3


class Hooks:
    """Typed calls into the plugins of one :class:`MonologuePluginManager`."""

    def __init__(self, pm: MonologuePluginManager) -> None:
        self._pm = pm
        self._generation = -1
        self._cache: dict[str, list[HookImpl]] = {}
        self._fast: dict[str, list[_Call]] = {}
        self._event_types_generation = -1
        self._settings_generation = -1
        self._settings_models: dict[str, type[BaseModel]] = {}
        self.errors: Counter[tuple[str, str]] = Counter()
        """Exceptions raised by implementations, by ``(plugin name, hook name)``."""

    # -- plumbing -----------------------------------------------------------------------

    def impls(self, hook: str) -> list[HookImpl]:
        """Implementations of ``hook`` in call order (cached until plugins change)."""
        if self._generation != self._pm.generation:
            self._cache.clear()
            self._fast.clear()
            self._generation = self._pm.generation
        impls = self._cache.get(hook)
        if impls is None:
            # A plugin's own hook whose owner is not installed has no spec: its optional
            # implementations stay unused until the owner registers.
            caller = getattr(self._pm.hook, hook, None)
            found = caller.get_hookimpls() if caller is not None and caller.has_spec() else []
            impls = self._cache[hook] = list(reversed(found))
        return impls

    def report(self, plugin: str, hook: str, exc: BaseException) -> None:
        """Count and log an exception a plugin raised in ``hook``."""
        key = (plugin, hook)
        self.errors[key] += 1
        count = self.errors[key]
        if count <= _LOUD_FAILURES:
            log.error(
                "plugin %r raised in %s: %s: %s",
                plugin,
                hook,
                type(exc).__name__,
                exc,
                exc_info=exc,
            )
        elif count % 100 == 0:
            log.error("plugin %r has raised in %s %d times", plugin, hook, count)

    def _calls(self, hook: str) -> list[_Call]:
        """``(unguarded function, argument names, plugin, hook)`` of each implementation,
        cached until plugins change."""
        calls = self._fast.get(hook) if self._generation == self._pm.generation else None
        if calls is None:
            calls = [
                (unguarded(i), tuple(i.argnames), i.plugin_name, hook) for i in self.impls(hook)
            ]
            self._fast[hook] = calls
        return calls

    def _event_calls(self, kind: str) -> list[_Call]:
        """``on_event``'s implementations, then those of the type's own hook: one list per
        event type, so that an event costs one loop, not two."""
        key = "event:" + kind
        calls = self._fast.get(key) if self._generation == self._pm.generation else None
        if calls is None:
            specific = _TYPE_HOOKS.get(kind)
            calls = self._calls("on_event") + (self._calls(specific) if specific else [])
            self._fast[key] = calls
        return calls

    # The per-event loop (see the module's docstring): an implementation taking every
    # argument in the spec's order (most do) gets them as they are; the others by name.
    def _per_event(
        self,
        calls: list[_Call],
        values: tuple[Any, ...],
        first: bool,
        spec_args: tuple[str, ...] = _EVENT_ARGS,
    ) -> tuple[Any, str | None]:
        for function, argnames, plugin, hook in calls:
            try:
                if argnames == spec_args:
                    answer = function(*values)
                else:
                    kwargs = dict(zip(spec_args, values, strict=True))
                    answer = function(*[kwargs[name] for name in argnames])
            except Exception as exc:
                self.report(plugin, hook, exc)
                if is_strict():
                    raise
                continue
            if first and answer is not None:
                return answer, plugin
        return None, None

    def _first(self, hook: str, kwargs: dict[str, Any]) -> tuple[Any, str | None]:
        """Pluggy's ``firstresult`` call of ``hook`` and the plugin that answered."""
        caller = getattr(self._pm.hook, hook, None)
        if caller is None or not caller.has_spec():
            return None, None
        if not caller.spec.opts.get("firstresult"):
            raise TypeError(f"hook {hook!r} is not a firstresult hook: it has no first answer")
        answer = caller(**kwargs)
        return (None, None) if answer is None else (answer, answered_by())

    def impl_of(self, hook: str, plugin: str) -> HookImpl | None:
        """``plugin``'s implementation of ``hook``, if it has one."""
        for impl in self.impls(hook):
            if impl.plugin_name == plugin:
                return impl
        return None

    @staticmethod
    def call_impl(impl: HookImpl, **kwargs: Any) -> Any:
        """Call one implementation with the arguments it asks for; exceptions propagate."""
        return unguarded(impl)(*[kwargs[name] for name in impl.argnames])

    # -- broadcast hooks ----------------------------------------------------------------

    def session_start(self, session: Session) -> None:
        self._pm.hook.on_session_start(session=session)

    def event(self, session: Session, event: Event) -> None:
        """``on_event``, then the type's own hook (``on_tool_call``, ...) if it has one."""
        self._per_event(self._event_calls(event.type), (session, event), first=False)

    def complete(self, session: Session, event: Event) -> None:
        self._pm.hook.on_complete(session=session, event=event)

    def narrative(self, session: Session, narrative: Event) -> None:
        # The per-event loop: an instant replay delivers a narrative every few events.
        calls = self._calls("on_narrative")
        self._per_event(calls, (session, narrative), first=False, spec_args=_NARRATIVE_ARGS)

    def register_commands(self, cli: click.Group) -> None:
        self._pm.hook.register_commands(cli=cli)

    # -- first-answer hooks -------------------------------------------------------------

    def should_speak(self, session: Session, event: Event) -> tuple[bool | str | None, str | None]:
        """The first opinion and the plugin that gave it; ``(None, None)`` when nobody has one."""
        return self._per_event(self._calls("should_speak"), (session, event), first=True)

    def adapt(self, obj: Any, session: Session | None = None) -> list[Event] | None:
        answer = self._pm.hook.adapt(obj=obj, session=session)
        return None if answer is None else list(answer)

    def load_session(self, path: Path) -> Iterable[Event] | None:
        try:
            return self.open_session(path)[0]
        except UnknownFormat:
            return None

    def open_session(self, path: Path) -> tuple[Iterable[Event], str]:
        """The events of ``path`` from the first reader that recognises it, and its plugin.

        A reader refuses by returning ``None`` or raising :class:`NotMyFormat` with a reason;
        when all refuse, :class:`UnknownFormat` lists each reader and its reason. A
        :class:`RecordingError` (the file is the reader's format, but damaged) propagates.
        """
        self.register_event_types()
        refusals: dict[str, str] = {}
        for impl in self.impls("load_session"):
            try:
                answer = self.call_impl(impl, path=Path(path))
            except NotMyFormat as exc:
                refusals[impl.plugin_name] = exc.reason
                continue
            except RecordingError:
                raise
            except Exception as exc:
                self.report(impl.plugin_name, "load_session", exc)
                refusals[impl.plugin_name] = f"failed: {type(exc).__name__}: {exc}"
                continue
            if answer is not None:
                return answer, impl.plugin_name
            doc = (impl.function.__doc__ or "").strip().splitlines()
            refusals[impl.plugin_name] = "not recognised" + (f" (reads {doc[0]})" if doc else "")
        raise UnknownFormat(path, refusals)

    def check_narrative(
        self, session: Session, events: list[Event], text: str, reason: str
    ) -> ClaimCheck | None:
        """The first claim checker's verdict on ``text``; ``None`` when none is installed.

        A checker that raises is reported against its plugin, and the exception propagates:
        the caller delivers the narrative marked unchecked rather than as if it had passed.
        """
        from monologue.checking import ClaimCheck

        kwargs = {"session": session, "events": events, "text": text, "reason": reason}
        for impl in self.impls("check_narrative"):
            try:
                answer = self.call_impl(impl, **kwargs)
            except Exception as exc:
                self.report(impl.plugin_name, "check_narrative", exc)
                raise
            if answer is None:
                continue
            if not isinstance(answer, ClaimCheck):
                raise TypeError(
                    f"check_narrative of {impl.plugin_name!r} returned {type(answer).__name__}"
                )
            return answer
        return None

    def first(self, hook: str, **kwargs: Any) -> tuple[Any, str | None]:
        """The first answer to ``hook`` and the plugin that gave it; ``(None, None)`` when no
        implementation answers, or nobody declares the hook (a plugin's own hook, its owner
        not installed). For plugins calling the hooks plugins own (the gate's ``control``,
        monologue-skills' ``plan``...), with the same fault isolation as the core's hooks.
        ``hook`` must be declared ``firstresult``."""
        return self._first(hook, kwargs)

    def line_parser(self, path: Path) -> tuple[LineParser | None, str | None]:
        """A parser following ``path`` as it grows, and the plugin that gave it."""
        self.register_event_types()
        answer, plugin = self._first("line_parser", {"path": Path(path)})
        return answer, plugin

    # -- narrators ----------------------------------------------------------------------

    def narrator_names(self) -> list[str]:
        return _narrators.names(self)

    def narrator_unavailable(self, name: str, config: MonologueConfig) -> str | None:
        """Why narrator ``name`` cannot run with ``config``, or ``None`` when it can."""
        return _narrators.unavailable(self, name, config)

    def narrator_in_place(self, name: str, config: MonologueConfig) -> bool:
        """Whether narrator ``name`` declares its calls quick work in this process, which an
        instant replay may run on its pipeline thread (``False`` when it says nothing, or
        fails to answer: reported)."""
        return _narrators.in_place(self, name, config)

    def resolve_narrator(self, config: MonologueConfig) -> str | None:
        """The narrator a session with ``config`` uses; ``None`` when narration is off.

        An explicitly named narrator that cannot run raises :class:`NarratorUnavailable` here,
        at session start, rather than at the first event.
        """
        return _narrators.resolve(self, config)

    def narrate(
        self,
        narrator: str,
        session: Session,
        events: list[Event],
        history: list[str],
        reason: str,
    ) -> Narration | None:
        """Ask one narrator; ``None`` means *wait*. Its exceptions propagate to the caller."""
        return _narrators.narrate(
            self, narrator, session=session, events=events, history=history, reason=reason
        )

    # -- skills -------------------------------------------------------------------------

    def skills(self) -> dict[str, SkillSpec]:
        """Every skill the plugins register, by name; a name registered twice is an error."""
        from . import _skill_router

        return _skill_router.collect(self)

    def execute_skill(
        self, session: Session | None, call: SkillCall, state: Any = None
    ) -> SkillResult:
        """Run ``call`` on the plugin that registered it; failures become ``ok=False``."""
        from . import _skill_router

        return _skill_router.execute(self, session, call, state)

    def settings_models(self) -> dict[str, type[BaseModel]]:
        """Each plugin's settings model (``register_settings``), by plugin; asked once per
        change of the plugin set."""
        if self._settings_generation != self._pm.generation:
            found: dict[str, type[BaseModel]] = {}
            for impl in self.impls("register_settings"):
                try:
                    model = self.call_impl(impl)
                except Exception as exc:
                    self.report(impl.plugin_name, "register_settings", exc)
                    continue
                if model is not None:
                    found[impl.plugin_name] = model
            self._settings_models, self._settings_generation = found, self._pm.generation
        return self._settings_models

    # -- event types --------------------------------------------------------------------

    def register_event_types(self) -> None:
        """Let plugins register their event types (once per change of the plugin set)."""
        if self._event_types_generation == self._pm.generation:
            return
        self._event_types_generation = self._pm.generation
        from monologue.events import register_event_type

        for impl in self.impls("register_event_types"):
            plugin = impl.plugin_name

            def register(
                name: str, payload: type[BaseModel], *, narrated: bool = True, _plugin: str = plugin
            ) -> None:
                register_event_type(name, payload, narrated=narrated, plugin=_plugin)

            try:
                self.call_impl(impl, register=register)
            except Exception as exc:
                self.report(plugin, "register_event_types", exc)
