"""The ``monologue`` command line (the click group and its commands are in :mod:`._app`)."""

from __future__ import annotations

from ._app import MonologueGroup, cli, load_plugins, main

__all__ = ["MonologueGroup", "cli", "load_plugins", "main"]
