"""Files replaced whole: a reader sees the old content or the new one, never half of either.

Plugins that keep state on disk (skills' state, the gate's summaries, the harness's agent
recordings, the runtime's task graph) write through :func:`write_atomically`, so the temporary
files' naming, their mode and the fsync order live in one place.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["fsync_folder", "is_leftover_temp", "make_private_folder", "write_atomically"]

_TEMP_SUFFIX = ".tmp"
PRIVATE_FOLDER_MODE = 0o700
"""Every folder monologue creates, parents included: what it holds is the user's alone."""


def _temp_prefix(path: Path) -> str:
    return f".{path.name}."


def write_atomically(path: Path, data: str | bytes, *, durable: bool = True) -> None:
    """Replace ``path`` whole with ``data`` (text is written as UTF-8).

    The data goes to a temporary file beside ``path``, created mode 0600, which is then
    renamed over it; missing folders are created, mode 0700. With ``durable`` the file and then its
    folder are fsynced, so the new content also survives a power loss. On any error the
    temporary file is removed and ``path`` is left as it was.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    make_private_folder(path.parent)
    fd, temp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=_TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    if durable:
        fsync_folder(path.parent)


def make_private_folder(folder: Path) -> None:
    """Create ``folder`` and every missing parent, each mode 0700 (``mkdir(parents=True)``
    would give the parents the umask's default, 0755, and only the last level 0700). Folders
    that exist keep their mode."""
    missing: list[Path] = []
    current = Path(folder)
    while not current.is_dir():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for level in reversed(missing):
        try:
            level.mkdir(mode=PRIVATE_FOLDER_MODE)
        except FileExistsError:
            if not level.is_dir():
                raise
            continue
        # mkdir's mode is masked by the umask; a umask of 0077 or less keeps 0700 anyway.
        os.chmod(level, PRIVATE_FOLDER_MODE)


def is_leftover_temp(candidate: Path, path: Path) -> bool:
    """Whether ``candidate`` is a temporary file :func:`write_atomically` made for ``path``
    (one a crash left behind, if no write is under way)."""
    name = candidate.name
    return (
        candidate.parent == path.parent
        and name.startswith(_temp_prefix(path))
        and name.endswith(_TEMP_SUFFIX)
    )


def fsync_folder(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable (POSIX; Windows cannot open a folder)."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
