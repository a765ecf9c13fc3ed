"""The agent base: a name, a prompt template with its parameter model, a typed context, a
typed result and SDK options; one run is one ``claude_agent_sdk.query()``.

:meth:`Agent.run` is the SDK's message stream under ``@monologue(<agent name>)``: every
message is adapted (by monologue-claude) and narrated with no other code. Depending on the
:class:`AgentMode`, the messages come from the ``claude`` CLI, from the CLI while being
recorded, or from a recording; the SDK's ``query()`` runs in all three.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from monologue import Event, Session, current, monologue

from .errors import AgentOutputError, AgentRunError, NotLoggedInError
from .models import RunUsage
from .recording import AgentRecording, RecordingStore, recording_key
from .run_outcome import RunOutcome
from .templates import PromptParams, render

__all__ = ["REPLAY_STATE", "Agent", "AgentMode", "AgentOptions", "Completed"]

C = TypeVar("C", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)

REPLAY_STATE = "harness"
"""``session.state`` key of the recorded narratives the replay narrator plays back."""


class AgentOptions(BaseModel):
    """The SDK options that shape a run, and so are part of its recording key."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    system_prompt: str | None = None
    allowed_tools: list[str] = Field(default_factory=list)
    permission_mode: Literal["default", "acceptEdits", "plan", "bypassPermissions"] | None = None
    max_turns: int | None = None


class AgentMode(BaseModel):
    """Where an agent's messages come from: the CLI (``live``), the CLI while writing a
    recording (``record``), or a recording (``replay``; ``file`` replays one recording, a
    golden for instance, whatever the prompt)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["live", "record", "replay"] = "live"
    store: Path | None = None
    file: Path | None = None

    @model_validator(mode="after")
    def _has_its_source(self) -> AgentMode:
        if self.kind == "record" and self.store is None:
            raise ValueError("record mode needs store: the folder recordings are written to")
        if self.kind == "replay" and (self.store is None) == (self.file is None):
            raise ValueError("replay mode needs either store (a folder) or file (one recording)")
        return self

    @property
    def paced(self) -> bool:
        # Recorded and replayed runs wait for each narration turn, so both batch events
        # the same way and the recorded narratives line up with the replayed turns.
        return self.kind != "live"


@dataclass(frozen=True)
class Completed(Generic[R]):
    """One finished run: its typed result and what it cost."""

    result: R
    usage: RunUsage


@dataclass
class _Plan:
    prompt: str
    key: str
    options: dict[str, Any]
    transport: Any
    recording: AgentRecording | None
    source: Path | None = None
    """The recording file a replay plays."""
    task: str | None = None
    narratives: list[str] = field(default_factory=list)


class Agent(Generic[C, R]):
    """Base of the harness's agents. Subclasses set the class attributes and
    :meth:`prompt_params` / :meth:`build_result`."""

    name: ClassVar[str]
    template: ClassVar[str]
    params_model: ClassVar[type[PromptParams]]
    context_schema: ClassVar[type[BaseModel]]
    result_schema: ClassVar[type[BaseModel]]
    default_options: ClassVar[AgentOptions] = AgentOptions()

    def __init__(
        self,
        *,
        mode: AgentMode | None = None,
        options: AgentOptions | None = None,
        prompts_dir: Path | str | None = None,
        cli_path: Path | str | None = None,
        cwd: Path | str | None = None,
        sdk_hooks: dict[Any, list[Any]] | None = None,
        on_narrative: Callable[[Event], None] | None = None,
        on_session: Callable[[Session], None] | None = None,
    ) -> None:
        self.mode = mode or AgentMode()
        self.options = options or self.default_options
        if prompts_dir is None:
            from monologue import load_config

            prompts_dir = load_config().prompts_dir
        self.prompts_dir = prompts_dir
        self.cli_path = cli_path
        self.cwd = cwd
        self.sdk_hooks = sdk_hooks
        self.on_narrative = on_narrative
        self.on_session = on_session

    # -- what subclasses say -------------------------------------------------------------

    def prompt_params(self, context: C) -> PromptParams:
        raise NotImplementedError

    def build_result(self, output: Mapping[str, Any], outcome: RunOutcome) -> R:
        raise NotImplementedError

    def task_of(self, context: C) -> str | None:
        """What the run works on, as the session's ``task_id`` (a session list's title when
        the run has no prompt event): the task id, the tasks file..."""
        return None

    # -- context, prompt, key -------------------------------------------------------------

    def accept(self, state: Mapping[str, Any]) -> C:
        """This agent's context out of the harness's state (the fields it declares)."""
        try:
            return self.context_schema.model_validate(dict(state))  # type: ignore[return-value]
        except ValidationError as exc:
            first = exc.errors()[0]
            raise AgentOutputError(
                f"{self.name}: context {'.'.join(map(str, first['loc']))}: {first['msg']}"
            ) from None

    def prompt(self, context: C) -> str:
        return render(
            self.template, self.params_model, self.prompt_params(context), self.prompts_dir
        )

    def _hashed_options(self) -> dict[str, Any]:
        return {
            **self.options.model_dump(mode="json"),
            "output_schema": self.result_schema.model_json_schema(by_alias=True),
        }

    def sdk_options(self) -> Any:
        from claude_agent_sdk import ClaudeAgentOptions

        opts = self.options
        return ClaudeAgentOptions(
            model=opts.model,
            system_prompt=opts.system_prompt,
            allowed_tools=list(opts.allowed_tools),
            permission_mode=opts.permission_mode,
            max_turns=opts.max_turns,
            cli_path=self.cli_path,
            cwd=self.cwd,
            hooks=self.sdk_hooks,
            output_format={
                "type": "json_schema",
                "schema": self.result_schema.model_json_schema(by_alias=True),
            },
        )

    # -- running -------------------------------------------------------------------------

    def _plan(self, context: C) -> _Plan:
        from .transport import RecordingTransport, ReplayTransport, cli_transport

        prompt = self.prompt(context)
        options = self._hashed_options()
        key = recording_key(prompt, options)
        mode = self.mode
        recording: AgentRecording | None = None
        source: Path | None = None
        transport: Any = None
        if mode.kind == "replay":
            if mode.file is not None:
                source, recording = mode.file, AgentRecording.load(mode.file)
            else:
                assert mode.store is not None  # checked by AgentMode
                store = RecordingStore(mode.store)
                recording = store.find(self.name, key, prompt)
                source = store.path(self.name, key)
            transport = ReplayTransport(recording.messages)
        elif mode.kind == "record":
            transport = RecordingTransport(cli_transport(prompt, self.sdk_options()))
        return _Plan(prompt, key, options, transport, recording, source, self.task_of(context))

    def run(self, context: C) -> AsyncIterator[Any]:
        """The SDK messages of one run of this agent, narrated as agent :attr:`name` (and
        recorded once the run is over, in ``record`` mode)."""
        return self._stream(self._plan(context))

    async def _stream(self, plan: _Plan) -> AsyncIterator[Any]:
        from claude_agent_sdk import ClaudeSDKError

        from .transport import RecordingTransport

        refused: str | None = None
        try:
            async for message in self._narrated(plan):
                refused = refused or _login_refusal(message)
                yield message
        except ClaudeSDKError as exc:
            if refused is not None:
                raise NotLoggedInError(self.name, refused) from exc
            # The SDK's messages go on for lines (install hints, the CLI's stderr).
            raise AgentRunError(f"{self.name}: {str(exc).splitlines()[0]}") from exc
        if refused is not None:  # a CLI that reported it but exited 0
            raise NotLoggedInError(self.name, refused)
        # Saved after the session closed, so the final narrative is in the recording.
        if isinstance(plan.transport, RecordingTransport):
            assert self.mode.store is not None  # checked by AgentMode
            RecordingStore(self.mode.store).save(
                self.name,
                plan.key,
                prompt=plan.prompt,
                options=plan.options,
                messages=plan.transport.messages,
                narratives=plan.narratives,
            )

    def _narrated(self, plan: _Plan) -> AsyncIterator[Any]:
        recorded = plan.recording.metadata.narratives if plan.recording else None
        # A replay with recorded narratives narrates through the harness plugin's
        # narrator, which plays them back; anything else uses the configured narrator.
        config: dict[str, Any] = {"narrator": "harness"} if recorded is not None else {}
        if plan.task is not None:
            config["task_id"] = plan.task
        if plan.source is not None:
            # A replay, as `monologue replay` marks one: a recorder records it only when
            # `record = true`, and the session list shows it as a replay.
            config["meta"] = {"replay_of": str(plan.source)}
        if self.on_narrative is not None:
            config["on_narrative"] = self.on_narrative
        return monologue(self.name, **config)(self._messages)(plan)

    async def _messages(self, plan: _Plan) -> AsyncIterator[Any]:
        from claude_agent_sdk import query

        s = current()
        assert s is not None  # @monologue made this run's session current
        if self.on_session is not None:
            self.on_session(s)
        s.subscribe(lambda event: plan.narratives.append(str(event.data["text"])))
        if plan.recording is not None and plan.recording.metadata.narratives is not None:
            s.state[REPLAY_STATE] = deque(plan.recording.metadata.narratives)
        stream = query(prompt=plan.prompt, options=self.sdk_options(), transport=plan.transport)
        async for message in stream:
            yield message
            if self.mode.paced:
                await asyncio.to_thread(s.wait_idle)

    async def execute(self, context: C) -> R:
        """Run once and return the typed result (recording the run in ``record`` mode)."""
        return (await self.complete(context)).result

    async def complete(self, context: C) -> Completed[R]:
        """Run once: the typed result, and the run's tokens and cost."""
        messages = [message async for message in self.run(context)]
        outcome = RunOutcome.of(self.name, messages)
        try:
            return Completed(self.build_result(outcome.structured_output(), outcome), outcome.usage)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise AgentOutputError(
                f"{self.name}: structured output {'.'.join(map(str, first['loc']))}: {first['msg']}"
            ) from None


def _login_refusal(message: Any) -> str | None:
    """What the CLI said when it refused to run for want of a login or a valid API key (an
    assistant message flagged ``authentication_failed``, its text "Not logged in · Please
    run /login"), else ``None``."""
    if getattr(message, "error", None) != "authentication_failed":
        return None
    said = " ".join(getattr(block, "text", "") for block in message.content).strip()
    return said or "authentication failed"
