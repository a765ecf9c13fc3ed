"""Batches, failures, endings, idle reassurance, history and sub-agents."""

from __future__ import annotations

from datetime import timedelta

from monologue_template.actions import Memory, regroup
from monologue_template.compose import Scene
from template_scenes import AGENT, T0, call, done, event, result, tell, text

PYTEST_FAIL = """\
tests/test_client.py ..F.F
FAILED tests/test_client.py::test_retry_limit - assert 3 == 5
FAILED tests/test_client.py::test_backoff - assert 0.5 == 1.0
========================= 2 failed, 39 passed in 1.20s =========================
"""


def test_several_reads_become_one_sentence_with_the_files() -> None:
    batch = [done("Read", "x", file_path=name) for name in ("a.py", "b.py", "c.py")]
    assert tell(*batch) == "I read 3 files: a.py, b.py and c.py."


def test_many_reads_name_a_few() -> None:
    batch = [done("Read", "x", file_path=f"m{i}.py") for i in range(7)]
    assert tell(*batch) == "I read 7 files, including m0.py, m1.py and m2.py."


def test_a_reused_call_id_keeps_the_actions_in_call_order() -> None:
    # Calls without an id share one: the latest is the action, at its own place.
    first, shell, second = call("Read", file_path="a.py"), call("Bash"), call("Read")
    for unnamed in (first, second):
        del unnamed.data["tool_use_id"]
    actions, _ = regroup([first, shell, second], Memory())
    assert [(action.tool, action.order) for action in actions] == [("Bash", 1), ("Read", 2)]


def test_reading_the_same_file_twice_names_it_once() -> None:
    batch = [done("Read", "x", file_path="a.py"), done("Read", "x", file_path="a.py")]
    assert tell(*batch) == "I read a.py."


def test_edits_across_files_are_counted() -> None:
    batch = [
        done("Edit", "ok", file_path="a.py"),
        done("Edit", "ok", file_path="a.py"),
        done("MultiEdit", "ok", file_path="b.py", edits=[{}, {}]),
    ]
    assert tell(*batch) == "I made 4 edits across 2 files: a.py and b.py."


def test_routine_steps_of_different_kinds_share_one_sentence() -> None:
    batch = [
        done("Glob", "a.py\nb.py", pattern="*.py"),
        done("Read", "x", file_path="a.py"),
        done("Grep", "Found 1 file", pattern="retry"),
    ]
    assert tell(*batch) == (
        'I looked for files matching *.py (found 2), read a.py and searched for "retry" '
        "(1 file matched)."
    )
    more = [*batch, done("LS", "x", path="src"), done("WebSearch", "x", query="httpx retries")]
    assert tell(*more) == (
        'I looked for files matching *.py (found 2), read a.py, searched for "retry" '
        "(1 file matched) and took 2 more steps."
    )
    assert tell(*more, preset="terse") == 'I searched the web for "httpx retries".'
    # One step left over is named, never "took 1 more step".
    four = [*batch, done("LS", "x", path="src")]
    assert tell(*four) == (
        'I looked for files matching *.py (found 2), read a.py, searched for "retry" '
        "(1 file matched) and listed the files in src."
    )


def test_an_mcp_tools_paragraph_of_input_is_not_quoted() -> None:
    """A "thought" is the agent's prose ("Now let me verify..."), not a subject."""
    thought = "Now let me verify what is in the main branch by checking the fixes.\n1. a"
    batch = done("mcp__think__sequentialthinking", "{}", thought=thought, thoughtNumber=3)
    assert tell(batch) == "I used sequentialthinking (think)."


def test_the_test_suite_outcome_is_the_news() -> None:
    said = tell(text("Let me run the tests."), done("Bash", PYTEST_FAIL, True, command="pytest"))
    # "Let me run the tests." is stale once the run is told.
    assert said == "I ran the test suite; 2 of 41 tests failed."


def test_a_green_run_says_all_passed() -> None:
    said = tell(done("Bash", "....\n41 passed in 0.9s", command="python -m pytest -q"))
    assert said == "I ran the test suite; all 41 tests passed."


def test_several_commands_with_a_failure_say_which_failed_and_why() -> None:
    batch = [
        done("Bash", "main", command="git branch --show-current"),
        done("Bash", "cat: x.txt: No such file or directory", True, command="cat x.txt"),
        done("Bash", "", command="ls"),
    ]
    assert tell(*batch) == (
        "I ran `git branch --show-current`, `cat x.txt` and `ls`; 1 failed. "
        "When running `cat x.txt`, I got: cat: x.txt: No such file or directory."
    )


def test_a_single_failure_is_said_plainly() -> None:
    batch = done("Read", "File does not exist.", True, file_path="docs/missing.md")
    assert tell(batch) == "I tried to read docs/missing.md, but it failed: File does not exist."


def test_a_traceback_is_reduced_to_the_exception() -> None:
    trace = 'Traceback (most recent call last):\n  File "x.py", line 1\nImportError: no module y\n'
    batch = done("Bash", trace, True, command="python x.py")
    assert tell(batch) == "I ran `python x.py`, but it failed: ImportError: no module y."


def test_failures_come_before_routine_work_when_there_is_no_room() -> None:
    batch = [
        done("Read", "x", file_path="a.py"),
        done("Grep", "Found 2 files", pattern="x"),
        done("Bash", "Permission denied", True, command="./deploy.sh"),
    ]
    said = tell(*batch)
    assert "I tried to run `./deploy.sh`, but it failed: Permission denied." in said
    assert said.count(". ") == 1


def test_an_error_event_is_reported() -> None:
    said = tell(event("error", message="ConnectionError: the API is down"))
    assert said == "I hit an error: ConnectionError: the API is down."


def test_a_result_is_joined_to_a_call_narrated_earlier() -> None:
    scene = Scene(agent=AGENT)
    running = call("Bash", command="pytest")
    assert tell(running, scene=scene) == "I'm running the test suite."
    finished = result(running, "41 passed in 2.0s")
    assert tell(finished, scene=scene) == "I ran the test suite; all 41 tests passed."
    assert scene.memory.calls == {}


def test_a_result_whose_call_was_never_seen_still_names_the_tool() -> None:
    orphan = event("tool_result", tool_use_id="toolu_x", tool_name="Read", output="x")
    assert tell(orphan) == "I read a file."


def test_the_agents_own_words_introduce_the_work_first() -> None:
    batch = [text("I'll find where the retry limit is set."), call("Grep", pattern="retries")]
    assert tell(*batch, first=True) == (
        "I'll find where the retry limit is set. I'm searching for \"retries\"."
    )


def test_markdown_in_agent_text_is_reduced_to_its_first_sentence() -> None:
    summary = "## Summary\n\n**Fixed** the retry limit in `config.py`. Tests pass.\n- one\n- two"
    assert tell(text(summary)) == "Fixed the retry limit in config.py."


def test_sub_agent_work_is_attributed_to_the_sub_agent() -> None:
    batch = [
        call("Read", agent="researcher", file_path="a.py"),
        text("The limit is set in a.py.", agent="researcher"),
    ]
    assert tell(*batch) == (
        "The researcher agent is reading a.py. The researcher agent says: The limit is set in a.py."
    )


def test_a_sub_agent_named_after_its_task_is_called_by_the_task() -> None:
    batch = done("Read", "x", file_path="a.py")
    for item in batch:
        item.agent = f"{AGENT}/Find the retry limit"
    assert tell(batch) == 'My "Find the retry limit" sub-agent read a.py.'


def test_sub_agent_failures_are_attributed_too() -> None:
    first = call("Bash", agent="tester", command="ls")
    second = call("Bash", agent="tester", command="false")
    batch = [first, result(first, "a"), second, result(second, "exit code 1", True)]
    assert tell(*batch) == (
        "The tester agent ran `ls` and `false`; 1 failed. "
        "When running `false`, the tester agent got: exit code 1."
    )


def test_the_final_narration_says_how_the_run_ended() -> None:
    ending = event("completion", result=None, is_error=False)
    said = tell(done("Read", "x", file_path="a.py"), ending, reason="final", tool_calls=4)
    assert said == "I read a.py. I'm done after 4 tool calls."


def test_a_final_result_is_quoted_briefly() -> None:
    ending = event("completion", result="Raised the retry limit to 5.", is_error=False)
    assert tell(ending, reason="final") == "I'm done: Raised the retry limit to 5."
    ending = event("completion", result="I raised the retry limit to 5.", is_error=False)
    assert tell(ending, reason="final") == "I'm done. I raised the retry limit to 5."


def test_a_run_that_failed_says_why_it_stopped() -> None:
    batch = [
        event("error", message="ValueError: bad config", error_type="ValueError"),
        event("completion", result=None, is_error=True),
    ]
    said = tell(*batch, reason="final", tool_calls=3, tool_errors=1)
    assert said == "I stopped because of an error: ValueError: bad config."


def test_idle_says_what_is_still_running_and_for_how_long() -> None:
    running = call("Bash", command="pytest -q", at=0)
    scene = Scene(agent=AGENT, open_calls=[running], now=T0 + timedelta(seconds=40))
    assert tell(reason="idle", scene=scene) == "Still running the test suite, 40 s so far."
    other = call("Read", file_path="a.py", at=10)
    scene.open_calls.append(other)
    scene.now = T0 + timedelta(minutes=3, seconds=5)
    assert tell(reason="idle", scene=scene) == (
        "Still running the test suite and 1 other step, 3 min 5 s so far."
    )


def test_idle_never_repeats_a_secret_from_the_running_command() -> None:
    running = call("Bash", command="deploy --token=s3cr3t-value-123", at=0)
    scene = Scene(agent=AGENT, open_calls=[running], now=T0 + timedelta(seconds=5))
    said = tell(reason="idle", scene=scene)
    assert "s3cr3t" not in said
    assert said == "Still running `deploy --token=[REDACTED]`, 5 s so far."


def test_idle_without_open_tools_says_how_long_it_has_been_quiet() -> None:
    said = tell(reason="idle", scene=Scene(agent=AGENT, quiet_s=75))
    assert said == "I'm still working; nothing new for 1 min 15 s."


def test_idle_with_buffered_events_narrates_them_too() -> None:
    running = call("Task", description="Audit the tests", at=0)
    scene = Scene(agent=AGENT, open_calls=[running], now=T0 + timedelta(hours=1, minutes=2))
    said = tell(done("Read", "x", file_path="a.py"), reason="idle", scene=scene)
    assert said == (
        'I read a.py. Still waiting for a sub-agent to finish "Audit the tests", 1 h 2 min so far.'
    )


def test_history_keeps_it_from_repeating_itself() -> None:
    running = call("Bash", command="make build")
    assert tell(running, history=["I'm running `make build`."]) == (
        "I'm still running `make build`."
    )
    again = done("Bash", "ok", command="make build")
    earlier = ["I ran `make build`.", "I read a.py."]
    assert tell(again, history=earlier) == "Again, I ran `make build`."
    # Right after the same narration, "Again," alone would read as a stutter.
    assert tell(again, history=["I ran `make build`."]) == (
        "I ran `make build`, the second time in a row."
    )
    twice = ["I ran `make build`.", "Again, I ran `make build`.", "I read a.py."]
    assert tell(again, history=twice) == "Once more, I ran `make build`."


def test_history_turns_a_same_opening_into_next() -> None:
    batch = done("Read", "x", file_path="b.py")
    assert tell(batch, history=["I read a.py."]) == "Next, I read b.py."
    assert tell(batch, history=["I ran `ls`."]) == "I read b.py."


def test_unknown_event_types_are_still_told() -> None:
    said = tell(event("deployment", text="api v2 is live"))
    assert said == "I noted a deployment event: api v2 is live."


def test_thinking_alone_is_told_without_quoting_it() -> None:
    said = tell(event("thinking", text="The secret plan is to rewrite everything"))
    assert said == "I'm thinking it through."


def test_user_messages_and_progress_updates() -> None:
    assert tell(event("user_message", text="please hurry")) == 'You asked me: "please hurry".'
    request = [event("user_message", text="Raise the retry limit"), event("thinking", text="hm")]
    assert tell(*request, first=True) == "You asked me to raise the retry limit."
    update = event("agent_update", message="Indexed the repository", progress=0.4)
    assert tell(update) == "Indexed the repository (40% done)."


def test_an_empty_batch_still_says_something() -> None:
    assert tell() == "I'm still working."


def test_task_results_say_how_the_task_ended() -> None:
    finished = event("agent_result", outcome="success", task_id="T1", notes="Retry limit moved.")
    assert tell(finished) == "I finished task T1: Retry limit moved."
    failed = event(
        "agent_result",
        outcome="failed",
        task_id="T2",
        retrying=True,
        error={"reason": "the API timed out", "retryable": True},
    )
    assert tell(failed) == "I failed task T2: the API timed out; it will be retried."
    assert tell(event("agent_result", outcome="partial")) == "I partly finished."


def test_after_a_digest_a_result_whose_call_was_folded_is_not_counted_again() -> None:
    """The digest counts the folded call: its lone result neither adds to "N commands" nor
    reads as an empty command."""
    orphan = event("tool_result", tool_use_id="toolu_folded", tool_name="Bash", output="x")
    batch = [orphan, *done("Bash", "ok", command="git status"), *done("Bash", "ok", command="ls")]
    said = tell(*batch, after_digest=True)
    assert said == "I ran `git status` and `ls`."
    failed = event("tool_result", tool_use_id="toolu_f2", tool_name="Bash", output="Error",
                   is_error=True)  # fmt: skip
    assert "a command" in tell(failed, *done("Bash", "ok", command="ls"), after_digest=True)


def test_a_sub_agent_without_a_description_is_not_quoted() -> None:
    said = tell(done("Task", "The buffer batches messages."))
    assert said == "I had a sub-agent handle a task; it reported: The buffer batches messages."
