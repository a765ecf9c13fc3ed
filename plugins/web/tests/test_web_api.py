"""The HTTP API over a real server: what is served, what is refused."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from monologue_web.app import WebSettings, create_app
from monologue_web.bind import BindRefused
from web_fixtures import Recording, Server


def sse_messages(
    server: Server, path: str, headers: dict[str, str] | None = None
) -> list[tuple[str, str, str]]:
    """(event, id, data) of every message of a stream that ends."""
    messages, fields = [], {"event": "", "id": "", "data": ""}
    with httpx.stream("GET", server.url(path), headers=headers, timeout=20) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if not line:
                if fields["data"]:
                    messages.append((fields["event"], fields["id"], fields["data"]))
                fields = {"event": "", "id": "", "data": ""}
                continue
            key, _, value = line.partition(": ")
            if key in fields:
                fields[key] = value
    return messages


def finished(recording: Callable[..., Recording], session_id: str = "DONE") -> Recording:
    rec = recording(session_id)
    steps = rec.tool_step("Read", {"file_path": "a.py"}, "y" * 3000)
    rec.narrate("I read a.py.", steps)
    rec.add("completion", {"result": "ok", "is_error": False})
    os.utime(rec.path, (1, 1))  # long settled: the stream ends at once
    return rec


def test_a_finished_session_streams_header_events_then_ends(
    serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    finished(recording)
    messages = sse_messages(serve(), "/api/sessions/DONE/stream")
    kinds = [kind for kind, _, _ in messages]
    assert kinds == ["header", "event", "event", "event", "event", "caught_up", "end"]
    assert json.loads(messages[0][2])["agent"] == "coder"
    result = json.loads(messages[2][2])
    assert result["data"]["output"] == "y" * 2000 + "…[1000 chars cut]"
    assert result["full"] == f"/api/sessions/DONE/events/{result['id']}"


def test_a_resumed_stream_starts_after_the_last_event_it_received(
    serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    finished(recording)
    server = serve()
    second_id = sse_messages(server, "/api/sessions/DONE/stream")[2][1]
    resumed = sse_messages(server, "/api/sessions/DONE/stream", {"Last-Event-ID": second_id})
    assert [kind for kind, _, _ in resumed] == ["header", "event", "event", "caught_up", "end"]
    assert second_id == "3"
    # An id that is no line number is no resume point: everything is sent again.
    again = sse_messages(server, "/api/sessions/DONE/stream", {"Last-Event-ID": "x"})
    assert len(again) == 7


def test_the_list_and_one_session_summary(
    serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    finished(recording)
    server = serve()
    (row,) = httpx.get(server.url("/api/sessions")).json()
    assert (row["id"], row["state"], row["events"], row["narratives"]) == ("DONE", "finished", 4, 1)
    assert httpx.get(server.url("/api/sessions/DONE")).json() == row


@pytest.mark.parametrize(
    "path",
    [
        "/api/sessions/..%2F..%2Fetc%2Fpasswd/stream",
        "/api/sessions/%2Fetc%2Fpasswd/stream",
        "/api/sessions/..%2Fsecret/stream",
        "/api/sessions/../secret/stream",
        "/api/sessions/.../stream",
        "/api/sessions/outside/stream",
        "/api/sessions/notes/stream",
        "/api/sessions/..%2Fsecret",
        "/api/sessions/..%2Fsecret/events/x",
        "/api/sessions/..%2Fsecret/boards",
    ],
)
def test_nothing_outside_the_record_folder_is_served(
    serve: Callable[..., Server], record_dir: Path, recording: Callable[..., Recording], path: str
) -> None:
    # A real recording just outside the folder, one linked into it, and a non-recording.
    outside = Recording(record_dir.parent, "secret", "coder", recording("inside").clock)
    outside.add("text", {"text": "private"})
    (record_dir / "outside.jsonl").symlink_to(outside.path)
    (record_dir / "notes.jsonl").write_text("just notes\n")
    server = serve()
    response = httpx.get(server.url(path))
    assert response.status_code == 404, response.text
    assert "private" not in response.text


def test_one_whole_event_is_found_by_its_id_not_by_a_mention(
    serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    from monologue.events import Event

    rec = recording("FIND")
    wanted = Event(type="tool_result", data={"tool_use_id": "t1", "output": "z" * 3000})
    # An earlier event whose data carries the same id under the key "id": not the event.
    rec.add("tool_call", {"tool_name": "Read", "tool_use_id": "t0", "input": {"id": wanted.id}})
    with rec.path.open("a") as stream:
        stream.write(wanted.to_json() + "\n")
    server = serve()
    whole = httpx.get(server.url(f"/api/sessions/FIND/events/{wanted.id}")).json()
    assert (whole["id"], whole["type"], whole["data"]["output"]) == (
        wanted.id,
        "tool_result",
        "z" * 3000,
    )


def test_an_unknown_event_is_a_404(
    serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    rec = finished(recording)
    server = serve()
    assert httpx.get(server.url("/api/sessions/DONE/events/NOPE")).status_code == 404
    assert rec.path.exists()


def test_the_server_is_read_only(
    serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    finished(recording)
    server = serve()
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        response = httpx.request(method, server.url("/api/sessions/DONE"))
        assert response.status_code == 405
    response = httpx.get(server.url("/"))
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "default-src 'self'" in response.headers["content-security-policy"]


def test_a_loopback_server_refuses_other_host_names(serve: Callable[..., Server]) -> None:
    server = serve()
    # DNS rebinding: a name of the attacker's resolving to 127.0.0.1.
    assert (
        httpx.get(server.url("/api/sessions"), headers={"Host": "evil.example"}).status_code == 400
    )
    assert httpx.get(server.url("/api/sessions"), headers={"Host": "localhost"}).status_code == 200


def test_a_non_loopback_bind_without_a_token_is_refused(record_dir: Path) -> None:
    with pytest.raises(BindRefused, match=r"refusing to serve recordings on 0\.0\.0\.0"):
        create_app(WebSettings(record_dir=record_dir, host="0.0.0.0"))
    with pytest.raises(BindRefused, match=r"on 192\.168\.1\.5"):
        create_app(WebSettings(record_dir=record_dir, host="192.168.1.5", token=""))


def test_with_a_token_the_api_needs_it(
    serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    finished(recording)
    server = serve(token="s3cret-token")
    assert httpx.get(server.url("/api/sessions")).status_code == 401
    assert httpx.get(server.url("/api/sessions?token=wrong")).status_code == 401
    assert httpx.get(server.url("/api/sessions?token=s3cret-token")).status_code == 200
    # Auth schemes are case-insensitive (RFC 9110).
    for scheme in ("Bearer", "bearer", "BEARER", "bEaReR"):
        bearer = {"Authorization": f"{scheme} s3cret-token"}
        assert httpx.get(server.url("/api/sessions/DONE"), headers=bearer).status_code == 200
    for refused in ("Basic s3cret-token", "Bearer wrong", "Bearers3cret-token", "s3cret-token"):
        answer = httpx.get(server.url("/api/sessions/DONE"), headers={"Authorization": refused})
        assert answer.status_code == 401, refused
    # The page itself holds no data and loads without it.
    assert httpx.get(server.url("/")).status_code == 200


def test_a_recording_that_cannot_be_read_further_ends_with_a_problem(
    serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    from monologue.lines import MAX_LINE_BYTES

    rec = recording("BROKEN")
    rec.add("text", {"text": "before"})
    with rec.path.open("a") as stream:
        stream.write("x" * (2 * MAX_LINE_BYTES) + "\n")
    messages = sse_messages(serve(), "/api/sessions/BROKEN/stream")
    assert [kind for kind, _, _ in messages] == ["header", "event", "problem"]
    assert json.loads(messages[-1][2])["message"].endswith(
        "BROKEN.jsonl:3: line is longer than the 8 MiB limit; refusing to read it"
    )


def test_special_files_in_the_record_folder_are_skipped_and_the_list_returns_at_once(
    serve: Callable[..., Server], record_dir: Path, recording: Callable[..., Recording]
) -> None:
    import socket
    import stat
    import time

    finished(recording)
    os.mkfifo(record_dir / "fifo.jsonl")
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(record_dir / "socket.jsonl"))
    try:
        os.mknod(record_dir / "device.jsonl", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        device = True
    except PermissionError:  # not root: /dev/null itself, linked in, is a device too
        (record_dir / "device.jsonl").symlink_to("/dev/null")
        device = False
    outside = Recording(record_dir.parent, "ELSEWHERE", "spy", recording("x").clock)
    outside.add("text", {"text": "private"})
    (record_dir / "linked.jsonl").symlink_to(outside.path)
    (record_dir / "x.jsonl").unlink()
    inner = finished(recording, "INNER")
    (record_dir / "alias.jsonl").symlink_to(inner.path.name)  # inside: followed
    server = serve()
    try:
        started = time.monotonic()
        rows = httpx.get(server.url("/api/sessions"), timeout=5).json()
        assert time.monotonic() - started < 2
        assert sorted(row["id"] for row in rows) == ["DONE", "INNER", "alias"]
        for name in ("fifo", "socket", "device", "linked"):
            answer = httpx.get(server.url(f"/api/sessions/{name}/stream"), timeout=5)
            assert answer.status_code == 404, name
            assert httpx.get(server.url(f"/api/sessions/{name}"), timeout=5).status_code == 404
        messages = sse_messages(server, "/api/sessions/alias/stream")
        assert [kind for kind, _, _ in messages][-1] == "end"
    finally:
        listening.close()
    assert device or (record_dir / "device.jsonl").is_symlink()


def test_recordings_are_read_and_parsed_off_the_event_loop(
    serve: Callable[..., Server],
    recording: Callable[..., Recording],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every line the server decodes (list, stream, one event) is decoded in a worker
    thread, never on the thread that runs the server's event loop."""
    import threading

    from monologue_web import reading

    decoded_on: list[int] = []
    decode = reading._decode

    def spying(*args: object) -> object:
        decoded_on.append(threading.get_ident())
        return decode(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(reading, "_decode", spying)
    rec = finished(recording)
    server = serve()
    assert httpx.get(server.url("/api/sessions")).json()[0]["events"] == 4
    assert len(sse_messages(server, "/api/sessions/DONE/stream")) == 7
    event_id = json.loads(rec.path.read_text().splitlines()[2])["id"]
    assert httpx.get(server.url(f"/api/sessions/DONE/events/{event_id}")).status_code == 200
    assert len(decoded_on) >= 9
    assert server.loop_thread not in decoded_on


def test_a_resumed_stream_reads_on_from_the_index_not_from_the_start(
    serve: Callable[..., Server],
    recording: Callable[..., Recording],
    caplog: pytest.LogCaptureFixture,
) -> None:
    rec = recording("INDEXED")
    for number in range(6):
        rec.add("text", {"text": f"{number}" * 1_000_000})
    small = [rec.add("text", {"text": f"small {number}"}) for number in range(3)]
    rec.add("completion", {"result": None, "is_error": False})
    os.utime(rec.path, (1, 1))
    server = serve()
    assert httpx.get(server.url("/api/sessions/INDEXED")).json()["events"] == 10
    resume = {"Last-Event-ID": "8"}  # line 8: the first small event
    before = sse_messages(server, "/api/sessions/INDEXED/stream", resume)
    # Lines 2 and 3 made one in place (the newline between them now a space): a reader from
    # the start would number every later line one less, and send other events.
    with rec.path.open("r+b") as stream:
        stream.readline()
        stream.readline()
        stream.seek(-1, os.SEEK_CUR)
        stream.write(b" ")
    os.utime(rec.path, (1, 1))
    with caplog.at_level(logging.WARNING, "monologue.web"):
        after = sse_messages(server, "/api/sessions/INDEXED/stream", resume)
    assert after == before
    assert [json.loads(data)["id"] for kind, _, data in after if kind == "event"][:2] == [
        small[1].id,
        small[2].id,
    ]
    assert "not a recorded event" not in caplog.text
    # A reader from the start does meet it, and says so.
    with caplog.at_level(logging.WARNING, "monologue.web"):
        sse_messages(server, "/api/sessions/INDEXED/stream")
    assert "INDEXED.jsonl:2: not a recorded event; skipped" in caplog.text
    assert sse_messages(server, "/api/sessions/INDEXED/stream", resume) == after


def test_clients_caught_up_with_a_live_session_share_one_reader(
    serve: Callable[..., Server],
    recording: Callable[..., Recording],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three pages on one running session: each appended line is read and decoded once,
    and every page receives every event, in order."""
    import threading
    import time

    from monologue_web import reading

    decoded: list[int] = []
    decode = reading._decode

    def counting(path: Path, lineno: int, raw: bytes) -> object:
        decoded.append(lineno)
        return decode(path, lineno, raw)

    monkeypatch.setattr(reading, "_decode", counting)
    rec = recording("SHARED")
    first = rec.add("text", {"text": "before the pages opened"})
    server = serve()
    caught_up = threading.Barrier(4, timeout=20)
    received: list[list[str]] = [[], [], []]

    def page(number: int) -> None:
        url = server.url("/api/sessions/SHARED/stream")
        with httpx.stream("GET", url, timeout=20) as response:
            kind = ""
            for line in response.iter_lines():
                if line.startswith("event: "):
                    kind = line[7:]
                    if kind == "caught_up":
                        caught_up.wait()
                elif line.startswith("data: ") and kind == "event":
                    received[number].append(json.loads(line[6:])["id"])
                    if len(received[number]) == 21:
                        return

    pages = [threading.Thread(target=page, args=(n,)) for n in range(3)]
    for thread in pages:
        thread.start()
    caught_up.wait()
    appended = []
    for number in range(20):
        appended.append(rec.add("text", {"text": f"live {number}"}).id)
        time.sleep(0.02)
    for thread in pages:
        thread.join(timeout=20)
    assert received == [[first.id, *appended]] * 3
    live_lines = [lineno for lineno in decoded if lineno > 2]
    assert sorted(live_lines) == list(range(3, 23))
