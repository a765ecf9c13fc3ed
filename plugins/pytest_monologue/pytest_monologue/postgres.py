"""A throwaway PostgreSQL server for tests and benchmarks: ``initdb`` and ``pg_ctl`` from the
machine's binaries, in a temporary folder, listening on a Unix socket in that folder only.

PostgreSQL refuses to run as root, so when we are root (as in CI) the server runs as the
``postgres`` system user (created by Debian's ``postgresql`` package), through ``runuser``.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

__all__ = ["DEFAULT_BIN_DIR", "ThrowawayPostgres"]

DEFAULT_BIN_DIR = Path(os.environ.get("MONOLOGUE_PG_BIN", "/usr/lib/postgresql/15/bin"))
_USER = "monologue"
_PORT = 5432


class ThrowawayPostgres:
    """``with ThrowawayPostgres() as pg: pg.url`` -- a server that lives for the block.

    ``pg.url`` connects as a superuser with a password; :meth:`schema_url` gives a URL whose
    tables live in a fresh schema, so tests can share one server without seeing each
    other's graphs.
    """

    def __init__(self, bin_dir: Path = DEFAULT_BIN_DIR) -> None:
        self.bin_dir = bin_dir
        self.password = secrets.token_hex(8)
        self.folder: Path | None = None
        self.url = ""

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def available(self) -> bool:
        return (self.bin_dir / "initdb").is_file()

    def start(self) -> ThrowawayPostgres:
        if not self.available:
            raise RuntimeError(
                f"no PostgreSQL binaries in {self.bin_dir} (install Debian's postgresql "
                "package: scripts/system-packages does it), or set MONOLOGUE_PG_BIN"
            )
        self.folder = Path(tempfile.mkdtemp(prefix="monologue-pg-"))
        data = self.folder / "data"
        pwfile = self.folder / "pw"
        pwfile.write_text(self.password)
        if os.geteuid() == 0:
            try:
                account = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError(
                    "PostgreSQL refuses to run as root, and there is no 'postgres' user to run "
                    "it as (Debian's postgresql package creates one: scripts/system-packages)"
                ) from None
            for path in (self.folder, pwfile):
                os.chown(path, account.pw_uid, account.pw_gid)
        self._run(
            "initdb", "-D", str(data), "-U", _USER, f"--pwfile={pwfile}",
            "--auth=scram-sha-256", "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        pwfile.unlink()
        self._run("pg_ctl", *self._control_args(), "start")
        self.url = self._url("postgres")
        return self

    def restart(self, mode: str = "fast", *, down_for: float = 0.0) -> None:
        """``pg_ctl restart -m MODE``: every connection is cut (``fast``: their transactions
        rolled back; ``immediate``: as in a crash), and the server is back when this
        returns. With ``down_for``, the server stays stopped that many seconds between."""
        if not down_for:
            self._run("pg_ctl", *self._control_args(), "-m", mode, "restart")
            return
        self._run("pg_ctl", *self._control_args(), "-m", mode, "stop")
        time.sleep(down_for)
        self._run("pg_ctl", *self._control_args(), "start")

    def _control_args(self) -> tuple[str, ...]:
        assert self.folder is not None
        options = f"-c listen_addresses='' -k {self.folder} -p {_PORT} -c max_connections=200"
        data, log = self.folder / "data", self.folder / "log"
        return ("-D", str(data), "-l", str(log), "-o", options, "-w")

    __enter__ = start

    def stop(self) -> None:
        if self.folder is None:
            return
        if (self.folder / "data" / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None

    def schema_url(self, schema: str | None = None) -> str:
        """Create a schema (named ``schema``, else a new name) and return a URL using it."""
        import psycopg

        name = schema or f"g_{secrets.token_hex(6)}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{name}"')
        return f"{self.url}&options={quote(f'-csearch_path={name}')}"

    def url_with(self, *, password: str | None = None) -> str:
        """The server's URL, with another password (to see credentials refused)."""
        return self._url("postgres", password=password)

    def _url(self, database: str, password: str | None = None) -> str:
        assert self.folder is not None
        secret = quote(self.password if password is None else password)
        return (
            f"postgresql://{_USER}:{secret}@/{database}?host={quote(str(self.folder))}&port={_PORT}"
        )

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bin_dir / tool), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            log = self.folder / "log" if self.folder else None
            tail = log.read_text()[-2000:] if log and log.exists() else ""
            raise RuntimeError(
                f"{tool} failed ({done.returncode}): {done.stderr.strip()}\n{tail}".strip()
            )
