"""Choosing the store: ``runtime_store`` is ``file`` (the default) or a PostgreSQL URL."""

from __future__ import annotations

from pathlib import Path

from monologue.errors import ConfigError
from monologue.settings import MonologueConfig, load_config

from .storage import TaskStore

__all__ = ["STORE_SETTING", "open_store"]

STORE_SETTING = "runtime_store"
_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_store(
    setting: str | None = None,
    *,
    data_dir: str | Path | None = None,
    config: MonologueConfig | None = None,
    lock_timeout: float | None = None,
) -> TaskStore:
    """The store ``setting`` names, else the configured ``runtime_store`` (config key, or
    ``MONOLOGUE_RUNTIME_STORE``): ``file`` keeps the graph in the data folder, a
    ``postgresql://user:password@host:port/dbname`` URL keeps it in that database."""
    from .settings import RuntimeSettings

    config = config or load_config()
    value = setting if setting is not None else config.settings(RuntimeSettings).store
    source = "argument store" if setting is not None else f"config key {STORE_SETTING}"
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{source} must be 'file' or a postgresql:// URL, got {value!r}")
    value = value.strip()
    if value == "file":
        from .store import DEFAULT_LOCK_TIMEOUT_S, TaskGraphStore

        return TaskGraphStore(
            data_dir,
            config=config,
            lock_timeout=DEFAULT_LOCK_TIMEOUT_S if lock_timeout is None else lock_timeout,
        )
    if value.startswith(_POSTGRES_SCHEMES):
        from .postgres import PostgresTaskStore

        return PostgresTaskStore(value)
    from .postgres import hide_password

    raise ConfigError(
        f"{source} must be 'file' or a postgresql:// URL, got {hide_password(value)!r}"
    )
