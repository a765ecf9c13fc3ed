"""pytest-monologue: fixtures, loopback servers and fake CLIs for testing monologue plugins.

Installing this distribution registers its pytest plugin (:mod:`pytest_monologue.plugin`),
so the fixtures need no import:

- ``monologue_plugins``: an isolated, empty plugin manager (a :class:`PluginSandbox`) made
  active for the test, with no ``MONOLOGUE_*`` variables and no config file in effect;
- ``mock_narrator``: a scripted :class:`MockNarrator` registered in it and selected;
- ``monologue_cli``: the ``monologue`` command run in-process against those plugins;
- ``loopback_api`` and ``anthropic_narrator``: a loopback Messages API server
  (:mod:`pytest_monologue.anthropic`, needs the ``anthropic`` extra).

Helpers imported by name: :func:`installed_plugins` (throwaway plugin distributions,
pip-installed for a test), :mod:`pytest_monologue.claude` (a fake ``claude`` CLI for the
Claude Agent SDK) and :mod:`pytest_monologue.postgres` (a throwaway PostgreSQL server).

.. code-block:: python

    def test_my_plugin(monologue_plugins, mock_narrator):
        monologue_plugins.load("myplugin")          # through its real entry point
        mock_narrator.queue("I'm reading the README.")
        with monologue_plugins.session("coder") as s:
            ...
        assert mock_narrator.calls[0].reason == "final"
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from monologue import lazy_exports

__version__ = "0.1.0"

__all__ = [
    "WAIT",
    "Hang",
    "MockNarrator",
    "NarrateCall",
    "PluginSandbox",
    "Replayed",
    "__version__",
    "installed_plugins",
]

# Loaded on first use, so that a benchmark or a script running the loopback server
# (``pytest_monologue.anthropic``) imports neither pytest nor the plugin manager.
_LAZY = {
    "installed_plugins": "_dists",
    **dict.fromkeys(
        ("WAIT", "Hang", "MockNarrator", "NarrateCall", "PluginSandbox", "Replayed"), "_sandbox"
    ),
}

if TYPE_CHECKING:
    from ._dists import installed_plugins
    from ._sandbox import WAIT, Hang, MockNarrator, NarrateCall, PluginSandbox, Replayed

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
