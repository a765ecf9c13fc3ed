"""Jinja2 prompt templates: shipped in the core wheel, overridable by ``prompts_dir``.

A template is found by name (``presets/default.md``, ``controller.md``...): first in the
user's ``prompts_dir``, then in the templates shipped with monologue. Undefined variables are
errors, so a template and its caller cannot drift apart silently.
"""

from __future__ import annotations

import functools
import re
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

__all__ = [
    "get_template",
    "render_parts",
    "render_prompt",
    "shipped_prompts_dir",
]

_PART_MARKER = re.compile(r"^[ \t]*<!-- part: ([\w-]+) -->[ \t]*$", re.MULTILINE)


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


def render_parts(
    name: str, prompts_dir: Path | str | None = None, **variables: Any
) -> dict[str, str]:
    """Render a template made of parts, each after a ``<!-- part: NAME -->`` line.

    The narrator presets have a ``system`` and a ``user`` part; templates extending them
    override Jinja blocks inside the parts.
    """
    text = get_template(name, prompts_dir).render(**variables)
    pieces = _PART_MARKER.split(text)
    if len(pieces) < 3:
        raise LookupError(f"prompt template {name!r} has no <!-- part: NAME --> markers")
    return {pieces[i]: pieces[i + 1].strip() for i in range(1, len(pieces) - 1, 2)}
