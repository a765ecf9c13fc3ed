"""``monologue serve`` as a user runs it: a real process of the installed command."""

from __future__ import annotations

import re
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from web_fixtures import Recording, agent_env, free_port, monologue_exe


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


def test_a_record_folder_that_does_not_exist_is_one_line_error(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    process = serve(tmp_path, "--port", "0", "--record-dir", str(missing))
    _, err = process.communicate(timeout=30)
    assert process.returncode == 1
    assert err.splitlines() == [f"monologue: --record-dir {missing}: no such folder"]
    assert not missing.exists()


def test_the_default_record_folder_is_created_owner_only(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = agent_env(tmp_path) | {"MONOLOGUE_LOAD_PLUGINS": "monologue-web"}
    del env["MONOLOGUE_RECORD_DIR"]
    env["MONOLOGUE_DATA_DIR"] = str(data / "monologue")
    process = subprocess.Popen(
        [monologue_exe(), "serve", "--port", "0"], stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        assert f"serving the sessions in {data / 'monologue' / 'sessions'} at" in first, first
    finally:
        process.terminate()
        process.communicate(timeout=10)
    for folder in (data, data / "monologue", data / "monologue" / "sessions"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder


def test_ctrl_c_stops_the_server_quietly_with_status_0(
    record_dir: Path, recording: Callable[..., Recording]
) -> None:
    recording("LIVE").add("text", {"text": "still running"})
    env = agent_env(record_dir) | {"MONOLOGUE_LOAD_PLUGINS": "monologue-web"}
    # However the tests were started (a background job inherits SIGINT ignored), the
    # server gets Ctrl-C as a terminal delivers it: SIGINT is reset to its default, then
    # `monologue serve` replaces that process.
    default_sigint = (
        "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
        "os.execv(sys.argv[1], sys.argv[1:])"
    )
    command = [monologue_exe(), "serve", "--port", "0", "--record-dir", str(record_dir)]
    process = subprocess.Popen(
        [sys.executable, "-c", default_sigint, *command],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        printed = [process.stderr.readline(), process.stderr.readline()]
        address = re.search(r"at (http://\S+)", printed[0])
        assert address, printed
        # An open event stream (a page left open) must not hold up the stop.
        with httpx.stream("GET", f"{address.group(1)}api/sessions/LIVE/stream") as response:
            next(response.iter_lines())
            process.send_signal(signal.SIGINT)
            _, rest = process.communicate(timeout=15)
    finally:
        process.kill()
    assert process.returncode == 0
    assert rest == ""
