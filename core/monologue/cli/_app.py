"""The ``monologue`` click group and its built-in commands, which :func:`monologue.cli.main`
runs when no cached text answers (``_replies.py``).

Plugins add their commands through ``register_commands(cli)``; they are listed from the
plugin index, and the plugins are loaded only when one of their commands runs (or a name
is unknown). What ``--help`` and ``plugins`` print from the index is remembered for the
next run.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click

from monologue import __version__

from ._output import print_json

if TYPE_CHECKING:
    from monologue.plugins._index import PluginIndex
    from monologue.plugins._manager import MonologuePluginManager

__all__ = [
    "MonologueGroup",
    "cli",
    "load_plugins",
    "run",
]


def load_plugins() -> MonologuePluginManager:
    """The loaded plugin manager; a fatal load (strict mode) becomes a clean CLI error."""
    from monologue.errors import PluginLoadError
    from monologue.plugins._manager import get_plugin_manager

    try:
        return get_plugin_manager()
    except PluginLoadError as exc:
        raise click.ClickException(str(exc)) from None


@functools.cache
def _plugin_index() -> PluginIndex | None:
    """The cached description of the installed plugins, when it may stand for loading them:
    not once a plugin manager is in use (a test's, say), nor in strict mode (a failing plugin
    must then be an error). A plugin that failed to load is reported as a load would."""
    from monologue.plugins._env import Active, is_strict

    if Active.manager is not None or is_strict():
        return None
    from monologue.plugins._index import plugin_index

    index = plugin_index()
    failed, raised = _index_problems(index)
    if failed or raised:
        from ._logging import log  # only then: --help has nothing to log

        for message in failed:
            log.warning(message)
        for message in raised:
            log.error(message)
    return index


def _index_problems(index: PluginIndex) -> tuple[list[str], list[str]]:
    """What a load would log about the allowed plugins: the plugins that failed to load (its
    warnings) and those whose ``register_commands`` raised (its errors)."""
    from monologue.plugins._env import allowed_by, failure_message

    allowed = allowed_by()
    dists = {row["name"]: row["distribution"] for row in index["rows"]}
    failed = [
        failure_message(row["name"], row["distribution"], row["error"])
        for row in index["rows"]
        if row["status"] == "failed" and allowed(row["name"], row["distribution"])
    ]
    raised = [
        f"plugin {plugin!r} raised in register_commands: {error}"
        for plugin, error in index["command_errors"].items()
        if allowed(plugin, dists.get(plugin))
    ]
    return failed, raised


def _remember(reply: str, text: str) -> None:
    """Cache what ``reply`` printed (``_replies.py``), when it was made from the plugin index
    with nothing to warn about."""
    index = _plugin_index()
    if index is None or any(_index_problems(index)):
        return
    from ._replies import remember_reply

    remember_reply(reply, text, index)


class MonologueGroup(click.Group):
    """A click group whose plugin commands are listed from the plugin index, and loaded (by
    asking plugins through ``register_commands``) only when one of them runs.

    Its own commands may be ``lazy_commands`` too, named by ``"module:attribute"`` and
    imported when they run or when the help lists them (click's lazy group), so that
    ``monologue plugins`` does not import the modules of ``replay``, ``watch`` and ``log``.
    """

    _plugins_loaded = False

    def __init__(
        self, *args: Any, lazy_commands: Mapping[str, str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._lazy_commands = dict(lazy_commands or {})

    def _import_command(self, name: str) -> click.Command | None:
        target = self._lazy_commands.pop(name, None)
        if target is None:
            return None
        module, _, attribute = target.partition(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        self.add_command(command, name)
        return command

    def _import_commands(self) -> None:
        for name in list(self._lazy_commands):
            self._import_command(name)

    def _load_plugin_commands(self) -> None:
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        load_plugins().hooks.register_commands(self)

    def _indexed(self) -> dict[str, str] | None:
        """Plugin commands not loaded yet, with their one-line help, from the index."""
        if self._plugins_loaded:
            return None
        index = _plugin_index()
        if index is None:
            return None
        from monologue.plugins._env import allowed_by

        allowed = allowed_by()
        dists = {row["name"]: row["distribution"] for row in index["rows"]}
        return {
            name: command["help"]
            for name, command in index["commands"].items()
            if allowed(command["plugin"], dists.get(command["plugin"]))
        }

    def list_commands(self, ctx: click.Context) -> list[str]:
        indexed = self._indexed()
        if indexed is None:
            self._load_plugin_commands()
            indexed = {}
        return sorted({*self.commands, *self._lazy_commands, *indexed})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name) or self._import_command(cmd_name)
        if found is not None:
            return found
        # A plugin's, or none: then click suggests a name among all of them.
        self._load_plugin_commands()
        self._import_commands()
        return super().get_command(ctx, cmd_name)

    def get_help(self, ctx: click.Context) -> str:
        text = super().get_help(ctx)
        if ctx.parent is None and ctx.info_name == "monologue":
            self._remember_help(ctx, text)
        return text

    def _remember_help(self, ctx: click.Context, text: str) -> None:
        """Cache the top-level help when it was rendered from the plugin index, at the width
        click sizes it by on its own."""
        if ctx.terminal_width is not None or ctx.max_content_width is not None:
            return
        if click.formatting.FORCED_WIDTH is None and self._indexed() is not None:
            _remember("help", text)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._import_commands()  # each one's help is listed
        indexed = self._indexed()
        if indexed is None:
            super().format_commands(ctx, formatter)
            return
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            # A plugin's command stands in as one with its indexed help, shortened alike.
            command = self.commands.get(name) or click.Command(name, help=indexed[name])
            if not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(
    cls=MonologueGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    # Their module imports only click; what they run (rich, pydantic, the pipeline) is
    # imported when they run.
    lazy_commands={
        name: f"monologue.replay._viewing:{name}_command" for name in ("replay", "watch", "log")
    },
)
@click.version_option(__version__, "-V", "--version", prog_name="monologue")
@click.option("-v", "--verbose", is_flag=True, help="Log debug details and full tracebacks.")
def cli(verbose: bool) -> None:
    """Narrate what AI agents do, in a few first-person sentences.

    monologue buffers an agent's events (tool calls, results, text), decides when to speak,
    and asks a narrator (the offline template narrator by default, or Claude Haiku when
    monologue-anthropic is installed and ANTHROPIC_API_KEY is set) for the sentence.

    \b
    Start with:
      monologue replay SESSION.jsonl     narrate a recorded or Claude Code session
      monologue sessions                 what was recorded, the most recent first
      monologue plugins                  what is installed and loaded

    Configuration comes from [tool.monologue] in pyproject.toml or monologue.toml,
    MONOLOGUE_* environment variables, and flags; `monologue config` shows the result.
    """
    from ._logging import configure_logging

    configure_logging(verbose)


def _plugin_rows() -> tuple[list[dict[str, Any]], list[str]]:
    """Every plugin as ``plugins --json`` shows it, and the names of the known hooks."""
    index = _plugin_index()
    if index is None:
        manager = load_plugins()
        rows = [row.model_dump(mode="json") for row in manager.plugin_infos()]
        return rows, manager.spec_names()
    from monologue.plugins._env import allowed_by

    allowed = allowed_by()
    return [row for row in index["rows"] if allowed(row["name"], row["distribution"])], index[
        "hooks"
    ]


@cli.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array of plugins.")
@click.option("--nl", "as_lines", is_flag=True, help="Print one JSON object per line.")
@click.option("--hook", "hook", metavar="NAME", help="Only plugins implementing this hook.")
def plugins_command(as_json: bool, as_lines: bool, hook: str | None) -> None:
    """List plugins: name, distribution, version, hooks and status.

    A plugin that failed to load is listed with its error; set MONOLOGUE_STRICT_PLUGINS=1 to
    make such a failure fatal.
    """
    every, hooks = _plugin_rows()
    if hook is not None and hook not in hooks:
        raise click.BadParameter(f"no hook named {hook!r}", param_hint="--hook")
    rows = [row for row in every if hook is None or hook in row["hooks"]]
    if as_json or as_lines:
        print_json(rows, as_lines)
        return
    lines = [] if rows else ["no plugins" + (f" implement {hook}" if hook else " are installed")]
    for row in rows:
        dist = f"{row['distribution'] or '-'} {row['version'] or ''}".strip()
        if row["status"] == "loaded":
            lines.append(f"{row['name']:<12} {dist:<28} loaded   {', '.join(row['hooks'])}")
        else:
            lines.append(f"{row['name']:<12} {dist:<28} FAILED   {row['error']}")
    text = "\n".join(lines)
    click.echo(text)
    if hook is None:
        _remember("plugins", text)  # `monologue plugins` prints it from then on


@cli.command("config")
@click.option(
    "-c", "settings", metavar="KEY=VALUE", multiple=True, help="Set a value, as a flag would."
)
@click.option("--json", "as_json", is_flag=True, help="Print the settings as one JSON object.")
@click.option("--nl", "as_lines", is_flag=True, help="Print one JSON object per setting.")
def config_command(settings: tuple[str, ...], as_json: bool, as_lines: bool) -> None:
    """Show every setting of the core and of each installed plugin: its value, where the value
    comes from (default, a file, MONOLOGUE_<KEY>, flags) and the plugin that declares it.

    An unknown key (with a "did you mean") or a bad value is one line, exit 2.
    """
    from monologue.errors import ConfigError
    from monologue.replay._viewing import parse_settings, settings_failure
    from monologue.settings import cli_overrides, describe_settings

    try:
        with cli_overrides(parse_settings(settings)):
            rows = describe_settings(load_plugins().hooks.settings_models())
    except ConfigError as exc:
        raise settings_failure(exc) from None
    if as_json or as_lines:
        shown = {
            row.key: {
                "value": row.value,
                "source": row.source,
                "plugin": row.plugin,
                "description": row.description,
            }
            for row in rows
        }
        print_json(shown, as_lines)
        return
    width = max(len(row.key) for row in rows)
    for row in rows:
        click.echo(f"{row.key:<{width}}  {row.value!s:<24} {row.plugin:<12} {row.source}")


SESSIONS_SHOWN = 20
"""How many sessions ``monologue sessions`` lists unless ``-n`` says otherwise."""


@cli.command("sessions")
@click.option(
    "-n",
    "--count",
    type=click.IntRange(min=0),
    default=SESSIONS_SHOWN,
    show_default=True,
    help="Show at most this many; 0 shows every one.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array of sessions.")
@click.option("--nl", "as_lines", is_flag=True, help="Print one JSON object per session.")
def sessions_command(count: int | None, as_json: bool, as_lines: bool) -> None:
    """List the recorded sessions, the most recent first: id, title (the first prompt or
    task), source format, events, narratives, duration and how each ended.

    `monologue log ID` and `monologue replay ID` take an id from this list (or a unique
    prefix of it). The sessions are those in the record directory (`monologue config`
    shows it; -c record_dir=... or MONOLOGUE_RECORD_DIR changes it).
    """
    from monologue.errors import ConfigError
    from monologue.replay._viewing import settings_failure
    from monologue.settings import load_config

    from ._catalog import list_sessions

    try:
        folder = load_config().resolved_record_dir()
    except ConfigError as exc:
        raise settings_failure(exc) from None
    rows = list_sessions(folder, count or None)
    if as_json or as_lines:
        print_json([row.model_dump(mode="json") for row in rows], as_lines)
        return
    if not rows:
        click.echo(f"no recorded sessions in {folder}", err=True)
        return
    for row in rows:
        started = row.started_at.astimezone().strftime("%Y-%m-%d %H:%M") if row.started_at else "-"
        click.echo(
            f"{row.id}  {started:<16}  {row.source:<9} {row.events:>6} events "
            f"{row.narratives:>5} narratives  {duration(row.duration_s):>7}  "
            f"{row.status:<11} {row.title}"
        )


def duration(seconds: float | None) -> str:
    """``4m12s``, ``1h03m``, ``0.4s``; ``-`` when unknown."""
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


_NO_ARGUMENTS: type[click.UsageError] | tuple[()] = getattr(
    click.exceptions, "NoArgsIsHelpError", ()
)
"""What click 8.2 and later raise for a group run without arguments (8.1 prints the help)."""


def run(argv: list[str] | None = None) -> None:
    """:func:`monologue.cli.main` when the cached help does not answer: the command line
    through click, each failure reported as ``main`` says."""
    try:
        code = cli.main(args=argv, prog_name="monologue", standalone_mode=False)
    except _NO_ARGUMENTS as exc:  # `monologue` alone: its help, where click shows it
        click.echo(exc.format_message(), err=True)
        raise SystemExit(exc.exit_code) from None
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else "monologue"
        click.echo(f"{where}: {exc.format_message()} (see {where} --help)", err=True)
        raise SystemExit(exc.exit_code) from None
    except click.ClickException as exc:
        click.echo(f"monologue: {exc.format_message()}", err=True)
        raise SystemExit(exc.exit_code) from None
    except click.Abort:
        raise SystemExit(130) from None
    except Exception as exc:
        from monologue.errors import ConfigError  # not imported before: it imports pathlib

        if isinstance(exc, ConfigError):  # a bad setting a command did not report itself
            words = [arg for arg in (sys.argv[1:] if argv is None else argv) if arg[:1] != "-"]
            click.echo(" ".join(["monologue", *words[:1]]) + f": {exc}", err=True)
            raise SystemExit(2) from None
        import logging

        from ._logging import log

        if log.isEnabledFor(logging.DEBUG):  # -v
            raise
        click.echo(
            f"monologue: unexpected error: {type(exc).__name__}: {exc} "
            "(run with -v for the traceback)",
            err=True,
        )
        raise SystemExit(1) from None
    raise SystemExit(code if isinstance(code, int) else 0)
