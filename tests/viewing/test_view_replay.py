"""``monologue replay`` of the own format: narration regenerated or as recorded, pacing,
output forms, settings, and replays that do not record themselves."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pytest_monologue import MockNarrator, PluginSandbox
from viewing_support import Cli, json_lines, recording_of

from monologue import Session, hookimpl
from monologue.events import Event
from monologue.replay._render import NarrativeLine, RichView, TextView, make_view
from monologue.replay._replay import Driver, ReplaySummary, replay
from monologue.replay._viewing import PROGRESS_MIN_BYTES


@pytest.fixture
def recording(recorder: PluginSandbox, record_dir: Path, mock_narrator: MockNarrator) -> Path:
    """A session narrated live: two narratives recorded among its events."""
    mock_narrator.queue("I'm looking for the retry limit.", "I moved it into the config.")
    with recorder.session("coder", max_buffer_size=4) as s:
        call = s.tool_call("Grep", {"pattern": "MAX_RETRIES"})
        s.tool_result(call.data["tool_use_id"], "client.py:12: MAX_RETRIES = 3")
        call = s.tool_call("Read", {"file_path": "client.py"})
        s.tool_result(call.data["tool_use_id"], "...")
        assert mock_narrator.wait_for_calls(1)
        call = s.tool_call("Edit", {"file_path": "client.py"})
        s.tool_result(call.data["tool_use_id"], "ok")
    mock_narrator.calls.clear()
    return recording_of(record_dir, s.id)


def test_replay_narrates_again_with_the_narrator_in_effect(
    run_cli: Cli, recording: Path, mock_narrator: MockNarrator
) -> None:
    mock_narrator.queue("Fresh sentence one.", "Fresh sentence two.")
    result = run_cli("replay", "-c", "max_buffer_size=4", str(recording))

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == [
        "coder: Fresh sentence one.",
        "coder: Fresh sentence two.",
    ]
    # No recorded narrative reached the narrator: it narrates the agent's events only.
    narrated = [event.type for call in mock_narrator.calls for event in call.events]
    assert "narrative" not in narrated
    assert narrated.count("tool_call") == 3
    assert "9 events, 3 tool calls, 2 narratives" in result.stderr


def test_recorded_shows_the_narratives_as_they_were_without_a_narrator(
    run_cli: Cli, recording: Path, mock_narrator: MockNarrator
) -> None:
    result = run_cli("replay", "--recorded", str(recording))

    assert result.exit_code == 0
    assert [line.split(" ", 1)[1] for line in result.stdout.splitlines()] == [
        "coder: I'm looking for the retry limit.",
        "coder: I moved it into the config.",
    ]
    assert mock_narrator.calls == []


def test_json_prints_narratives_and_a_summary(
    run_cli: Cli, recording: Path, mock_narrator: MockNarrator
) -> None:
    result = run_cli("replay", "--json", str(recording))

    lines = [json.loads(line) for line in result.stdout.splitlines()]
    narratives = [NarrativeLine.model_validate(line) for line in lines[:-1]]
    summary = ReplaySummary.model_validate(lines[-1])
    assert [n.narrator for n in narratives] == ["mock"] * len(narratives)
    assert summary.narratives == len(narratives) >= 1
    assert (summary.events, summary.tool_calls, summary.tool_results) == (9, 3, 3)
    assert (summary.errors, summary.tool_errors, summary.problem) == (0, 0, None)
    assert summary.format == "monologue"
    assert summary.narrator == "mock"


def test_show_events_prints_every_event_in_plain_text(
    run_cli: Cli, recording: Path, mock_narrator: MockNarrator
) -> None:
    result = run_cli("replay", "--show-events", "--recorded", str(recording))

    events = [line.split(None, 2)[2] for line in result.stdout.splitlines() if line[:2] == "  "]
    assert events[:2] == [
        "tool_call Grep pattern=MAX_RETRIES",
        "tool_result client.py:12: MAX_RETRIES = 3",
    ]
    assert events[-1] == "completion"
    assert "\x1b[" not in result.stdout  # no terminal, no colours


def test_json_show_events_prints_events_as_json(run_cli: Cli, recording: Path) -> None:
    result = run_cli("replay", "--json", "--show-events", "--recorded", str(recording))
    kinds = [json.loads(line)["kind"] for line in result.stdout.splitlines()]
    assert kinds.count("event") == 7 and kinds.count("narrative") == 2
    assert kinds[-1] == "summary"


def test_a_replay_is_not_recorded_unless_asked(
    run_cli: Cli, recording: Path, record_dir: Path, mock_narrator: MockNarrator
) -> None:
    before = set(record_dir.iterdir())
    run_cli("replay", str(recording))
    assert set(record_dir.iterdir()) == before

    result = run_cli("replay", "--record", str(recording))
    [new] = set(record_dir.iterdir()) - before
    header, *events = json_lines(new)
    assert header["meta"] == {"replay_of": str(recording), "source_format": "monologue"}
    assert header["session_id"] != recording.stem
    # The source's times are kept: the recording starts when the source did.
    source_events = json_lines(recording)[1:]
    assert header["started_at"] == source_events[0]["ts"]
    assert events[0]["ts"] == source_events[0]["ts"]
    assert "not recorded" not in result.stderr


def test_record_without_a_recorder_says_nothing_was_recorded(
    run_cli: Cli, monologue_plugins: PluginSandbox, recording: Path, tmp_path: Path
) -> None:
    monologue_plugins.pm.unregister(name="line-recorder")
    result = run_cli("replay", "--record", "--narrator", "none", str(recording))
    assert result.exit_code == 0, result.output
    assert "record = true, yet this replay was not recorded" in result.stderr
    assert "is a recorder plugin, such as monologue-recorder, installed?" in result.stderr
    assert [path.name for path in (tmp_path / "sessions").iterdir()] == [recording.name]


def test_settings_reach_the_session(
    run_cli: Cli, recording: Path, mock_narrator: MockNarrator
) -> None:
    result = run_cli(
        "replay", "--json", "-c", "max-buffer-size=1", "-c", "min_buffer_size=1", str(recording)
    )
    summary = json.loads(result.stdout.splitlines()[-1])
    # One narration per tool event; the completion alone has nothing left to narrate.
    assert summary["narratives"] == 6


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-c", "record=maybe"], "record = 'maybe'"),
        (["-c", "max_buffer_size=lots"], "max_buffer_size = 'lots'"),
        (["--narrator", "nosuch"], "no narrator plugin named 'nosuch'"),
    ],
)
def test_bad_settings_are_named_before_anything_is_shown(
    run_cli: Cli, recording: Path, args: list[str], message: str
) -> None:
    result = run_cli("replay", *args, str(recording))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr


def test_a_setting_without_a_value_is_a_usage_error(run_cli: Cli, recording: Path) -> None:
    result = run_cli("replay", "-c", "gate", str(recording))
    assert result.exit_code == 2
    assert "expected KEY=VALUE" in result.stderr


def test_a_failed_session_replays_as_a_failure(
    recorder: PluginSandbox, record_dir: Path, mock_narrator: MockNarrator
) -> None:
    s = recorder.session("coder", narrator="none")
    with pytest.raises(RuntimeError):
        fail_during(s)

    view = TextView()
    summary = replay(Driver(recording_of(record_dir, s.id), view))

    assert summary.errors == 1
    [final] = mock_narrator.calls
    completions = [e for e in final.events if e.type == "completion"]
    assert len(completions) == 1 and completions[0].data["is_error"] is True


def fail_during(s: Session) -> None:
    with s:
        s.text("about to fail")
        raise RuntimeError("tests failed")


class Recorder:
    """A view that keeps what it was shown."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.narratives: list[tuple[str, datetime]] = []

    def event(self, event: Event) -> None:
        self.events.append(event)

    def narrative(self, narrative: Event, at: datetime) -> None:
        self.narratives.append((narrative.text, at))


def timed_events(gaps: list[float], narrated: tuple[int, ...] = ()) -> list[Event]:
    """Text events ``gaps`` seconds apart; after those numbered in ``narrated``, a recorded
    narrative half a second later."""
    at = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    events = []
    for number, gap in enumerate([0.0, *gaps]):
        at += timedelta(seconds=gap)
        events.append(Event(type="text", ts=at, agent="coder", data={"text": f"step {number}"}))
        if number in narrated:
            data = {"text": f"said {number}", "narrator": "mock", "reason": "buffer"}
            later = at + timedelta(seconds=0.5)
            events.append(Event(type="narrative", ts=later, visibility="user", data=data))
    return events


@pytest.mark.parametrize(
    ("recorded", "sleeps"),
    [
        # Narration anew: the recorded narratives are not replayed, nor waited for.
        pytest.param(False, [0.25, 2.0, 0.5], id="narrated anew"),
        pytest.param(True, [0.25, 0.25, 2.0, 0.5], id="recorded narratives"),
    ],
)
def test_paced_replay_follows_the_timestamps_scaled_and_caps_long_gaps(
    recorder: PluginSandbox, recorded: bool, sleeps: list[float]
) -> None:
    slept: list[float] = []
    driver = Driver(
        Path("x"),
        Recorder(),
        speed=2.0,
        recorded=recorded,
        sleep=slept.append,
        config={"narrator": "none"},
    )
    for event in timed_events([0.5, 10.0, 1.0, 0.0], narrated=(1,)):
        driver.feed(event)
    driver.close()
    assert slept == sleeps


def test_instant_replay_never_sleeps(recorder: PluginSandbox, mock_narrator: MockNarrator) -> None:
    sleeps: list[float] = []
    view = Recorder()
    driver = Driver(Path("x"), view, sleep=sleeps.append)
    for event in timed_events([30.0, 30.0]):
        driver.feed(event)
    driver.close()
    assert sleeps == []
    assert [text for text, _ in view.narratives] == ["Narration 1 (4 events)."]
    # A narrative is shown at the time of the session it follows, not at the replay's.
    assert view.narratives[0][1] == datetime(2026, 1, 1, 12, 1, tzinfo=UTC)


def test_a_negative_speed_is_refused(run_cli: Cli, recording: Path) -> None:
    result = run_cli("replay", "--speed", "-1", str(recording))
    assert result.exit_code == 2
    assert "--speed" in result.stderr


def test_a_terminal_gets_colours_and_dimmed_events(
    recording: Path, mock_narrator: MockNarrator
) -> None:
    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120)
    view = RichView(show_events=True, console=console, errors=console)
    summary = replay(Driver(recording, view, recorded=True), progress=view)
    view.summary(summary)

    text = out.getvalue()
    assert "\x1b[2m" in text  # dim
    assert "I'm looking for the retry limit." in text
    assert "tool_call Grep pattern=MAX_RETRIES" in text
    assert "9 events, 3 tool calls, 2 narratives" in text


def test_the_view_follows_the_output(tmp_path: Path) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert isinstance(make_view(as_json=False, show_events=False, stream=Terminal()), RichView)
    plain = make_view(as_json=False, show_events=False, stream=io.StringIO())
    assert type(plain) is TextView
    assert (
        type(make_view(as_json=True, show_events=False, stream=Terminal())).__name__ == "JsonView"
    )


def test_without_a_narrator_replay_says_how_to_see_something(
    run_cli: Cli, recorder: PluginSandbox, record_dir: Path
) -> None:
    with recorder.session("coder", narrator="none") as s:
        s.text("hello")
    path = recording_of(record_dir, s.id)

    result = run_cli("replay", str(path))
    assert result.exit_code == 0 and result.stdout == ""
    assert (
        "monologue: no narrator plugin is installed, so sessions are not narrated: "
        "pip install monologue-default"
    ) in result.stderr
    assert "--recorded shows the narratives in the file" in result.stderr
    again = run_cli("replay", str(path)).stderr
    assert "no narrator plugin" not in again  # once
    assert "--recorded" not in run_cli("replay", "--narrator", "none", str(path)).stderr


def test_narrator_preset_and_settings_flags_reach_the_replayed_session(
    run_cli: Cli, recording: Path, recorder: PluginSandbox
) -> None:
    from pydantic import Field

    from monologue.settings import PluginSettings

    class CaptureSettings(PluginSettings):
        style: str = Field("rich")

    seen = set()

    class Capture:
        @hookimpl
        def register_settings(self) -> type[CaptureSettings]:
            return CaptureSettings

        @hookimpl
        def narrate(self, session: Session) -> str:
            seen.add((session.config.preset, session.config.settings(CaptureSettings).style))
            return "Noted."

    recorder.register(Capture(), "capture")
    result = run_cli(
        "replay", "--narrator", "capture", "--preset", "terse", "-c", "style=plain", str(recording)
    )
    assert result.exit_code == 0
    assert seen == {("terse", "plain")}
    assert result.stdout.splitlines()[-1].endswith("coder: Noted.")


@pytest.fixture
def large(recorder: PluginSandbox, record_dir: Path) -> Path:
    """A recording larger than the size that shows a progress bar."""
    with recorder.session("coder", narrator="none") as s:
        for number in range(600):
            call = s.tool_call("Read", {"file_path": f"src/module_{number}.py"})
            s.tool_result(call.data["tool_use_id"], "x = 1\n" * 80)
    path = recording_of(record_dir, s.id)
    assert path.stat().st_size >= PROGRESS_MIN_BYTES
    return path


def test_a_large_replay_shows_progress_on_a_terminal(large: Path) -> None:
    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    view = RichView(console=console, errors=console)
    summary = replay(Driver(large, view, config={"narrator": "none"}), progress=view)
    view.summary(summary)
    assert summary.events == 1201
    assert "replaying" in out.getvalue() and "events" in out.getvalue()


def test_piped_output_shows_no_progress(run_cli: Cli, large: Path) -> None:
    result = run_cli("replay", "--narrator", "none", str(large))
    assert result.exit_code == 0
    assert "replaying" not in result.stdout + result.stderr
