"""Per-plugin fault isolation: the one thing pluggy's loop lacks.

Pluggy stops a hook call at the first exception. At registration the manager replaces each
implementation's function with a *guard* that calls it, and on an exception reports it
against the plugin (logged and counted in :attr:`Hooks.errors
<monologue.plugins._hooks.Hooks.errors>`) and returns ``None``, so that pluggy's own loop
(``pm.hook.X(...)``, ``firstresult`` and ``historic`` included) moves on to the next plugin.
A reader's :class:`~monologue.errors.NotMyFormat` is a refusal, not a failure: ``None``
without a report. With ``MONOLOGUE_STRICT_PLUGINS=1`` the exception is reported and then
propagates (plugin authors' CI: a broken hook fails loudly).

The guard also remembers, per thread, the plugin whose implementation last returned an
answer: right after a ``firstresult`` call that is the plugin that gave the answer (the
loop stops at it), which the gate and skills need.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from monologue.errors import NotMyFormat

from ._env import is_strict

if TYPE_CHECKING:
    from pluggy import HookImpl

__all__ = ["answered_by", "guard", "unguarded"]

_last = threading.local()
_UNGUARDED = "monologue_unguarded"


def guard(impl: HookImpl, hook: str, report: Callable[[str, str, BaseException], None]) -> None:
    """Make ``impl`` (of ``hook``) isolate its plugin's failures (once: idempotent)."""
    function = impl.function
    if hasattr(function, _UNGUARDED):
        return
    plugin = impl.plugin_name

    # pluggy calls positionally unless the implementation has defaulted parameters.
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            answer = function(*args, **kwargs)
        except NotMyFormat:
            return None
        except Exception as exc:
            report(plugin, hook, exc)
            if is_strict():
                raise
            return None
        if answer is not None:
            _last.plugin = plugin
        return answer

    setattr(guarded, _UNGUARDED, function)
    guarded.__doc__ = function.__doc__  # a reader's refusal quotes its first line
    # HookImpl.function is Final to type checkers; the slot itself is writable.
    setattr(impl, "function", guarded)  # noqa: B010


def unguarded(impl: HookImpl) -> Callable[..., Any]:
    """``impl``'s own function, whose exceptions propagate (for routed calls)."""
    function = impl.function
    return getattr(function, _UNGUARDED, function)


def answered_by() -> str | None:
    """The plugin whose implementation last answered (non-``None``) on this thread."""
    return getattr(_last, "plugin", None)
