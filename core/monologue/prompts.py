"""Jinja2 prompt templates: shipped in the core wheel, overridable by ``prompts_dir``.

A template is found by name (``presets/default.md``, ``controller.md``...): first in the
user's ``prompts_dir``, then in the templates shipped with monologue. Undefined variables are
errors, so a template and its caller cannot drift apart silently.
"""

from __future__ import annotations

import functools
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2


def shipped_prompts_dir() -> Path:
    """The templates inside the installed package (or the repository's ``prompts/``)."""
    packaged = Path(str(files("monologue"))) / "prompts"
    if packaged.is_dir():
        return packaged
    # Editable installs map the package to core/monologue; the templates stay at the root.
    return Path(__file__).resolve().parents[2] / "prompts"


@functools.lru_cache(maxsize=16)
def _environment(prompts_dir: str | None) -> jinja2.Environment:
    import jinja2

    searchpath = [prompts_dir] if prompts_dir else []
    searchpath.append(str(shipped_prompts_dir()))
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(searchpath),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def get_template(name: str, prompts_dir: Path | str | None = None) -> jinja2.Template:
    """The template ``name``; raises ``LookupError`` naming the folders searched."""
    import jinja2

    env = _environment(str(prompts_dir) if prompts_dir else None)
    try:
        return env.get_template(name)
    except jinja2.TemplateNotFound:
        searched = [*([str(prompts_dir)] if prompts_dir else []), str(shipped_prompts_dir())]
        raise LookupError(f"prompt template {name!r} not found in {searched}") from None


def render_prompt(name: str, prompts_dir: Path | str | None = None, **variables: Any) -> str:
    """Render a whole template."""
    return get_template(name, prompts_dir).render(**variables).strip()


def render_blocks(
    name: str, prompts_dir: Path | str | None = None, **variables: Any
) -> dict[str, str]:
    """Render each ``{% block %}`` of a template separately (e.g. ``system`` and ``user``)."""
    template = get_template(name, prompts_dir)
    context = template.new_context(variables)
    return {
        block: "".join(render(context)).strip() for block, render in template.blocks.items()
    }
