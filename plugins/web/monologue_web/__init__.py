"""monologue-web: ``monologue serve``, a local web page showing every recorded and live
session as it narrates itself.

This module is imported whenever ``monologue`` starts, so it imports nothing heavy: the
command module (and Starlette, uvicorn) load only when ``serve`` runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from monologue import hookimpl

if TYPE_CHECKING:
    import click

__all__ = ["register_commands"]


@hookimpl
def register_commands(cli: click.Group) -> None:
    from .command import serve_command

    cli.add_command(serve_command)
