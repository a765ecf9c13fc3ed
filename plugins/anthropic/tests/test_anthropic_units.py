"""Small pure pieces: model aliases, retry-after parsing, reply cleaning, SSE parsing."""

from __future__ import annotations

import email.utils
import time

import pytest
from monologue_anthropic.models import newest_by_family, resolve_model, sdk_model_ids
from monologue_anthropic.narrator import clean_reply, request_budget
from monologue_anthropic.sse import parse_sse
from monologue_anthropic.transport import get_client, is_retryable, retry_after


def test_newest_by_family_reads_both_naming_schemes() -> None:
    ids = [
        "claude-3-haiku-20240307",
        "claude-3-5-haiku-20241022",
        "claude-3-5-haiku-latest",
        "claude-haiku-4-5-20251001",
        "claude-haiku-4-5",
        "claude-sonnet-4-5-20250929",
        "claude-sonnet-5",
        "claude-opus-4-8",
        "claude-opus-4-10",
        "claude-mythos-preview",
    ]
    assert newest_by_family(ids) == {
        "haiku": "claude-haiku-4-5",
        "sonnet": "claude-sonnet-5",
        "opus": "claude-opus-4-10",
    }


def test_dated_snapshots_lose_to_the_alias_of_the_same_version() -> None:
    assert newest_by_family(["claude-haiku-9-1-20300101", "claude-haiku-9-1"]) == {
        "haiku": "claude-haiku-9-1"
    }
    assert newest_by_family(["claude-haiku-9-1-20300101", "claude-haiku-9-1-20300301"]) == {
        "haiku": "claude-haiku-9-1-20300301"
    }


def test_resolve_model_uses_the_installed_sdk() -> None:
    haiku = resolve_model("haiku")
    known = sdk_model_ids()
    assert haiku in known
    assert resolve_model(" Haiku ") == haiku
    assert resolve_model("claude-3-opus-20240229") == "claude-3-opus-20240229"
    assert "opus" in resolve_model("opus")


@pytest.mark.parametrize(
    ("status", "retried"),
    [
        (429, True),
        (500, True),
        (502, True),
        (503, True),
        (529, True),
        (400, False),
        (401, False),
        (403, False),
        (404, False),
        (408, False),
        (409, False),
        (413, False),
    ],
)
def test_only_429_5xx_and_529_are_retried(status: int, retried: bool) -> None:
    assert is_retryable(status) is retried


def test_retry_after_forms() -> None:
    assert retry_after({"retry-after": "3"}) == 3.0
    assert retry_after({"retry-after": "0.25"}) == 0.25
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({"retry-after": "-4"}) == 0.0
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None
    in_ten = email.utils.formatdate(time.time() + 10, usegmt=True)
    assert 8 <= (retry_after({"retry-after": in_ten}) or 0) <= 10


def test_request_budget_leaves_a_margin_before_the_core_timeout() -> None:
    assert request_budget(1.0) == pytest.approx(0.9)
    assert request_budget(10.0) == pytest.approx(9.5)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ('  "I\'m reading the config."  \n', "I'm reading the config."),
        ("“I'm reading.”", "I'm reading."),
        ("...", "..."),
        ('"..."', "..."),  # a quoted wait is still a wait
        ('I said "hi" to the API', 'I said "hi" to the API'),
    ],
)
def test_clean_reply(raw: str, clean: str) -> None:
    assert clean_reply(raw) == clean


def test_one_client_per_base_url_and_key_shared_by_threads() -> None:
    import threading

    a = get_client("key-1", "http://127.0.0.1:9")
    assert get_client("key-1", "http://127.0.0.1:9") is a
    assert get_client("key-2", "http://127.0.0.1:9") is not a
    assert get_client("key-1", "http://127.0.0.1:10") is not a
    assert a.max_retries == 0  # retries are this plugin's, not the SDK's
    # Narrations run on whichever pool thread is free: they share the connection pool.
    other: list[object] = []
    thread = threading.Thread(
        target=lambda: other.append(get_client("key-1", "http://127.0.0.1:9"))
    )
    thread.start()
    thread.join()
    assert other[0] is a


def test_parse_sse_fields_comments_and_multiline_data() -> None:
    text = ': a comment\nevent: message_start\ndata: {"a":\ndata: 1}\n\nid: 7\n\ndata: no name\n'
    events = list(parse_sse(text.splitlines(keepends=True)))
    assert [(e.name, e.data, e.line) for e in events] == [
        ("message_start", '{"a":\n1}', 3),
        ("message", "no name", 8),
    ]
