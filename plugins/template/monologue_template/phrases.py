"""How each kind of tool use is worded, alone or in a batch, running or done.

A :class:`Kind` knows a tool's verbs ("read", "read", "reading"), how to name one use of it
(a path, a command, a pattern...), how to name several at once ("3 files: a.py, b.py and
c.py"), and what came of them ("; 2 of 41 tests failed"). Every phrase has a full form and a
short one for the terse preset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlparse

from monologue.digest import SALIENT_KEYS

from .actions import Action
from .outcomes import SuiteResult, error_line, match_count, suite_result
from .tools import command_text, display_path, input_path, is_test_command, tool_label
from .wording import clip, first_sentence, join_list, plural, quoted

Verbs = tuple[str, str, str]
"""Base, past and progressive forms: ``("read", "read", "reading")``."""


@dataclass(frozen=True)
class Failure:
    """A failed action: what it was doing ("running `false`"), the same said briefly in the
    base form ("run `false`"), and why it failed."""

    doing: str
    short: str
    reason: str


@dataclass
class Phrase:
    """What a batch of same-kind actions amounts to, without its subject."""

    running: str
    done: str
    running_short: str
    done_short: str
    failure: Failure | None = None
    """When some of several actions failed: the first failure."""
    details: list[str] = field(default_factory=list)
    """Extra sentences for the verbose preset."""
    listed: str = ""
    """The done form inside a list of different steps: the outcome in brackets."""


def listed(core: str, tail: str) -> str:
    """``"searched for "x""`` and ``"; 2 files matched"`` -> ``searched for "x" (2 files
    matched)``, for a sentence that lists several steps."""
    return f"{core} ({tail.removeprefix('; ')})" if tail else core


def unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


class Kind:
    """A tool kind's wording; subclasses override what differs from the generic tool."""

    verbs: Verbs = ("use", "used", "using")
    nouns = ("step", "steps")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        """What a single use was about: a path, a command, a pattern, a query..."""
        label = tool_label(action.tool)
        for key in (*SALIENT_KEYS, *action.input):
            value = action.input.get(key)
            if isinstance(value, str | int | float) and str(value).strip():
                return f"{label} on {clip(str(value), 20 if short else 50)}"
        return label

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        names = unique([self.one(action, cwd, short) for action in actions])
        if len(names) == 1:
            return names[0]
        if short:
            return plural(len(names), *self.nouns)
        if len(names) == 2:
            return join_list(names)
        return f"{plural(len(names), *self.nouns)}: {join_list(names)}"

    def verbs_for(self, actions: list[Action]) -> Verbs:
        return self.verbs

    def outcome(self, actions: list[Action], short: bool) -> str:
        """What came of finished actions, as a tail: ``"; 2 failed"``."""
        failed = sum(action.is_error for action in actions)
        return f"; {failed} failed" if failed and len(actions) > 1 else ""

    def all_failed(self, actions: list[Action]) -> bool:
        """Told as "I tried to X, but it failed: why" (or "but all 3 failed")."""
        return all(action.is_error for action in actions)

    def details(self, actions: list[Action], cwd: str | None) -> list[str]:
        return []

    def phrase(self, actions: list[Action], cwd: str | None) -> Phrase:
        base, past, gerund = self.verbs_for(actions)
        obj, obj_short = self.many(actions, cwd, False), self.many(actions, cwd, True)
        running, running_short = f"{gerund} {obj}", f"{gerund} {obj_short}"
        if any(action.running for action in actions):
            return Phrase(running, running, running_short, running_short)
        failed = [action for action in actions if action.is_error]
        reason = (error_line(failed[0].output or "") or "no reason given") if failed else ""
        if self.all_failed(actions):
            every = "it" if len(actions) == 1 else f"all {len(actions)}"
            return Phrase(
                running,
                f"tried to {base} {obj}, but {every} failed: {reason}",
                running_short,
                f"couldn't {base} {obj_short}",
                details=self.details(actions, cwd),
            )
        failure = None
        if failed:
            first = failed[0]
            failure = Failure(
                f"{self.verbs[2]} {self.one(first, cwd, False)}",
                f"{self.verbs[0]} {self.one(first, cwd, True)}",
                reason,
            )
        tail = self.outcome(actions, False)
        return Phrase(
            running,
            f"{past} {obj}{tail}",
            running_short,
            f"{past} {obj_short}{self.outcome(actions, True)}",
            failure=failure,
            details=self.details(actions, cwd),
            listed=listed(f"{past} {obj}", tail),
        )


class Files(Kind):
    """Read and Write: a file or a list of files."""

    nouns = ("file", "files")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        return display_path(input_path(action.input) or "a file", cwd, short)

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        names = unique([self.one(action, cwd, short) for action in actions])
        if len(names) <= (1 if short else 2):
            return join_list(names)
        if short:
            return plural(len(names), "file")
        if len(names) > 4:
            return f"{len(names)} files, including {join_list(names[:3], limit=3)}"
        return f"{len(names)} files: {join_list(names, limit=4)}"


class Read(Files):
    verbs = ("read", "read", "reading")


class Write(Files):
    verbs = ("write", "wrote", "writing")

    def details(self, actions: list[Action], cwd: str | None) -> list[str]:
        contents = [a.input.get("content") for a in actions]
        if len(actions) != 1 or not isinstance(contents[0], str):
            return []
        lines = plural(contents[0].count("\n") + 1, "line")
        return [f"{self.one(actions[0], cwd, False)} is {lines} long."]


class Edit(Files):
    verbs = ("edit", "edited", "editing")

    @staticmethod
    def edits(action: Action) -> int:
        batch = action.input.get("edits")
        return len(batch) if isinstance(batch, list) and batch else 1

    def verbs_for(self, actions: list[Action]) -> Verbs:
        files = {input_path(action.input) for action in actions}
        if sum(self.edits(action) for action in actions) > len(files):
            return ("make", "made", "making")
        return self.verbs

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        total = sum(self.edits(action) for action in actions)
        names = unique([self.one(action, cwd, short) for action in actions])
        if total == len(names):
            return super().many(actions, cwd, short)
        if len(names) == 1:
            return f"{total} edits to {names[0]}"
        if short:
            return f"{total} edits to {len(names)} files"
        return f"{total} edits across {len(names)} files: {join_list(names)}"


class Bash(Kind):
    verbs = ("run", "ran", "running")
    nouns = ("command", "commands")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        command = action.input.get("command", action.input.get("cmd", ""))
        return f"`{command_text(command, 24 if short else 60)}`" if command else "a command"

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
        return "; the tests passed" if not actions[-1].is_error else "; they failed"

    def details(self, actions: list[Action], cwd: str | None) -> list[str]:
        summary = self._summary(actions)
        if summary is None or not summary.first_failure:
            return []
        return [f"The first failure is {summary.first_failure}."]


class Grep(Kind):
    verbs = ("search for", "searched for", "searching for")
    nouns = ("pattern", "patterns")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        pattern = quoted(
            str(action.input.get("pattern", action.input.get("query", ""))), 20 if short else 40
        )
        path = action.input.get("path") or action.input.get("glob")
        if short or not path:
            return pattern
        return f"{pattern} in {display_path(path, cwd)}"

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        names = unique([self.one(action, cwd, short) for action in actions])
        return join_list(names) if not short or len(names) == 1 else plural(len(names), "pattern")

    def outcome(self, actions: list[Action], short: bool) -> str:
        counts = [match_count(action.output or "") for action in actions if not action.is_error]
        found = [count for count in counts if count is not None]
        failed = super().outcome(actions, short)
        if not found:
            return failed
        total = sum(number for number, _ in found)
        also = failed.replace(";", ",")
        if not total:
            return "; nothing matched" + also
        if all(kind == "files" for _, kind in found):
            return f"; {plural(total, 'file')} matched" + also
        return f"; found {plural(total, 'match', 'matches')}" + also


class Glob(Kind):
    verbs = ("look for", "looked for", "looking for")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        pattern = clip(str(action.input.get("pattern", "")), 24 if short else 50)
        path = action.input.get("path")
        where = f" in {display_path(path, cwd)}" if path and not short else ""
        return f"files matching {pattern}{where}"

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        patterns = unique([clip(str(a.input.get("pattern", "")), 40) for a in actions])
        if len(patterns) == 1:
            return self.one(actions[0], cwd, short)
        if short:
            return f"files matching {len(patterns)} patterns"
        return f"files matching {join_list(patterns)}"

    def outcome(self, actions: list[Action], short: bool) -> str:
        counts = [match_count(a.output or "") for a in actions if not a.is_error]
        total = sum(count[0] for count in counts if count is not None)
        return (f"; found {total}" if total else "; found none") + super().outcome(
            actions, short
        ).replace(";", ",")


class Listing(Kind):
    verbs = ("list", "listed", "listing")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        path = input_path(action.input)
        return f"the files in {display_path(path, cwd, short)}" if path else "the files here"


class WebSearch(Kind):
    verbs = ("search the web for", "searched the web for", "searching the web for")
    nouns = ("query", "queries")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        return quoted(str(action.input.get("query", "")), 24 if short else 60)


class WebFetch(Kind):
    verbs = ("fetch", "fetched", "fetching")
    nouns = ("page", "pages")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        url = str(action.input.get("url", ""))
        if short:
            return urlparse(url).netloc or clip(url, 24)
        return clip(url, 70) or "a page"

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        if len(actions) == 1:
            return self.one(actions[0], cwd, short)
        hosts = unique([self.one(action, cwd, True) for action in actions])
        return plural(len(actions), "page") + ("" if short else f" from {join_list(hosts)}")


class Task(Kind):
    """A sub-agent: running while it works, then its report."""

    verbs = ("hand off", "handed off", "handing off")
    nouns = ("task", "tasks")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        text = action.input.get("description") or action.input.get("prompt") or "a task"
        return quoted(str(text), 20 if short else 50)

    def phrase(self, actions: list[Action], cwd: str | None) -> Phrase:
        names = unique([self.one(action, cwd, False) for action in actions])
        who = "a sub-agent" if len(actions) == 1 else f"{len(actions)} sub-agents"
        running = f"waiting for {who} to finish {join_list(names)}"
        running_short = f"waiting for {who}"
        if any(action.running for action in actions):
            return Phrase(running, running, running_short, running_short)
        phrase = super().phrase(actions, cwd)
        if not phrase.done.startswith("tried"):
            core, tail = f"had {who} handle {join_list(names)}", self.outcome(actions, False)
            phrase.done, phrase.listed = core + tail, listed(core, tail)
            phrase.done_short = f"had {who} finish"
        phrase.running, phrase.running_short = running, running_short
        return phrase

    def details(self, actions: list[Action], cwd: str | None) -> list[str]:
        reports = [first_sentence(a.output or "", 100) for a in actions if not a.is_error]
        return [f"It reported: {report}" for report in reports[:1] if report]


class Todo(Kind):
    verbs = ("update", "updated", "updating")

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        return "my to-do list"

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


class BashOutput(Kind):
    verbs = ("check", "checked", "checking")

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        return "a background command's output"


class Kill(Kind):
    verbs = ("stop", "stopped", "stopping")

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        return "a background command"


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
    "bash_output": BashOutput(),
    "kill": Kill(),
    "other": Kind(),
}


def wording_kind(action: Action) -> str:
    """The wording an action gets: a shell command may be a test run or a background job."""
    if action.kind == "bash":
        command = action.input.get("command", action.input.get("cmd", ""))
        if action.input.get("run_in_background"):
            return "background"
        if is_test_command(command):
            return "tests"
    return action.kind if action.kind in KINDS else "other"
