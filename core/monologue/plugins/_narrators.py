"""Which narrator a session uses, and the call to it.

``narrator = "auto"`` names no plugin: it takes the usable narrator whose plugin declares the
highest ``narrator_priority``. A narrator named explicitly that cannot run fails the session's
start with the plugin's own reason (``narrator_unavailable``).
"""

from __future__ import annotations

import functools
import logging
import time
import weakref
from typing import TYPE_CHECKING

from monologue.errors import NarratorUnavailable

if TYPE_CHECKING:
    from collections.abc import Callable

    from monologue.checking import ClaimCheck
    from monologue.events import Event
    from monologue.events._narration import Narration
    from monologue.pipeline._session import Session
    from monologue.settings import MonologueConfig

    from ._hooks import Hooks

NO_NARRATOR = frozenset({"none", "off"})
DEFAULT_SET = "monologue-default"
"""The distribution that installs the default plugin set, the offline narrator included."""

log = logging.getLogger("monologue.narration")
_warned: weakref.WeakSet[Hooks] = weakref.WeakSet()
"""The plugin sets already warned about (a process has one, a test suite many)."""


def names(hooks: Hooks) -> list[str]:
    """Every installed narrator, sorted."""
    return sorted(impl.plugin_name for impl in hooks.impls("narrate"))


def unavailable(hooks: Hooks, name: str, config: MonologueConfig) -> str | None:
    """Why narrator ``name`` cannot run with ``config``, or ``None`` when it can."""
    if hooks.impl_of("narrate", name) is None:
        installed = ", ".join(names(hooks)) or "none"
        return f"no narrator plugin named {name!r} is installed (installed: {installed})"
    impl = hooks.impl_of("narrator_unavailable", name)
    if impl is None:
        return None
    answer = hooks.call_impl(impl, config=config)
    return None if answer is None else str(answer)


def in_place(hooks: Hooks, name: str, config: MonologueConfig) -> bool:
    """Whether narrator ``name`` answers ``narrator_in_place`` with ``True``; a failing
    answer is reported and counts as no."""
    impl = hooks.impl_of("narrator_in_place", name)
    if impl is None:
        return False
    try:
        return hooks.call_impl(impl, config=config) is True
    except Exception as exc:
        hooks.report(name, "narrator_in_place", exc)
        return False


def auto_candidates(hooks: Hooks) -> list[str]:
    """The narrators ``auto`` may pick, best first; a failing priority hook is reported and
    keeps its narrator out."""
    ranked: list[tuple[int, str]] = []
    for name in names(hooks):
        impl = hooks.impl_of("narrator_priority", name)
        if impl is None:
            continue
        try:
            priority = hooks.call_impl(impl)
        except Exception as exc:
            hooks.report(name, "narrator_priority", exc)
            continue
        if isinstance(priority, int) and not isinstance(priority, bool):
            ranked.append((-priority, name))
    return [name for _, name in sorted(ranked)]


def resolve(hooks: Hooks, config: MonologueConfig) -> str | None:
    """The narrator a session with ``config`` uses; ``None`` when narration is off."""
    wanted = config.narrator.strip()
    if wanted.lower() in NO_NARRATOR:
        return None
    if wanted != "auto":
        problem = unavailable(hooks, wanted, config)
        if problem:
            raise NarratorUnavailable(f"narrator {wanted!r} cannot be used: {problem}")
        return wanted
    for candidate in auto_candidates(hooks):
        if not unavailable(hooks, candidate, config):
            return candidate
    if not names(hooks):
        _warn_no_narrator(hooks)
    return None


def _warn_no_narrator(hooks: Hooks) -> None:
    """Say once, at the first session, that nothing will be narrated and what to install."""
    if hooks not in _warned:
        _warned.add(hooks)
        log.warning(
            "no narrator plugin is installed, so sessions are not narrated: "
            "pip install %s (the offline narrator and the default plugin set)",
            DEFAULT_SET,
        )


def narrate(
    hooks: Hooks,
    narrator: str,
    *,
    session: Session,
    events: list[Event],
    history: list[str],
    reason: str,
) -> Narration | None:
    """Ask one narrator; ``None`` means *wait*. Its exceptions propagate to the caller.

    An answer is checked by the installed claim checker, if any, before it is returned (see
    :mod:`monologue.checking`): a false one is retried once with feedback, when the narrator
    takes it, or replaced by the checker's safe text."""
    as_narration, checked_narration = _answer_helpers()
    started = time.monotonic()
    impl = hooks.impl_of("narrate", narrator)
    if impl is None:
        raise LookupError(f"narrator {narrator!r} is no longer registered")

    def ask(feedback: list[str] | None) -> Narration | None:
        return as_narration(
            hooks.call_impl(
                impl,
                session=session,
                events=events,
                history=history,
                reason=reason,
                feedback=feedback,
            )
        )

    narration = ask(None)
    if narration is None or narration.is_wait or not hooks.impls("check_narrative"):
        return narration  # no claim checker installed: nothing to check it against

    def check(text: str) -> ClaimCheck | None:
        return hooks.check_narrative(session, events, text, reason)

    # A retry gets what is left of the first half of the deadline; the second half is the
    # narrator's own answer time, so a slow retry is never what makes narration miss it.
    deadline = started + session.config.narrate_timeout_s / 2
    retry = ask if "feedback" in impl.argnames else None
    return checked_narration(narration, check, retry, deadline=deadline)


@functools.cache
def _answer_helpers() -> tuple[Callable[[object], Narration | None], Callable[..., Narration]]:
    """``as_narration`` and ``checked_narration``, imported at the first narrative (they
    bring pydantic, which ``monologue --help`` never needs) and once: an import statement
    costs microseconds on every call, and an instant replay narrates every few events."""
    from monologue.checking import checked_narration
    from monologue.events._narration import as_narration

    return as_narration, checked_narration
