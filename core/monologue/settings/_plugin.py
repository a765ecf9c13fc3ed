"""``PluginSettings``: the base of a plugin's settings model (imported on first use, so that
``monologue --help`` never loads pydantic-settings)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["PluginSettings", "SettingsConfigDict"]


class PluginSettings(BaseSettings):
    """Subclass it with your fields and return the class from ``register_settings``.

    Each field is one flat key of ``[tool.monologue]`` and one ``MONOLOGUE_<KEY>`` variable.
    Set ``env_prefix="MONOLOGUE_<PLUGIN>_"`` to prefix your keys (``<plugin>_<field>``), or a
    field's ``alias`` to give it any key. Unknown keys, bad values and the order of sources
    are the core's business: the model validates, the core layers (see
    :mod:`monologue.settings`), so ``YourSettings()`` alone is just the defaults.
    """

    model_config = SettingsConfigDict(
        frozen=True, extra="forbid", env_prefix="MONOLOGUE_", populate_by_name=True
    )

    def __init__(self, **values: Any) -> None:
        # The core merges files, environment, flags and session arguments in one place
        # (monologue.settings) and remembers each value's source; BaseSettings' own
        # sources would be a second, unlabelled reading of the environment, and building
        # them costs about 0.4 ms per model, paid by every session that starts.
        BaseModel.__init__(self, **values)
