"""The Haiku narrator is told what the results show, so it never infers an outcome: read
from the requests the loopback server received through the real SDK."""

from __future__ import annotations

from pytest_monologue import PluginSandbox
from pytest_monologue.anthropic import LoopbackAPI, RecordedRequest

CANCELLED = "<tool_use_error>Sibling tool call errored</tool_use_error>"


def outcomes_section(request: RecordedRequest) -> str:
    text = request.user_text
    start = text.index("What these events' results show")
    return text[start:]


def test_background_pending_and_cancelled_calls_are_precomputed_facts(
    monologue_plugins: PluginSandbox, anthropic_narrator: LoopbackAPI
) -> None:
    with monologue_plugins.session("coder", max_buffer_size=50, min_buffer_size=50) as session:
        job = session.tool_call("Bash", {"command": "mix test", "run_in_background": True})
        session.tool_result(job.data["tool_use_id"], "Command running in background with ID: b1")
        reads = [session.tool_call("Read", {"file_path": f"{n}.ex"}) for n in ("gone", "a", "b")]
        session.tool_result(reads[0].data["tool_use_id"], "File does not exist.", is_error=True)
        for read in reads[1:]:
            session.tool_result(read.data["tool_use_id"], CANCELLED, is_error=True)
        session.tool_call("Bash", {"command": "mix compile"})
        session.user_message("[Request interrupted by user]")

    (request,) = anthropic_narrator.requests
    facts = outcomes_section(request)
    assert "Bash (command=mix test) was only started in the background" in facts
    assert "never that it passed" in facts
    assert "Read (file_path=gone.ex) failed." in facts
    assert "2 parallel call(s) were cancelled because Read (file_path=gone.ex) failed" in facts
    assert "Bash (command=mix compile) is still running: no result yet" in facts
    assert "The user interrupted the agent." in facts
    assert facts.count("cancelled") == 1


def test_a_plain_batch_gets_no_outcomes_section(
    monologue_plugins: PluginSandbox, anthropic_narrator: LoopbackAPI
) -> None:
    with monologue_plugins.session("coder", max_buffer_size=2, min_buffer_size=1) as session:
        call = session.tool_call("Read", {"file_path": "README.md"})
        session.tool_result(call.data["tool_use_id"], "# monologue")
        assert session.wait_idle(timeout=10)

    assert "What these events' results show" not in anthropic_narrator.requests[0].user_text


def test_no_line_break_escaped_or_not_reaches_the_prompt(
    monologue_plugins: PluginSandbox, anthropic_narrator: LoopbackAPI
) -> None:
    with monologue_plugins.session("coder", max_buffer_size=2, min_buffer_size=1) as session:
        call = session.tool_call("Bash", {"command": 'printf "a\\nb\\n"'})
        session.tool_result(call.data["tool_use_id"], 'a\nb\n["x\\ny"]')
        assert session.wait_idle(timeout=10)

    text = anthropic_narrator.requests[0].user_text
    events = text[text.index("<events>") : text.index("</events>")]
    assert "\\n" not in events
    assert 'called Bash: command=printf "a b "' in events
