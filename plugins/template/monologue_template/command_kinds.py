"""Shell commands: one-off, in the background, test runs, and background job control."""

from __future__ import annotations

from .actions import Action
from .kind import Kind, Phrase
from .outcomes import SuiteResult, suite_result
from .tools import command_text
from .wording import clip, join_list

__all__ = ["Background", "Bash", "Tests"]


class Bash(Kind):
    verbs = ("run", "ran", "running")
    nouns = ("command", "commands")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        command = action.input.get("command", action.input.get("cmd", ""))
        return f"`{command_text(command, 32 if short else 60)}`" if command else "a command"

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        if len(actions) == 1 or short:
            return super().many(actions, cwd, short)
        names = [self.one_short(action) for action in actions]
        return f"{len(actions)} commands: {join_list(names)}"

    def one_short(self, action: Action) -> str:
        command = action.input.get("command", action.input.get("cmd", ""))
        return f"`{command_text(command, 30)}`"

    def details(self, actions: list[Action], cwd: str | None) -> list[str]:
        description = actions[0].input.get("description")
        if len(actions) != 1 or not isinstance(description, str) or not description.strip():
            return []
        return [f"That was to {clip(description[:1].lower() + description[1:], 80)}."]


class Background(Bash):
    """A command sent to the background: it has started, and nothing more is known yet."""

    verbs = ("start", "started", "starting")

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        return super().many(actions, cwd, short) + " in the background"


class Tests(Bash):
    """A test run (pytest, jest, go test...): its outcome is the news."""

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        return "the tests" if short else "the test suite"

    def _summary(self, actions: list[Action]) -> SuiteResult | None:
        done = [action for action in actions if action.output is not None]
        return suite_result(done[-1].output or "") if done else None

    def all_failed(self, actions: list[Action]) -> bool:
        return super().all_failed(actions) and self._summary(actions) is None

    def phrase(self, actions: list[Action], cwd: str | None) -> Phrase:
        phrase = super().phrase(actions, cwd)
        if self._summary(actions) is not None:
            phrase.failure = None  # the summary says what failed
        return phrase

    def outcome(self, actions: list[Action], short: bool) -> str:
        summary = self._summary(actions)
        if summary is not None:
            text = summary.phrase()
            return "; " + (text.replace(" tests ", " ") if short else text)
        # Without a summary, the exit status is what the result shows (never a background
        # job's: see Background).
        return "; the tests passed" if not actions[-1].is_error else "; they failed"

    def details(self, actions: list[Action], cwd: str | None) -> list[str]:
        summary = self._summary(actions)
        if summary is None or not summary.first_failure:
            return []
        return [f"The first failure is {summary.first_failure}."]
