"""External CLI tools: every executable in ``tools_dir`` is a skill.

A tool describes itself when run as ``TOOL --describe`` (a :class:`ToolDescription` as JSON
on stdout; without one it is named after its file). Run for an action, it reads a
:class:`ToolInput` on stdin and prints a :class:`ToolOutput`; exit 0 means success, non-zero
failure, and the JSON is read for details either way. Descriptions are cached by file
identity (path, size, mtime), so listing skills does not start every tool every time.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from monologue import SkillResult

from .models import ToolDescription, ToolInput, ToolOutput
from .runner import Limits, ProcessOutcome, run_process, scrubbed_env

__all__ = ["ExternalTool", "discover_tools"]

log = logging.getLogger("monologue.skills.tools")

_DESCRIBE_TIMEOUT_S = 5.0
_BAD_BYTES = 80
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")

_cache: dict[tuple[str, int, int], ToolDescription] = {}
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class ExternalTool:
    """One executable in the tools folder, and how it described itself."""

    path: Path
    root: Path
    description: ToolDescription

    @property
    def name(self) -> str:
        return self.description.name

    def run(
        self,
        parameters: dict[str, Any],
        *,
        state: Any,
        action_id: str,
        session_id: str | None,
        limits: Limits,
        cancel: threading.Event | None = None,
    ) -> tuple[SkillResult, list[dict[str, Any]]]:
        """Run the tool for one action: its result, and the state changes it asks for."""
        refusal = _outside(self.path, self.root)
        if refusal:
            return SkillResult(ok=False, error=refusal), []
        if self.description.timeout is not None:
            limits = Limits(
                timeout=self.description.timeout,
                grace=limits.grace,
                stdout_cap=limits.stdout_cap,
                env_allow=limits.env_allow,
            )
        payload = ToolInput(
            actionId=action_id,
            skill=self.name,
            parameters=parameters,
            state=state,
            sessionId=session_id,
        )
        try:
            outcome = run_process(
                [str(self.path.resolve())],
                payload.model_dump_json().encode(),
                cwd=self.root,
                limits=limits,
                env=scrubbed_env(limits.env_allow),
                cancel=cancel,
            )
        except OSError as exc:
            return SkillResult(ok=False, error=f"tool {self.name!r} could not start: {exc}"), []
        return _result(self.name, outcome, limits)


def _result(name: str, outcome: ProcessOutcome, limits: Limits) -> tuple[SkillResult, list[Any]]:
    if outcome.stopped == "timeout":
        return SkillResult(
            ok=False, error=f"tool {name!r} timed out after {limits.timeout:g} s"
        ), []
    if outcome.stopped == "cancelled":
        return SkillResult(ok=False, error=f"tool {name!r} was cancelled"), []
    if outcome.stopped == "overflow":
        cap = limits.stdout_cap
        return SkillResult(
            ok=False, error=f"tool {name!r} printed more than {cap} bytes on stdout (the cap)"
        ), []
    try:
        output = ToolOutput.model_validate_json(outcome.stdout)
    except ValidationError as exc:
        return SkillResult(ok=False, error=_bad_output(name, outcome, exc)), []
    ok = output.success and outcome.returncode == 0
    error = "; ".join(output.errors) or None
    if not ok and error is None:
        error = f"tool {name!r} exited with status {outcome.returncode}" + _stderr_note(outcome)
    return SkillResult(ok=ok, output=output.output, error=error), output.stateChanges


def _bad_output(name: str, outcome: ProcessOutcome, exc: ValidationError) -> str:
    first = exc.errors()[0]
    if first["type"] in {"json_invalid", "json_type"}:
        bad = outcome.stdout[:_BAD_BYTES]
        shown = repr(bad) + ("..." if len(outcome.stdout) > _BAD_BYTES else "")
        return (
            f"tool {name!r} (exit status {outcome.returncode}) did not print JSON on stdout; "
            f"it begins {shown}" + _stderr_note(outcome)
        )
    where = ".".join(str(p) for p in first["loc"]) or "(top)"
    return f"tool {name!r} printed JSON that is not a tool result: {where}: {first['msg']}"


def _stderr_note(outcome: ProcessOutcome) -> str:
    tail = outcome.stderr.strip().splitlines()[-1:] if outcome.stderr.strip() else []
    return f" (stderr: {tail[0][:200]})" if tail else ""


def _outside(path: Path, root: Path) -> str | None:
    resolved = path.resolve()
    if not resolved.is_relative_to(root.resolve()):
        return f"{path} leads outside the tools folder {root} (to {resolved}); refused"
    return None


def _describe(path: Path, root: Path, limits: Limits) -> ToolDescription:
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None:
        return cached
    fallback = ToolDescription(name=_NAME_UNSAFE.sub("_", path.stem) or "tool")
    try:
        outcome = run_process(
            [str(path.resolve()), "--describe"],
            b"",
            cwd=root,
            limits=Limits(
                timeout=_DESCRIBE_TIMEOUT_S, grace=limits.grace, stdout_cap=limits.stdout_cap
            ),
            env=scrubbed_env(limits.env_allow),
        )
    except OSError as exc:
        log.warning("tool %s: cannot start it (%s); listed as %r", path, exc, fallback.name)
        description = fallback
    else:
        description = _read_description(path, outcome, fallback)
    with _cache_lock:
        _cache[key] = description
    return description


def _read_description(
    path: Path, outcome: ProcessOutcome, fallback: ToolDescription
) -> ToolDescription:
    if outcome.returncode != 0 or outcome.stopped is not None:
        log.warning(
            "tool %s: --describe failed (%s); listed as %r with no parameter schema",
            path,
            outcome.stopped or f"exit status {outcome.returncode}",
            fallback.name,
        )
        return fallback
    try:
        return ToolDescription.model_validate_json(outcome.stdout)
    except ValidationError as exc:
        log.warning("tool %s: --describe printed no valid description: %s", path, exc)
        return fallback


def discover_tools(root: Path, limits: Limits) -> list[ExternalTool]:
    """The runnable tools in ``root``; unusable files are skipped with a warning."""
    if not root.is_dir():
        return []
    found: list[ExternalTool] = []
    for path in sorted(root.iterdir()):
        if path.name.startswith(".") or path.name.endswith("~") or path.is_dir():
            continue
        refusal = _outside(path, root)
        if refusal:
            log.warning("skipping tool %s", refusal)
            continue
        if not path.is_file():
            log.warning("skipping tool %s: not a regular file", path)
            continue
        if not os.access(path, os.R_OK | os.X_OK):
            log.warning("skipping tool %s: not executable and readable (chmod +x it)", path)
            continue
        found.append(ExternalTool(path, root, _describe(path, root, limits)))
    return found
