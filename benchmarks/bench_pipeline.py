"""Dispatch cost per event, and the latency an agent feels, through the default plugin set.

1. Events per second through buffer + template + recorder (batch) + gate, next to a bare
   pluggy broadcast hook with the same number of implementations, and a plain function call.
2. An agent loop of 1,000 events with a narrator that takes 200 ms per call: the time each
   emit call takes (p50, p99), and the loop's wall time with narration over without. The
   simulated agent does 2 ms of work per event (an agent's events are separated by model and
   tool calls that take far longer; a loop of bare emits would measure only dispatch, which
   figure 1 already does). The final narration, which the session waits for by design, is
   reported separately.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pluggy

from monologue import Session, hookimpl

from .defaults import agent_events, default_plugins, scratch_config
from .harness import Context, Figure, best_of, percentile


def _per_event_impls(manager: object) -> int:
    """Implementations an average event reaches: on_event, its own hook, should_speak."""
    from monologue.plugins import MonologuePluginManager

    assert isinstance(manager, MonologuePluginManager)
    hooks = manager.hooks
    return (
        len(hooks.impls("on_event"))
        + len(hooks.impls("should_speak"))
        + max(len(hooks.impls("on_tool_call")), len(hooks.impls("on_tool_result")))
    )


def dispatch(ctx: Context) -> list[Figure]:
    count = 20_000 if ctx.quick else 100_000
    with tempfile.TemporaryDirectory() as tmp, default_plugins() as manager:
        config = scratch_config(Path(tmp))

        def run_session() -> float:
            with Session("bench", pm=manager, **config) as s:
                started = time.perf_counter()
                agent_events(s, count)
                return time.perf_counter() - started

        elapsed = best_of(3, run_session)
        impls = _per_event_impls(manager)

    spec = pluggy.HookspecMarker("bare")
    impl = pluggy.HookimplMarker("bare")

    class Spec:
        @spec
        def on_event(self, event: object) -> None: ...

    bare = pluggy.PluginManager("bare")
    bare.add_hookspecs(Spec)
    for n in range(impls):

        class Impl:
            @impl
            def on_event(self, event: object) -> None:
                pass

        bare.register(Impl(), name=f"impl{n}")
    hook = bare.hook.on_event

    def run_bare() -> float:
        started = time.perf_counter()
        for i in range(count):
            hook(event=i)
        return time.perf_counter() - started

    def noop(event: object) -> None:
        pass

    def run_plain() -> float:
        started = time.perf_counter()
        for i in range(count):
            noop(i)
        return time.perf_counter() - started

    bare_elapsed = best_of(3, run_bare)
    plain_elapsed = best_of(3, run_plain)
    rate = count / elapsed
    return [
        Figure(
            group="dispatch",
            name="events/s through the default plugin set",
            value=rate,
            unit="events/s",
            target=40_000,
            compare="min",
            note=f"{elapsed / count * 1e6:.1f} µs/event, {count:,} events, best of 3",
        ),
        Figure(
            group="dispatch",
            name=f"bare pluggy broadcast, {impls} implementations",
            value=count / bare_elapsed,
            unit="calls/s",
            note=f"{bare_elapsed / count * 1e6:.2f} µs/call; monologue is "
            f"{elapsed / bare_elapsed:.1f}x this",
        ),
        Figure(
            group="dispatch",
            name="plain Python function call",
            value=count / plain_elapsed,
            unit="calls/s",
            note=f"{plain_elapsed / count * 1e9:.0f} ns/call",
        ),
    ]


class SlowNarrator:
    """A narrator that takes 200 ms, like a model call."""

    @hookimpl
    def narrate(self, events: list[object]) -> str:
        time.sleep(0.2)
        return f"I handled {len(events)} events."


def latency(ctx: Context) -> list[Figure]:
    count = 300 if ctx.quick else 1_000
    work_s = 0.002
    with tempfile.TemporaryDirectory() as tmp, default_plugins() as manager:
        manager.register(SlowNarrator(), "slow")
        config = scratch_config(Path(tmp))

        def loop(s: Session | None) -> tuple[float, list[float]]:
            costs: list[float] = []
            started = time.perf_counter()
            for i in range(count // 2):
                time.sleep(work_s)
                if s is not None:
                    t0 = time.perf_counter()
                    call = s.tool_call("Bash", {"command": f"step {i}"}, tool_use_id=f"t{i}")
                    costs.append(time.perf_counter() - t0)
                    time.sleep(work_s)
                    t0 = time.perf_counter()
                    s.tool_result(call.data["tool_use_id"], "ok")
                    costs.append(time.perf_counter() - t0)
                else:
                    time.sleep(work_s)
            return time.perf_counter() - started, costs

        without, _ = loop(None)
        s = Session("bench", pm=manager, narrator="slow", **config)
        s.start()
        with_narration, costs = loop(s)
        close_started = time.perf_counter()
        s.close()
        close_time = time.perf_counter() - close_started
        narratives = s.stats.narratives
    ratio = with_narration / without
    return [
        Figure(
            group="latency",
            name="added latency per event, p50",
            value=percentile(costs, 50) * 1e3,
            unit="ms",
            note=f"{count} events, narrator 200 ms/call",
        ),
        Figure(
            group="latency",
            name="added latency per event, p99",
            value=percentile(costs, 99) * 1e3,
            unit="ms",
            target=1.0,
            compare="max",
        ),
        Figure(
            group="latency",
            name="agent loop wall time, with narration / without",
            value=ratio,
            unit="x",
            target=1.05,
            compare="max",
            note=f"{with_narration:.2f} s vs {without:.2f} s; {narratives} narratives",
        ),
        Figure(
            group="latency",
            name="final flush at session end",
            value=close_time * 1e3,
            unit="ms",
            note="waits for the last 200 ms narration, by design",
        ),
    ]


def run(ctx: Context) -> list[Figure]:
    return dispatch(ctx) + latency(ctx)
