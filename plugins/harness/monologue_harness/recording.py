"""Agent-level recordings: every raw SDK message of one agent run, and its narratives.

A recording is one JSON file in the golden format of Open Harness (``{scenarioId, category,
timestamp, messages[], metadata}``, ``messages`` being the raw stream-json dicts the
``claude`` CLI wrote), so the Open Harness goldens replay as they are. monologue's own
recordings live at ``DIR/<agent>/<key>.json``, where the key hashes the prompt and options;
their metadata keeps the prompt (to point at the nearest recording when a key is missing)
and the narratives delivered during the run (so a replay narrates byte for byte the same).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from monologue.files import write_atomically

from .errors import HarnessError, MissingRecordingError

__all__ = ["AgentRecording", "RecordingStore", "recording_key"]


class RecordingMeta(BaseModel):
    model_config = ConfigDict(extra="allow")

    agent: str | None = None
    key: str | None = None
    prompt: str | None = None
    options: dict[str, Any] | None = None
    narratives: list[str] | None = None
    """``None`` for recordings without narration (the goldens): replay narrates them live."""


class AgentRecording(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="allow")

    scenario_id: str = Field(alias="scenarioId")
    category: str = ""
    timestamp: int = 0
    messages: list[dict[str, Any]]
    metadata: RecordingMeta = Field(default_factory=RecordingMeta)

    @classmethod
    def load(cls, path: Path | str) -> AgentRecording:
        """Read a recording (monologue's or a golden); errors name the file."""
        path = Path(path)
        try:
            return cls.model_validate_json(path.read_bytes())
        except OSError as exc:
            raise HarnessError(f"cannot read recording {path}: {exc.strerror}") from None
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(map(str, first["loc"])) or "(document)"
            raise HarnessError(f"recording {path}: {where}: {first['msg']}") from None


def recording_key(prompt: str, options: dict[str, Any]) -> str:
    """The hash of what decides an agent run's messages: its prompt and its options."""
    canonical = json.dumps({"prompt": prompt, "options": options}, sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


class RecordingStore:
    """A folder of agent recordings, ``<agent>/<key>.json``."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def path(self, agent: str, key: str) -> Path:
        return self.root / agent / f"{key}.json"

    def find(self, agent: str, key: str, prompt: str) -> AgentRecording:
        """The recording of this run; :class:`MissingRecordingError` when there is none."""
        path = self.path(agent, key)
        if not path.is_file():
            raise MissingRecordingError(agent, key, self._nearest(agent, prompt), str(self.root))
        return AgentRecording.load(path)

    def save(
        self,
        agent: str,
        key: str,
        *,
        prompt: str,
        options: dict[str, Any],
        messages: list[dict[str, Any]],
        narratives: list[str],
    ) -> Path:
        """Write a recording atomically (a reader never sees half a file)."""
        recording = AgentRecording(
            scenario_id=f"{agent}-{key}",
            category=f"monologue/{agent}",
            timestamp=int(time.time() * 1000),
            messages=messages,
            metadata=RecordingMeta(
                agent=agent, key=key, prompt=prompt, options=options, narratives=narratives
            ),
        )
        path = self.path(agent, key)
        write_atomically(path, recording.model_dump_json(by_alias=True, indent=1))
        return path

    def _nearest(self, agent: str, prompt: str) -> str | None:
        folder = self.root / agent
        best: tuple[float, str] | None = None
        for candidate in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            try:
                recorded = AgentRecording.load(candidate).metadata.prompt or ""
            except HarnessError:
                continue
            ratio = difflib.SequenceMatcher(None, recorded, prompt, autojunk=False).ratio()
            if best is None or ratio > best[0]:
                best = (ratio, str(candidate))
        return f"{best[1]} ({best[0]:.0%} similar prompt)" if best else None
