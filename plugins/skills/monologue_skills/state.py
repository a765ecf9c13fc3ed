"""The session's state: one JSON document, changed by JSON Patch change sets.

A change set applies all or nothing and is recorded with its provenance (skill, action id,
time); the newest ``state_history`` records are kept (default 200), and the file's
``compacted`` says how many older ones were dropped, which versions and which skills made
them. Secrets are redacted from a change set before it applies (:mod:`monologue.redact`, the
whole value at a secret-named path too), so neither the document nor its history holds one.
With a path, the document lives in a file that is replaced atomically (temporary file
in the same folder, fsync, rename, folder fsync), so a crash at any moment leaves the last
consistent version; :meth:`StateStore.locked` serializes whole plans across processes.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from monologue.files import write_atomically

from .errors import StateChangeError, StateFileError

__all__ = ["ChangeRecord", "Compaction", "SkillState", "StateStore"]


class ChangeRecord(BaseModel):
    """One applied change set and where it came from."""

    model_config = ConfigDict(extra="forbid")

    skill: str
    actionId: str
    at: str
    ops: list[dict[str, Any]]


class Compaction(BaseModel):
    """What the history no longer holds: change sets dropped to keep it bounded."""

    model_config = ConfigDict(extra="forbid")

    dropped: int
    """How many change records were dropped, in all."""
    versions: tuple[int, int]
    """The first and last state versions they made."""
    skills: dict[str, int]
    """How many of them each skill made."""


class _StateFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 0
    document: dict[str, Any] = Field(default_factory=dict)
    changes: list[ChangeRecord] = Field(default_factory=list)
    compacted: Compaction | None = None

    def compacted_to(self, keep: int) -> _StateFile:
        """This state with only the ``keep`` newest change records, the rest counted."""
        if len(self.changes) <= keep:
            return self
        dropped = self.changes[: len(self.changes) - keep]
        before = self.compacted
        skills = dict(before.skills) if before else {}
        for record in dropped:
            skills[record.skill] = skills.get(record.skill, 0) + 1
        # Record n of the history made version (version - len(changes) + 1 + n).
        first_kept = self.version - len(self.changes) + 1 + len(dropped)
        compaction = Compaction(
            dropped=(before.dropped if before else 0) + len(dropped),
            versions=(before.versions[0] if before else first_kept - len(dropped), first_kept - 1),
            skills=skills,
        )
        return self.model_copy(
            update={"changes": self.changes[len(dropped) :], "compacted": compaction}
        )


def _redacted(ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from monologue.redact import REDACTED, is_secret_key, redact

    clean: list[dict[str, Any]] = redact(ops)
    for op in clean:
        last = str(op.get("path", "")).rsplit("/", 1)[-1]
        if "value" in op and is_secret_key(last) and op["value"] not in (None, "", [], {}):
            op["value"] = REDACTED
    return clean


def _patch(ops: Any) -> Any:
    import jsonpatch

    if not isinstance(ops, list):
        raise StateChangeError(f"stateChanges must be a list of JSON Patch operations, got {ops!r}")
    try:
        return jsonpatch.JsonPatch(ops)
    except (jsonpatch.InvalidJsonPatch, TypeError) as exc:
        raise StateChangeError(f"stateChanges are not valid JSON Patch: {exc}") from None


class SkillState:
    """What a running skill sees: a private copy of the document, and its proposed changes.

    Skills read :attr:`document` and call :meth:`change` with JSON Patch operations; the plan
    runner applies them to the shared state only when the skill succeeds.
    """

    def __init__(
        self, document: dict[str, Any] | None = None, cancel: threading.Event | None = None
    ) -> None:
        self.document: dict[str, Any] = copy.deepcopy(document or {})
        self.cancel = cancel or threading.Event()
        """Set when the plan is cancelled; long-running skills should stop."""
        self._ops: list[dict[str, Any]] = []

    def change(self, ops: list[dict[str, Any]]) -> None:
        """Propose JSON Patch ``ops``; a malformed operation raises :class:`StateChangeError`."""
        _patch(ops)
        self._ops.extend(ops)

    @property
    def changes(self) -> list[dict[str, Any]]:
        return list(self._ops)


class StateStore:
    """The owner of one state document: in memory, or in the JSON file at ``path``."""

    def __init__(
        self, path: Path | None = None, *, lock_timeout: float = 60.0, history: int | None = None
    ) -> None:
        """``history``: change records kept (default: the ``state_history`` setting)."""
        from .settings import state_history

        self.path = Path(path) if path is not None else None
        self.history_limit = state_history() if history is None else history
        self._memory = _StateFile()
        self._mutex = threading.Lock()
        self._lock: Any = None
        if self.path is not None:
            from filelock import FileLock

            self._lock = FileLock(f"{self.path}.lock", timeout=lock_timeout)

    @contextmanager
    def locked(self) -> Iterator[StateStore]:
        """Hold the state for a whole plan: other plans on the same file wait."""
        if self._lock is None:
            yield self
            return
        from filelock import Timeout

        try:
            with self._lock:
                yield self
        except Timeout:
            raise StateFileError(f"{self.path}: locked by another plan for too long") from None

    def document(self) -> dict[str, Any]:
        """A copy of the current document."""
        return copy.deepcopy(self._load().document)

    def history(self) -> list[ChangeRecord]:
        return list(self._load().changes)

    def apply(self, ops: list[dict[str, Any]], *, skill: str, action_id: str) -> dict[str, Any]:
        """Apply ``ops`` all or nothing and record their provenance; the new document."""
        import jsonpatch

        ops = _redacted(ops)
        patch = _patch(ops)
        with self._mutex:
            current = self._load()
            try:
                document = patch.apply(current.document)
            except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
                raise StateChangeError(
                    f"stateChanges of {skill!r} (action {action_id!r}) do not apply: {exc}"
                ) from None
            if not isinstance(document, dict):
                raise StateChangeError(
                    f"stateChanges of {skill!r} (action {action_id!r}) replace the state "
                    "with something that is not a JSON object"
                )
            record = ChangeRecord(
                skill=skill, actionId=action_id, at=datetime.now(UTC).isoformat(), ops=ops
            )
            updated = _StateFile(
                version=current.version + 1,
                document=document,
                changes=[*current.changes, record],
                compacted=current.compacted,
            ).compacted_to(self.history_limit)
            self._store(updated)
        return copy.deepcopy(document)

    def _load(self) -> _StateFile:
        if self.path is None:
            return self._memory
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return _StateFile()
        except OSError as exc:
            raise StateFileError(f"{self.path}: cannot read the state: {exc}") from None
        try:
            return _StateFile.model_validate_json(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = "/".join(str(part) for part in first["loc"]) or "(top)"
            raise StateFileError(
                f"{self.path}: not a monologue state file: {where}: {first['msg']}"
            ) from None

    def _store(self, state: _StateFile) -> None:
        if self.path is None:
            self._memory = state
            return
        write_atomically(self.path, json.dumps(state.model_dump(mode="json"), indent=1))
