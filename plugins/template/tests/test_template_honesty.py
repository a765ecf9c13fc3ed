"""Outcomes only when a result shows them: background jobs, pending calls, cancelled siblings,
declined calls and interruptions; housekeeping tools as plain actions."""

from __future__ import annotations

import pytest
from monologue_template.compose import Scene
from monologue_template.wording import skeleton
from template_scenes import AGENT, call, done, event, result, tell

CANCELLED = "<tool_use_error>Sibling tool call errored</tool_use_error>"
MISSING = "File does not exist."


def test_a_test_run_sent_to_the_background_has_started_not_passed() -> None:
    flagged = done(
        "Bash",
        "Command running in background with ID: bash_1",
        command="mix test",
        run_in_background=True,
    )
    said = tell(flagged)
    assert said == "I started `mix test` in the background."
    # Claude Code may background a command itself: the result alone says so.
    unflagged = done("Bash", "Command running in background with ID: b7636e2", command="pytest")
    assert tell(unflagged) == "I started `pytest` in the background."
    for text in (said, tell(unflagged), tell(unflagged, preset="terse")):
        assert "pass" not in text and "ran" not in text.split()


def test_a_call_without_its_result_is_running() -> None:
    assert tell(call("Bash", command="pytest -q")) == "I'm running the test suite."
    assert "passed" not in tell(call("Bash", command="pytest -q"), preset="terse")


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("<status>running</status>", "I checked the background job; it is still running."),
        (
            "<status>completed</status><exit_code>0</exit_code><output>41 passed</output>",
            "I checked the background job; it finished: all 41 tests passed.",
        ),
        (
            "<status>completed</status><exit_code>2</exit_code>",
            "I checked the background job; it exited with code 2.",
        ),
    ],
)
def test_checking_a_background_job_says_what_its_output_shows(output: str, expected: str) -> None:
    for tool in ("TaskOutput", "BashOutput"):
        said = tell(done(tool, output, task_id="b7636e2"))
        assert said == expected and tool not in said and "b7636e2" not in said


def test_cancelled_siblings_are_told_once_with_their_cause() -> None:
    failing = call("Read", file_path="missing.py")
    siblings = [call("Read", file_path=name) for name in ("a.py", "b.py", "c.py")]
    batch = [failing, *siblings, result(failing, MISSING, True)]
    batch += [result(siblings[0], CANCELLED, True), result(siblings[1], CANCELLED, True)]
    scene = Scene(agent=AGENT)

    said = tell(*batch, scene=scene)

    assert said == (
        "I tried to read missing.py, but it failed: File does not exist. "
        "Reading missing.py failed, so 2 parallel calls were cancelled: read a.py and read b.py."
    )
    assert "all 3 failed" not in said and "Sibling" not in said
    # The last cancellation comes later: already told, so nothing new to say yet.
    assert tell(result(siblings[2], CANCELLED, True), scene=scene) == (
        "In all, 3 parallel calls were cancelled after reading missing.py failed."
    )
    # ...but the end of the run is always told, the waited-on call counted once.
    scene.tool_calls, scene.tool_errors = 4, 4
    ending = tell(result(siblings[2], CANCELLED, True), reason="final", scene=scene)
    assert ending == "I'm done after 4 tool calls, of which 1 failed and 3 were cancelled."
    scene.preset = "terse"
    assert tell(event("completion", result=""), scene=scene) == (
        "I'm done after 4 tool calls; 1 failed, 3 cancelled."
    )


def test_cancelled_siblings_in_a_later_batch_name_the_earlier_failure() -> None:
    scene = Scene(agent=AGENT)
    failing, sibling = call("Bash", command="cat nope"), call("Read", file_path="a.py")
    tell(failing, sibling, result(failing, "cat: nope: No such file", True), scene=scene)

    said = tell(result(sibling, CANCELLED, True), scene=scene)

    assert said == "Running `cat nope` failed, so 1 parallel call was cancelled: read a.py."


def test_a_declined_call_and_an_interruption_are_the_users() -> None:
    declined = done(
        "Glob",
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        True,
        pattern="mix.exs",
    )
    assert tell(declined) == "I wanted to look for files matching mix.exs, but you declined."
    stop = event("user_message", text="[Request interrupted by user]")
    assert tell(stop) == "You interrupted me."
    assert tell(stop, preset="terse") == "You interrupted me."


@pytest.mark.parametrize(
    ("tool", "tool_input", "expected"),
    [
        ("ExitPlanMode", {"plan": "1. fix\n2. test"}, "I finished planning."),
        ("EnterPlanMode", {}, "I started planning."),
        ("TodoWrite", {"todos": []}, "I updated my task list."),
        ("TaskList", {}, "I checked my task list."),
        ("KillShell", {"shell_id": "b7636e2"}, "I stopped the background job."),
        ("StructuredOutput", {"tasks": []}, "I gave my structured answer."),
        ("LSP", {"operation": "hover"}, "I queried the language server."),
        ("Skill", {"skill": "pdf"}, 'I used the "pdf" skill.'),
        ("SlashCommand", {"command": "/review now"}, "I ran the `/review` command."),
        (
            "AskUserQuestion",
            {"questions": [{"question": "Which database?"}]},
            'I asked you "Which database?".',
        ),
    ],
)
def test_housekeeping_tools_are_plain_actions(
    tool: str, tool_input: dict[str, object], expected: str
) -> None:
    said = tell(done(tool, "ok", **tool_input))
    assert said == expected
    assert tool not in said and "used" not in said.replace("used the", "")


def test_long_commands_keep_what_tells_them_apart() -> None:
    first = call("Bash", command="ls -la /home/user/projects/spotter/lib/spotter_web")
    second = call("Bash", command="ls -la /home/user/projects/spotter/test/support")
    for preset in ("terse", "default"):
        one, two = tell(first, preset=preset), tell(second, preset=preset)
        assert one != two, preset
    assert tell(first, preset="terse") == "I'm running `ls -la …/lib/spotter_web`."
    long = "docker compose -f deploy/docker-compose.prod.yml up --build api worker"
    assert tell(call("Bash", command=long), preset="terse") == (
        "I'm running `docker compose … api worker`."
    )


def test_no_literal_line_breaks_reach_a_narrative() -> None:
    said = tell(done("Bash", "a\\nb", command='printf "a\\nb\\n" > out.txt'))
    assert "\\n" not in said and "\n" not in said
    said = tell(event("text", text="Line one\\nline two of what I said."))
    assert "\\n" not in said


def test_a_narration_never_reads_like_the_one_before() -> None:
    scene = Scene(agent=AGENT)
    first = tell(done("Read", "x", file_path="src/a.py"), scene=scene)
    scene.history.append(first)
    second = tell(done("Read", "x", file_path="src/b.py"), scene=scene)
    assert skeleton(first) != skeleton(second)
    assert "src/b.py" in second


def test_terse_names_the_subject_over_the_agents_chatter() -> None:
    batch = [event("text", text="Let me look around first."), *done("Read", "x", file_path="a.py")]
    assert tell(*batch, preset="terse", first=True) == "I read a.py."
    ending = [*done("Bash", "ok", command="make build"), event("completion", result="")]
    assert tell(*ending, preset="terse") == "I'm done; last, I ran `make build`."


def test_a_subagent_alone_introduces_itself_and_a_compaction_is_told_as_such() -> None:
    task = event("subagent_task", name="Explore", text="Find every caller of load_config.")
    assert tell(task, *done("Grep", "src/cli.py", pattern="load_config"), first=True) == (
        'I\'m the "Explore" sub-agent; I was asked: "Find every caller of load_config". '
        'I searched for "load_config"; 1 file matched.'
    )
    compacted = event("compaction", text="The user asked for a rename. Details follow.")
    assert tell(compacted) == "(The conversation was compacted.)"


def test_a_sub_agent_sent_to_the_background_has_started_not_reported() -> None:
    launched = "Async agent launched successfully.\nagentId: a5c2 (internal ID)"
    said = tell(done("Task", launched, description="Audit deps", run_in_background=True))
    assert said == 'I started a sub-agent on "Audit deps" in the background.'
    assert "reported" not in said and "handle" not in said


def test_a_slash_command_the_user_ran_is_named_as_a_command() -> None:
    typed = "<command-name>/mcp</command-name>\n<command-message>mcp</command-message>"
    said = tell(event("user_message", text=typed, origin="command_output"), preset="terse")
    assert said == "You ran the `/mcp` command."


def test_terse_last_names_the_latest_step_not_the_first_of_its_group() -> None:
    batch = [
        *done("Bash", "ok", command="make build"),
        *done("Read", "x", file_path="a.py"),
        *done("Bash", "ok", command="npm ci"),
        *done("Bash", "ok", command="git push"),
        event("completion", result=""),
    ]
    assert tell(*batch, preset="terse", reason="final") == "I'm done; last, I ran `git push`."


def test_terse_tells_an_interruption_with_the_step_it_cut_short() -> None:
    batch = [
        *done("Bash", "ok", command="make build"),
        *done("Bash", "ok", command="tail -5 server.log"),
        event("user_message", text="[Request interrupted by user]"),
    ]
    said = tell(*batch, preset="terse")
    assert said == "You interrupted me; last, I ran `tail -5 server.log`."
