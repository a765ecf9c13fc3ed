"""``monologue serve`` as a user runs it: a real process of the installed command."""

from __future__ import annotations

import re
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from web_fixtures import agent_env, free_port, monologue_exe


def serve(record_dir: Path, *args: str) -> subprocess.Popen[str]:
    env = agent_env(record_dir) | {"MONOLOGUE_LOAD_PLUGINS": "monologue-web"}
    return subprocess.Popen(
        [monologue_exe(), "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


@contextmanager
def running(record_dir: Path, *args: str) -> Iterator[str]:
    """The address ``monologue serve`` printed, while it runs."""
    process = serve(record_dir, *args)
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        found = re.search(r"at (http://\S+)", first)
        assert found, first + process.stderr.read()
        yield found.group(1)
    finally:
        process.terminate()
        process.communicate(timeout=10)


def test_serve_prints_its_address_and_serves_the_folder(record_dir: Path) -> None:
    port = free_port()
    with running(record_dir, "--port", str(port), "--record-dir", str(record_dir)) as address:
        assert address == f"http://127.0.0.1:{port}/"
        assert httpx.get(f"{address}api/sessions").json() == []
        assert "<title>monologue</title>" in httpx.get(address).text


def test_open_shows_the_page_in_the_browser(record_dir: Path, tmp_path: Path) -> None:
    opened = tmp_path / "opened"
    # webbrowser runs $BROWSER with the address as its argument.
    browser = f"sh -c 'echo \"$0\" > {opened}' %s"
    process = subprocess.Popen(
        [monologue_exe(), "serve", "--port", "0", "--open"],
        stderr=subprocess.PIPE,
        text=True,
        env=agent_env(record_dir) | {"MONOLOGUE_LOAD_PLUGINS": "monologue-web", "BROWSER": browser},
    )
    try:
        deadline = time.monotonic() + 15
        while not opened.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        address = opened.read_text().strip()
        assert address.startswith("http://127.0.0.1:")
        assert httpx.get(f"{address}api/sessions").json() == []
    finally:
        process.terminate()
        process.communicate(timeout=10)


def test_a_generated_token_is_printed_once_and_required(record_dir: Path) -> None:
    with running(record_dir, "--port", "0", "--generate-token") as address:
        token = address.partition("?token=")[2]
        assert len(token) >= 32
        base = address.partition("?")[0]
        assert httpx.get(f"{base}api/sessions").status_code == 401
        assert httpx.get(f"{base}api/sessions?token={token}").status_code == 200


def test_a_non_loopback_bind_without_a_token_is_refused(record_dir: Path) -> None:
    process = serve(record_dir, "--host", "0.0.0.0", "--port", str(free_port()))
    _, err = process.communicate(timeout=30)
    assert process.returncode == 2
    assert "refusing to serve recordings on 0.0.0.0" in err
    assert "--token" in err


def test_token_and_generated_token_together_are_refused(record_dir: Path) -> None:
    process = serve(record_dir, "--token", "abc", "--generate-token")
    _, err = process.communicate(timeout=30)
    assert process.returncode == 2
    assert "either --token or --generate-token" in err


def test_a_taken_port_is_reported_with_a_free_one_to_try(record_dir: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = serve(record_dir, "--port", str(port))
        _, err = process.communicate(timeout=30)
    assert process.returncode == 1
    found = re.search(rf"port {port} on 127.0.0.1 is already in use; try --port (\d+)", err)
    assert found, err
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", int(found.group(1))))


def test_an_address_that_cannot_be_bound_is_named(record_dir: Path) -> None:
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: binding it fails at once.
    process = serve(record_dir, "--host", "192.0.2.1", "--token", "t", "--port", "0")
    _, err = process.communicate(timeout=30)
    assert process.returncode == 1
    assert "cannot listen on 192.0.2.1 port 0: Cannot assign requested address" in err
