"""``monologue replay``, ``monologue watch`` and ``monologue log``.

Imported when ``monologue`` lists its commands, so everything heavy (pydantic models, rich,
the pipeline) is imported inside the command functions.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:
    from monologue.config import MonologueConfig

    from .render import View
    from .replay import ReplaySummary

PROGRESS_MIN_BYTES = 256 << 10
"""Instant replays of files at least this big show a progress bar on a terminal."""
PRESETS = ("default", "terse", "verbose")


def fail(message: str, code: int = 1) -> NoReturn:
    click.echo(f"monologue: {message}", err=True)
    raise SystemExit(code)


def parse_settings(pairs: tuple[str, ...]) -> dict[str, str]:
    """``-c KEY=VALUE`` options as settings; keys are spelled like config keys."""
    settings: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip().lower().replace("-", "_")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="-c")
        settings[key] = value.strip()
    return settings


@dataclass(frozen=True)
class SessionFlags:
    """The options replay and watch share."""

    narrator: str | None
    preset: str | None
    settings: tuple[str, ...]
    as_json: bool
    show_events: bool
    record: bool


SESSION_OPTIONS = (
    click.option("--narrator", metavar="NAME", help="Narrator: template, anthropic, none..."),
    click.option("--preset", type=click.Choice(PRESETS), help="Narration style."),
    click.option(
        "-c",
        "--config",
        "settings",
        multiple=True,
        metavar="KEY=VALUE",
        help="Any setting, plugins' included (repeatable): -c gate=strict.",
    ),
    click.option("--json", "as_json", is_flag=True, help="JSON lines: narratives, summary."),
    click.option("--show-events", is_flag=True, help="Show the events too, dimmed."),
    click.option("--record", is_flag=True, help="Record this session too (not by default)."),
)


def session_options(fn: Callable[..., None]) -> Callable[..., None]:
    """Add the shared options; the command receives them together as ``flags``."""

    @functools.wraps(fn)
    def command(
        *,
        narrator: str | None,
        preset: str | None,
        settings: tuple[str, ...],
        as_json: bool,
        show_events: bool,
        record: bool,
        **rest: Any,
    ) -> None:
        fn(flags=SessionFlags(narrator, preset, settings, as_json, show_events, record), **rest)

    for option in reversed(SESSION_OPTIONS):
        command = option(command)
    return command


@contextmanager
def configured(flags: SessionFlags) -> Iterator[MonologueConfig]:
    """Make the flags a configuration source, checking them before anything is read."""
    from monologue.config import cli_overrides, load_config
    from monologue.errors import ConfigError

    from .recording import policy_for, record_setting

    values: dict[str, Any] = {
        **parse_settings(flags.settings),
        "narrator": flags.narrator,
        "preset": flags.preset,
        "record": True if flags.record else None,
    }
    with cli_overrides(values):
        try:
            config = load_config()
            record_setting(config)
            policy_for(config)
        except ConfigError as exc:
            fail(str(exc), 2)
        yield config


def check_file(path: Path) -> None:
    if not path.exists():
        fail(f"{path}: no such file")
    if path.is_dir():
        fail(f"{path}: is a directory, not a session file")
    try:
        with path.open("rb"):
            pass
    except OSError as exc:
        fail(f"{path}: cannot read: {exc.strerror or exc}")


def narrate(
    path: Path, flags: SessionFlags, run: Callable[[View], ReplaySummary], recorded: bool = False
) -> None:
    """Run a replay or a watch of ``path`` with the flags in effect, and end like both do: the
    summary, then the problem in the file (once, exit 1) if there was one."""
    from monologue.errors import MonologueError

    from .render import make_view

    check_file(path)
    with configured(flags) as config:
        view = make_view(as_json=flags.as_json, show_events=flags.show_events)
        try:
            summary = run(view)
        except MonologueError as exc:  # the narrator cannot run, say
            view.close()
            fail(str(exc), 2)
        except KeyboardInterrupt:
            view.close()
            fail("interrupted", 130)
    view.summary(summary)
    chosen = config.narrator.strip().lower() != "auto"
    if summary.narrator is None and not (recorded or chosen) and summary.events:
        click.echo(
            "monologue: no narrator is installed (monologue-template is the offline one); "
            "--recorded shows the narratives in the file, --show-events the events",
            err=True,
        )
    if summary.problem:
        fail(summary.problem)


@click.command("replay")
@click.argument("path", type=click.Path(path_type=Path, dir_okay=True))
@click.option(
    "--speed",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    help="0 replays instantly, 1 in real time, N times faster (gaps capped at 2 s).",
)
@click.option("--recorded", is_flag=True, help="Show the recorded narratives; no narrator runs.")
@session_options
def replay_command(*, path: Path, speed: float, recorded: bool, flags: SessionFlags) -> None:
    """Narrate a recorded session: a monologue recording, a Claude Code transcript,
    stream-json output, or any format an installed plugin reads.

    Exits with 1, after narrating what came before, when the file has a bad line.
    """
    from .render import RichView
    from .replay import Driver, replay

    def run(view: View) -> ReplaySummary:
        size = path.stat().st_size
        if not size:
            fail(f"{path}: empty file, nothing to replay")
        if isinstance(view, RichView) and not speed and size >= PROGRESS_MIN_BYTES:
            view.start_progress(count_events(path))
        return replay(Driver(path, view, speed=speed, recorded=recorded))

    narrate(path, flags, run, recorded)


def count_events(path: Path) -> int:
    """How many events a file holds (for the progress bar; a bad line ends the count)."""
    from monologue.errors import RecordingError
    from monologue.plugins import get_plugin_manager

    from .replay import open_session

    count = 0
    try:
        source, _ = open_session(path, get_plugin_manager().hooks)
        for _ in source:
            count += 1
    except RecordingError:
        pass
    return count


@click.command("watch")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--poll",
    type=click.FloatRange(min=0.01),
    default=0.2,
    show_default=True,
    help="Seconds between checks for new lines.",
)
@click.option("--timeout", type=click.FloatRange(min=0), help="Stop after this many seconds.")
@click.option(
    "--idle-exit",
    type=click.FloatRange(min=0),
    help="Stop after this many seconds without a new line.",
)
@session_options
def watch_command(
    *,
    path: Path,
    poll: float,
    timeout: float | None,
    idle_exit: float | None,
    flags: SessionFlags,
) -> None:
    """Follow a session file that is still being written, and narrate it as it grows.

    Works for monologue recordings and for JSONL formats whose plugin offers a line parser
    (Claude Code transcripts, stream-json). Stops at the session's completion, on Ctrl-C,
    or with --timeout / --idle-exit.
    """
    from .watch import Watch

    def run(view: View) -> ReplaySummary:
        return Watch(path, view, poll_s=poll, timeout_s=timeout, idle_exit_s=idle_exit).run()

    narrate(path, flags, run)


@click.command("log")
@click.argument("target", metavar="PATH|SESSION_ID")
@click.option("--json", "as_json", is_flag=True, help="The events as JSON lines.")
def log_command(target: str, as_json: bool) -> None:
    """Print a recorded session: every event, narratives, and suppressions with reasons.

    SESSION_ID (or a unique prefix of it) is looked up in the record directory.
    """
    from .log import print_log, resolve

    path = resolve(target)
    check_file(path)
    print_log(path, as_json=as_json)
