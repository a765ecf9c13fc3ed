"""The agent's own housekeeping tools, told as plain actions: planning, the task list,
background jobs, questions to the user, skills and slash commands ("I finished planning",
"I checked the background job"), never by their tool names."""

from __future__ import annotations

import re
from typing import Any

from .actions import Action
from .kind import Kind, Phrase, unique
from .outcomes import suite_result
from .tools import display_path, input_path
from .wording import join_list, plural, quoted

__all__ = ["Ask", "JobOutput", "Kill", "Plain", "Skill", "Slash", "Structured", "Todo"]

_JOB_ID_KEYS = ("task_id", "bash_id", "shell_id", "agentId", "id")
_STATUS = re.compile(r"<status>\s*(\w+)\s*</status>")
_EXIT_CODE = re.compile(r"<exit_code>\s*(-?\d+)\s*</exit_code>")
_PATH_KEYS = ("path", "file")


class Plain(Kind):
    """A step with nothing to name: its verbs say it all ("finished planning")."""

    def __init__(self, base: str, past: str, gerund: str) -> None:
        self.verbs = (base, past, gerund)

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        return ""

    def phrase(
        self, actions: list[Action], cwd: str | None, short: bool = False, verbose: bool = False
    ) -> Phrase:
        phrase = super().phrase(actions, cwd, short, verbose)
        for name in ("running", "done", "listed"):
            text = re.sub(r" ([,;])", r"\1", getattr(phrase, name))
            setattr(phrase, name, " ".join(text.split()))
        return phrase


class Structured(Plain):
    """The agent's final answer in a schema (the Agent SDK's StructuredOutput): named by the
    file it is about when the answer says ("gave my structured answer about tasks.md")."""

    def __init__(self) -> None:
        super().__init__(
            "give my structured answer", "gave my structured answer", "giving my structured answer"
        )

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        paths = unique([p for p in (_answer_path(a.input) for a in actions) if p])
        return f"about {display_path(paths[0], cwd, short)}" if len(paths) == 1 else ""


def _answer_path(answer: dict[str, Any]) -> str | None:
    """A path the answer names at its top level or one level down (``metadata.sourcePath``)."""
    for level in (answer, *(v for v in answer.values() if isinstance(v, dict))):
        found = input_path(level) or next(
            (v for k, v in level.items() if k.lower().endswith(_PATH_KEYS) and isinstance(v, str)
             and v.strip()),
            None,
        )  # fmt: skip
        if found:
            return found
    return None


class Todo(Plain):
    """The to-do list (TodoWrite) and Claude Code's newer task tools."""

    def __init__(self) -> None:
        super().__init__("update my task list", "updated my task list", "updating my task list")

    def outcome(self, actions: list[Action], short: bool) -> str:
        todos = actions[-1].input.get("todos")
        if short or not isinstance(todos, list) or not todos:
            return ""
        items = [item for item in todos if isinstance(item, dict)]
        done = sum(item.get("status") == "completed" for item in items)
        current = [item for item in items if item.get("status") == "in_progress"]
        text = f"; {done} of {plural(len(items), 'item')} {'is' if done == 1 else 'are'} done"
        if current:
            text += f", and I'm on {quoted(str(current[0].get('content', '')), 50)}"
        return text


class JobOutput(Kind):
    """Checking on a background job: its status is what the output shows, nothing more."""

    verbs = ("check", "checked", "checking")

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        return _jobs(actions)

    def outcome(self, actions: list[Action], short: bool) -> str:
        last = actions[-1]
        if last.is_error or last.output is None:
            return super().outcome(actions, short)
        status = _STATUS.search(last.output)
        code = _EXIT_CODE.search(last.output)
        if status and status.group(1) == "running":
            return "; it is still running"
        summary = suite_result(last.output)
        if summary is not None:
            return f"; it finished: {summary.phrase()}"
        if code:
            number = int(code.group(1))
            return "; it finished" if number == 0 else f"; it exited with code {number}"
        if status:
            return f"; it is {status.group(1)}"
        return ""


class Kill(Kind):
    verbs = ("stop", "stopped", "stopping")

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        return _jobs(actions)


def _jobs(actions: list[Action]) -> str:
    """Background jobs counted by their id: two polls of one job are one job."""
    ids = {
        next((str(a.input[k]) for k in _JOB_ID_KEYS if a.input.get(k)), f"#{n}")
        for n, a in enumerate(actions)
    }
    return "the background job" if len(ids) == 1 else f"{len(ids)} background jobs"


class Ask(Kind):
    """A question to the user (AskUserQuestion)."""

    verbs = ("ask", "asked", "asking")

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        questions = actions[0].input.get("questions")
        first = questions[0] if isinstance(questions, list) and questions else None
        text = first.get("question") if isinstance(first, dict) else None
        if not isinstance(text, str) or not text.strip():
            return "you a question"
        return f"you {quoted(text, 30 if short else 70)}"


class Skill(Kind):
    verbs = ("use", "used", "using")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        name = action.input.get("skill") or action.input.get("command")
        return f"the {quoted(str(name), 30)} skill" if name else "a skill"

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        return join_list(unique([self.one(action, cwd, short) for action in actions]))


class Slash(Skill):
    verbs = ("run", "ran", "running")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        name = str(action.input.get("command") or "").split(" ", 1)[0]
        return f"the `{name}` command" if name else "a slash command"
