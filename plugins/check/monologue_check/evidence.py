"""What the events show: the facts a narrative's claims are checked against.

Built from the events a narrative covers, plus a small ledger of the session before them
(for "again", "after N tool calls" and "You asked me" across turns). Everything is
normalised the same way as the claims (:func:`norm`), so a claim is true when its text is
found in the evidence, whatever the spacing, case or quoting.
"""

from __future__ import annotations

import re
from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from monologue.events import FOLDED_TYPE, Event

__all__ = [
    "ERROR_LINE",
    "Call",
    "Evidence",
    "Ledger",
    "error_lines",
    "kind_of",
    "norm",
    "outcome_of",
    "prompt_origin",
]

# Typographic quotes read as plain ones. (str.replace, not str.translate: a translation
# table goes character by character, many times slower on a long output.)
_QUOTES = (("\u201c", '"'), ("\u201d", '"'), ("\u2018", "'"), ("\u2019", "'"), ("`", ""))


def norm(text: str) -> str:
    """Lower case, one space between words, typographic quotes made plain, backticks gone."""
    for quote, plain in _QUOTES:
        text = text.replace(quote, plain)
    return " ".join(text.split()).lower()


_KINDS = {
    "read": ("read", "read_file", "view", "cat", "notebookread", "readmcpresourcetool"),
    "edit": ("edit", "multiedit", "notebookedit", "str_replace", "edit_file", "apply_patch"),
    "write": ("write", "write_file", "create_file"),
    "run": ("bash", "shell", "execute_bash", "run_command", "run_shell_command", "terminal"),
    "search": ("grep", "glob", "search_files", "find_files", "ls", "list_dir", "list_files"),
    "fetch": ("webfetch", "websearch", "web_fetch", "web_search", "fetch", "fetch_url"),
    "agent": ("task", "agent"),
    "job": ("bashoutput", "taskoutput", "agentoutputtool"),
}
_KIND_OF = {name: kind for kind, names in _KINDS.items() for name in names}
_EDITOR = {"view": "read", "create": "write", "str_replace": "edit", "insert": "edit"}


def kind_of(tool_name: str | None, tool_input: Mapping[str, Any] | None = None) -> str:
    """``read``, ``edit``, ``write``, ``run``, ``search``, ``fetch``, ``agent``, ``job`` or
    ``other``: the broad kind a reader's words ("I read 2 files") count by."""
    name = (tool_name or "").lower()
    if name == "str_replace_editor":
        return _EDITOR.get(str((tool_input or {}).get("command")), "edit")
    return _KIND_OF.get(name, "other")


class _AnyOf:
    """Whether any of some patterns occurs in a text: the answer of their alternation,
    many times faster on a long output (where the check spends its time). A pattern
    searched alone skips ahead to its literal prefix (or first character class); an
    alternation, or a leading ``\\b``, is tried at every character."""

    def __init__(self, *patterns: str, flags: int = 0) -> None:
        self._patterns = [re.compile(pattern, flags) for pattern in patterns]

    def search(self, text: str) -> bool:
        return any(pattern.search(text) is not None for pattern in self._patterns)


def _word(word: str) -> str:
    """``\\bword`` (``word`` starting with a word character) with its literal first, so
    that a search skips to it: the character before it must not be a word character."""
    return f"{word}(?<!\\w{word})"


def _line_start(word: str) -> str:
    """``^word`` (multi-line) with its literal first, as :func:`_word`: at the text's start,
    or right after a line break."""
    return f"{word}(?<![^\\n]{word})"


# Output that shows a run crashed or never got going, whatever its exit status says.
# Matched against lower-cased text (a case-blind scan is several times slower).
_CRASH = _AnyOf(
    r"traceback \(most recent call last\)",
    r"\*\* \(\w+(?:error|exception)\)",
    r"^\s*(?:error|fatal)(?:\[e\d+\])?:",
    "segmentation fault",
    "panic:",
    "command not found",
    "no such file or directory",
    "modulenotfounderror",
    "importerror",
    "syntaxerror",
    "could not (?:compile|start|find)",
    "compilation error",
    "killed",
    flags=re.MULTILINE,
)
# "\b[1-9]\d*" is written "[1-9](?<!\w[1-9])\d*" below, as _word does.
_FAILED_COUNT = _AnyOf(
    r"[1-9](?<!\w[1-9])\d* (?:failed|failures?|failing|errors?)\b",
    _word("failure") + r"s?[=:] ?[1-9]",
    _line_start("failed") + r"\b",
    _word("FAIL") + r"(?:ED)?\b",
    "✗",
    "✘",
    flags=re.MULTILINE,
)
_PASS = _AnyOf(
    r"\d(?<!\w\d)\d* (?:passed|passing|tests? ok|examples?, 0 failures)\b",
    _word("all") + r" tests? passed\b",
    _line_start("ok") + r"\b",
    _word("OK") + r"\b(?: \(|$)",
    _word("PASS") + r"(?:ED)?\b",
    _word("0") + r" failures\b",
    _word("test") + r"s? passed\b",
    _word("succeeded") + r"\b",
    _word("success") + r"(?:fully)?\b",
    flags=re.MULTILINE,
)
# Matched against lower-cased text, as _CRASH.
_NOT_RUN = _AnyOf(
    "command not found",
    "no such file",
    "permission denied",
    "cannot execute",
    "not recognized",
    "timed? ?out",
    "interrupted",
    "tool_use_error",
    "rejected",
    "denied",
    "blocked",
    "invalid",
    "not allowed",
    "requires approval",
    "haven't granted",
    "not granted",
    "unknown (?:command|option)",
    "usage:",
    "could not (?:start|find)",
    "failed to (?:start|spawn)",
)
_CANCELLED = re.compile(r"cancel|sibling tool call errored|aborted")


_WINDOW = 8192


def outcome_of(output: str, is_error: bool) -> str:
    """``passed`` (the output shows a pass and no failure), ``failed``, ``crashed`` (the
    output shows a crash or start-up failure and no pass), ``error`` (the tool reported an
    error and the output says no more) or ``ok`` (no verdict either way, no error)."""
    if len(output) > 2 * _WINDOW:
        # A verdict is at the start (a crash) or the end (a summary), never mid-dump.
        output = output[:_WINDOW] + "\n" + output[-_WINDOW:]
    if _FAILED_COUNT.search(output):
        return "failed"
    passed = _PASS.search(output)
    if not passed and _CRASH.search(output.lower()):
        return "crashed"
    if passed:
        return "passed"
    return "error" if is_error else "ok"


# The shapes tools print their errors in: a quoted failure must be one of these lines
# when the failing output has any (not the advice after it, nor a stack frame).
ERROR_LINE = re.compile(
    r"^\s*(?:[✘✗\u00d7]|\[error\]|error\b|fatal:|hint:|panic:|e\d{3}\b)|"
    r"(?:error|exception|exit)[:!]|^\S+:\d+(?::\d+)?: |<tool_use_error>|"
    r"\b(?:could not|cannot|can't|unable to|not found|no such|denied|not permitted)\b",
    re.IGNORECASE,
)
_STATUS_LINE = re.compile(r"^\s*exit code \d+\s*$", re.I)


def error_lines(output: str) -> list[str]:
    """The lines a failure may be quoted by: error-shaped ones, and the output's first
    line (where most tools say what went wrong); never a bare exit status."""
    text = re.sub(r"</?tool_use_error>", "\n", output)
    lines = [line for line in text.splitlines() if line.strip()]
    chosen = [line for line in lines if ERROR_LINE.search(line) or line is lines[0]]
    return [norm(line) for line in chosen if not _STATUS_LINE.match(line)]


@dataclass
class Call:
    """One tool call and, when covered, its result."""

    tool_name: str
    kind: str
    input: dict[str, Any]
    id: str = ""
    agent: str = ""
    output: str | None = None
    is_error: bool = False

    @property
    def finished(self) -> bool:
        return self.output is not None

    @cached_property
    def outcome(self) -> str:
        # Evidence.of sets it with the result (from its ledger's scan) before anyone asks.
        return "pending" if self.output is None else outcome_of(self.output, self.is_error)

    @cached_property
    def error_lines(self) -> list[str]:
        return error_lines(self.output or "")

    @cached_property
    def _lowered(self) -> str:
        return (self.output or "").lower()

    @property
    def cancelled(self) -> bool:
        return self.output is not None and self.is_error and bool(_CANCELLED.search(self._lowered))

    @property
    def not_run(self) -> bool:
        return self.output is not None and (
            not self.output.strip() or bool(_NOT_RUN.search(self._lowered))
        )

    @property
    def subject(self) -> str:
        for key in (
            "command", "file_path", "path", "notebook_path", "pattern", "url", "query",
            "description", "subagent_type",
        ):  # fmt: skip
            value = self.input.get(key)
            if isinstance(value, str) and value.strip():
                return value
        return self.tool_name


def prompt_origin(event: Event) -> str:
    """``user`` for a person's prompt, else what injected it: the reader's ``origin`` when
    it set one, else the core's judgement of the text (:mod:`monologue.origins`). A note of
    an interruption is no prompt either."""
    from monologue.digest import is_interruption
    from monologue.origins import prompt_origin as judged

    origin = event.data.get("origin")
    if isinstance(origin, str) and origin:
        return origin
    text = str(event.data.get("text", ""))
    if event.data.get("isCompactSummary"):
        return "compaction"
    if is_interruption(text):
        return "interruption"
    return judged(text)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)


@dataclass
class Ledger:
    """The session so far, as a checker needs it: bounded, whatever the session's length."""

    limit: int = 4096
    calls: int = 0
    failures: int = 0
    subjects: deque[str] = field(default_factory=deque)
    prompts: deque[str] = field(default_factory=deque)
    recent_calls: OrderedDict[str, Event] = field(default_factory=OrderedDict)
    """Tool calls by id, so that a result covered later is checked with its call's input."""
    outcomes: OrderedDict[str, str] = field(default_factory=OrderedDict)
    """Each recent result's outcome by event id: scanning a long output is the check's
    dearest step, and a result is scanned once for its narrative and once as history."""
    _batch: list[Event] = field(default_factory=list)

    def before_batch(self, events: list[Event]) -> Ledger:
        """The ledger as it stands before ``events``: the batch checked last joins it first,
        unless ``events`` is that batch again (a retry, or events kept for the next turn)."""
        if self._batch and (not events or events[0].id != self._batch[0].id):
            for event in self._batch:
                self.add(event)
        self._batch = list(events)
        return self

    def outcome(self, result: Event) -> str:
        """:func:`outcome_of` the ``tool_result`` event ``result``, scanned once."""
        known = self.outcomes.get(result.id)
        if known is None:
            output = _text_of(result.data.get("output"))
            known = outcome_of(output, bool(result.data.get("is_error")))
            self._remember(self.outcomes, result.id, known)
        return known

    def add(self, event: Event) -> None:
        if event.type == "tool_call":
            self.calls += 1
            call = _call(event)
            self._keep(self.subjects, norm(call.subject))
            self._remember(self.recent_calls, call.id, event)
        elif event.type == "tool_result":
            if self.outcome(event) in ("error", "failed", "crashed"):
                self.failures += 1
        elif event.type == "user_message" and prompt_origin(event) == "user":
            self._keep(self.prompts, norm(str(event.data.get("text", ""))))

    def _keep(self, where: deque[str], text: str) -> None:
        where.append(text)
        if len(where) > self.limit:
            where.popleft()

    def _remember(self, where: OrderedDict[str, Any], key: str, value: Any) -> None:
        where[key] = value
        if len(where) > self.limit:
            where.popitem(last=False)


def _call(event: Event) -> Call:
    data = event.data
    tool_input = data.get("input")
    tool_input = dict(tool_input) if isinstance(tool_input, Mapping) else {}
    name = str(data.get("tool_name") or "")
    use_id = str(data.get("tool_use_id") or "")
    return Call(name, kind_of(name, tool_input), tool_input, use_id, event.agent)


@dataclass
class Evidence:
    """The covered events' facts, and the session before them (``before``)."""

    text: str
    calls: list[Call]
    prompts: list[str]
    injected: list[str]
    before: Ledger
    seen_calls: int
    seen_failures: int
    ending: str | None
    completed: bool
    results_without_call: list[Call]
    folded_calls: int = 0
    """Tool calls a digest told in one sentence ("Earlier, I also made 6 tool calls")."""
    unfolded: int = 0
    """How many of ``calls`` came after the digest (the ones told one by one)."""
    folded_kinds: frozenset[str] = frozenset()
    """The kinds of tool a live batch's digest counts (its calls are not in ``calls``)."""

    @classmethod
    def of(
        cls,
        events: Iterable[Event],
        before: Ledger | None = None,
        *,
        seen_calls: int = 0,
        seen_failures: int = 0,
        folded: int = 0,
    ) -> Evidence:
        """The evidence of ``events``; ``before`` holds what earlier narratives covered, and
        ``seen_*`` what the session had shown in all by the time of the narrative. The
        oldest ``folded`` events (a recorded narrative's ``folded``), or an
        ``events_folded`` digest leading the batch (live), were told as one digest."""
        events = list(events)
        before = before or Ledger()
        folded_calls = 0
        folded_kinds: frozenset[str] = frozenset()
        if events and events[0].type == FOLDED_TYPE:
            tools = events[0].data.get("tools") or {}
            folded_calls = sum(n for n in tools.values() if isinstance(n, int))
            folded_kinds = frozenset(kind_of(str(name)) for name in tools)
        elif folded:
            folded_calls = sum(1 for event in events[:folded] if event.type == "tool_call")
        calls: dict[str, Call] = {}
        ordered: list[Call] = []
        orphans: list[Call] = []
        prompts: list[str] = []
        injected: list[str] = []
        parts: list[str] = []
        ending: str | None = None
        completed = False
        for event in events:
            parts.append(event.agent)
            parts.extend(_strings(event.data))
            if event.type == "tool_call":
                call = _call(event)
                calls[call.id] = call
                ordered.append(call)
            elif event.type == "tool_result":
                data = event.data
                use_id = str(data.get("tool_use_id") or "")
                known = calls.get(use_id)
                if known is not None:
                    call = known
                else:
                    earlier = before.recent_calls.get(use_id)
                    if earlier is not None:
                        call = _call(earlier)
                        parts.extend(_strings(earlier.data))
                    else:
                        name = str(data.get("tool_name") or "")
                        call = Call(name, kind_of(name), {}, use_id)
                    orphans.append(call)
                call.output = _text_of(data.get("output"))
                call.is_error = bool(data.get("is_error"))
                call.outcome = before.outcome(event)
            elif event.type == "user_message":
                text = str(event.data.get("text", ""))
                (prompts if prompt_origin(event) == "user" else injected).append(norm(text))
            elif event.type == "completion":
                completed = True
                ending = event.data.get("ending") or (
                    "failed" if event.data.get("is_error") else "completed"
                )
        return cls(
            folded_calls=folded_calls,
            folded_kinds=folded_kinds,
            unfolded=len(ordered) - (folded_calls if folded else 0),
            text=norm("\n".join(parts)),
            calls=ordered,
            prompts=prompts,
            injected=injected,
            before=before,
            seen_calls=seen_calls,
            seen_failures=seen_failures,
            ending=ending,
            completed=completed,
            results_without_call=orphans,
        )

    @property
    def told_one_by_one(self) -> list[Call]:
        """The calls after the digest's: what a narrative tells one by one."""
        return self.acted[len(self.calls) - self.unfolded :] if self.unfolded else self.acted

    @property
    def acted(self) -> list[Call]:
        """Every call these events tell of: by its call, or by its result (whose call an
        earlier batch held, as with parallel calls)."""
        return [*self.calls, *(call for call in self.results_without_call if call.input)]

    @property
    def results(self) -> list[Call]:
        return [call for call in [*self.calls, *self.results_without_call] if call.finished]

    def outputs(self) -> str:
        return "\n".join(call.output or "" for call in self.results)

    def has(self, fragment: str) -> bool:
        """Whether ``fragment`` (normalised) occurs in the covered events."""
        return norm(fragment) in self.text

    def said_before(self, fragment: str) -> bool:
        """Whether ``fragment`` occurs in a subject the session had before these events."""
        needle = norm(fragment)
        return any(needle in subject for subject in self.before.subjects)


def _text_of(output: Any) -> str:
    if isinstance(output, str):
        return output
    return "\n".join(_strings(output))
