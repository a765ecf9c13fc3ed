"""The truth corpus: short event sequences from public transcripts and the shared traces
(issue 23's findings 1-12), each with what a narrative must and must not state.

``must`` is checked in the modes that have room to say it (default and strict; ``terse``
lists what a ten-word line must still say), ``must_not`` in every mode, ``before`` (two
phrases in the order they happened) where a mode says both.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from truth_outputs import (
    CANCELLED,
    COMPACTION,
    CREDO,
    ESBUILD,
    GIT_IGNORED,
    GREP_CONTEXT,
    MIX_CRASH,
    NOTIFICATION,
    SWE_EDIT,
)

from monologue.events import Event

AGENT = "coder"
_ids = itertools.count(1)


@dataclass
class Case:
    name: str
    finding: int
    events: list[Event]
    must: list[str] = field(default_factory=list)
    terse: list[str] = field(default_factory=list)
    must_not: list[str] = field(default_factory=list)
    before: tuple[str, str] | None = None


def call(tool: str, agent: str = AGENT, **tool_input: Any) -> Event:
    return Event(
        type="tool_call",
        agent=agent,
        data={"tool_name": tool, "tool_use_id": f"toolu_{next(_ids):04d}", "input": tool_input},
    )


def result(of: Event, output: Any = "ok", is_error: bool = False) -> Event:
    data = {"tool_use_id": of.data["tool_use_id"], "output": output, "is_error": is_error}
    return Event(type="tool_result", agent=of.agent, data=data)


def run(tool: str, output: Any = "ok", is_error: bool = False, **tool_input: Any) -> list[Event]:
    first = call(tool, **tool_input)
    return [first, result(first, output, is_error)]


def user(text: str, **data: Any) -> Event:
    return Event(type="user_message", agent=AGENT, data={"text": text, **data})


def say(text: str, agent: str = AGENT) -> Event:
    return Event(type="text", agent=agent, data={"text": text})


def _cancelled_siblings() -> list[Event]:
    failing = call("Bash", command="mix compile --warnings-as-errors")
    siblings = [call("Read", file_path=f"/repo/lib/m{n}.ex") for n in range(7)]
    return [
        failing,
        *siblings,
        result(failing, "Exit code 1\nerror: undefined function foo/0", True),
        *[result(sibling, CANCELLED, True) for sibling in siblings],
    ]


def _two_polls() -> list[Event]:
    start = run(
        "Bash",
        "Command running in background with ID: bg1",
        command="mix phx.server",
        run_in_background=True,
    )
    poll = "<status>running</status>"
    return [
        *start,
        *run("BashOutput", poll, bash_id="bg1"),
        *run("BashOutput", poll, bash_id="bg1"),
    ]


SCRIPT = "import json; print({}(json.load(open('{}.json'))))"


def _python_scripts() -> list[Event]:
    return [
        *run(
            "Bash", "1", command="python3 -c \"import json; print(len(json.load(open('a.json'))))\""
        ),
        *run(
            "Bash",
            "2",
            command="python3 -c \"import json; print(sorted(json.load(open('b.json'))))\"",
        ),
    ]


CASES = [
    Case(
        "bundler error quoted, not the stack dump",
        1,
        [user("Build the assets."), *run("Bash", ESBUILD, True, command="mix assets.build")],
        must=['Could not resolve "js/app.js"'],
        terse=["mix assets.build"],
        must_not=["Getter/Setter", "Build failed with 1 error"],
    ),
    Case(
        "edit whose old string was not found",
        1,
        run(
            "Edit",
            "<tool_use_error>String to replace not found in file.\nString:   end\nend"
            "</tool_use_error>",
            True,
            file_path="/repo/lib/parser.ex",
            old_string="  end",
            new_string="  end\n",
        ),
        must=["String to replace not found"],
        terse=["parser.ex"],
        must_not=["tool_use_error", "end<"],
    ),
    Case(
        "SWE-agent's rejected edit quotes the error, not its advice",
        1,
        run("str_replace_editor", SWE_EDIT, True, command="str_replace", path="/testbed/a.py"),
        must=["IndentationError: unexpected indent"],
        must_not=["DO NOT", "Please"],
    ),
    Case(
        "git says which paths were ignored",
        1,
        run("Bash", GIT_IGNORED, True, command="git add deps lib"),
        must=["ignored by one of your .gitignore files"],
        terse=["git add"],
        must_not=["Exit code 1", "hint"],
    ),
    Case(
        "a compaction summary is not the user's ask",
        2,
        [user(COMPACTION, origin="compaction"), *run("Read", "x", file_path="/repo/src/parser.py")],
        must=["parser.py"],
        terse=["parser.py"],
        must_not=["You asked me", "being continued"],
    ),
    Case(
        "a compaction summary without origin is classified by its text",
        2,
        [user(COMPACTION), *run("Read", "x", file_path="/repo/src/parser.py")],
        must_not=["You asked me", "being continued"],
    ),
    Case(
        "a task notification is the job's outcome",
        2,
        [user(NOTIFICATION), *run("Read", "x", file_path="/repo/src/app.py")],
        must=['"Start Phoenix server" completed'],
        must_not=["You asked me", "<task-notification>", "bae407b", "task-id"],
    ),
    Case(
        "side requests are skipped",
        2,
        [
            user("quota", origin="side_request"),
            user("Analyze if this message indicates a new conversation topic."),
            user("check again"),
            *run("Bash", "ok", command="mix test test/parser_test.exs"),
        ],
        must=["You asked me to check again"],
        must_not=["quota", "conversation topic"],
    ),
    Case(
        "the first prompt after a compaction is not asked again",
        2,
        [
            user("Fix the parser."),
            *run("Read", "x", file_path="/repo/src/parser.py"),
            user(COMPACTION, origin="compaction"),
            user("new beads for the epic were added. tackle them"),
            *run("Bash", "ok", command="bd ready"),
        ],
        must=["new beads for the epic were added"],
        must_not=["Again, you asked", "Again, You asked"],
    ),
    Case(
        "a piped test run that crashed at start-up did not pass",
        3,
        run("Bash", MIX_CRASH, command="mix test test/parser_test.exs | tail -50"),
        must=["the test run crashed", "Could not start application spotter"],
        terse=["crashed"],
        must_not=["passed"],
    ),
    Case(
        "a piped test run without a summary did not pass",
        3,
        run("Bash", "Compiling 2 files (.ex)\nGenerated spotter app", command="mix test | tail -5"),
        must=["no test summary"],
        must_not=["passed"],
    ),
    Case(
        "seven cancelled siblings are seven",
        4,
        _cancelled_siblings(),
        must=["7 parallel calls were cancelled"],
        must_not=["1 parallel call was cancelled"],
    ),
    Case(
        "two polls of one job are one job",
        4,
        _two_polls(),
        must=["the background job"],
        must_not=["2 background jobs"],
    ),
    Case(
        "grep context lines and pagination are not matches",
        4,
        run("Grep", GREP_CONTEXT, pattern="retry", path="/repo/lib", output_mode="content"),
        must=["found 1 match"],
        must_not=["11 matches", "12 matches", "files matched"],
    ),
    Case(
        "a command that reported a suggestion ran",
        4,
        run("Bash", CREDO, True, command="mix credo --strict"),
        must=["Modules should have a @moduledoc tag"],
        terse=["mix credo"],
        must_not=["couldn't run", "tried to run"],
    ),
    Case(
        "a command run once is not run again",
        4,
        [*run("Bash", "a/ b.txt", command="ls -F"), *run("Read", "x", file_path="/repo/b.txt")],
        must=["ls -F"],
        must_not=["Again", "again"],
    ),
    Case(
        "events are told in their order",
        5,
        [
            *run("Bash", "..........\n10 passed in 0.2s", command="pytest tests/test_a.py"),
            *run(
                "Bash",
                "Exit code 1\nerror: pathspec 'x' did not match",
                True,
                command="git checkout x",
            ),
        ],
        must=["10 tests passed", "pathspec 'x' did not match"],
        before=("tests passed", "pathspec"),
    ),
    Case(
        "a long stretch names its commits and edits",
        5,
        [
            *[event for n in range(4) for event in run("Read", "x", file_path=f"/r/lib/m{n}.ex")],
            *run("Grep", "lib/a.ex:1:x", pattern="defmodule"),
            *run("Edit", "ok", file_path="/r/lib/parser.ex", old_string="a", new_string="b"),
            *run("Bash", "ok", command="mix format"),
            *run("Bash", "[main 1a2b3c4] Parse dates", command="git commit -m 'Parse dates'"),
            *run("Bash", "ok", command="mix compile"),
            *run("Bash", "ok", command="ls lib"),
            *run("Bash", "[main 5d6e7f8] Tests", command="git commit -m 'Add tests'"),
        ],
        must=["parser.ex", "git commit -m 'Parse dates'", "git commit -m 'Add tests'"],
    ),
    Case(
        "no raw tags, internal paths, JSON or enum states",
        6,
        [
            say("Now let's paste in the example code."),
            *run("Read", "x", file_path="/root/.claude/projects/p/tool-results/toolu_01ABC.txt"),
            Event(type="agent_update", agent=AGENT, data={"text": "awaiting_user_input"}),
            *run("deploy", "ok", payload='{"service": "api", "replicas": 3}'),
        ],
        must_not=["toolu_", "awaiting_user_input", "let's", '{"service"', "<"],
    ),
    Case(
        "a stale intention is not told after the act",
        6,
        [
            *run("Bash", "ok", command="bd update spotter-12 --status in_progress"),
            say("Let me mark this task as in progress."),
        ],
        must=["bd update"],
        must_not=["Let me"],
    ),
    Case(
        "a sub-agent's report quotes findings, not filler",
        6,
        run(
            "Task",
            "Now I have all the information I need. The retry loop is in lib/client.ex:42.",
            description="Find the retry loop",
            subagent_type="Explore",
        ),
        must=["lib/client.ex:42"],
        must_not=["all the information I need"],
    ),
    Case(
        "two scripts never elide to the same string",
        7,
        _python_scripts(),
        must=["a.json", "b.json"],
    ),
    Case(
        "an interrupted run does not end with I'm done",
        8,
        [
            user("Start phoenix in background."),
            *run("Bash", "ok", command="mix phx.server"),
            user("[Request interrupted by user]"),
        ],
        must=["interrupted"],
        terse=["interrupted"],
        must_not=["I'm done"],
    ),
    Case(
        "a run cut off mid-turn does not end with I'm done",
        8,
        [user("Run the suite."), call("Bash", command="mix test")],
        must=["mid-turn"],
        must_not=["I'm done", "passed"],
    ),
    Case(
        "terse names its subject",
        9,
        [
            *run("Read", "x", file_path="/repo/lib/a.ex"),
            *run("Read", "y", file_path="/repo/lib/b.ex"),
        ],
        must=["a.ex"],
        terse=["b.ex"],
        must_not=["2 files."],
    ),
    Case(
        "a sub-agent in its own transcript is I",
        10,
        [
            *run("Read", "x", agent="main/a2898e3", file_path="/repo/lib/a.ex"),
            *run("Grep", "lib/a.ex:3:retry", agent="main/a2898e3", pattern="retry"),
        ],
        must=["I "],
        terse=["I "],
        must_not=["a2898e3", "sub-agent"],
    ),
    Case(
        "a sub-agent in the parent is named by its task",
        10,
        [
            *run("Task", "Found it in lib/x.ex.", description="Find the retry loop"),
            *run("Read", "x", agent="main/Find the retry loop", file_path="/repo/lib/x.ex"),
        ],
        must=["Find the retry loop"],
        must_not=["a2898e3", 'The "Find'],
    ),
    Case(
        "an Agent SDK read, its result and a text: the read is told",
        12,
        [*run("Read", "def main(): ...", file_path="src/app.py"), say("Found main.")],
        must=["src/app.py", "Found main"],
        terse=["app.py"],
    ),
    Case(
        "the agent's inference is not told as a fact (shared SWE-agent trajectory)",
        1,
        [
            *run("Bash", "8.2", command="python3 /repo/tests/missing_colon.py"),
            say(
                "The script ran successfully and the output was 8.2, indicating that the "
                "syntax error has been fixed."
            ),
        ],
        must=["missing_colon.py", "8.2"],
        terse=["missing_colon.py"],
        must_not=["fixed"],
    ),
    Case(
        "commands that ran and failed are not told as unrun (shared stream-json)",
        4,
        [
            *run("Bash", 'rm: "/" may not be removed', True, command="rm -rf /"),
            *run("Bash", "(eval):1: division by zero", True, command="echo $((1/0))"),
        ],
        must=["rm -rf /"],
        terse=["rm -rf /"],
        must_not=["couldn't run"],
    ),
    Case(
        "an MCP tool's paragraph of input is not quoted (shared hook log)",
        6,
        [
            *run(
                "mcp__think__sequentialthinking",
                "{}",
                thoughtNumber=3,
                thought="Now let me verify what is in the main branch.\n1. Check it",
            ),
        ],
        must=["sequentialthinking"],
        must_not=["let me", "Let me", "on 3"],
    ),
]
