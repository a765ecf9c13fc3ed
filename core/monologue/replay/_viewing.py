"""``monologue replay``, ``monologue watch`` and ``monologue log``: the core's viewing commands.

Imported when ``monologue`` lists its commands, so everything heavy (pydantic models, rich,
the pipeline) is imported inside the command functions, from :mod:`._replay`,
:mod:`._watch`, :mod:`._log` and :mod:`._render`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

import click

if TYPE_CHECKING:
    from monologue.settings import MonologueConfig

    from ._render import View
    from ._replay import ReplaySummary
    from ._streams import Spool

PROGRESS_MIN_BYTES = 256 << 10
"""Instant replays of files at least this big show a progress bar on a terminal."""
PRESETS = ("default", "terse", "verbose")


def fail(message: str, code: int = 1) -> NoReturn:
    click.echo(f"monologue: {message}", err=True)
    raise SystemExit(code)


def settings_failure(exc: Exception) -> SystemExit:
    """A bad setting in a command: ``monologue CMD: <problem>`` on standard error, exit 2
    (raise what it returns)."""
    words = click.get_current_context().command_path.split()[1:]
    click.echo(" ".join(["monologue", *words]) + f": {exc}", err=True)
    return SystemExit(2)


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


class SessionFlags(NamedTuple):
    """The options replay and watch share (a named tuple: dataclasses import inspect, which
    ``monologue --help`` has no use for)."""

    narrator: str | None
    preset: str | None
    settings: tuple[str, ...]
    as_json: bool
    show_events: bool
    record: bool
    strict: bool


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
    click.option("--record", is_flag=True, help="Record it too (needs a recorder plugin)."),
    click.option("--strict", is_flag=True, help="A bad line is an error, not skipped."),
)
SOURCE = click.argument("source", metavar="PATH")
"""A session file, ``-`` for standard input, or a FIFO."""


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
        strict: bool,
        **rest: Any,
    ) -> None:
        flags = SessionFlags(narrator, preset, settings, as_json, show_events, record, strict)
        fn(flags=flags, **rest)

    for option in reversed(SESSION_OPTIONS):
        command = option(command)
    return command


@contextmanager
def configured(flags: SessionFlags) -> Iterator[MonologueConfig]:
    """Make the flags a configuration source, checking them before anything is read."""
    from monologue.errors import ConfigError
    from monologue.plugins import get_plugin_manager
    from monologue.settings import cli_overrides, load_config

    values: dict[str, Any] = parse_settings(flags.settings)
    # A flag given stands over `-c`; one not given leaves `-c` standing.
    flagged = {"narrator": flags.narrator, "preset": flags.preset}
    values.update({key: value for key, value in flagged.items() if value})
    if flags.record:  # else `-c record=...` stands
        values["record"] = True
    with cli_overrides(values):
        try:
            config = load_config(models=get_plugin_manager().hooks.settings_models())
        except ConfigError as exc:
            raise settings_failure(exc) from None
        yield config


class Source(NamedTuple):
    """What a command reads: ``path`` (a stream's temporary copy), named ``name``."""

    path: Path
    name: Path
    spool: Spool | None = None

    def waiting(self) -> None:
        click.echo(f"monologue: waiting for input on {self.name} (Ctrl-C to stop)", err=True)


def resolved(target: str) -> str:
    """A path as given (``-`` too), else the recording of session ``target`` (or a unique
    prefix of its id); what cannot be found fails, naming it."""
    from monologue.errors import MonologueError
    from monologue.recording import find_recording

    if target == "-":
        return target
    try:
        return str(find_recording(target))
    except MonologueError as exc:
        fail(str(exc))


@contextmanager
def opened(target: str) -> Iterator[Source]:
    """The session file, standard input (``-``) or FIFO ``target``; anything else fails,
    naming it."""
    from monologue.errors import MonologueError

    from ._streams import is_stream, open_stream

    try:
        stream = is_stream(target)
        spool = open_stream(target) if stream else None
    except MonologueError as exc:
        fail(str(exc))
    if spool is None:
        yield Source(Path(target), Path(target))
        return
    with spool:
        yield Source(spool.path, Path(spool.name), spool)


def narrate(
    source: Source,
    flags: SessionFlags,
    run: Callable[[View], ReplaySummary],
    recorded: bool = False,
) -> None:
    """Run a replay or a watch of ``source`` with the flags in effect, and end like both do:
    the summary, then the problem in the file (once, exit 1) if there was one."""
    from monologue.errors import MonologueError

    from ._render import make_view

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
    if summary.recording and not flags.as_json:
        click.echo(
            f"monologue: recorded as session {summary.session_id} in {summary.recording}",
            err=True,
        )
    chosen = config.narrator.strip().lower() != "auto"
    if summary.narrator is None and not (recorded or chosen) and summary.events:
        # The session has warned that no narrator is installed, naming the package.
        click.echo(
            "monologue: --recorded shows the narratives in the file, --show-events the events",
            err=True,
        )
    if summary.problem:
        fail(summary.problem)
    checks = summary.checks
    if checks is not None and not flags.as_json:
        for line in checks.describe():
            click.echo(f"monologue: {line}" if line.startswith("checked") else line, err=True)
    if checks is not None and (checks.false_count or checks.unchecked):
        raise SystemExit(1)


def _need_a_checker(recorded: bool) -> None:
    """``--check`` checks the narratives this replay tells, with the installed checker."""
    from monologue.plugins._manager import get_plugin_manager

    if recorded:
        fail("--check checks new narratives; to audit recorded ones: monologue check PATH", 2)
    if not get_plugin_manager().hooks.impls("check_narrative"):
        fail("--check needs a claim checker plugin (pip install monologue-check)", 2)


@click.command("replay")
@click.argument("source", metavar="PATH|SESSION_ID")
@click.option(
    "--speed",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    help="0 replays instantly, 1 in real time, N times faster (gaps capped at 2 s).",
)
@click.option("--recorded", is_flag=True, help="Show the recorded narratives; no narrator runs.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    help="With - or a FIFO: stop reading the stream after this many seconds.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Check each narrative's claims against its events (needs a claim checker such as "
    "monologue-check): list the false ones and exit 1 if there were any.",
)
@session_options
def replay_command(
    *,
    source: str,
    speed: float,
    recorded: bool,
    timeout: float | None,
    check: bool,
    flags: SessionFlags,
) -> None:
    """Narrate a recorded session: a monologue recording, or any format an installed
    reader plugin reads (Claude Code transcripts and stream-json with monologue-claude).
    PATH may be - (standard input) or a FIFO: the stream is read to its end first;
    SESSION_ID (or a unique prefix of it, as `monologue sessions` lists them) is looked
    up in the record directory.

    A bad line is skipped with a warning naming it; with --strict it ends the replay
    with exit 1, after narrating what came before.
    """
    from monologue.checking import CheckTally

    from ._render import RichView
    from ._replay import Driver, replay

    if check:
        _need_a_checker(recorded)
    with opened(resolved(source)) as where:

        def run(view: View) -> ReplaySummary:
            if where.spool is not None:
                where.spool.read_all(timeout, where.waiting)
            size = where.path.stat().st_size
            if not size:
                what = "empty file" if where.spool is None else "the stream sent nothing"
                fail(f"{where.name}: {what}, nothing to replay")
            large = not speed and size >= PROGRESS_MIN_BYTES
            progress = view if isinstance(view, RichView) and large else None
            driver = Driver(where.name, view, speed=speed, recorded=recorded)
            if check:
                driver.checks = CheckTally()
            return replay(driver, where.path, strict=flags.strict, progress=progress)

        narrate(where, flags, run, recorded)


@click.command("watch")
@SOURCE
@click.option(
    "--poll",
    type=click.FloatRange(min=0.01),
    default=0.2,
    show_default=True,
    help="Longest wait between checks for new lines (a file's changes wake it at once).",
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
    source: str,
    poll: float,
    timeout: float | None,
    idle_exit: float | None,
    flags: SessionFlags,
) -> None:
    """Follow a session file that is still being written, and narrate it as it grows.

    Works for monologue recordings and for JSONL formats whose plugin offers a line parser
    (Claude Code transcripts, stream-json). PATH may be - (standard input, as in
    `claude -p ... --output-format stream-json | monologue watch -`) or a FIFO. Stops at
    the session's completion, at the end of a stream, on Ctrl-C, or with --timeout /
    --idle-exit. A bad line is skipped with a warning; with --strict it is an error.
    """
    from ._watch import Watch

    with opened(source) as where:

        def run(view: View) -> ReplaySummary:
            return Watch(
                where.name,
                view,
                poll_s=poll,
                timeout_s=timeout,
                idle_exit_s=idle_exit,
                strict=flags.strict,
                spool=where.spool,
                on_wait=where.waiting,
            ).run()

        narrate(where, flags, run)


@click.command("log")
@click.argument("target", metavar="PATH|SESSION_ID")
@click.option("--json", "as_json", is_flag=True, help="The events as JSON lines.")
@click.option("--strict", is_flag=True, help="A bad line is an error, not skipped.")
def log_command(target: str, as_json: bool, strict: bool) -> None:
    """Print a recorded session: every event, narratives and suppressions with reasons (at
    the recorded time of what they are about), and the narration's requests, tokens and cost.

    SESSION_ID (or a unique prefix of it) is looked up in the record directory; - reads
    standard input. A bad line is skipped with a warning; with --strict it is an error.
    """
    from monologue.errors import MonologueError

    from ._log import print_log

    with opened(resolved(target)) as where:
        try:
            if where.spool is not None:
                where.spool.read_all(None, where.waiting)
            print_log(where.path, as_json=as_json, strict=strict, name=where.name)
        except MonologueError as exc:
            fail(str(exc))
