"""Fixtures (loaded with ``-p anthropic_fixtures``): no network beyond loopback, an event
observer. ``loopback_api`` and ``anthropic_narrator`` come from the plugin's own pytest
plugin, :mod:`pytest_monologue.anthropic`."""

from __future__ import annotations

import ipaddress
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from pytest_monologue import PluginSandbox

from monologue import hookimpl
from monologue.events import Event

FIXTURES = Path(__file__).parent / "fixtures"
SHARED_TRACES = Path(__file__).resolve().parents[4] / "shared" / "traces"
"""Real traces for development (see its SOURCES.md); tests using them skip without it."""


class NetworkRefused(OSError):
    """A test tried to reach beyond loopback."""


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """No test reaches beyond loopback: other addresses and names fail before any packet."""
    attempts: list[Any] = []
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            host = address[0]
            if not ipaddress.ip_address(host).is_loopback:
                attempts.append(address)
                raise NetworkRefused(f"test tried to connect to {address}; only loopback")
        real_connect(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name not in (None, "localhost") and not _is_loopback(name):
            attempts.append(name)
            raise socket.gaierror(f"test tried to resolve {name!r}; only loopback")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    # Until a test points the SDK at its loopback server, nothing is configured.
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return attempts


def _is_loopback(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class Observer:
    """A plugin that keeps every event the sessions dispatch."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._lock = threading.Lock()

    @hookimpl
    def on_event(self, event: Event) -> None:
        with self._lock:
            self.events.append(event)

    def of_type(self, kind: str) -> list[Event]:
        with self._lock:
            return [event for event in self.events if event.type == kind]


@pytest.fixture
def observer(monologue_plugins: PluginSandbox) -> Observer:
    return monologue_plugins.register(Observer(), "observer")  # type: ignore[no-any-return]
