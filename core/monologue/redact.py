"""Secret redaction, applied before tool inputs and outputs leave the process or hit disk.

The narrator (before a prompt is sent), the recorder (before a line is written) and every
other writer use this one module, so a secret that never reaches the model never reaches the
disk either. This module is the one place the pattern set lives. It combines:

- the format detectors of ``detect-secrets`` (a maintained catalogue of vendor token shapes:
  every one of its plugins that looks for a format: AWS, Azure, GitHub, GitLab, Stripe,
  Slack, SendGrid, npm, PyPI, Twilio, Discord, Telegram, Mailchimp, Artifactory, Cloudant,
  IBM, SoftLayer, JWT, basic-auth URLs, private keys), loaded on first use;
- the project's own patterns for what those detectors do not cover: assignments
  (``password=``, ``"pass": ...``, ``TOKEN: ...``, ``"auth": ...``, and a list or object as
  the value), command-line forms (``--password x``, ``mysql -phunter2`` / ``-p hunter2``,
  ``curl -u user:pass``, ``sshpass -p``, ``docker login -p``, ``htpasswd -b``), prose
  (``my password is hunter2``), ``.netrc`` and ``.pgpass`` lines, ``Authorization``,
  ``Cookie`` and ``Set-Cookie`` headers and bearer tokens in any case, credentials in URLs
  (an empty user too: ``redis://:pw@host``), private key blocks and the vendor keys the
  detectors lack (Anthropic, OpenAI project keys, Google, Vault ``hvs.``, Slack ``xapp-``);
- in structured data, any value under a secret-looking key is replaced whole, whether a
  string, a number, a list or an object.

detect-secrets' keyword and entropy detectors are left out: the assignment patterns cover
keywords, and entropy flags the hashes, UUIDs and commit shas that narration must name.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "REDACTED",
    "is_secret_key",
    "may_contain_secret",
    "redact",
    "redact_text",
    "secret_suspects",
]

REDACTED = "[REDACTED]"

_Replacement = str | Callable[[re.Match[str]], str]

# Key names whose value is a secret. The long names may carry any prefix (DB_PASSWORD,
# github_token); the short ones (pass, pw) only as a whole word or a _/- suffix, so that
# "bypass" and "compass" stay untouched.
_LONG_KEY = (
    r"password|passwd|pwd|passphrase|passcode|secret|client[_-]?secret|api[_-]?key|apikey|"
    r"access[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|"
    r"refresh[_-]?token|token|credentials?"
)
_SHORT_KEY = r"pass|pw|auth"
_KEY = rf"(?:[\w-]*(?:{_LONG_KEY})|(?:[\w-]*[_-])?(?:{_SHORT_KEY}))"
_SECRET_KEY_RE = re.compile(rf"^{_KEY}$|^(?:proxy-)?authorization$|^(?:set-)?cookie$", re.I)

# Words that follow "password is" in ordinary prose about passwords, not a password itself.
_PROSE_STOPWORDS = (
    r"a|an|the|not|no|now|set|unset|empty|blank|missing|required|invalid|valid|wrong|"
    r"correct|incorrect|expired|too|stored|saved|changed|hidden|redacted|being|still|in|on|"
    r"used|needed|optional|ok|fine|weak|strong|null|none|undefined|\[REDACTED\]"
)

_OWN_PATTERNS: list[tuple[str, str]] = [
    (
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?"
        r"(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
        REDACTED,
    ),
    (r"\bsk-ant-[A-Za-z0-9_\-]{8,}", REDACTED),
    (r"\bsk-(?:proj-)?[A-Za-z0-9_\-]{20,}", REDACTED),
    (r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}", REDACTED),
    (r"\bxox[abposr]-[A-Za-z0-9-]{10,}", REDACTED),
    (r"\bxapp-[A-Za-z0-9-]{10,}", REDACTED),
    (r"\bhv[sbr]\.[A-Za-z0-9_-]{20,}", REDACTED),
    (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", REDACTED),
    (r"\bAIza[0-9A-Za-z_\-]{35}", REDACTED),
    (r"\b[rs]k_(?:live|test)_[0-9a-zA-Z]{16,}", REDACTED),
    (r"\bglpat-[A-Za-z0-9_\-]{20,}", REDACTED),
    (r"\bnpm_[A-Za-z0-9]{36}\b", REDACTED),
    (r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", REDACTED),
    # "Authorization: Basic abc", "authorization=...", header dumps.
    (
        r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?)(?:[A-Za-z]+\s+)?[^\s\"',;]+",
        rf"\g<1>{REDACTED}",
    ),
    (r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/\-]+=*", rf"\g<1>{REDACTED}"),
    # "Cookie: session=abc; theme=dark", "set-cookie: sessionid=abc; Path=/": the whole value.
    (r"(?i)(\b(?:set-)?cookie[\"']?\s*:\s*[\"']?)(?!\[REDACTED)[^\r\n\"'\\]+", rf"\g<1>{REDACTED}"),
    # A list or an object under a secret key: "password": ["a"], "credentials": {"v": "x"}.
    (
        rf"(?i)((?<![\w-]){_KEY}\\?[\"']?\s*[:=]\s*)"
        r"(\[[^\[\]]*\]|\{(?:[^{}]|\{[^{}]*\})*\})",
        rf"\g<1>{REDACTED}",
    ),
    # password=..., "api_key": "...", TOKEN: ..., pw=..., "pass": "..."
    (
        rf"(?i)((?<![\w-]){_KEY}\\?[\"']?\s*(?:[:=]|\s(?=\\?[\"']))\s*\\?[\"']?)"
        r"(?![\[{(]|REDACTED)([^\s\"'&,;}\\]+)",
        rf"\g<1>{REDACTED}",
    ),
    # --password x, --db-password=x, --token x, --api-key x, --pass x
    (
        r"(?i)(--[\w-]*(?:password|passwd|pass|token|api-key|secret)[= ])(?!\[REDACTED)(\S+)",
        rf"\g<1>{REDACTED}",
    ),
    # mysql -phunter2 / mysqldump -u root -phunter2 / mysql -p hunter2
    (
        r"(\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?\s-p\s*)([^\s<>|;&-][^\s]*)",
        rf"\g<1>{REDACTED}",
    ),
    # curl -u bob:hunter2 / curl --user bob:hunter2 / curl -ubob:hunter2: the password part.
    (
        r"(\bcurl\b[^\n|;&]*?\s(?:-u\s*|--user[= ]\s*)[\"']?[^\s:\"']*:)([^\s\"']+)",
        rf"\g<1>{REDACTED}",
    ),
    # sshpass -p hunter2 / docker login -u bob -p hunter2
    (
        r"(\b(?:sshpass|docker\b[^\n|;&]*?\blogin)\b[^\n|;&]*?\s-p\s*)([^\s<>|;&-]\S*)",
        rf"\g<1>{REDACTED}",
    ),
    # htpasswd -b[c] FILE USER PASSWORD / htpasswd -nb USER PASSWORD: the last argument.
    (
        r"(\bhtpasswd\s+-\w*b\w*\s+(?:[^\s|;&]+\s+){1,2})([^\s|;&]+)",
        rf"\g<1>{REDACTED}",
    ),
    # .netrc: "machine h login bob password hunter2", across lines too.
    (
        r"(\b(?:machine|login|account)\s+\S+\s+password\s+)(?!\[REDACTED)(\S+)",
        rf"\g<1>{REDACTED}",
    ),
    # .pgpass: hostname:port:database:username:password
    (
        r"((?<![\w.:/-])(?:[\w-]*[A-Za-z*][\w.-]*|\d{1,3}(?:\.\d{1,3}){3})"
        r":(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:)([^\s:\"'\\]+)",
        rf"\g<1>{REDACTED}",
    ),
    # prose: "my password is hunter2", "the token was abc123", "passwd x"
    (
        rf"(?i)(\b(?:password|passwd|passphrase|passcode|token|secret|api key)"
        rf"\s+(?:is|was|=)\s+[\"'`]?)(?!(?:{_PROSE_STOPWORDS})\b)([^\s\"'`,;.]+)",
        rf"\g<1>{REDACTED}",
    ),
    (r"(?i)(\bpin\s+(?:is|was|=)\s+)(\d{4,8})\b", rf"\g<1>{REDACTED}"),
    (
        r"(?i)(\bpasswd\s+)(?!(?:file|entry|command|for|of|the|a)\b)([^\s\"'`,;.-][^\s\"'`,;]*)",
        rf"\g<1>{REDACTED}",
    ),
    # scheme://user:password@host, scheme://:password@host
    (r"(\b[a-z][a-z0-9+.\-]*://[^\s:/@]*:)[^\s@/]+(@)", rf"\g<1>{REDACTED}\g<2>"),
]

# detect-secrets' format detectors: every plugin but ``keyword`` and
# ``high_entropy_strings`` (see the module's docstring) and ``ip_public`` (not a secret).
_DETECT_SECRETS_PLUGINS = (
    "artifactory",
    "aws",
    "azure_storage_key",
    "basic_auth",
    "cloudant",
    "discord",
    "github_token",
    "gitlab_token",
    "ibm_cloud_iam",
    "ibm_cos_hmac",
    "jwt",
    "mailchimp",
    "npm",
    "openai",
    "private_key",
    "pypi_token",
    "sendgrid",
    "slack",
    "softlayer",
    "square_oauth",
    "stripe",
    "telegram_token",
    "twilio",
)

# Cheap pre-check: most strings contain none of these, and skip the regex pass entirely.
# Every pattern above and every detect-secrets detector used contains one; the formats with
# no keyword (Discord, Telegram, Twilio, Mailchimp, Artifactory, .pgpass) are matched by a
# looser shape that starts at a rare character (":", ".", "-") or a letter pair. Matched against
# the lower-cased text: an (?i) pattern defeats the engine's first-character skipping and
# costs about ten times more, on every tool output the recorder writes. The alternatives are
# grouped by first letter because the engine tries each alternative at every position: the
# flat list of these same words costs four times more. "passw", not "pass", and "api_key",
# not "key": test output ("41 passed") and code ("keys") would trigger too often; the short
# keys are matched only with their separator ("pass=", "pw:").
_TRIGGER_ALTERNATIVES = (
    r"a(?:pi[_ -]?key|ccess[_ -]?key|kia|sia|3t|bia|cca|iza|uthoriz|ccountkey"
    r"|uth\\?[\"']?\s*[:=]|c[0-9a-z]{32}|kc[a-z0-9]{10}|p[\da-f][a-z0-9]{8})",
    r"p(?:rivate[_ -]?key|ass(?:w|phrase|code|\\?[\"']?\s*[:=])|w(?:d|\\?[\"']?\s*[:=])"
    r"|in (?:is|was)|ypi-)",
    r"s(?:k-|k[0-9a-z]{32}|ecret|g\.|q0csp|shpass|oftlayer|l[_-]?(?:api[_-]?)?key)",
    r"k_(?:live|test)",
    r"g(?:h[pousr]_|ithub_pat|l(?:pat|dt|ft|soat|rt|cbt|imt)|r1348941)",
    r"c(?:ookie|url\b|loudant)",
    r"h(?:vs\.|vb\.|vr\.|tpasswd)",
    r"x(?:ox|app-)",
    r"eyj[\w=-]*\.|bearer|token|credential|mysql|mariadb|npm_|hooks\.slack|docker|ibm",
    r"-(?:-[\w-]*pass|us\d)",
    r":(?://[^\s/]*@|(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:|[\w-]{35})",
    r"\.[\w-]{6}\.[\w-]{27}",
)
_TRIGGER_SOURCE = "(?:" + "|".join(_TRIGGER_ALTERNATIVES) + ")"
_TRIGGERS = re.compile(_TRIGGER_SOURCE)

# Python's \s on ASCII text, spelt out: RE2's own \s leaves out \v and \x1c-\x1f.
_ASCII_SPACE = r"\t\n\x0b\x0c\r\x1c-\x1f "


@functools.cache
def _ascii_triggers() -> Any:
    """:data:`_TRIGGERS` compiled by RE2 (google-re2), for ASCII text, where the two engines
    agree (``tests/test_redact_corpus.py`` holds them to it): its automaton reads each byte
    once, where Python's engine tries the alternatives at every position, ten to twenty times
    slower on the lines a session's pipeline checks. Imported on first use."""
    import re2

    source = _TRIGGER_SOURCE.replace(r"[^\s", "[^" + _ASCII_SPACE)
    return re2.compile(source.replace(r"\s", f"[{_ASCII_SPACE}]").encode())


_compiled: list[tuple[re.Pattern[str], _Replacement]] | None = None
_compile_lock = threading.Lock()


def _detector_patterns() -> list[tuple[re.Pattern[str], _Replacement]]:
    """detect-secrets' denylists: a capture group marks the secret, else the whole match."""
    import importlib

    patterns: list[tuple[re.Pattern[str], _Replacement]] = []
    for module_name in _DETECT_SECRETS_PLUGINS:
        module = importlib.import_module(f"detect_secrets.plugins.{module_name}")
        for detector in vars(module).values():
            denylist = getattr(detector, "denylist", None)
            if not isinstance(detector, type) or detector.__module__ != module.__name__:
                continue
            for pattern in denylist or ():
                patterns.append((pattern, _group_replacement(pattern)))
    return patterns


def _group_replacement(pattern: re.Pattern[str]) -> _Replacement:
    return _redact_group if pattern.groups else _redact_token


def _redact_token(match: re.Match[str]) -> str:
    """Replace the match, keeping the delimiters some detectors match around the token."""
    text = match.group(0)
    token = text.strip(' \t\r\n=:"')
    start = text.find(token)
    return text[:start] + REDACTED + text[start + len(token) :]


def _patterns() -> list[tuple[re.Pattern[str], _Replacement]]:
    global _compiled
    if _compiled is None:
        with _compile_lock:
            if _compiled is None:
                own = [
                    (re.compile(p, re.DOTALL if "BEGIN" in p else 0), r) for p, r in _OWN_PATTERNS
                ]
                _compiled = own + _detector_patterns()
    return _compiled


def _redact_group(match: re.Match[str]) -> str:
    """Replace the detector's first capture group inside the match, keep the rest."""
    start, end = match.span(1)
    if start < 0:
        return REDACTED
    whole_start = match.start()
    text = match.group(0)
    return text[: start - whole_start] + REDACTED + text[end - whole_start :]


def may_contain_secret(text: str) -> bool:
    """``False`` when :func:`redact` would change nothing in ``text``, or in any value whose
    JSON form is ``text`` (secret-looking keys contain a trigger too). A fast pre-check."""
    lowered = text.lower()
    if lowered.isascii():
        return _ascii_triggers().search(lowered.encode()) is not None
    return _TRIGGERS.search(lowered) is not None


def secret_suspects(texts: Sequence[str]) -> set[int]:
    """The indexes of the ``texts`` that :func:`may_contain_secret` would pass (and, rarely,
    of one before them: a trigger may run on into the next text). One search over all the
    ASCII texts, joined: the pipeline's check of a batch of events."""
    if not texts:
        return set()
    lowered = "\n".join(texts).lower()
    if lowered.isascii():  # the common batch: lowered and searched whole, not text by text
        offsets = list(itertools.accumulate([len(text) + 1 for text in texts[:-1]], initial=0))
        return _suspects_in(lowered.encode(), offsets, list(range(len(texts))))
    suspects: set[int] = set()
    joined: list[str] = []
    which: list[int] = []
    starts: list[int] = []
    at = 0
    for i, text in enumerate(texts):
        lowered = text.lower()
        if not lowered.isascii():
            if _TRIGGERS.search(lowered) is not None:
                suspects.add(i)
            continue
        joined.append(lowered)
        which.append(i)
        starts.append(at)
        at += len(lowered) + 1
    if joined:
        suspects |= _suspects_in("\n".join(joined).encode(), starts, which)
    return suspects


def _suspects_in(data: bytes, starts: list[int], which: list[int]) -> set[int]:
    """The texts joined in ``data`` (lower-cased ASCII, each starting at its ``starts``) that
    a trigger matches in, as their ``which`` indexes."""
    suspects: set[int] = set()
    search = _ascii_triggers().search
    pos = 0
    while (found := search(data, pos)) is not None:
        # The text the match starts in may contain a secret; every later text is searched
        # again from its own start, so a match running across the newline hides nothing.
        k = bisect.bisect_right(starts, found.start()) - 1
        suspects.add(which[k])
        if k + 1 == len(starts):
            break
        pos = starts[k + 1]
    return suspects


def redact_text(text: str) -> str:
    """``text`` with every secret the patterns know replaced by ``[REDACTED]``."""
    if not may_contain_secret(text):
        return text
    for pattern, replacement in _patterns():
        text = pattern.sub(replacement, text)
    return text


@functools.lru_cache(maxsize=1024)  # the same few keys, over and over
def is_secret_key(key: str) -> bool:
    """True for a key whose value is a secret (``password``, ``DB_PASS``, ``api-key``...)."""
    return bool(_SECRET_KEY_RE.match(key))


# Keys whose values are ids monologue or the agent's SDK made (ULIDs, ``toolu_…``), left
# as they are: an uppercase ULID can match a format detector by chance (detect-secrets'
# AWS pattern is "A3T" or "ACCA" then 16 of [0-9A-Z], with no word boundary), and a
# narrative's ``covers`` must name exactly the events it covers.
_ID_KEYS = frozenset({"covers", "covers_range", "tool_use_id", "parent_tool_use_id"})


def _is_filled(value: Any) -> bool:
    """A value worth hiding: not empty, not ``None`` and not a flag (``"auth": true``)."""
    if isinstance(value, bool) or value is None:
        return False
    return not (isinstance(value, str | list | tuple | dict) and len(value) == 0)


def redact(value: Any) -> Any:
    """A copy of ``value`` (str, dict, list, nested) with secrets redacted: the whole value of
    a secret key, whatever its type; the values of id keys (``covers``, ``tool_use_id``...)
    are kept as they are."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {
            key: (
                val
                if key in _ID_KEYS
                else REDACTED
                if isinstance(key, str) and is_secret_key(key) and _is_filled(val)
                else redact(val)
            )
            for key, val in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    return value
