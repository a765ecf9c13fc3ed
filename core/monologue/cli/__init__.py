"""The ``monologue`` command line.

Built-in commands live in :mod:`._app`; plugins add theirs through ``register_commands(cli)``.
Plugin commands are listed from the plugin index and loaded only when one runs, and plugin
modules keep their heavy imports inside functions, so ``monologue --help`` stays fast: when
nothing changed since click last rendered it, it is printed from a cache (:mod:`._replies`)
without importing click at all, and so is ``monologue plugins``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from monologue._lazy import lazy_exports

__all__ = [
    "cli",
    "load_plugins",
    "main",
]

if TYPE_CHECKING:
    from ._app import MonologueGroup as MonologueGroup  # not public: for the tests' own groups
    from ._app import cli, load_plugins

__getattr__, __dir__ = lazy_exports(
    __name__, {"cli": "_app", "load_plugins": "_app", "MonologueGroup": "_app"}, globals()
)


_CACHED_REPLIES: dict[tuple[str, ...], str] = {
    ("--help",): "help",
    ("-h",): "help",
    ("plugins",): "plugins",
}
"""The arguments answered from :mod:`._replies` when it has a current text."""


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: every expected failure is one line on standard error
    (``monologue: ...``), exit 2 for a usage error and 1 for a failure; a user's Ctrl-C
    exits 130 quietly; an unexpected error shows its traceback only with ``-v``."""
    reply = _CACHED_REPLIES.get(tuple(sys.argv[1:] if argv is None else argv))
    if reply is not None:
        from ._replies import cached_reply

        text = cached_reply(reply)
        if text is not None:
            sys.stdout.write(text + "\n")  # as click prints it
            raise SystemExit(0)
    from ._app import run

    run(argv)
