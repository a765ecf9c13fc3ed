"""Bad input: a clear error naming the file, the line or JSON path, and what was expected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from monologue_otel import load_session, read_session

from monologue.errors import NotMyFormat, RecordingError

FIXTURES = Path(__file__).parent / "fixtures"


def test_a_truncated_line_after_the_good_ones(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    lines = (FIXTURES / "otlp.jsonl").read_text().splitlines(keepends=True)
    path.write_text(lines[0] + lines[1][:100])
    source = iter(read_session(path))
    good = [next(source).type for _ in range(5)]
    assert good[-1] == "tool_result"
    with pytest.raises(RecordingError, match=r"cut\.jsonl:2: invalid JSON"):
        next(source)


def test_a_span_without_its_id_names_the_json_path(tmp_path: Path) -> None:
    document = json.loads((FIXTURES / "otlp.jsonl").read_text().splitlines()[0])
    del document["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["spanId"]
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(document) + "\n")
    expected = (
        r"bad\.jsonl:1: not an OTLP JSON trace request: "
        r"at \$\.resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[1\]\.spanId: Field required"
    )
    with pytest.raises(RecordingError, match=expected):
        list(read_session(path))


def test_a_span_list_entry_of_the_wrong_shape(tmp_path: Path) -> None:
    document = json.loads((FIXTURES / "spans.json").read_text())
    document["spans"][2]["start_time"] = "yesterday"
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(document))
    with pytest.raises(
        RecordingError, match=r"spans\.json: not a list of spans: at \$\[2\]\.start_time"
    ):
        list(read_session(path))


def test_truncated_span_list(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    path.write_text((FIXTURES / "spans.json").read_text()[:1500])
    with pytest.raises(RecordingError, match=r"cut\.json:\d+: invalid JSON: .*truncated\?"):
        list(read_session(path))


def test_spans_without_genai_attributes_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "http.json"
    span = {"name": "GET /", "context": {"trace_id": "0x1", "span_id": "0x2"}, "attributes": {}}
    path.write_text(json.dumps({"spans": [span]}))
    with pytest.raises(NotMyFormat, match=r"without GenAI attributes"):
        load_session(path)


def test_another_frameworks_file(tmp_path: Path) -> None:
    path = tmp_path / "run.traj"
    path.write_text(json.dumps({"trajectory": [], "history": []}))
    with pytest.raises(
        RecordingError, match=r"run\.traj: not an OpenTelemetry GenAI trace: no 'resourceSpans'"
    ):
        read_session(path)
