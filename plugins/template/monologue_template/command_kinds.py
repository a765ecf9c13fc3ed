"""Shell commands: one-off, in the background, test runs, and background job control."""

from __future__ import annotations

import re

from .actions import Action
from .errors import error_excerpt, has_crash
from .kind import Kind, Phrase, unique
from .outcomes import SuiteResult, suite_result
from .tools import command_text
from .wording import clip, join_list

_EXIT_CODE = re.compile(r"^\s*Exit code (-?\d+)")
_MILESTONE = re.compile(r"`git (?:commit|push|merge|rebase|tag)\b|`gh pr\b")
# Reasons a command never started: "tried to run", not "ran".
_UNRUN = re.compile(
    r"command not found|permission denied|cannot execute|not executable|was blocked"
    r"|requires approval|\bcd\b.*no such file",
    re.IGNORECASE,
)

__all__ = ["Background", "Bash", "Tests"]


class Bash(Kind):
    verbs = ("run", "ran", "running")
    nouns = ("command", "commands")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        command = action.input.get("command", action.input.get("cmd", ""))
        return f"`{command_text(command, 32 if short else 60)}`" if command else "a command"

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        if short and len(actions) > 1:
            names = unique([self.one(action, cwd, True) for action in actions])
            if len(names) > 1:  # one named (a commit first), the rest counted
                first = next((name for name in names if _MILESTONE.search(name)), names[0])
                return f"{first} and {len(names) - 1} more"
        if len(actions) == 1 or short:
            return super().many(actions, cwd, short)
        names = _distinct([_command(action) for action in actions], 30)
        if len(names) > 3:  # commits and pushes first, in their order
            kept = sorted(range(len(names)), key=lambda i: not _MILESTONE.search(names[i]))[:3]
            rest = len(names) - 3
            shown = [names[i] for i in sorted(kept)]
            return f"{len(actions)} commands: {', '.join(shown)} and {rest} more"
        if len(set(names)) == len(names):  # all named: a count would add nothing
            return join_list(names)
        return f"{len(actions)} commands: {join_list(names)}"

    def details(self, actions: list[Action], cwd: str | None) -> list[str]:
        description = actions[0].input.get("description")
        if len(actions) != 1 or not isinstance(description, str) or not description.strip():
            return []
        return [f"That was to {clip(description[:1].lower() + description[1:], 80)}."]

    def failed(
        self, actions: list[Action], obj: str, obj_short: str, reason: str
    ) -> tuple[str, str]:
        # A command that exits non-zero ran: it is not a command that "couldn't run".
        if all(_UNRUN.search(error_excerpt(a.output or "") or reason) for a in actions):
            return super().failed(actions, obj, obj_short, reason)
        if len(actions) > 1:  # some ran and failed: "tried", never "couldn't run"
            done = super().failed(actions, obj, obj_short, reason)[0]
            return done, f"tried to run {obj_short}; all {len(actions)} failed"
        code = _EXIT_CODE.match(actions[0].output or "")
        if code and reason == code.group(0):
            return f"ran {obj}; it exited with code {code.group(1)}", f"ran {obj_short}; it failed"
        if code:
            return (
                f"ran {obj}; it exited with code {code.group(1)}: {reason}",
                f"ran {obj_short}; it failed",
            )
        return f"ran {obj}, but it failed: {reason}", f"ran {obj_short}; it failed"


def _command(action: Action) -> str:
    return str(action.input.get("command", action.input.get("cmd", "")))


def _distinct(commands: list[str], limit: int) -> list[str]:
    """Commands shortened to ``limit``, or longer where two would read the same: two
    different ``python3 -c "..."`` never become one string."""
    wanted = len(set(commands))
    for room in (limit, limit * 2, limit * 4):
        names = [f"`{command_text(c, room)}`" if c else "a command" for c in commands]
        if len(set(names)) == wanted:
            return names
    return names


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
        # A run with output ran: what it shows is its outcome (see ``outcome``), unless it
        # says the run never started (`cd` into a missing folder, a missing program).
        if not super().all_failed(actions) or self._summary(actions) is not None:
            return False
        output = actions[-1].output or ""
        return not output.strip() or bool(_UNRUN.search(error_excerpt(output)))

    def phrase(
        self, actions: list[Action], cwd: str | None, short: bool = False, verbose: bool = False
    ) -> Phrase:
        phrase = super().phrase(actions, cwd, short, verbose)
        phrase.failure = None  # the outcome says what failed
        return phrase

    def outcome(self, actions: list[Action], short: bool) -> str:
        """From the output first: its summary, or its crash; the exit status decides only
        when the output has no verdict, and never for a piped command, whose status is the
        last program's (``mix test | tail``)."""
        summary = self._summary(actions)
        if summary is not None:
            text = summary.phrase()
            return "; " + (text.replace(" tests ", " ") if short else text)
        last = actions[-1]
        output = last.output or ""
        if has_crash(output):
            return "; it crashed" if short else f"; the test run crashed: {error_excerpt(output)}"
        command = str(last.input.get("command", last.input.get("cmd", "")))
        if "|" in command.replace("||", ""):
            return "; no test summary" if short else "; it showed no test summary"
        if last.is_error:
            excerpt = error_excerpt(output)
            return "; it failed" if short or not excerpt else f"; it failed: {excerpt}"
        return "; the tests passed"

    def details(self, actions: list[Action], cwd: str | None) -> list[str]:
        summary = self._summary(actions)
        if summary is None or not summary.first_failure:
            return []
        return [f"The first failure is {summary.first_failure}."]
