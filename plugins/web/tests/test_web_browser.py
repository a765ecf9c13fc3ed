"""The page in a real headless browser (Debian's chromium, driven by Playwright)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from web_fixtures import Recording, Server, start_agent


def session_page(server: Server, session_id: str) -> str:
    return server.url(f"/?session={session_id}")


def test_sessions_list_shows_every_recording_newest_first(
    page: Any, serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    from datetime import timedelta

    from web_fixtures import START

    older = recording("OLDER", agent="planner", started=START)
    steps = older.tool_step("Grep", {"pattern": "x"}, "boom", is_error=True)
    older.narrate("I searched for x and it failed.", steps)
    older.add("completion", {"result": None, "is_error": True})
    newer = recording("NEWER", agent="coder", started=START + timedelta(hours=1))
    newer.add("text", {"text": "starting"})

    server = serve()
    page.goto(server.url())
    rows = page.locator("tr.session-row")
    rows.nth(1).wait_for()
    assert [rows.nth(i).get_attribute("data-id") for i in range(2)] == ["NEWER", "OLDER"]
    old_row = page.locator('tr[data-id="OLDER"]')
    assert old_row.locator("td.events").text_content() == "4"
    assert old_row.locator("td.narratives").text_content() == "1"
    assert old_row.locator("td.errors").text_content() == "1"
    assert old_row.locator(".state").text_content() == "failed"
    assert page.locator('tr[data-id="NEWER"] .state').text_content() == "live"


def test_a_live_session_narrates_on_the_page_without_a_reload(
    page: Any, serve: Callable[..., Server], record_dir: Path, tmp_path: Path
) -> None:
    server = serve()
    page.goto(server.url())
    page.evaluate("window.__sameDocument = true")
    go = tmp_path / "go"
    agent = start_agent(record_dir, "6", "--pause", "0.4", "--go", str(go))
    try:
        assert agent.stdout is not None
        session_id = agent.stdout.readline().split()[1]
        row = page.locator(f'tr[data-id="{session_id}"]')
        row.wait_for()
        assert row.locator(".state").text_content() == "live"
        assert page.evaluate("window.__sameDocument") is True

        row.click()
        page.wait_for_url(f"**session={session_id}*")
        page.locator("body[data-caught-up]").wait_for(state="attached")
        page.evaluate("window.__sameDocument = true")
        assert page.locator("#timeline .narrative").count() == 0
        go.touch()
        page.locator("#timeline .narrative").first.wait_for()
        assert agent.poll() is None, "the first narrative should arrive while the agent runs"
        page.locator("#s-state.finished").wait_for()
        assert agent.wait(timeout=20) == 0
    finally:
        agent.kill()
        agent.communicate()
    texts = page.locator("#timeline .narrative .text").all_text_contents()
    assert any("src/config_5.py" in text for text in texts), texts
    assert page.evaluate("window.__sameDocument") is True


def test_a_narrative_expands_to_its_tool_calls_and_results(
    page: Any, serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    rec = recording("EXPAND")
    read = rec.tool_step("Read", {"file_path": "src/retry.py"}, "x" * 5000)
    failed = rec.tool_step("Bash", {"command": "pytest -q"}, "2 failed", is_error=True)
    rec.narrate("I read src/retry.py, then the tests failed.", [*read, *failed])
    rec.add("completion", {"result": None, "is_error": False})
    server = serve()

    page.goto(session_page(server, "EXPAND"))
    narrative = page.locator("#timeline .narrative")
    narrative.locator(".toggle").click()
    covered = narrative.locator(".covered > li")
    assert covered.count() == 4
    inputs = narrative.locator(".covered .tool_call pre.input").all_text_contents()
    assert '"file_path": "src/retry.py"' in inputs[0]
    assert '"command": "pytest -q"' in inputs[1]
    output = narrative.locator(".covered .tool_result pre.output").first.text_content()
    assert output.endswith("…[3000 chars cut]")
    assert narrative.locator(".covered .tool_result.is-error .kind").text_content() == (
        "✗ Bash failed"
    )
    full = narrative.locator(".covered .tool_result a.full").get_attribute("href")
    whole = httpx.get(server.url(full)).json()
    assert whole["data"]["output"] == "x" * 5000


def test_filters_by_agent_and_event_type_and_replay(
    page: Any, serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    rec = recording("FILTERS", agent="lead")
    mine = rec.tool_step("Read", {"file_path": "a.py"}, "a")
    rec.narrate("I read a.py.", mine)
    rec.add("narration_suppressed", {"reason": "gate: nothing new since the last update"})
    theirs = rec.tool_step("Grep", {"pattern": "b"}, "b", agent="lead/Explore")
    rec.add(
        "narrative",
        {
            "text": "Explore searched for b.",
            "narrator": "template",
            "reason": "buffer",
            "covers": [e.id for e in theirs],
        },
        agent="lead/Explore",
    )
    rec.add("completion", {"result": None, "is_error": False})
    server = serve()

    page.goto(session_page(server, "FILTERS"))
    page.locator("#s-state.finished").wait_for()
    timeline = page.locator("#timeline > li")
    assert page.locator("#timeline .silence .text").text_content() == (
        "silent: gate: nothing new since the last update"
    )
    page.select_option("#f-agent", "lead/Explore")
    assert page.locator("#timeline .narrative .text").all_text_contents() == [
        "Explore searched for b."
    ]
    page.select_option("#f-agent", "")
    page.check('#f-types input[value="tool_call"]')
    assert page.locator("#timeline .tool_call").count() == 2
    before = timeline.count()

    page.select_option("#r-speed", "50")
    page.click("#r-start")
    page.locator("body[data-replaying]").wait_for(state="attached")
    page.locator("body:not([data-replaying])").wait_for(state="attached")
    assert timeline.count() == before


def test_a_path_traversal_session_page_gets_404_and_says_so(
    page: Any, serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    recording("INSIDE").add("text", {"text": "fine"})
    server = serve()
    answers: list[int] = []
    page.on("response", lambda r: answers.append(r.status) if "/stream" in r.url else None)
    page.goto(server.url("/?session=..%2F..%2Fetc%2Fpasswd"))
    page.locator("#s-agent", has_text="No such session").wait_for()
    assert answers and set(answers) == {404}
    assert page.request.get(server.url("/api/sessions/..%2Fsessions%2FINSIDE/stream")).status == 404


def test_the_empty_hint_shows_only_while_there_are_no_sessions(
    page: Any, serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    server = serve()
    page.goto(server.url())
    hint = page.locator("#list-empty")
    assert hint.is_visible()
    rec = recording("FIRST")
    rec.add("user_message", {"text": "Fix the   flaky\nretry test in src/retry.py, please"})
    page.locator('tr[data-id="FIRST"]').wait_for()
    hint.wait_for(state="hidden")
    assert not hint.is_visible()
    assert page.locator("#sessions").is_visible()
    rec.path.unlink()
    page.locator('tr[data-id="FIRST"]').wait_for(state="detached")
    hint.wait_for(state="visible")


def test_rows_are_titled_by_their_first_prompt(
    page: Any, serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    from datetime import timedelta

    from web_fixtures import START

    first = recording("A", started=START)
    first.add("user_message", {"text": "<system-reminder>not a prompt</system-reminder>"})
    first.add("user_message", {"text": "Summary", "origin": "compaction"})
    first.add("user_message", {"text": "Make the retry test pass " + "and more " * 20})
    second = recording("B", started=START + timedelta(minutes=1))
    second.add("user_message", {"text": "Write the release notes"})
    recording("C", started=START + timedelta(minutes=2)).add("text", {"text": "no prompt"})
    server = serve()
    page.goto(server.url())
    page.locator("tr.session-row").nth(2).wait_for()
    titles = page.locator("tr.session-row td.title").all_text_contents()
    assert titles[:2] == ["session C", "Write the release notes"]
    assert titles[2].startswith("Make the retry test pass and more")
    assert titles[2].endswith("…") and len(titles[2]) <= 80


def test_the_completion_comes_after_the_final_narrative(
    page: Any, serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    rec = recording("ENDING")
    rec.add("user_message", {"text": "Run the tests"})
    steps = rec.tool_step("Bash", {"command": "pytest"}, "3 passed")
    rec.add("completion", {"result": None, "is_error": False})
    # The narrator's final narrative is recorded after the completion.
    rec.narrate("I ran the tests and they passed.", steps)
    server = serve()
    page.goto(session_page(server, "ENDING"))
    page.locator("#s-state.finished").wait_for()
    kinds = page.locator("#timeline > li").evaluate_all("nodes => nodes.map(n => n.className)")
    assert kinds == ["entry narrative", "entry completion"]
    assert page.locator("#timeline > li").last.text_content().endswith("✓ the session completed")
    page.locator("#s-title", has_text="Run the tests").wait_for()


def test_chapters_fold_their_narratives_and_unknown_types_show_as_data(
    page: Any, serve: Callable[..., Server], recording: Callable[..., Recording]
) -> None:
    rec = recording("CHAPTERS")
    read = rec.tool_step("Read", {"file_path": "a.py"}, "a")
    one = rec.narrate("I read a.py.", read)
    ran = rec.tool_step("Bash", {"command": "make"}, "ok")
    two = rec.narrate("I ran make.", ran)
    heading = rec.add(
        "chapter",
        {
            "title": "Reading and building",
            "summary": "I read the code and built it.",
            "covers": [one.id, *[e.id for e in ran]],
            "reason": "topic change",
        },
    )
    later = rec.narrate("I wrote the notes.", rec.tool_step("Write", {"file_path": "N"}, "ok"))
    rec.add("telemetry_blip", {"weird": [1, {"x": None}]})
    rec.add("completion", {"result": None, "is_error": False})
    server = serve()
    page.goto(session_page(server, "CHAPTERS"))
    page.locator("#s-state.finished").wait_for()
    top = page.locator("#timeline > li")
    assert top.evaluate_all("nodes => nodes.map(n => n.dataset.id)")[:2] == [heading.id, later.id]
    chapter = page.locator("#timeline > li.chapter")
    assert chapter.locator(".chapter-title").text_content().startswith("Reading and building")
    assert chapter.locator(".summary").text_content() == "I read the code and built it."
    body = chapter.locator(".chapter-body")
    assert not body.is_visible()
    assert body.locator("> li").evaluate_all("ns => ns.map(n => n.dataset.id)") == [one.id, two.id]
    chapter.locator(".chapter-title > .toggle").click()
    assert body.is_visible()
    assert body.locator(".narrative .text").all_text_contents() == ["I read a.py.", "I ran make."]
    # A type this page does not know is listed (when chosen) with its data, not an error.
    page.check('#f-types input[value="telemetry_blip"]')
    blip = page.locator("#timeline .telemetry_blip")
    assert blip.locator(".kind").text_content() == "telemetry_blip"
    assert '"weird"' in blip.locator("pre").text_content()
