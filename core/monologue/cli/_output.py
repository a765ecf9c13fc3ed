"""How every command prints JSON, as llm does: ``--json`` one document (an array or an
object), ``--nl`` one JSON object per line."""

from __future__ import annotations

import json
from typing import Any

import click

__all__ = ["print_json"]


def print_json(value: list[Any] | dict[str, Any], as_lines: bool = False) -> None:
    """``value`` as one indented JSON document, or with ``as_lines`` one object per line:
    a list's items, or an object's entries as ``{"key": KEY, **VALUE}``."""
    if not as_lines:
        click.echo(json.dumps(value, indent=2, default=str))
        return
    items = value if isinstance(value, list) else [{"key": k, **v} for k, v in value.items()]
    for item in items:
        click.echo(json.dumps(item, default=str))
