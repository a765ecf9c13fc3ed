"""No secret in any sink: every form of the redaction corpus goes through a real session as a
command, a tool input, a tool output, a failed tool output and agent text, with every sink
enabled, and no form's marker reaches any of them, while every look-alike arrives intact.

The sinks: the recording (monologue-recorder), the web viewer's JSON API (monologue-web, its
real Starlette app), the prompt sent to the Messages API (monologue-anthropic, through the
real SDK to the loopback server), OpenTelemetry span events and status (monologue-otel, to
an in-memory span exporter), the gate's rolling-summary files (monologue-gate), the
narratives handed to the caller, every log record, the skill state file and the webhook's
payloads (monologue-skills and monologue-webhook, posting to a loopback server).

Run with ``-s`` to see the figures: forms, carriers, sinks, leaks.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("monologue_web")
pytest.importorskip("monologue_anthropic")
pytest.importorskip("opentelemetry.sdk")

from pytest_monologue import PluginSandbox

import monologue

sys.path.insert(0, str(Path(__file__).parents[1]))
from test_redact_corpus import LOOK_ALIKES, SECRET_FORMS

MARKERS = [marker for _, marker in SECRET_FORMS]
DETAIL_STRIDE = 7
CARRIERS = ("command", "tool input", "tool output", "failed tool output", "agent text")


class _Hook(BaseHTTPRequestHandler):
    bodies: list[bytes] = []

    def do_POST(self) -> None:
        self.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def webhook_server() -> Iterator[tuple[str, list[bytes]]]:
    bodies: list[bytes] = []
    handler = type("Hook", (_Hook,), {"bodies": bodies})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/hook", bodies
    server.shutdown()
    server.server_close()


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    # The exporter is on when an endpoint is set; the SDK provider above is used as it is.
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    yield exporter
    exporter.shutdown()


def push_everything(session: monologue.Session) -> None:
    for text, _ in SECRET_FORMS:
        call = session.tool_call("Bash", {"command": text})
        session.tool_result(call.data["tool_use_id"], output=text)
        call = session.tool_call("Write", {"file_path": "notes.txt", "content": text})
        session.tool_result(call.data["tool_use_id"], output=f"Error: {text}", is_error=True)
        session.text(f"I noted {text}")
    for text in LOOK_ALIKES:
        call = session.tool_call("Bash", {"command": "echo look-alike"})
        session.tool_result(call.data["tool_use_id"], output=text)


def run_plan(
    pm: PluginSandbox, session: monologue.Session, state_file: Path, hook_url: str
) -> None:
    from monologue_skills.executor import run_plan as execute
    from monologue_skills.models import Plan
    from monologue_skills.state import StateStore

    actions = []
    for n, (text, _) in enumerate(SECRET_FORMS):
        actions.append({"id": f"s{n}", "skill": "status", "parameters": {"task": text}})
        actions.append(
            {"id": f"w{n}", "skill": "webhook", "parameters": {"url": hook_url, "text": text}}
        )
    for n, text in enumerate(LOOK_ALIKES):
        actions.append({"id": f"l{n}", "skill": "status", "parameters": {"task": text}})
    plan = Plan.model_validate({"actions": actions})
    report = execute(
        plan,
        pm=pm,
        store=StateStore(state_file),
        session=session,
        concurrency=1,
    )
    assert report.ok, [r.error for r in report.results if r.error]


def web_api(record_dir: Path) -> str:
    """What the viewer serves: the session list, each session, its event stream (what the
    page shows) until the completion, and every event's detail for a sample of them (each
    detail request reads the recording from the start)."""
    from monologue_web.app import WebSettings, create_app
    from starlette.testclient import TestClient

    texts = []
    app = create_app(WebSettings(record_dir=record_dir))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        rows = client.get("/api/sessions").json()
        texts.append(json.dumps(rows))
        for row in rows:
            sid = row["id"]
            texts.append(client.get(f"/api/sessions/{sid}").text)
            with client.stream("GET", f"/api/sessions/{sid}/stream") as stream:
                for line in stream.iter_lines():
                    texts.append(line)
                    if line.startswith("data:") and '"type": "completion"' in line.replace(
                        '"type":"completion"', '"type": "completion"'
                    ):
                        break
            lines = (record_dir / f"{sid}.jsonl").read_text().splitlines()[1:]
            for line in lines[::DETAIL_STRIDE]:
                answer = client.get(f"/api/sessions/{sid}/events/{json.loads(line)['id']}")
                assert answer.status_code == 200
                texts.append(answer.text)
    return "\n".join(texts)


def leaks(sinks: dict[str, str]) -> dict[str, list[str]]:
    return {name: [m for m in MARKERS if m in text] for name, text in sinks.items()}


@pytest.mark.parametrize("narrator", ["template", "anthropic"])
def test_no_marker_reaches_any_sink_and_look_alikes_survive(
    narrator: str,
    *,
    monologue_plugins: PluginSandbox,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    spans: object,
    webhook_server: tuple[str, list[bytes]],
) -> None:
    from pytest_monologue.anthropic import DUMMY_API_KEY, LoopbackAPI

    hook_url, hook_bodies = webhook_server
    record_dir = tmp_path / "sessions"
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MONOLOGUE_RECORD_DIR", str(record_dir))
    monkeypatch.setenv("MONOLOGUE_NARRATOR", narrator)
    monkeypatch.setenv("MONOLOGUE_TOOLS_DIR", str(tmp_path / "no-tools"))
    monologue_plugins.load(
        "buffer", "template", "recorder", "gate", "otel", "anthropic", "skills", "status", "webhook"
    )
    caplog.set_level(logging.DEBUG)
    narratives: list[str] = []
    state_file = tmp_path / "state.json"
    with LoopbackAPI() as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_API_KEY)
        with monologue.session("sinks", on_narrative=lambda e: narratives.append(e.text)) as run:
            run.user_message("Check the deployment credentials")
            push_everything(run)
            run_plan(monologue_plugins, run, state_file, hook_url)
            # The gate writes its rolling summary when a narrator asks for the context slice,
            # as Haiku does and the template never does: ask, so the sink is exercised.
            run.drain()
            run.hooks.first("narrator_context", session=run)
        prompts = "\n".join(r.raw.decode("utf-8", "replace") for r in api.requests)

    recordings = "\n".join(p.read_text() for p in sorted(record_dir.glob("*.jsonl")))
    summaries = "\n".join(
        p.read_text() for p in sorted((tmp_path / "data" / "summaries").rglob("*.json"))
    )
    otel = "\n".join(span.to_json() for span in spans.get_finished_spans())  # type: ignore[attr-defined]
    sinks = {
        "recording": recordings,
        "web API": web_api(record_dir),
        "narratives": "\n".join(narratives),
        "OpenTelemetry": otel,
        "gate summaries": summaries,
        "logs": caplog.text,
        "skill state": state_file.read_text(),
        "webhook payloads": b"\n".join(hook_bodies).decode(),
    }
    if narrator == "anthropic":
        sinks["Messages API prompt"] = prompts
        assert api.requests, "the narrator was never asked"
    # Every sink saw the traffic: a sink left empty would pass vacuously.
    for name, text in sinks.items():
        if name != "logs":
            assert text.strip(), f"{name} is empty"
    assert summaries and "OpenTelemetry" in sinks and "monologue.narrative" in otel
    assert len(hook_bodies) == len(SECRET_FORMS)

    found = leaks(sinks)
    total = sum(len(markers) for markers in found.values())
    print(
        f"\nsecret sinks ({narrator} narrator): {len(SECRET_FORMS)} forms x {len(CARRIERS)} "
        f"carriers, {len(LOOK_ALIKES)} look-alikes, {len(sinks)} sinks, {total} leaks"
    )
    assert total == 0, {name: markers for name, markers in found.items() if markers}

    # Look-alikes arrive whole where every event is kept: the recording, the API, the state.
    for name in ("recording", "web API", "skill state"):
        missing = [t for t in LOOK_ALIKES if json.dumps(t)[1:-1] not in sinks[name]]
        assert not missing, (name, missing)
