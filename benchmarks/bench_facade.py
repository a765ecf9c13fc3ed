"""The facade's per-event loop next to pluggy's own loop, both through the guards.

Every implementation is guarded at registration (``monologue/plugins/_guard.py``), so
``pm.hook.on_event(...)`` isolates plugin failures as well as ``Hooks.event`` does. The
per-event hooks keep the facade's own loop because it costs less: this measures both on the
hooks one tool call reaches (``on_event`` and ``on_text`` to 4 plugins, ``should_speak``
to 2), median of repeats, same run.
"""

from __future__ import annotations

import timeit
from typing import Any

from .harness import Context, Figure, median, sized


def _manager() -> Any:
    from monologue import hookimpl
    from monologue.plugins import MonologuePluginManager

    class Watching:
        @hookimpl
        def on_event(self, session: object, event: object) -> None:
            pass

        @hookimpl
        def on_text(self, session: object, event: object) -> None:
            pass

    class Deciding(Watching):
        @hookimpl
        def should_speak(self, session: object, event: object) -> None:
            pass

    pm = MonologuePluginManager()
    for number in range(4):
        pm.register(Deciding() if number < 2 else Watching(), name=f"plugin{number}")
    return pm


def run(ctx: Context) -> list[Figure]:
    from monologue import Event

    pm = _manager()
    hooks, hook = pm.hooks, pm.hook
    on_event, on_text, should_speak = hook.on_event, hook.on_text, hook.should_speak
    session, event = object(), Event(type="text", data={"text": "reading"})

    def facade() -> None:
        hooks.event(session, event)  # on_event, then on_text
        hooks.should_speak(session, event)

    def pluggy_loop() -> None:
        on_event(session=session, event=event)
        on_text(session=session, event=event)
        should_speak(session=session, event=event)

    number = sized(ctx, 100_000, 20_000, 1_000)
    repeats = 7 if not ctx.smoke else 1
    ours = median(timeit.repeat(facade, number=number, repeat=repeats)) / number * 1e6
    theirs = median(timeit.repeat(pluggy_loop, number=number, repeat=repeats)) / number * 1e6
    note = "on_event + on_text to 4 plugins, should_speak to 2, through the guards"
    return [
        Figure(group="facade", name="per-event loop (Hooks)", value=ours, unit="µs", note=note),
        Figure(group="facade", name="pluggy's own loop", value=theirs, unit="µs", note=note),
        Figure(
            group="facade",
            name="per-event loop ÷ pluggy's own loop",
            value=ours / theirs,
            unit="x",
            target=1.0,
            compare="max",
            note="the per-event hooks keep their own loop only while it is the cheaper",
        ),
    ]
