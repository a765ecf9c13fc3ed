"""Skills: collecting what plugins register, and routing a call to the plugin that owns it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from monologue.events._skills import SkillResult, SkillSpec

if TYPE_CHECKING:
    from monologue.events._skills import SkillCall
    from monologue.pipeline._session import Session

    from ._hooks import Hooks


def collect(hooks: Hooks) -> dict[str, SkillSpec]:
    """Every skill the plugins register, by name; a name registered twice is an error."""
    found: dict[str, SkillSpec] = {}
    for impl in hooks.impls("register_skills"):
        plugin = impl.plugin_name

        def register(
            name: str,
            description: str = "",
            parameters: dict[str, Any] | None = None,
            _plugin: str = plugin,
        ) -> SkillSpec:
            spec = SkillSpec(
                name=name, description=description, parameters=parameters or {}, plugin=_plugin
            )
            if name in found:
                raise ValueError(
                    f"skill {name!r} is registered by both {found[name].plugin!r} and {_plugin!r}"
                )
            found[name] = spec
            return spec

        try:
            hooks.call_impl(impl, register=register)
        except Exception as exc:
            hooks.report(plugin, "register_skills", exc)
    return found


def execute(hooks: Hooks, session: Session | None, call: SkillCall, state: Any) -> SkillResult:
    """Run ``call`` on the plugin that registered it; failures become ``ok=False``."""
    spec = collect(hooks).get(call.name)
    if spec is None:
        return SkillResult(ok=False, error=f"unknown skill {call.name!r}")
    impl = hooks.impl_of("execute_skill", spec.plugin)
    if impl is None:
        return SkillResult(
            ok=False, error=f"plugin {spec.plugin!r} registered {call.name!r} but cannot run it"
        )
    try:
        result = hooks.call_impl(impl, session=session, call=call, state=state)
    except Exception as exc:
        hooks.report(spec.plugin, "execute_skill", exc)
        return SkillResult(ok=False, error=f"{type(exc).__name__}: {exc}")
    if not isinstance(result, SkillResult):
        return SkillResult(
            ok=False, error=f"plugin {spec.plugin!r} returned no SkillResult for {call.name!r}"
        )
    return result
