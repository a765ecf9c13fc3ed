"""Private files for the runtime: task inputs may hold secrets, so folders (parents
included) are 0700 and files 0600, whatever the umask; a folder someone else made wider
gets one warning."""

from __future__ import annotations

import logging
import os
import stat
from contextlib import suppress
from pathlib import Path

__all__ = ["FILE_MODE", "FOLDER_MODE", "open_private", "private_folder"]

FILE_MODE = 0o600
FOLDER_MODE = 0o700

log = logging.getLogger("monologue.runtime")
_warned: set[Path] = set()


def private_folder(folder: Path) -> None:
    """Create ``folder``, and every missing parent, 0700; warn once if it exists readable
    by others."""
    if not folder.is_dir():
        _make_private(folder)
        return
    mode = stat.S_IMODE(folder.stat().st_mode)
    if mode & 0o077 and folder not in _warned:
        _warned.add(folder)
        log.warning(
            "runtime data folder %s has mode %04o: other users may read task inputs in it; "
            "run `chmod 700 %s`",
            folder,
            mode,
            folder,
        )


def _make_private(folder: Path) -> None:
    # Level by level: mkdir(parents=True) would give the parents the umask's mode (0755).
    missing = []
    while not folder.is_dir():
        missing.append(folder)
        folder = folder.parent
    for level in reversed(missing):
        try:
            level.mkdir(mode=FOLDER_MODE)
        except FileExistsError:
            if not level.is_dir():
                raise
            continue  # another process made it meanwhile
        with suppress(OSError):
            os.chmod(level, FOLDER_MODE)  # mkdir's mode is masked by the umask


def open_private(path: Path, flags: int) -> int:
    """``os.open`` with mode 0600, also when the umask would have widened nothing less."""
    fd = os.open(path, flags, FILE_MODE)
    if flags & os.O_CREAT:
        os.fchmod(fd, FILE_MODE)
    return fd
