"""``monologue hook``: install, uninstall, status, run, tail."""

from __future__ import annotations

import time
from pathlib import Path

import click

__all__ = ["hook"]


def _target(project: Path | None, user: bool) -> Path:
    from .install import settings_path

    if project is not None and user:
        raise click.UsageError("give either --project or --user, not both")
    return settings_path(project, user=user)


_project = click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    help="The project whose .claude/settings.json to change (default: this folder).",
)
_user = click.option("--user", is_flag=True, help="Change ~/.claude/settings.json instead.")


@click.group()
def hook() -> None:
    """Narrate Claude Code sessions live through their hooks."""


@hook.command()
@_project
@_user
@click.option("--speak", is_flag=True, help="Also speak chapter titles and narratives aloud.")
@click.option("--serve", is_flag=True, help="Also run the web viewer (monologue serve).")
def install(project: Path | None, user: bool, speak: bool, serve: bool) -> None:
    """Add monologue's hooks to Claude Code's settings (idempotent, backup first)."""
    from .install import SettingsError
    from .install import install as do_install

    path = _target(project, user)
    try:
        change = do_install(path, speak=speak, serve=serve)
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None
    if not change.events:
        click.echo(f"monologue: the hooks are already installed in {path}")
        return
    click.echo(f"monologue: hooks installed in {path} ({', '.join(change.events)})")
    click.echo(f"monologue: backup of the previous file: {change.backup}")
    click.echo("monologue: watch a session narrate itself with `monologue hook tail`")


@hook.command()
@_project
@_user
def uninstall(project: Path | None, user: bool) -> None:
    """Remove exactly monologue's hooks from Claude Code's settings."""
    from .install import SettingsError
    from .install import uninstall as do_uninstall

    path = _target(project, user)
    try:
        change = do_uninstall(path)
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None
    if change.events:
        click.echo(f"monologue: hooks removed from {path} ({', '.join(change.events)})")
    else:
        click.echo(f"monologue: no monologue hooks in {path}")


@hook.command()
@_project
@_user
def status(project: Path | None, user: bool) -> None:
    """What is installed, and whether the collector runs."""
    from .folder import Folder
    from .install import SettingsError, installed_events

    path = _target(project, user)
    try:
        events = installed_events(path)
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None
    shown = ", ".join(events) if events else "none"
    click.echo(f"settings:  {path}")
    click.echo(f"hooks:     {shown}")
    folder = Folder.default()
    pid = folder.running_pid()
    click.echo(f"collector: {f'running (pid {pid})' if pid else 'not running'} in {folder.path}")
    if pid and folder.serve_log.exists():
        serving = [
            line
            for line in folder.serve_log.read_text(errors="replace").splitlines()
            if "serving" in line
        ]
        if serving:
            click.echo(f"viewer:    {serving[-1].split(' at ')[-1]}")
    spool = folder.spool
    if spool.exists():
        click.echo(f"spool:     {spool.stat().st_size} bytes waiting in {spool}")


@hook.command(context_settings={"ignore_unknown_options": True})
@click.argument("flags", nargs=-1)
def run(flags: tuple[str, ...]) -> None:
    """Hand one hook payload (stdin) to the collector; always exits 0, prints nothing.

    Hooks are installed with the faster `monologue-hook run`, which this is the same as.
    """
    from monologue_hook import main

    main(["run", *flags])


@hook.command()
@click.option("--lines", "-n", default=10, show_default=True, help="Earlier lines to show.")
@click.option("--follow/--no-follow", default=True, help="Keep printing new lines.")
def tail(lines: int, follow: bool) -> None:
    """Print the narratives and chapters of the live sessions as they come."""
    from .folder import Folder

    path = Folder.default().tail
    if not path.exists() and not follow:
        return
    while not path.exists():
        time.sleep(0.2)
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle.readlines()[-lines:] if lines > 0 else []:
            click.echo(line, nl=False)
        offset = handle.tell()
    while follow:
        offset = _follow(path, offset)


def _follow(path: Path, offset: int) -> int:
    """Print what ``path`` gained past ``offset`` until it is rotated; the new offset."""
    inode = path.stat().st_ino
    with open(path, encoding="utf-8", errors="replace") as handle:
        handle.seek(offset)
        while True:
            line = handle.readline()
            if line:
                click.echo(line, nl=False)
                continue
            time.sleep(0.2)
            try:
                if path.stat().st_ino != inode:
                    return 0  # rotated: read the new file from its start
            except FileNotFoundError:
                continue
