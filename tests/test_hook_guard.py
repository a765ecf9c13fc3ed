"""Per-plugin fault isolation under pluggy's own loop: each implementation is guarded as it
registers, so ``pm.hook.X(...)`` (and the facade's plain pluggy calls) isolate failures,
stop at the first answer of a ``firstresult`` hook and name the plugin that gave it."""

from __future__ import annotations

import logging

import pytest

from monologue import hookimpl, hookspec
from monologue.errors import NotMyFormat


class Questions:
    @hookspec(firstresult=True)
    def ask(self, question):
        """A plugin-owned first-answer hook."""


class Owner:
    @hookimpl
    def register_hookspecs(self, pm):
        pm.add_hookspecs(Questions)


def answering(answer, calls: list[str], name: str, *, fail: bool = False):
    class Answers:
        @hookimpl(optionalhook=True)
        def ask(self, question):
            calls.append(name)
            if fail:
                raise RuntimeError(f"{name} broke")
            return answer

    return Answers()


def test_a_failing_implementation_is_isolated_under_pluggys_own_loop(monologue_plugins, caplog):
    seen: list[str] = []

    class Watching:
        @hookimpl
        def on_complete(self, session, event):
            seen.append("watching")

    class Exploding:
        @hookimpl
        def on_complete(self, session, event):
            raise RuntimeError("observer broke")

    # Registered last, so pluggy calls the exploding one first.
    monologue_plugins.register(Watching(), "watching")
    monologue_plugins.register(Exploding(), "exploding")
    caplog.set_level(logging.ERROR, logger="monologue")

    assert monologue_plugins.pm.hook.on_complete(session=None, event=None) == []
    assert seen == ["watching"]
    assert monologue_plugins.hooks.errors[("exploding", "on_complete")] == 1
    assert "plugin 'exploding' raised in on_complete: RuntimeError: observer broke" in caplog.text


def test_firstresult_stops_at_the_first_answer_and_names_its_plugin(monologue_plugins):
    calls: list[str] = []
    monologue_plugins.register(Owner(), "owner")
    # pluggy calls the last registered first: broken, silent, then "a"; "z" is never asked.
    monologue_plugins.register(answering("z", calls, "z"), "z")
    monologue_plugins.register(answering("a", calls, "a"), "a")
    monologue_plugins.register(answering(None, calls, "silent"), "silent")
    monologue_plugins.register(answering("x", calls, "broken", fail=True), "broken")

    assert monologue_plugins.hooks.first("ask", question="?") == ("a", "a")
    assert calls == ["broken", "silent", "a"]
    assert monologue_plugins.pm.hook.ask(question="?") == "a"
    assert monologue_plugins.hooks.errors[("broken", "ask")] == 2


def test_no_answer_names_no_plugin(monologue_plugins):
    calls: list[str] = []
    monologue_plugins.register(Owner(), "owner")
    monologue_plugins.register(answering("earlier", calls, "earlier"), "earlier")
    assert monologue_plugins.hooks.first("ask", question="?") == ("earlier", "earlier")
    monologue_plugins.pm.unregister(name="earlier")
    monologue_plugins.register(answering(None, calls, "silent"), "silent")
    assert monologue_plugins.hooks.first("ask", question="?") == (None, None)


def test_first_refuses_a_hook_without_a_first_answer(monologue_plugins):
    with pytest.raises(TypeError, match="'on_event' is not a firstresult hook"):
        monologue_plugins.hooks.first("on_event", session=None, event=None)


def test_a_readers_refusal_is_not_a_failure(monologue_plugins):
    class Refusing:
        @hookimpl
        def line_parser(self, path):
            raise NotMyFormat("not mine")

    monologue_plugins.register(Refusing(), "refusing")
    assert monologue_plugins.hooks.line_parser("x.jsonl") == (None, None)
    assert ("refusing", "line_parser") not in monologue_plugins.hooks.errors


def test_strict_mode_makes_a_guarded_failure_raise(monologue_plugins, monkeypatch):
    class Exploding:
        @hookimpl
        def on_event(self, session, event):
            raise RuntimeError("observer broke")

        @hookimpl
        def on_complete(self, session, event):
            raise KeyError("also broke")

    monologue_plugins.register(Exploding(), "exploding")
    monkeypatch.setenv("MONOLOGUE_STRICT_PLUGINS", "1")
    with pytest.raises(KeyError, match="also broke"):
        monologue_plugins.pm.hook.on_complete(session=None, event=None)
    from monologue import Event

    with pytest.raises(RuntimeError, match="observer broke"):  # the per-event loop too
        monologue_plugins.hooks.event(None, Event(type="text", data={"text": "hi"}))
    errors = monologue_plugins.hooks.errors
    assert (errors[("exploding", "on_complete")], errors[("exploding", "on_event")]) == (1, 1)


def test_routed_calls_get_the_implementations_own_exception(monologue_plugins):
    class Narrating:
        @hookimpl
        def narrate(self, session, events, history, reason):
            raise ValueError("narrator broke")

    monologue_plugins.register(Narrating(), "narrating")
    impl = monologue_plugins.hooks.impl_of("narrate", "narrating")
    assert impl is not None
    with pytest.raises(ValueError, match="narrator broke"):
        monologue_plugins.hooks.call_impl(impl, session=None, events=[], history=[], reason="x")
    assert ("narrating", "narrate") not in monologue_plugins.hooks.errors
