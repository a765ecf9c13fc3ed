"""The redaction corpus: secret forms that must be caught, and look-alikes that must not be
touched. Both lists grow together: a pattern that catches a new secret form must leave every
look-alike here alone."""

from __future__ import annotations

import json

import pytest

from monologue.redact import REDACTED, is_secret_key, may_contain_secret, redact, redact_text

# (text, the secret that must not survive)
SECRET_FORMS = [
    # prose
    ("my password is hunter2", "hunter2"),
    ("The password was Tr0ub4dor&3 yesterday", "Tr0ub4dor&3"),
    ("passwd x9Q2kLm", "x9Q2kLm"),
    ("the api key is 7f3e9c1a2b4d", "7f3e9c1a2b4d"),
    ("your pin is 4821", "4821"),
    ("token: abc123def456", "abc123def456"),
    ("the token is 'zz99yy88xx77'", "zz99yy88xx77"),
    ("Secret = swordfish", "swordfish"),
    # key=value and environment forms
    ("pw=hunter2", "hunter2"),
    ("PW: hunter2", "hunter2"),
    ("DB_PASS=hunter2 ./run", "hunter2"),
    ("export GITHUB_TOKEN=abcdef123456", "abcdef123456"),
    ("DB_PASSWORD=hunter2 other=1", "hunter2"),
    ("client_secret: zzzyyyxxx", "zzzyyyxxx"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("SMTP_PWD=mailpass99", "mailpass99"),
    # JSON
    ('{"pass": "hunter2"}', "hunter2"),
    ('{"password": "hunter2", "user": "bob"}', "hunter2"),
    ('{"api_key": "k-123456789"}', "k-123456789"),
    ('{"db_pw": "s3cret"}', "s3cret"),
    ('{"refresh_token": "rt-998877"}', "rt-998877"),
    # command-line forms
    ("mysql -u root -phunter2 app", "hunter2"),
    ("mysqldump -h db -u admin -pS3cr3t! prod > dump.sql", "S3cr3t!"),
    ("login --password s3cr3t --user bob", "s3cr3t"),
    ("psql --db-password=letmein", "letmein"),
    ("deploy --token tkn_998877", "tkn_998877"),
    ("cli --api-key abcdef0123", "abcdef0123"),
    # headers and URLs
    ('curl -H "Authorization: Bearer eyJhbGciOi.abc.def" https://x', "eyJhbGciOi"),
    ("Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
    ("bearer abc123.def456", "abc123.def456"),
    ("postgres://bob:pa55word@db.internal:5432/app", "pa55word"),
    ("https://user:hunter22@example.com/repo.git", "hunter22"),
    # vendor formats
    ("export ANTHROPIC_API_KEY=sk-ant-api03-AbCdEf0123456789xyz", "sk-ant-api03"),
    ("key sk-proj-abcdefghijklmnopqrstuvwx1234", "sk-proj-abcdefghij"),
    ("token ghp_0123456789abcdefghijABCDEFGHIJ012345 pushed", "ghp_0123456789"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_11ABC"),
    ("glpat-xK9mQ2vL7nR4tY8wZ1aB", "glpat-xK9mQ2vL7nR4tY8wZ1aB"),
    ("maps key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY ok", "AIzaSyD-9tSrke72"),
    ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc charged", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("rk_live_51H8abcdefghijklmnopqrst", "rk_live_51H8abcdefghijklmnopqrst"),
    ("aws AKIAABCDEFGHIJKLMNOP ok", "AKIAABCDEFGHIJKLMNOP"),
    ("slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-1234567"),
    (
        "sendgrid SG.aaaaaaaaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb done",
        "SG.aaaaaaaaaaaaaaaaaaaaaa",
    ),
    ("//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdef"),
    ("pypi-AgEIcHlwaS5vcmc" + "A" * 70, "pypi-AgEIcHlwaS5vcmc"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "eyJzdWIi"),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXk",
    ),
]

LOOK_ALIKES = [
    "the key point is speed",
    "tokens used: 5",
    "I read the password policy doc",
    "https://example.com/a",
    "the password is required",
    "the password is not set",
    "your token is invalid",
    "the token was expired",
    "password is empty",
    "41 passed, 2 failed in 3.2s",
    "all tests pass",
    "bypass=true",
    "compass: north",
    "passwd file",
    "edit /etc/passwd",
    "max_tokens=1024",
    "input_tokens: 439",
    "--password-file ./secrets.txt is read",
    "mysql -u root app < schema.sql",
    "mysql --port 3306 -h db",
    "git commit -m 'fix: token parsing'",
    "commit 3f9a2c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "toolu_01ABCdefGHIjklMNOpqrSTU",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "I edited src/auth/token_store.py",
    "def check_password(user, candidate):",
    "secrets.token_hex(16)",
    "the secret sauce is good",
    "ask the user for their password",
    "pytest -q tests/test_passwords.py",
    "ls -la /home/user/project",
    "curl https://api.example.com/v1/items?page=2",
    "SELECT * FROM users WHERE id = 4",
    "sk-learn is a nickname for scikit-learn",
    "AIza is how Google keys start",
    "price_live_total = 12",
    "accountKeyName=main",
    "the pin was moved to the left",
    "api key is missing from the config",
    "http://localhost:8080/health",
    "Mapping(password_hash, salt)",
]


def test_the_corpus_is_large_enough():
    assert len(SECRET_FORMS) >= 40
    assert len(LOOK_ALIKES) >= 40


@pytest.mark.parametrize(("text", "secret"), SECRET_FORMS, ids=[s for s, _ in SECRET_FORMS])
def test_secret_forms_are_redacted(text, secret):
    cleaned = redact_text(text)
    assert secret not in cleaned, cleaned
    assert REDACTED in cleaned


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_untouched(text):
    assert redact_text(text) == text


@pytest.mark.parametrize(("text", "secret"), SECRET_FORMS[:20])
def test_secrets_inside_json_documents_are_redacted(text, secret):
    # A secret that arrives inside a JSON-encoded tool output is caught in its encoded form.
    encoded = json.dumps({"output": text})
    assert secret not in redact_text(encoded)


def test_every_secret_form_passes_the_pre_check():
    # The pre-check must never let a known secret through unexamined.
    for text, _ in SECRET_FORMS:
        assert may_contain_secret(text), text


@pytest.mark.parametrize("key", ["pass", "DB_PASS", "db-pw", "pw", "password", "x_api_key"])
def test_secret_keys(key):
    assert is_secret_key(key)
    assert redact({key: "hunter2"}) == {key: REDACTED}


@pytest.mark.parametrize(
    "key", ["bypass", "compass", "max_tokens", "password_policy_url", "pwd_dir"]
)
def test_keys_that_only_look_secret(key):
    assert not is_secret_key(key)


def test_ids_that_look_like_a_key_by_chance_are_kept_and_pass_the_pre_check():
    # An uppercase ULID holding "A3T" or "ACCA" then 16 of [0-9A-Z] matches detect-secrets'
    # AWS pattern; one holding "EYJ" lower-cases to the JWT trigger. Ids must stay exact.
    ids = ["01JA3TXQ7K2M4N6P8R0S2T4V6W", "01JACCA7K2M4N6P8R0S2T4V6WX", "01JEYJ7K2M4N6P8R0S2T4V6W"]
    assert redact_text(ids[0]) != ids[0]  # the detector alone would cut it
    payload = {"text": "I ran the tests.", "covers": ids, "tool_use_id": ids[0]}
    assert redact(payload) == payload
    assert not may_contain_secret(json.dumps(ids[2]))
    leaked = {"covers": ids, "text": "password is hunter2"}
    assert redact(leaked) == {"covers": ids, "text": f"password is {REDACTED}"}
