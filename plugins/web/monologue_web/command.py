"""``monologue serve``: bind the socket, print the address, run uvicorn.

Ctrl-C stops the server quietly with exit status 0: stopping is what a server is for.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

from .bind import BindRefused, PortTaken, bind_socket, check_bind, new_token

__all__ = ["serve_command"]


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535))
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a browser.")
@click.option(
    "--record-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="The recordings to show (default: the record_dir setting).",
)
@click.option("--token", help="Require this token (needed to bind beyond loopback).")
@click.option("--generate-token", is_flag=True, help="Require a new random token, printed once.")
def serve_command(
    *,
    host: str,
    port: int,
    open_browser: bool,
    record_dir: Path | None,
    token: str | None,
    generate_token: bool,
) -> None:
    """Serve a web page showing every recorded and live session, read-only.

    It listens on 127.0.0.1 unless --host says otherwise; any other address needs a token,
    and the page's address then carries it (?token=...).
    """
    import webbrowser

    import uvicorn

    from monologue.files import make_private_folder
    from monologue.settings import load_config

    from .app import WebSettings, create_app

    if generate_token:
        if token:
            raise click.UsageError("give either --token or --generate-token, not both")
        token = new_token()
    try:
        check_bind(host, token)
    except BindRefused as exc:
        raise click.UsageError(str(exc)) from None
    if record_dir is None:
        # The recorder has not run yet: make its folder (owner-only), and show it empty.
        folder = load_config().resolved_record_dir()
        try:
            make_private_folder(folder)
        except OSError as exc:
            raise click.ClickException(f"cannot create {folder}: {exc.strerror or exc}") from None
    elif not record_dir.is_dir():
        raise click.ClickException(f"--record-dir {record_dir}: no such folder")
    else:
        folder = record_dir
    try:
        sock = bind_socket(host, port)
    except PortTaken as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise click.ClickException(f"cannot listen on {host} port {port}: {reason}") from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{bound}/" + (f"?token={token}" if token else "")
    app = create_app(WebSettings(record_dir=folder, host=host, token=token))
    click.echo(f"monologue: serving the sessions in {folder} at {address}", err=True)
    click.echo("monologue: read-only; press Ctrl-C to stop", err=True)
    if open_browser:
        webbrowser.open(address)
    # Event streams never end by themselves: Ctrl-C cuts them after 2 s.
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    # uvicorn shuts down gracefully on Ctrl-C, then raises it again for its caller.
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])
