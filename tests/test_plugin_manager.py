from __future__ import annotations

import logging

import pytest

from monologue import hookimpl, hookspec
from monologue.errors import NarratorUnavailable, PluginLoadError
from monologue.plugins import MonologuePluginManager


class Exploding:
    @hookimpl
    def on_event(self, session, event):
        raise RuntimeError("observer broke")

    @hookimpl
    def on_tool_call(self, session, event):
        raise KeyError("also broke")


def test_unknown_hook_fails_at_registration(monologue_plugins):
    class Typo:
        @hookimpl
        def on_tool_cal(self, session, event):  # note the typo
            pass

    with pytest.raises(
        PluginLoadError, match=r"plugin 'typo' implements unknown hook\(s\) on_tool_cal"
    ):
        monologue_plugins.register(Typo(), "typo")
    assert not monologue_plugins.pm.has_plugin("typo")


def test_hook_wrappers_are_refused_at_registration(monologue_plugins):
    class Wrapping:
        @hookimpl(wrapper=True)
        def on_event(self, session, event):
            return (yield)

    with pytest.raises(
        PluginLoadError, match=r"plugin 'wrapping' declares hook wrapper\(s\) for on_event"
    ):
        monologue_plugins.register(Wrapping(), "wrapping")
    assert not monologue_plugins.pm.has_plugin("wrapping")


def test_optional_unknown_hook_is_allowed(monologue_plugins):
    class Future:
        @hookimpl(optionalhook=True)
        def on_something_new(self):
            pass

    monologue_plugins.register(Future(), "future")
    assert monologue_plugins.pm.has_plugin("future")


def test_wrong_arguments_fail_at_registration(monologue_plugins):
    class Bad:
        @hookimpl
        def on_event(self, session, evnt):
            pass

    with pytest.raises(Exception, match="evnt"):
        monologue_plugins.register(Bad(), "bad")


def test_raising_broadcast_plugin_does_not_stop_the_others(monologue_plugins, collect, caplog):
    # Registered after `collect`, so pluggy calls it first: the others must still run.
    monologue_plugins.register(Exploding(), "exploding")
    calls: list[str] = []

    class AlsoWatching:
        @hookimpl
        def on_tool_call(self, session, event):
            calls.append(event.data["tool_name"])

    monologue_plugins.register(AlsoWatching(), "also")
    caplog.set_level(logging.ERROR, logger="monologue")
    with monologue_plugins.session("coder", narrator="none") as s:
        s.tool_call("Read", {"path": "a.py"})
        s.tool_call("Grep", {"pattern": "retry"})
    assert calls == ["Read", "Grep"]
    assert collect.types(s.id)[:2] == ["tool_call", "tool_call"]
    errors = monologue_plugins.hooks.errors
    assert errors[("exploding", "on_event")] >= 3  # two calls + completion
    assert errors[("exploding", "on_tool_call")] == 2
    assert "plugin 'exploding' raised in on_event: RuntimeError: observer broke" in caplog.text


def test_a_raising_on_narrative_is_reported_and_the_others_still_hear(
    monologue_plugins, mock_narrator, caplog
):
    heard: list[str] = []

    class Deaf:
        @hookimpl
        def on_narrative(self, narrative):
            raise RuntimeError("cannot hear")

    class Listening:
        @hookimpl
        def on_narrative(self, session, narrative):  # the spec's order: the fast call
            heard.append(narrative.text)

    monologue_plugins.register(Listening(), "listening")
    monologue_plugins.register(Deaf(), "deaf")  # called first
    caplog.set_level(logging.ERROR, logger="monologue")
    with monologue_plugins.session("coder") as s:
        s.text("hello")
    assert heard == ["Narration 1 (2 events)."]
    assert monologue_plugins.hooks.errors[("deaf", "on_narrative")] == 1
    assert "plugin 'deaf' raised in on_narrative: RuntimeError: cannot hear" in caplog.text


def test_raising_first_answer_plugin_is_skipped(monologue_plugins):
    class BadAdapter:
        @hookimpl(tryfirst=True)
        def adapt(self, obj):
            raise ValueError("cannot adapt")

    class GoodAdapter:
        @hookimpl
        def adapt(self, obj):
            from monologue import Event

            return [Event(type="text", data={"text": str(obj)})] if isinstance(obj, int) else None

    monologue_plugins.register(GoodAdapter(), "good")
    monologue_plugins.register(BadAdapter(), "bad")
    events = monologue_plugins.hooks.adapt(42)
    assert events is not None
    assert events[0].data["text"] == "42"
    assert monologue_plugins.hooks.errors[("bad", "adapt")] == 1
    assert monologue_plugins.hooks.adapt("not mine") is None


def test_cached_implementation_lists_follow_registration(monologue_plugins):
    seen: list[str] = []

    class Watch:
        @hookimpl
        def on_event(self, event):
            seen.append(event.type)

    with monologue_plugins.session("a", narrator="none") as s:
        s.text("before")
        s.drain()
        plugin = monologue_plugins.register(Watch(), "watch")
        s.text("during")
        s.drain()
        monologue_plugins.pm.unregister(plugin)
        s.text("after")
    assert seen == ["text"]


def narrator(name_text: str, priority: int | None = None):
    class Narrator:
        @hookimpl
        def narrate(self, events):
            return name_text

    class Ranked(Narrator):
        @hookimpl
        def narrator_priority(self):
            return priority

    return Narrator() if priority is None else Ranked()


def test_auto_takes_the_usable_narrator_with_the_highest_declared_priority(monologue_plugins):
    hooks = monologue_plugins.hooks
    from monologue import MonologueConfig

    assert hooks.resolve_narrator(MonologueConfig()) is None  # nothing installed
    monologue_plugins.register(narrator("u"), "undeclared")
    assert hooks.resolve_narrator(MonologueConfig()) is None  # no priority: never auto
    monologue_plugins.register(narrator("o", priority=0), "offline")
    assert hooks.resolve_narrator(MonologueConfig()) == "offline"

    class Remote:
        available = False

        @hookimpl
        def narrate(self):
            return "a"

        @hookimpl
        def narrator_priority(self):
            return 100

        @hookimpl
        def narrator_unavailable(self, config):
            return None if self.available else "REMOTE_KEY is not set"

    remote = monologue_plugins.register(Remote(), "remote")
    assert hooks.resolve_narrator(MonologueConfig()) == "offline"
    remote.available = True
    assert hooks.resolve_narrator(MonologueConfig()) == "remote"
    assert hooks.resolve_narrator(MonologueConfig(narrator="undeclared")) == "undeclared"
    remote.available = False
    with pytest.raises(NarratorUnavailable, match="'remote' cannot be used: REMOTE_KEY is not set"):
        monologue_plugins.session("coder", narrator="remote").start()


def test_a_failing_priority_keeps_its_narrator_out_of_auto(monologue_plugins):
    class Broken:
        @hookimpl
        def narrate(self):
            return "b"

        @hookimpl
        def narrator_priority(self):
            raise RuntimeError("no rank")

    monologue_plugins.register(Broken(), "broken")
    monologue_plugins.register(narrator("o", priority=0), "offline")
    from monologue import MonologueConfig

    assert monologue_plugins.hooks.resolve_narrator(MonologueConfig()) == "offline"
    assert monologue_plugins.hooks.errors[("broken", "narrator_priority")] == 1


def test_unknown_narrator_fails_at_session_start(monologue_plugins):
    monologue_plugins.register(narrator("t"), "template")
    s = monologue_plugins.session("coder", narrator="haiku-please")
    with (
        pytest.raises(
            NarratorUnavailable,
            match=r"no narrator plugin named 'haiku-please'.*installed: template",
        ),
        s,
    ):
        pass


class SkillsOwner:
    """Owns ``register_skills`` as monologue-skills does: adds its spec as it registers."""

    class Specs:
        @hookspec
        def register_skills(self, register):
            """Declare skills."""

    @hookimpl
    def register_hookspecs(self, pm):
        pm.add_hookspecs(self.Specs)


def test_an_implementation_of_another_plugins_hook_waits_for_its_owner(monologue_plugins):
    class Implementer:
        @hookimpl(optionalhook=True)
        def register_skills(self, register):
            register("wave")

    # Optional: registered without the owner, and never called.
    monologue_plugins.register(Implementer(), "implementer")
    assert monologue_plugins.hooks.skills() == {}
    assert monologue_plugins.hooks.first("register_skills", register=print) == (None, None)
    # The owner's spec arrives and is checked against it; now it is called.
    monologue_plugins.register(SkillsOwner(), "skills")
    assert "register_skills" in monologue_plugins.pm.spec_names()
    assert list(monologue_plugins.hooks.skills()) == ["wave"]
    # A plugin depending on the owner may declare the owner's hooks too: added once.
    monologue_plugins.register(SkillsOwner(), "depends-on-skills")
    assert list(monologue_plugins.hooks.skills()) == ["wave"]


def test_skills_are_routed_to_the_registering_plugin(monologue_plugins):
    from monologue import SkillCall

    class Math:
        @hookimpl
        def register_skills(self, register):
            register("add", description="Add two numbers", parameters={"type": "object"})

        @hookimpl
        def execute_skill(self, call):
            from monologue import SkillResult

            return SkillResult(ok=True, output=call.args["a"] + call.args["b"])

    class Echo:
        @hookimpl
        def register_skills(self, register):
            register("echo")

        @hookimpl
        def execute_skill(self, call):
            from monologue import SkillResult

            return SkillResult(ok=True, output=call.args)

    # Without the plugin owning `register_skills` (monologue-skills) it is an unknown hook.
    with pytest.raises(PluginLoadError, match=r"unknown hook.*register_skills"):
        monologue_plugins.register(Math(), "math")
    monologue_plugins.register(SkillsOwner(), "skills")
    monologue_plugins.register(Math(), "math")
    monologue_plugins.register(Echo(), "echo")
    hooks = monologue_plugins.hooks
    assert {name: spec.plugin for name, spec in hooks.skills().items()} == {
        "add": "math",
        "echo": "echo",
    }
    assert hooks.execute_skill(None, SkillCall(name="add", args={"a": 2, "b": 3})).output == 5
    missing = hooks.execute_skill(None, SkillCall(name="nope"))
    assert not missing.ok
    assert missing.error == "unknown skill 'nope'"


def test_strict_loading_is_off_by_default_for_a_fresh_manager():
    manager = MonologuePluginManager()
    manager.load_entrypoints({"MONOLOGUE_LOAD_PLUGINS": ""})  # allow-list set but empty: none
    assert manager.get_plugins() == set()
