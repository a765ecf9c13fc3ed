"""``TaskHarness``: parse a tasks file, then code and review each task in dependency order.

The harness never speaks to the user: its progress is ``status`` events (visibility
``internal``) in its own session, which has no narrator. The agents' runs are narrated by the
pipeline, as the ``@monologue`` sessions of :meth:`Agent.run`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from monologue import Event, Session, session

from .agent import Agent, AgentMode
from .agents import CodingAgent, ParserAgent, ParserContext, ReviewAgent
from .checkpoint import Checkpoint, TaskState, default_checkpoint_path, tasks_digest
from .errors import MissingRecordingError, NotLoggedInError, TasksFileError
from .models import CodingResult, ParsedTasks, ReviewVerdict, RunUsage, Task
from .order import order_tasks
from .summary import HarnessSummary
from .tasks_md import parse_tasks

__all__ = ["HarnessSummary", "TaskHarness"]

R = TypeVar("R", bound=BaseModel)
Listener = Callable[[Event], None]


class TaskHarness:
    """One run over one tasks file. ``listener`` receives the harness's ``status`` events
    and every agent's ``narrative`` events as they happen."""

    def __init__(
        self,
        tasks_file: Path | str,
        *,
        mode: AgentMode | None = None,
        parse: Literal["agent", "offline"] = "agent",
        max_retries: int = 2,
        min_confidence: float = 0.5,
        continue_on_failure: bool = False,
        checkpoint: Path | str | None = None,
        resume: bool = False,
        agent_timeout_s: float | None = None,
        listener: Listener | None = None,
        **agent_settings: Any,
    ) -> None:
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {max_retries}")
        self.tasks_file = Path(tasks_file)
        self.parse_with = parse
        self.max_retries = max_retries
        self.min_confidence = min_confidence
        self.continue_on_failure = continue_on_failure
        self.mode = mode or AgentMode()
        self.checkpoint_path = (
            Path(checkpoint)
            if checkpoint
            else default_checkpoint_path(self.tasks_file, replay=self.mode.kind == "replay")
        )
        self.resume = resume
        self.agent_timeout_s = agent_timeout_s
        self.listener = listener
        settings = {
            "mode": self.mode,
            "on_narrative": listener,
            "on_session": self._session_started,
            **agent_settings,
        }
        self.parser: Agent[Any, ParsedTasks] = ParserAgent(**settings)
        self.coder: Agent[Any, CodingResult] = CodingAgent(**settings)
        self.reviewer: Agent[Any, ReviewVerdict] = ReviewAgent(**settings)
        self._usage = RunUsage()
        self._session: Session | None = None
        self._recordings: list[Path] = []
        """Where this run's sessions are recorded, if a recorder records them."""

    def _session_started(self, s: Session) -> None:
        from monologue.recording import recording_path

        self._recordings.append(recording_path(s.config, s.id))

    # -- progress -------------------------------------------------------------------------

    def _status(self, step: str, **data: Any) -> None:
        assert self._session is not None
        event = self._session.emit("status", {"step": step, **data}, visibility="internal")
        if self.listener is not None:
            self.listener(event)

    # -- the run --------------------------------------------------------------------------

    async def run(self) -> HarnessSummary:
        started = time.monotonic()
        try:
            text = self.tasks_file.read_text(encoding="utf-8")
        except OSError as exc:
            raise TasksFileError(
                f"cannot read tasks file {self.tasks_file}: {exc.strerror}"
            ) from None
        digest = tasks_digest(text)
        if self.resume:
            checkpoint = Checkpoint.load(self.checkpoint_path, self.tasks_file, digest)
        else:
            checkpoint = Checkpoint(tasks_file=str(self.tasks_file), tasks_digest=digest)
        self._recordings = []
        # A replay's own session is marked as one too (see Agent._narrated).
        source = self.mode.store or self.mode.file
        meta = {"replay_of": str(source)} if self.mode.kind == "replay" else {}
        try:
            async with session(
                "harness", task_id=self.tasks_file.name, narrator="none", meta=meta
            ) as s:
                self._session = s
                self._session_started(s)
                summary = await self._run(text, checkpoint, started)
        finally:
            self._session = None
        # Looked up once every session is closed: a recorder decides per session.
        summary.recordings = [str(p) for p in self._recordings if p.is_file()]
        return summary

    async def _run(self, text: str, checkpoint: Checkpoint, started: float) -> HarnessSummary:
        self._status("phase_started", phase="parse", parser=self.parse_with)
        parsed = await self._parse(text)
        self._status(
            "phase_finished",
            phase="parse",
            tasks=[{"id": t.id, "description": t.description} for t in parsed.tasks],
        )
        ordered = order_tasks(parsed.tasks)
        for cycle in ordered.cycles:
            self._status("dependency_cycle", tasks=cycle)
        for task in parsed.tasks:
            state = checkpoint.state(task.id)
            if task.status == "complete":
                state.status = "complete"
            elif task.id in ordered.blocked:
                state.status, state.reason = "blocked", ordered.blocked[task.id]
        self._status("phase_started", phase="tasks", order=ordered.order)
        stopped = False
        for task_id in ordered.order:
            task, state = parsed.task(task_id), checkpoint.state(task_id)
            if state.status in ("validated", "complete"):
                self._status("task_skipped", task_id=task_id, status=state.status)
                continue
            failed_deps = [
                d
                for d in task.dependencies
                if checkpoint.state(d).status not in ("validated", "complete")
            ]
            if stopped or failed_deps:
                state.status = "not_run" if stopped else "blocked"
                state.reason = (
                    "stopped after a failure"
                    if stopped
                    else (f"waits on unfinished task {', '.join(failed_deps)}")
                )
            else:
                done = [
                    parsed.task(t) for t, st in checkpoint.tasks.items() if st.status == "validated"
                ]
                await self._run_task(task, state, done)
                stopped = state.status == "failed" and not self.continue_on_failure
            checkpoint.save(self.checkpoint_path)
            self._status("task_finished", task_id=task_id, status=state.status, reason=state.reason)
        checkpoint.save(self.checkpoint_path)
        summary = HarnessSummary(
            tasks={t: checkpoint.state(t) for t in [*ordered.order, *ordered.blocked]},
            cycles=ordered.cycles,
            duration_s=time.monotonic() - started,
            usage=self._usage,
            stopped_early=stopped,
            checkpoint=str(self.checkpoint_path),
        )
        self._status("phase_finished", phase="tasks", counts=summary.counts())
        return summary

    async def _parse(self, text: str) -> ParsedTasks:
        if self.parse_with == "offline":
            return parse_tasks(text, source=self.tasks_file.name)
        context = ParserContext(tasks_markdown=text, source_path=self.tasks_file.name)
        return await self._call(self.parser, context)

    async def _run_task(self, task: Task, state: TaskState, done: list[Task]) -> None:
        shared: dict[str, Any] = {"task": task, "completed": done, "feedback": "", "attempt": 1}
        # A resumed task that failed before starts over; only validated work is kept.
        state.retries, state.reason = 0, None
        self._status("task_started", task_id=task.id, description=task.description)
        for attempt in range(1, self.max_retries + 2):
            shared["attempt"] = state.attempts = attempt
            try:
                shared["coding"] = await self._call(self.coder, self.coder.accept(shared))
                self._status("task_coded", task_id=task.id, attempt=attempt)
                verdict = await self._call(self.reviewer, self.reviewer.accept(shared))
            except (MissingRecordingError, NotLoggedInError):
                raise  # every other run would fail the same way: the run stops here
            except Exception as exc:  # an agent that fails fails its task, not the run
                state.status, state.reason = "failed", _describe(exc)
                return
            if verdict.approved:
                state.status, state.reason = "validated", None
                self._status("task_validated", task_id=task.id, attempts=attempt)
                return
            low = verdict.confidence is not None and verdict.confidence < self.min_confidence
            if low or attempt > self.max_retries:
                state.status = "failed"
                state.reason = (
                    f"rejected with low confidence ({verdict.confidence:.2f}): {verdict.feedback}"
                    if low
                    else f"rejected {attempt} times; last feedback: {verdict.feedback}"
                )
                return
            state.retries += 1
            shared["feedback"] = verdict.feedback
            self._status("task_rejected", task_id=task.id, attempt=attempt, retrying=True)

    async def _call(self, agent: Agent[Any, R], context: Any) -> R:
        try:
            done = await asyncio.wait_for(agent.complete(context), self.agent_timeout_s)
        except TimeoutError:
            raise TimeoutError(f"{agent.name} timed out after {self.agent_timeout_s}s") from None
        self._usage = self._usage + done.usage
        return done.result


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
