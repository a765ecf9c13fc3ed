from __future__ import annotations

import pytest

from monologue import Event
from monologue.digest import as_text, digest_events, salient_input, truncate
from monologue.redact import REDACTED, redact, redact_text

SECRETS = [
    ("export ANTHROPIC_API_KEY=sk-ant-api03-AbCdEf0123456789xyz", "sk-ant-api03"),
    ("key sk-proj-abcdefghijklmnopqrstuvwx1234", "sk-proj-abcdefghij"),
    ('curl -H "Authorization: Bearer eyJhbGciOi.abc.def" https://x', "eyJhbGciOi"),
    ("Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
    ("bearer abc123.def456", "abc123.def456"),
    ('{"password": "hunter2", "user": "bob"}', "hunter2"),
    ("DB_PASSWORD=hunter2 other=1", "hunter2"),
    ("login --password s3cr3t --user bob", "s3cr3t"),
    ("client_secret: zzzyyyxxx", "zzzyyyxxx"),
    ("postgres://bob:pa55word@db.internal:5432/app", "pa55word"),
    ("token ghp_0123456789abcdefghijABCDEFGHIJ012345 pushed", "ghp_0123456789"),
    ("aws AKIAABCDEFGHIJKLMNOP ok", "AKIAABCDEFGHIJKLMNOP"),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXk",
    ),
]


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_secrets_are_redacted(text, secret):
    cleaned = redact_text(text)
    assert secret not in cleaned
    assert REDACTED in cleaned


@pytest.mark.parametrize(
    "text",
    [
        "the key point is speed",
        "tokens used: 5",
        "I read the password policy doc",
        "https://example.com/a",
    ],
)
def test_ordinary_text_is_left_alone(text):
    assert redact_text(text) == text


def test_structured_values_under_secret_keys_are_replaced_whole():
    value = {
        "api_key": "abc",
        "headers": {"Authorization": "Basic zzz", "Accept": "json"},
        "items": [{"password": 1234}, "Bearer tok.en"],
        "max_tokens": 5,
        "empty_token": "",
    }
    assert redact(value) == {
        "api_key": REDACTED,
        "headers": {"Authorization": REDACTED, "Accept": "json"},
        "items": [{"password": REDACTED}, f"Bearer {REDACTED}"],
        "max_tokens": 5,
        "empty_token": "",
    }


def test_truncate_keeps_head_and_tail_and_says_how_much_went():
    text = "A" * 100 + "B" * 100
    short = truncate(text, 50)
    assert short.startswith("A" * 33)
    assert short.endswith("B" * 16)
    assert "[151 chars cut]" in short
    assert truncate("short", 50) == "short"
    assert truncate("anything", 0) == ""


def test_salient_input_prefers_paths_commands_queries():
    assert salient_input({"file_path": "src/a.py", "limit": 20}) == "file_path=src/a.py"
    assert (
        salient_input({"command": "pytest  -q\ntests", "timeout": 5}) == "command=pytest -q tests"
    )
    assert salient_input({"weird": "value", "n": 2, "flag": None}) == "weird=value, n=2"
    assert salient_input({"command": "curl -H 'Authorization: Bearer xyz'"}).count("xyz") == 0
    assert salient_input({}) == ""


def test_as_text_flattens_content_blocks():
    blocks = [{"type": "text", "text": "line one"}, {"type": "image", "source": {}}, "tail"]
    assert as_text(blocks) == "line one\n[image]\ntail"
    assert as_text({"a": 1}) == '{"a": 1}'
    assert as_text(None) == ""


def test_digest_joins_results_to_calls_and_redacts():
    events = [
        Event(
            type="tool_call",
            agent="coder",
            data={"tool_name": "Bash", "tool_use_id": "t1", "input": {"command": "env"}},
        ),
        Event(
            type="tool_result",
            agent="coder",
            data={
                "tool_use_id": "t1",
                "is_error": True,
                "output": "SECRET_TOKEN=abc\n" + "x" * 2000,
            },
        ),
        Event(type="text", agent="coder/explore", data={"text": "Found it."}),
        Event(type="completion", agent="coder", data={"result": "done", "is_error": False}),
    ]
    digests = digest_events(events, output_limit=100)
    assert digests[1].tool == "Bash"
    assert digests[1].is_error
    assert "abc" not in digests[1].output
    assert len(digests[1].output) < 140
    assert digests[0].line("coder") == "called Bash: command=env"
    assert digests[1].line("coder").startswith("ERROR from Bash: SECRET_TOKEN=[REDACTED]")
    assert digests[2].line("coder") == "text (from coder/explore): Found it."
    assert digests[3].line("coder") == "finished: done"
