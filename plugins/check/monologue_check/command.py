"""``monologue check``: audit recorded narratives against their recorded events."""

from __future__ import annotations

import json

import click

__all__ = ["check_command"]


@click.command("check")
@click.argument("targets", nargs=-1, required=True, metavar="RECORDING|SESSION_ID...")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array, one audit each.")
def check_command(targets: tuple[str, ...], as_json: bool) -> None:
    """Check every recorded narrative's claims against the events it covers.

    Quotes, subjects (paths, URLs), counts, outcomes ("passed", "done"), asks ("You asked
    me") and voice are each held against the recorded events. Each false narrative is
    printed with why and the events it covers, then totals per claim kind. Exits 1 when any
    narrative makes a false claim, 2 when a target cannot be read.
    """
    from monologue.errors import MonologueError
    from monologue.recording import find_recording

    from .audit import audit_path, findings_text

    audits = []
    for target in targets:
        try:
            path = find_recording(target)
        except MonologueError as exc:
            raise click.UsageError(str(exc)) from None
        if not path.is_file():
            raise click.UsageError(f"{target}: no such recording")
        try:
            audits.append(audit_path(path))
        except MonologueError as exc:
            raise click.ClickException(f"{target}: {exc}") from None
    if as_json:
        click.echo(json.dumps([a.model_dump(mode="json") for a in audits], indent=2))
    else:
        for audit in audits:
            for line in findings_text(audit):
                click.echo(line)
    if not all(audit.ok for audit in audits):
        raise SystemExit(1)
