"""A sentence about the events the core folded into a digest (``events_folded``).

When the narrator fell behind, a batch starts with one ``events_folded`` event summarising
the oldest events. The narrative covers them, so it says what they were, naming what the
digest names and counting only what it counts: the files edited and the ``git commit`` /
``git push`` commands first ("Earlier, I also edited lib/parser.ex and ran `git commit -m
'Parse dates'`, in 7 tool calls (4 Read, 1 Bash, 1 Edit, ...) on 5 files."), the files read
when the digest is all reads ("Earlier, I also read src/config_0.py and 3 other files."),
else its counts. Terse says one subject in at most ten words ("Earlier, I edited
parser.ex."), and only when the rest of the batch names none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from monologue.events import FOLDED_TYPE, Event

from .scene import TERSE_WORDS
from .tools import command_text, display_path
from .wording import join_list, names_subject, plural, word_count

__all__ = ["folded_sentence", "terse_folded", "with_folded"]

SHOWN_TOOLS = 3
SHOWN_NAMES = 3
_READS = frozenset({"Read", "NotebookRead"})
_DONE = re.compile(r"^I'm done after [\d,]+ tool calls?\.$")


def with_folded(
    events: list[Event],
    compose: Callable[[list[Event]], str],
    *,
    terse: bool = False,
    cwd: str | None = None,
) -> str:
    """``compose`` the batch, preceded by a sentence about its digest if it has one. Not a
    *wait* then, even if the rest alone would be: the folded events need their narrative.
    Terse keeps one line of ten words: the rest's when it names a subject, else the
    digest's subject with it, or alone."""
    if not events or events[0].type != FOLDED_TYPE:
        return compose(events)
    digest = events[0].data
    rest = compose(events[1:]) if len(events) > 1 else ""
    if not terse:
        return f"{folded_sentence(digest, cwd)} {rest}".strip()
    if rest and names_subject(rest):
        return rest
    short = terse_folded(digest, cwd)
    if not rest:
        return short
    if not names_subject(short):
        return rest  # the digest's counts would only push the rest past ten words
    if _DONE.match(rest) and names_subject(short):
        # "I'm done after 18 tool calls" says little; the digest's subject says more.
        short = f"I'm done; earlier, {short.removeprefix('Earlier, ')}"
        return short if word_count(short) <= TERSE_WORDS else rest
    both = f"{rest} {short}"
    return both if word_count(both) <= TERSE_WORDS else rest


def folded_sentence(digest: dict[str, Any], cwd: str | None = None) -> str:
    """What the digest shows, in the first person, nothing more."""
    tools: dict[str, int] = digest.get("tools") or {}
    calls = sum(tools.values())
    errors = int(digest.get("errors") or 0)
    if not calls:
        sentence = f"Earlier, {plural(int(digest.get('count') or 0), 'more event')} came in"
    else:
        named = _changes(digest, cwd, errors)
        counts = _counts(digest, tools, calls)
        if named:
            sentence = f"Earlier, I also {join_list(named, limit=len(named))}, in {counts}"
        elif set(tools) <= _READS and digest.get("files"):
            sentence = f"Earlier, I also read {_files(digest, 'files', cwd)}"
        else:
            sentence = f"Earlier, I also made {counts}"
    if errors:
        sentence += f", with {plural(errors, 'error')}"
    return sentence + "."


def terse_folded(digest: dict[str, Any], cwd: str | None = None) -> str:
    """The digest's one most telling subject in a few words: the latest file edited, else
    the latest commit or push, else the latest file read when all were reads, else a command
    or the counts."""
    tools: dict[str, int] = digest.get("tools") or {}
    calls = sum(tools.values())
    failed = int(digest.get("errors") or 0) > 0
    if digest.get("last_edited"):
        verb = "worked on" if failed else "edited"
        return f"Earlier, I {verb} {display_path(digest['last_edited'], cwd, short=True)}."
    if digest.get("last_commit"):
        return f"Earlier, I ran `{_few_words(command_text(digest['last_commit'], 32))}`."
    if calls and set(tools) <= _READS and digest.get("last_file"):
        return f"Earlier, I read {display_path(digest['last_file'], cwd, short=True)}."
    commands: list[str] = digest.get("commands") or []
    if commands:
        return f"Earlier, I ran `{_few_words(command_text(commands[0], 24))}`."
    if calls:
        return f"Earlier, I made {plural(calls, 'tool call')}."
    return f"Earlier, {plural(int(digest.get('count') or 0), 'more event')} came in."


def _few_words(command: str, limit: int = 3) -> str:
    """A command's first ``limit`` words, marked with ``…`` when cut, for a ten-word line."""
    words = command.split()
    return command if len(words) <= limit else " ".join(words[:limit]) + " …"


def _changes(digest: dict[str, Any], cwd: str | None, errors: int) -> list[str]:
    """The digest's edits and commits, as clauses: "edited a.py", "ran `git commit ...`".
    With errors in the digest an edit may have failed, so it is said without an outcome."""
    named = []
    if digest.get("edited"):
        verb = "worked on" if errors else "edited"
        named.append(f"{verb} {_files(digest, 'edited', cwd)}")
    commits: list[str] = digest.get("commits") or []
    if commits:
        shown = [f"`{command_text(command)}`" for command in commits[:SHOWN_NAMES]]
        more = int(digest.get("commits_total") or len(commits)) - len(shown)
        if more > 0:
            shown.append(plural(more, "more git commit or push", "more git commits or pushes"))
        named.append(f"ran {join_list(shown, limit=len(shown))}")
    return named


def _files(digest: dict[str, Any], what: str, cwd: str | None) -> str:
    """The first few files the digest names under ``what``, and how many more it counts."""
    names: list[str] = digest.get(what) or []
    shown = [display_path(name, cwd) for name in names[:SHOWN_NAMES]]
    more = int(digest.get(f"{what}_total") or len(names)) - len(shown)
    if more > 0:
        floor = "at least " if digest.get(f"{what}_at_least") else ""
        shown.append(f"{floor}{plural(more, 'other file')}")
    return join_list(shown, limit=len(shown))


def _counts(digest: dict[str, Any], tools: dict[str, int], calls: int) -> str:
    """ "7 tool calls (4 Read, 1 Bash, 1 Edit, ...) on 5 files, running 1 distinct command"."""
    ranked = sorted(tools.items(), key=lambda item: (-item[1], item[0]))
    shown = ", ".join(f"{n} {name}" for name, n in ranked[:SHOWN_TOOLS])
    more = ", ..." if len(ranked) > SHOWN_TOOLS else ""
    text = f"{plural(calls, 'tool call')} ({shown}{more})"
    files = int(digest.get("files_total") or 0)
    if files:
        floor = "at least " if digest.get("files_at_least") else ""
        text += f" on {floor}{plural(files, 'file')}"
    commands = int(digest.get("commands_total") or 0)
    if commands:
        floor = "at least " if digest.get("commands_at_least") else ""
        text += f", running {floor}{plural(commands, 'distinct command')}"
    return text
