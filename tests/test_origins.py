"""monologue.origins: a user-role text is told apart from what a host injected."""

from __future__ import annotations

import pytest

from monologue.origins import ORIGINS, prompt_origin, queued_user_text, task_notice

NOTICE = (
    "<task-notification>\n<task-id>w8ktdxi8m</task-id>\n<tool-use-id>toolu_01</tool-use-id>\n"
    "<output-file>/tmp/w8ktdxi8m.output</output-file>\n<status>completed</status>\n"
    '<summary>Dynamic workflow "review the diff" completed</summary>\n'
    "<result><status>failed</status> quoted by the job</result>\n</task-notification>"
)


@pytest.mark.parametrize(
    ("text", "origin"),
    [
        ("check again", "user"),
        ("new beads for the epic were added. tackle them", "user"),
        (
            "This session is being continued from a previous conversation that ran out of "
            "context. The conversation is summarized below:",
            "compaction",
        ),
        (NOTICE, "task_notification"),
        ("<command-name>/status</command-name>", "command_output"),
        ("<local-command-stdout>Status: ok</local-command-stdout>", "command_output"),
        (
            "  <system-reminder>The TodoWrite tool hasn't been used</system-reminder>",
            "system_reminder",
        ),
        ("Stop hook feedback:\nYou MUST call the StructuredOutput tool", "system_reminder"),
        (
            "<system-reminder>\nThe user sent the following message:\ncheck again\n\n"
            "Please address this message and continue with your tasks.\n</system-reminder>",
            "user",
        ),
    ],
)
def test_prompt_origin(text: str, origin: str) -> None:
    assert prompt_origin(text) == origin
    assert origin in ORIGINS


def test_a_relayed_message_is_the_users_words() -> None:
    relayed = (
        "<system-reminder>\nThe user sent the following message:\ncheck again\n\n"
        "Please address this message and continue with your tasks.\n</system-reminder>"
    )
    assert queued_user_text(relayed) == "check again"
    assert queued_user_text("<system-reminder>Todo list is empty</system-reminder>") is None


def test_a_task_notice_gives_the_jobs_facts_not_its_outputs() -> None:
    assert task_notice(NOTICE) == {
        "id": "w8ktdxi8m",
        "tool_use_id": "toolu_01",
        "status": "completed",
        "summary": 'Dynamic workflow "review the diff" completed',
    }
    assert task_notice("check again") is None
