"""Which wording each kind of tool use gets: the table of kinds, and a sub-agent's task
(running while it works, then what it reported).

The kinds themselves live by concern: :mod:`.kind` (the generic one), :mod:`.file_kinds`,
:mod:`.command_kinds`, :mod:`.search_kinds`, :mod:`.internal_kinds`.
"""

from __future__ import annotations

from monologue.redact import redact_text

from .actions import Action
from .command_kinds import Background, Bash, Tests
from .file_kinds import Edit, Listing, Read, Write
from .internal_kinds import Ask, JobOutput, Kill, Plain, Skill, Slash, Structured, Todo
from .kind import Kind, Phrase, listed, unique
from .search_kinds import Glob, Grep, WebFetch, WebSearch
from .tools import is_test_command, kind_of
from .wording import clip, first_sentence, join_list, quoted

__all__ = ["KINDS", "wording_kind"]

REPORT_LIMIT = 1500
"""Characters of a sub-agent's report read for its first finding."""


class Task(Kind):
    """A sub-agent: running while it works, then its report."""

    verbs = ("hand off", "handed off", "handing off")
    nouns = ("task", "tasks")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        text = action.input.get("description") or action.input.get("prompt")
        return quoted(str(text), 20 if short else 50) if text else "a task"

    def phrase(
        self, actions: list[Action], cwd: str | None, short: bool = False, verbose: bool = False
    ) -> Phrase:
        who = "a sub-agent" if len(actions) == 1 else f"{len(actions)} sub-agents"
        names = "" if short else join_list(unique([self.one(a, cwd, False) for a in actions]))
        running = f"waiting for {who}" if short else f"waiting for {who} to finish {names}"
        if actions[0].running:  # (all are, as Kind.phrase reads them)
            return Phrase(running, running)
        if all(action.backgrounded and not action.is_error for action in actions):
            # Launched, not finished: its report comes later (TaskOutput), if at all.
            where = "in the background" if short else f"on {names} in the background"
            return Phrase(running, f"started {who} {where}")
        phrase = super().phrase(actions, cwd, short, verbose)
        phrase.running = running
        if phrase.failed:  # "tried to hand off ...", "wanted to hand off ..., but you declined"
            return phrase
        if short:
            phrase.done = f"had {who} finish {self.many(actions, cwd, True)}"
            return phrase
        core, tail = f"had {who} handle {names}", self.outcome(actions, False)
        report = self.report(actions, cwd)
        phrase.done = core + tail + (f"; {report}" if report else "")
        # A report is news of its own, never folded into a list of routine steps.
        phrase.listed = "" if report else listed(core, tail)
        return phrase

    def report(self, actions: list[Action], cwd: str | None) -> str:
        """The first sentence of the first finished sub-agent's report, and who made it
        when several sub-agents finished together."""
        for action in actions:
            output = (action.output or "")[:REPORT_LIMIT]
            # Redacted once found, before it is cut: a secret is never half-quoted.
            found = first_sentence(output, 400) if not action.is_error else ""
            found = clip(redact_text(found), 100)
            if found:
                who = "it" if len(actions) == 1 else self.one(action, cwd, True)
                return f"{who} reported: {found.rstrip('.')}"
        return ""


KINDS: dict[str, Kind] = {
    "read": Read(),
    "write": Write(),
    "edit": Edit(),
    "bash": Bash(),
    "background": Background(),
    "tests": Tests(),
    "grep": Grep(),
    "glob": Glob(),
    "ls": Listing(),
    "web_search": WebSearch(),
    "web_fetch": WebFetch(),
    "task": Task(),
    "todo": Todo(),
    "job_output": JobOutput(),
    "kill": Kill(),
    "plan_done": Plain("finish planning", "finished planning", "finishing planning"),
    "plan_start": Plain("start planning", "started planning", "starting to plan"),
    "todo_check": Plain("check my task list", "checked my task list", "checking my task list"),
    "structured": Structured(),
    "lsp": Plain(
        "query the language server", "queried the language server", "querying the language server"
    ),
    "mcp_list": Plain("list MCP resources", "listed MCP resources", "listing MCP resources"),
    "mcp_read": Plain("read an MCP resource", "read an MCP resource", "reading an MCP resource"),
    "ask": Ask(),
    "skill": Skill(),
    "slash": Slash(),
    "other": Kind(),
}


def wording_kind(action: Action) -> str:
    """The wording an action gets: a shell command may be a test run or a background job."""
    kind = kind_of(action.tool, action.input)
    if kind == "bash":
        command = action.input.get("command", action.input.get("cmd", ""))
        if action.backgrounded:
            return "background"
        if is_test_command(command):
            return "tests"
    return kind if kind in KINDS else "other"
