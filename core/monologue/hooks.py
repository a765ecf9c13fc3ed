"""The typed facade through which the core calls hooks.

Business code calls ``Hooks`` methods, never ``pm.hook.*``. Implementations are called one at
a time (in pluggy's order: ``tryfirst`` first, then last registered first) so that one
plugin's exception is logged against it, counted in :attr:`Hooks.errors`, and never stops
the other plugins nor the agent.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import NarratorUnavailable

if TYPE_CHECKING:
    import click
    from pluggy import HookImpl

    from .config import MonologueConfig
    from .events import Event
    from .lines import LineParser
    from .narration import Narration
    from .plugins import MonologuePluginManager
    from .sessions import Session
    from .skills import SkillCall, SkillResult, SkillSpec

log = logging.getLogger("monologue.hooks")

AUTO_NARRATORS = ("anthropic", "template")
"""Narrators ``narrator="auto"`` tries, in order; the first available one is used."""

NO_NARRATOR = frozenset({"none", "off"})

_TYPE_HOOKS = {
    "tool_call": "on_tool_call",
    "tool_result": "on_tool_result",
    "text": "on_text",
    "thinking": "on_text",
}
# Log a failing plugin's traceback this many times per hook, then only every 100th time.
_LOUD_FAILURES = 3


class Hooks:
    """Typed calls into the plugins of one :class:`MonologuePluginManager`."""

    def __init__(self, pm: MonologuePluginManager) -> None:
        self._pm = pm
        self._generation = -1
        self._cache: dict[str, list[HookImpl]] = {}
        self.errors: Counter[tuple[str, str]] = Counter()
        """Exceptions raised by implementations, by ``(plugin name, hook name)``."""

    # -- plumbing -----------------------------------------------------------------------

    def impls(self, hook: str) -> list[HookImpl]:
        """Implementations of ``hook`` in call order (cached until plugins change)."""
        if self._generation != self._pm.generation:
            self._cache.clear()
            self._generation = self._pm.generation
        impls = self._cache.get(hook)
        if impls is None:
            caller = getattr(self._pm.hook, hook)
            impls = self._cache[hook] = list(reversed(caller.get_hookimpls()))
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

    def _broadcast(self, hook: str, kwargs: dict[str, Any]) -> None:
        for impl in self.impls(hook):
            try:
                impl.function(*[kwargs[name] for name in impl.argnames])
            except Exception as exc:
                self.report(impl.plugin_name, hook, exc)

    def _first(self, hook: str, kwargs: dict[str, Any]) -> tuple[Any, str | None]:
        for impl in self.impls(hook):
            try:
                answer = impl.function(*[kwargs[name] for name in impl.argnames])
            except Exception as exc:
                self.report(impl.plugin_name, hook, exc)
                continue
            if answer is not None:
                return answer, impl.plugin_name
        return None, None

    def _impl_of(self, hook: str, plugin: str) -> HookImpl | None:
        for impl in self.impls(hook):
            if impl.plugin_name == plugin:
                return impl
        return None

    # -- broadcast hooks ----------------------------------------------------------------

    def session_start(self, session: Session) -> None:
        self._broadcast("on_session_start", {"session": session})

    def event(self, session: Session, event: Event) -> None:
        """``on_event``, then the type's own hook (``on_tool_call``, ...) if it has one."""
        kwargs = {"session": session, "event": event}
        self._broadcast("on_event", kwargs)
        specific = _TYPE_HOOKS.get(event.type)
        if specific is not None:
            self._broadcast(specific, kwargs)

    def complete(self, session: Session, event: Event) -> None:
        self._broadcast("on_complete", {"session": session, "event": event})

    def narrative(self, session: Session, narrative: Event) -> None:
        self._broadcast("on_narrative", {"session": session, "narrative": narrative})

    def register_commands(self, cli: click.Group) -> None:
        self._broadcast("register_commands", {"cli": cli})

    # -- first-answer hooks -------------------------------------------------------------

    def should_speak(self, session: Session, event: Event) -> tuple[bool | str | None, str | None]:
        """The first opinion and the plugin that gave it; ``(None, None)`` when nobody has one."""
        answer, plugin = self._first("should_speak", {"session": session, "event": event})
        return answer, plugin

    def adapt(self, obj: Any, session: Session | None = None) -> list[Event] | None:
        answer, _ = self._first("adapt", {"obj": obj, "session": session})
        return None if answer is None else list(answer)

    def load_session(self, path: Path) -> Iterable[Event] | None:
        answer, _ = self._first("load_session", {"path": Path(path)})
        return answer  # type: ignore[no-any-return]

    def line_parser(self, path: Path) -> tuple[LineParser | None, str | None]:
        """A parser following ``path`` as it grows, and the plugin that gave it."""
        answer, plugin = self._first("line_parser", {"path": Path(path)})
        return answer, plugin

    # -- narrators ----------------------------------------------------------------------

    def narrator_names(self) -> list[str]:
        return sorted(impl.plugin_name for impl in self.impls("narrate"))

    def narrator_unavailable(self, name: str, config: MonologueConfig) -> str | None:
        """Why narrator ``name`` cannot run with ``config``, or ``None`` when it can."""
        if self._impl_of("narrate", name) is None:
            installed = ", ".join(self.narrator_names()) or "none"
            return f"no narrator plugin named {name!r} is installed (installed: {installed})"
        impl = self._impl_of("narrator_unavailable", name)
        if impl is None:
            return None
        answer = impl.function(*[{"config": config}[n] for n in impl.argnames])
        return None if answer is None else str(answer)

    def resolve_narrator(self, config: MonologueConfig) -> str | None:
        """The narrator a session with ``config`` uses; ``None`` when narration is off.

        An explicitly named narrator that cannot run raises :class:`NarratorUnavailable` here,
        at session start, rather than at the first event.
        """
        wanted = config.narrator.strip()
        if wanted.lower() in NO_NARRATOR:
            return None
        if wanted != "auto":
            problem = self.narrator_unavailable(wanted, config)
            if problem:
                raise NarratorUnavailable(f"narrator {wanted!r} cannot be used: {problem}")
            return wanted
        for candidate in AUTO_NARRATORS:
            if self._impl_of("narrate", candidate) and not self.narrator_unavailable(
                candidate, config
            ):
                return candidate
        return None

    def narrate(
        self,
        narrator: str,
        session: Session,
        events: list[Event],
        history: list[str],
        reason: str,
    ) -> Narration | None:
        """Ask one narrator; ``None`` means *wait*. Its exceptions propagate to the caller."""
        from .narration import as_narration

        impl = self._impl_of("narrate", narrator)
        if impl is None:
            raise LookupError(f"narrator {narrator!r} is no longer registered")
        kwargs = {"session": session, "events": events, "history": history, "reason": reason}
        return as_narration(impl.function(*[kwargs[name] for name in impl.argnames]))

    # -- skills -------------------------------------------------------------------------

    def skills(self) -> dict[str, SkillSpec]:
        """Every skill the plugins register, by name; a name registered twice is an error."""
        from .skills import SkillSpec

        found: dict[str, SkillSpec] = {}
        for impl in self.impls("register_skills"):
            plugin = impl.plugin_name

            def register(
                name: str,
                description: str = "",
                parameters: dict[str, Any] | None = None,
                _plugin: str = plugin,
            ) -> SkillSpec:
                spec = SkillSpec(
                    name=name,
                    description=description,
                    parameters=parameters or {},
                    plugin=_plugin,
                )
                if name in found:
                    raise ValueError(
                        f"skill {name!r} is registered by both {found[name].plugin!r} "
                        f"and {_plugin!r}"
                    )
                found[name] = spec
                return spec

            try:
                impl.function(*[{"register": register}[n] for n in impl.argnames])
            except Exception as exc:
                self.report(plugin, "register_skills", exc)
        return found

    def execute_skill(
        self, session: Session | None, call: SkillCall, state: Any = None
    ) -> SkillResult:
        """Run ``call`` on the plugin that registered it; failures become ``ok=False``."""
        from .skills import SkillResult

        spec = self.skills().get(call.name)
        if spec is None:
            return SkillResult(ok=False, error=f"unknown skill {call.name!r}")
        impl = self._impl_of("execute_skill", spec.plugin)
        if impl is None:
            return SkillResult(
                ok=False, error=f"plugin {spec.plugin!r} registered {call.name!r} but cannot run it"
            )
        kwargs = {"session": session, "call": call, "state": state}
        try:
            result = impl.function(*[kwargs[n] for n in impl.argnames])
        except Exception as exc:
            self.report(spec.plugin, "execute_skill", exc)
            return SkillResult(ok=False, error=f"{type(exc).__name__}: {exc}")
        if not isinstance(result, SkillResult):
            return SkillResult(
                ok=False, error=f"plugin {spec.plugin!r} returned no SkillResult for {call.name!r}"
            )
        return result
