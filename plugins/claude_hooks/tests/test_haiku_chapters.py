"""Chapters written by Claude Haiku when the session narrates with monologue-anthropic: the
real ``anthropic`` SDK against the loopback Messages API server, and the offline chapter
kept (and marked) on every failure."""

from __future__ import annotations

import json
import logging
import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from monologue_claude_hooks.chapters import prompt_title
from monologue_claude_hooks.haiku import HaikuChapter
from pytest_monologue import PluginSandbox
from pytest_monologue.anthropic import LoopbackAPI, RecordedRequest, Reply

from monologue import hookimpl
from monologue.events import Event

PROMPT = "Fix the failing retry test in config.py please"
OFFLINE_TITLE = prompt_title(PROMPT)


class Chapters:
    """Keeps the chapter events, as a reader would see them."""

    def __init__(self) -> None:
        self.seen: list[Event] = []

    @hookimpl
    def on_event(self, session: Any, event: Event) -> None:
        if event.type == "chapter":
            self.seen.append(event)


class ChapterAPI:
    """The loopback server's answers: scripted ones for chapter requests, a wait ("...")
    for every narration request, so the two never take each other's replies."""

    def __init__(self, api: LoopbackAPI) -> None:
        self.api = api
        self.replies: deque[Reply] = deque()
        api.responder = self._answer

    def _answer(self, request: RecordedRequest) -> Reply:
        if self.is_chapter(request):
            return self.replies.popleft()
        return Reply.ok("...")

    @staticmethod
    def is_chapter(request: RecordedRequest) -> bool:
        return "chapter headings" in json.dumps((request.body or {}).get("system"))

    @property
    def chapter_requests(self) -> list[RecordedRequest]:
        return [r for r in self.api.requests if self.is_chapter(r)]


@pytest.fixture
def chapter_api(monologue_plugins: PluginSandbox, loopback_api: LoopbackAPI) -> ChapterAPI:
    monologue_plugins.load("anthropic", "check", "claude_hooks")
    return ChapterAPI(loopback_api)


def chapter_of(
    sandbox: PluginSandbox, prompt: str = PROMPT, narrator: str = "anthropic", **config: Any
) -> Event:
    chapters = Chapters()
    sandbox.register(chapters, "chapters")
    # A deadline no busy test machine misses, unless the test is about the deadline.
    config.setdefault("chapter_timeout_s", 30)
    with sandbox.session("claude", narrator=narrator, **config) as session:
        session.dispatch(session.make_event("user_message", {"text": prompt, "origin": "user"}))
        session.wait_idle(30)
    (chapter,) = chapters.seen
    return chapter


def answer(title: str, summary: str) -> Reply:
    return Reply.ok(json.dumps({"title": title, "summary": summary}))


def test_haiku_writes_the_chapter_and_its_claims_are_checked(
    monologue_plugins: PluginSandbox, chapter_api: ChapterAPI
) -> None:
    chapter_api.replies.append(
        answer("Fixing the retry test", "You asked me to fix the retry test in config.py.")
    )

    chapter = chapter_of(monologue_plugins)

    assert chapter.data["writer"] == "haiku"
    assert chapter.data["title"] == "Fixing the retry test"
    assert chapter.data["summary"] == "You asked me to fix the retry test in config.py."
    assert chapter.data["reason"] == "prompt"
    assert chapter.data.get("fallback") is None
    (request,) = chapter_api.chapter_requests
    body = request.body or {}
    assert str(body["model"]).startswith("claude-haiku")
    assert PROMPT in body["messages"][0]["content"]
    assert OFFLINE_TITLE in body["messages"][0]["content"]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (Reply.ok("Here is your chapter: Fixing the retry test"), "invalid answer"),
        (answer("Fixing the retry test", "One.\nTwo."), "summary: must be one line"),
        (
            answer("Fixing the failing retry test in the config module", "You asked me to."),
            "title: has 9 words, not 3 to 6",
        ),
        (Reply.error(500, "overloaded"), "no answer from Haiku"),
        (
            answer("Fixing the retry test", "I fixed config.py and all 12 tests passed."),
            "false claims",
        ),
        (
            answer("Fixing the retry test", "You asked me to fix the retry test in client.py."),
            "false claims",
        ),
    ],
    ids=["not-json", "two-lines", "title-too-long", "api-error", "false-outcome", "false-file"],
)
def test_a_bad_answer_keeps_the_offline_chapter(
    monologue_plugins: PluginSandbox,
    chapter_api: ChapterAPI,
    caplog: pytest.LogCaptureFixture,
    reply: Reply,
    why: str,
) -> None:
    chapter_api.replies.append(reply)

    with caplog.at_level(logging.WARNING, logger="monologue.claude_hooks"):
        chapter = chapter_of(monologue_plugins, anthropic_max_retries=0)

    assert chapter.data["writer"] == "offline"
    assert chapter.data["title"] == OFFLINE_TITLE
    assert chapter.data["summary"] == f'You asked: "{PROMPT}"'
    assert why in chapter.data["fallback"]
    assert any("offline chapter" in r.message and why in r.message for r in caplog.records)
    assert len(chapter_api.chapter_requests) == 1


def test_no_answer_by_the_deadline_keeps_the_offline_chapter_in_time(
    monologue_plugins: PluginSandbox, chapter_api: ChapterAPI
) -> None:
    chapter_api.replies.append(
        Reply(text='{"title": "Too late for this", "summary": "x"}', delay_s=5)
    )
    started = time.monotonic()

    chapter = chapter_of(monologue_plugins, chapter_timeout_s=0.5)

    assert time.monotonic() - started < 4
    assert chapter.data["writer"] == "offline"
    assert chapter.data["title"] == OFFLINE_TITLE
    assert "no answer from Haiku within chapter_timeout_s" in chapter.data["fallback"]


def test_the_template_narrator_asks_no_one(
    monologue_plugins: PluginSandbox, chapter_api: ChapterAPI
) -> None:
    monologue_plugins.load("template")

    chapter = chapter_of(monologue_plugins, narrator="template")

    assert chapter.data["writer"] == "offline"
    assert chapter.data.get("fallback") is None
    assert chapter_api.api.requests == []


@pytest.mark.parametrize(
    ("raw", "valid"),
    [
        ('{"title": "Three short words", "summary": "One line."}', True),
        ('{"title": "Six words is the very limit", "summary": "One line."}', True),
        ('{"title": "Two words", "summary": "One line."}', False),
        ('{"title": "Three short words", "summary": ""}', False),
        ('{"title": "Three short words", "summary": "x", "extra": 1}', False),
        ('{"title": "Three short words"}', False),
    ],
)
def test_the_answer_format_is_strict(raw: str, valid: bool) -> None:
    try:
        HaikuChapter.model_validate_json(raw)
    except ValueError:
        assert not valid
    else:
        assert valid


def test_any_other_failure_keeps_the_offline_chapter_too(
    monologue_plugins: PluginSandbox, chapter_api: ChapterAPI, tmp_path: Path
) -> None:
    # A user's prompts_dir whose chapter template does not even parse.
    (tmp_path / "chapter.md").write_text("<!-- part: system -->\n{% if %}\n")

    chapter = chapter_of(monologue_plugins, prompts_dir=str(tmp_path))

    assert chapter.data["writer"] == "offline"
    assert chapter.data["title"] == OFFLINE_TITLE
    assert chapter.data["fallback"].startswith("TemplateSyntaxError")
    assert chapter_api.chapter_requests == []
