"""The redaction corpus: secret forms that must be caught, and look-alikes that must not be
touched. Both lists grow together: a pattern that catches a new secret form must leave every
look-alike here alone."""

from __future__ import annotations

import json
import random

import pytest

from monologue.redact import (
    _TRIGGERS,
    REDACTED,
    _ascii_triggers,
    is_secret_key,
    may_contain_secret,
    redact,
    redact_text,
    secret_suspects,
)

# (text, its marker): the marker is part of the secret, unique to its form, and must not
# survive redaction anywhere (tests/e2e/test_secret_sinks.py pushes each through every sink).
SECRET_FORMS = [
    # prose
    ("my password is Hq01vine", "Hq01vine"),
    ("The password was Tr0ub4dor&3Hq02 yesterday", "Tr0ub4dor&3Hq02"),
    ("passwd Hq03kLm", "Hq03kLm"),
    ("the api key is 7f3e9c1aHq04", "7f3e9c1aHq04"),
    # Digits only: long and patterned, so no duration or timestamp in a sink holds it by chance.
    ("your pin is 97531864", "97531864"),
    ("token: abcHq06def456", "abcHq06def456"),
    ("the token is 'zz99Hq07xx77'", "zz99Hq07xx77"),
    ("Secret = swordHq08fish", "swordHq08fish"),
    # key=value and environment forms
    ("pw=Hq09pw", "Hq09pw"),
    ("PW: Hq10pw", "Hq10pw"),
    ("DB_PASS=Hq11db ./run", "Hq11db"),
    ("export GITHUB_TOKEN=abcdefHq12", "abcdefHq12"),
    ("client_secret: zzzHq13xx", "zzzHq13xx"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYHq14KEY", "bPxRfiCYHq14"),
    ("SMTP_PWD=mailHq15pass", "mailHq15pass"),
    ("export STRIPE_SECRET=Hq16secret", "Hq16secret"),
    ("export DATABASE_URL=postgresql://app:Hq17db@db:5432/app", "Hq17db"),
    # JSON, whatever the value's type
    ('{"pass": "Hq18pass"}', "Hq18pass"),
    ('{"password": "Hq19pw", "user": "bob"}', "Hq19pw"),
    ('{"api_key": "k-Hq20key"}', "k-Hq20key"),
    ('{"refresh_token": "rt-Hq21rt"}', "rt-Hq21rt"),
    ('{"password": ["Hq22list", "other"]}', "Hq22list"),
    ('{"credentials": {"value": "Hq23obj"}}', "Hq23obj"),
    (
        '{"auths": {"https://index.docker.io/v1/": {"auth": "Ym9iOkhxMTZkb2NrZXI="}}}',
        "Ym9iOkhxMTZkb2NrZXI=",
    ),
    (
        '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nHq25pem'
        '\\n-----END PRIVATE KEY-----\\n"}',
        "Hq25pem",
    ),
    # command-line forms
    ("mysql -u root -pHq26my app", "Hq26my"),
    ("mysql -u root -p Hq27my app", "Hq27my"),
    ("mysqldump -h db -u admin -pS3cr3tHq28! prod > dump.sql", "S3cr3tHq28!"),
    ("login --password s3Hq29cr3t --user bob", "s3Hq29cr3t"),
    ("psql --db-password=letHq30in", "letHq30in"),
    ("PGPASSWORD=Hq31pg psql -h db -U bob app", "Hq31pg"),
    ("psql 'host=db user=bob password=Hq32pg dbname=app'", "Hq32pg"),
    ("curl -u bob:Hq33curl https://api.example.com", "Hq33curl"),
    ("curl --user 'bob:Hq34curl' https://api.example.com", "Hq34curl"),
    ("sshpass -p Hq35ssh ssh bob@host", "Hq35ssh"),
    ("docker login -u bob -p Hq36dock registry.example.com", "Hq36dock"),
    ("htpasswd -b .htpasswd bob Hq37htp", "Hq37htp"),
    ("htpasswd -nb bob Hq38htp", "Hq38htp"),
    (
        "printf 'protocol=https\\nhost=github.com\\nusername=bob\\npassword=Hq39git\\n'"
        " | git credential approve",
        "Hq39git",
    ),
    (
        "git config credential.helper '!f() { echo username=bob; echo password=Hq40git; }; f'",
        "Hq40git",
    ),
    ("deploy --token tkn_Hq41", "tkn_Hq41"),
    # headers and URLs
    ('curl -H "Authorization: Bearer eyJhbGciOi.Hq42abc.def" https://x', "Hq42abc"),
    ("Authorization: Basic Ym9iOkhxMzE=", "Ym9iOkhxMzE="),
    ("authorization: bearer Hq44lower.def456", "Hq44lower"),
    ("Proxy-Authorization: Basic Hq45proxy", "Hq45proxy"),
    ("Cookie: session=Hq46cookie; theme=dark", "Hq46cookie"),
    ("set-cookie: sessionid=Hq47sid; Path=/; HttpOnly", "Hq47sid"),
    ("postgres://bob:pa55Hq48@db.internal:5432/app", "pa55Hq48"),
    ("redis://:Hq49redis@cache:6379/0", "Hq49redis"),
    ("https://user:hunterHq50@example.com/repo.git", "hunterHq50"),
    # credential files
    ("machine api.example.com login bob password Hq51netrc", "Hq51netrc"),
    ("machine api.example.com\n  login bob\n  password Hq52netrc\n", "Hq52netrc"),
    ("db.internal:5432:app:bob:Hq53pgpass", "Hq53pgpass"),
    ("*:*:*:postgres:Hq54pgpass", "Hq54pgpass"),
    # vendor formats
    ("export ANTHROPIC_API_KEY=sk-ant-api03-AbCdHq55ef0123456789xyz", "AbCdHq55ef"),
    ("key sk-proj-abcdefghijHq56klmnopqrstuvwx1234", "abcdefghijHq56"),
    ("token ghp_0123456789abcdefghijHq57EFGHIJ012345 pushed", "ghijHq57EFGH"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijHq58mnopqrstuvwxyz", "abcdefghijHq58"),
    ("glpat-xK9mQ2vL7nHq59Y8wZ1aB", "xK9mQ2vL7nHq59"),
    ("maps key AIzaSyD-9tSrke72PouQMnHq60a7eZSW0jkFMBWY ok", "PouQMnHq60"),
    ("stripe sk_live_4eC39HqLyjWDHq61T1zdp7dc charged", "LyjWDHq61T1"),
    ("rk_live_51H8abcdefHq62klmnopqrst", "abcdefHq62klm"),
    ("aws AKIAHQ63EFGHIJKLMNOP ok", "AKIAHQ63EFGHIJKLMNOP"),
    ("slack xoxb-123456789012-1234567890123-AbCdEfHq64KlMnOpQrStUvWx", "AbCdEfHq64"),
    ("slack xapp-1-A0123HQ65-1234567890123-abcdef0123456789abcdef", "A0123HQ65"),
    (
        "sendgrid SG.aaaaaaaaaaaaHq66aaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb done",
        "aaaaHq66aaaa",
    ),
    ("//registry.npmjs.org/:_authToken=npm_abcdefghijHq67qrstuvwxyz0123456789ab", "ghijHq67qrst"),
    ("pypi-AgEIcHlwaS5vcmcHq68" + "A" * 70, "vcmcHq68"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJIcTY5In0.dozjgNryP4J3jVmNHl0w5N", "eyJzdWIiOiJIcTY5In0"),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1Hq70rZXk\n"
        "-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1Hq70rZXk",
    ),
    ("VAULT_ADDR=x vault login hvs.CAESIHq71abcdefghijklmnopqrstuvwxyz", "CAESIHq71abc"),
    ("twilio SK0123456789abcdef01hq72abcdef0123 sent", "01hq72abcdef"),
    ("twilio sid AC0123456789abcdef01hq73abcdef0123", "01hq73abcdef"),
    (
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="
        + "Hq74"
        + "a" * 84
        + ";EndpointSuffix=core.windows.net",
        "Hq74aaaa",
    ),
    ("discord MTAxNDQ3OTk2Hq75NzI3MTg0MD.GhQ62x.abcdefghijklmnopqrstHq75xyz", "NDQ3OTk2Hq75"),
    ("telegram 123456789:AAHq76bcdefghijklmnopqrstuvwxyz01234", "AAHq76bcdef"),
    ("mailchimp 0123456789abcdef0123hq77abcdef01-us12", "0123hq77abcdef"),
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
    "mysql -u root -p < dump.sql",
    "git commit -m 'fix: token parsing'",
    "commit 3f9a2c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    "merged 9fceb02d0ae598e95dc970b74767f19372d61af8 into main",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "md5 d41d8cd98f00b204e9800998ecf8427e",
    "sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "toolu_01ABCdefGHIjklMNOpqrSTU",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "request id f47ac10b-58cc-4372-a567-0e02b2c3d479 done",
    "session 01JA9Y7ZQ4M0ZC3V8W5R6T2K1H",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "I edited src/auth/token_store.py",
    "def check_password(user, candidate):",
    "secrets.token_hex(16)",
    "the secret sauce is good",
    "ask the user for their password",
    "send a password reset link",
    "password reset requested for bob",
    "pytest -q tests/test_passwords.py",
    "ls -la /home/user/project",
    "curl https://api.example.com/v1/items?page=2",
    "curl -s -o out.json https://example.com/data",
    "ssh -p 2222 bob@host",
    "docker run -p 8080:80 nginx",
    "htpasswd -c .htpasswd bob",
    "SELECT * FROM users WHERE id = 4",
    "sk-learn is a nickname for scikit-learn",
    "AIza is how Google keys start",
    "price_live_total = 12",
    "accountKeyName=main",
    "the pin was moved to the left",
    "api key is missing from the config",
    "http://localhost:8080/health",
    "Mapping(password_hash, salt)",
    "the cookie jar is empty",
    "started at 2024-05-01T12:30:45Z",
    "mac 00:11:22:33:44:55",
    "listening on 127.0.0.1:8000",
    "the author: Bob",
    "OAuth flow finished",
]


def test_the_corpus_is_large_enough():
    assert len(SECRET_FORMS) >= 40
    assert len(LOOK_ALIKES) >= 40


def test_every_marker_is_unique_and_in_its_form():
    markers = [marker for _, marker in SECRET_FORMS]
    assert len(set(markers)) == len(markers)
    for text, marker in SECRET_FORMS:
        assert marker in text
        assert not any(marker in other for other, m in SECRET_FORMS if m != marker)
        assert not any(marker in look_alike for look_alike in LOOK_ALIKES)


@pytest.mark.parametrize(("text", "secret"), SECRET_FORMS, ids=[s for s, _ in SECRET_FORMS])
def test_secret_forms_are_redacted(text, secret):
    cleaned = redact_text(text)
    assert secret not in cleaned, cleaned
    assert REDACTED in cleaned


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_untouched(text):
    assert redact_text(text) == text


@pytest.mark.parametrize(("text", "secret"), SECRET_FORMS, ids=[s for s, _ in SECRET_FORMS])
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


@pytest.mark.parametrize("value", [["Hq80a", "b"], {"value": "Hq81"}, {"a": ["Hq82"]}, 4821, "x"])
def test_a_secret_key_hides_its_whole_value_whatever_its_type(value):
    assert redact({"password": value, "user": "bob"}) == {"password": REDACTED, "user": "bob"}
    nested = redact({"auths": {"registry": {"auth": value}}})
    assert nested == {"auths": {"registry": {"auth": REDACTED}}}


@pytest.mark.parametrize("value", ["", None, True, False, [], {}])
def test_empty_values_and_flags_under_a_secret_key_are_kept(value):
    # "password": "" or "auth": true say something about the setup, and hide nothing.
    assert redact({"password": value, "auth": value}) == {"password": value, "auth": value}


@pytest.mark.parametrize(
    "key", ["auth", "x_auth", "Cookie", "set-cookie", "Proxy-Authorization", "credentials"]
)
def test_header_and_auth_keys_are_secret(key):
    assert is_secret_key(key)


@pytest.mark.parametrize("key", ["author", "oauth", "authority", "cookies_enabled", "auth_url"])
def test_keys_that_only_start_like_auth_are_not(key):
    assert not is_secret_key(key)


# The pre-check runs on RE2 for ASCII text and on Python's engine otherwise: both must find
# the same first trigger in any text, or one of them lets a secret through unexamined. The
# fuzz texts are made of the triggers' own pieces, whitespace of every kind and filler.
_FUZZ_PIECES = (
    "api",
    "key",
    "_",
    "-",
    " ",
    "auth",
    "pass",
    "pw",
    "\\",
    '"',
    "'",
    ":",
    "=",
    "//",
    "@",
    "eyj",
    "sk",
    "us",
    "in ",
    "is",
    "curl",
    "hvs",
    ".",
    "gh",
    "p_",
    "k_",
    "live",
    "ac",
    "kc",
    "ap",
    "sl",
    "x",
    "*",
    "8080",
    "\t",
    "\n",
    "\x0b",
    "\x0c",
    "\r",
    "\x1c",
    "\x1f",
    "Z",
    "A3T",
    "0123456789",
    "abcdef",
    "zqzqzq",
    "token",
    "ibm",
    "glpat",
    "xapp",
    "pin ",
)


def _fuzz_text(rng: random.Random, pieces: int) -> str:
    return "".join(rng.choice(_FUZZ_PIECES) for _ in range(rng.randint(0, pieces)))


def _first_trigger(engine: str, text: str) -> int | None:
    lowered = text.lower()
    if engine == "re2":
        found = _ascii_triggers().search(lowered.encode())
    else:
        found = _TRIGGERS.search(lowered)
    return None if found is None else found.start()


def test_both_pre_check_engines_find_the_same_first_trigger():
    rng = random.Random(22)
    texts = [text for text, _ in SECRET_FORMS] + list(LOOK_ALIKES)
    texts += [_fuzz_text(rng, 24) for _ in range(20_000)]
    texts += [chr(c) * 40 for c in range(128)]
    disagree = [
        text
        for text in texts
        if text.isascii() and _first_trigger("re2", text) != _first_trigger("re", text)
    ]
    assert disagree == []
    assert sum(_first_trigger("re", t) is not None for t in texts) > 5_000  # triggers do occur


def test_a_batch_check_suspects_every_text_the_one_by_one_check_passes():
    rng = random.Random(7)
    texts = [_fuzz_text(rng, 6) for _ in range(5_000)]
    texts += [text for text, _ in SECRET_FORMS] + ["passé: ünïcode", "token ✓", "plain ✓"]
    rng.shuffle(texts)
    expected = {i for i, text in enumerate(texts) if may_contain_secret(text)}
    suspects = secret_suspects(texts)
    assert expected <= suspects
    # Extra suspects only come from a trigger that starts in a text and runs into the next.
    assert all(i + 1 < len(texts) for i in suspects - expected)
    assert len(suspects - expected) < len(expected) // 10
    assert secret_suspects([]) == set()
