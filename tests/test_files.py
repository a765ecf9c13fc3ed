"""``monologue.files``: a file replaced whole, or left as it was."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from monologue.files import is_leftover_temp, write_atomically


def test_text_and_bytes_replace_the_file_whole_with_mode_0600(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "state.json"
    write_atomically(path, "first ✓")
    write_atomically(path, b"second", durable=False)
    assert path.read_bytes() == b"second"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.json"]


def test_a_failed_write_leaves_the_old_content_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "state.json"
    write_atomically(path, "old")

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_leftover_temporaries_are_recognised_only_for_their_own_file(tmp_path: Path) -> None:
    path = tmp_path / "tasks.graph.json"
    ours = tmp_path / ".tasks.graph.json.x1y2z3.tmp"
    assert is_leftover_temp(ours, path)
    assert not is_leftover_temp(tmp_path / ".tasks.graph.json.bak", path)
    assert not is_leftover_temp(tmp_path / ".other.json.x1y2z3.tmp", path)
    assert not is_leftover_temp(tmp_path / "sub" / ours.name, path)
