"""Secret redaction, applied before tool inputs and outputs leave the process or hit disk.

The narrator (before a prompt is sent) and the recorder (before a line is written) use the
same function, so a secret that never reaches the model never reaches the disk either.
It catches API keys (``sk-ant-...``, ``sk-...``, GitHub, Slack, AWS), bearer tokens,
``Authorization`` headers, passwords and tokens in ``key=value``, ``key: value`` and JSON,
credentials in URLs, and private key blocks; in structured data, any value under a
secret-looking key is replaced whole.
"""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[REDACTED]"

_SECRET_KEY = (
    r"(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|api[_-]?key|apikey|"
    r"access[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|"
    r"refresh[_-]?token|token|credentials?)"
)
_SECRET_KEY_RE = re.compile(rf"^[\w-]*{_SECRET_KEY}$|^authorization$", re.IGNORECASE)

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?"
            r"(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
        REDACTED,
    ),
    (re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{8,}"), REDACTED),
    (re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9_\-]{20,}"), REDACTED),
    (
        re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"),
        REDACTED,
    ),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), REDACTED),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), REDACTED),
    # "Authorization: Basic abc", "authorization=...", header dumps.
    (
        re.compile(r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?)(?:[A-Za-z]+\s+)?[^\s\"',;]+"),
        rf"\g<1>{REDACTED}",
    ),
    (re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/\-]+=*"), rf"\g<1>{REDACTED}"),
    # password=..., "api_key": "...", TOKEN: ..., --password ...
    (
        re.compile(
            rf"(?i)(\b[\w-]*{_SECRET_KEY}[\"']?\s*(?:[:=]|\s(?=[\"']))\s*[\"']?)"
            r"(?![\[{(]|REDACTED)([^\s\"'&,;}]+)"
        ),
        rf"\g<1>{REDACTED}",
    ),
    (re.compile(r"(?i)(--(?:password|token|api-key|secret)[= ])(\S+)"), rf"\g<1>{REDACTED}"),
    # scheme://user:password@host
    (re.compile(r"(\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:)[^\s@/]+(@)"), rf"\g<1>{REDACTED}\g<2>"),
]

# Cheap pre-check: most strings contain none of these, and skip the regex pass entirely.
# Every pattern above (and every secret-looking key) contains one. Matched against the
# lower-cased text: an (?i) pattern defeats the engine's first-character skipping and costs
# about ten times more, on every tool output the recorder writes. "passw", not "pass", and
# "api_key", not "key": test output ("41 passed") and code ("keys") would trigger too often.
_TRIGGERS = re.compile(
    r"private[_ -]?key|(?:api|access)[_-]?key|sk-|gh[pousr]_|github_pat|xox|akia|asia|eyj|"
    r"authoriz|bearer|passw|passphrase|secret|token|credential|pwd|://[^\s/]*@"
)


def may_contain_secret(text: str) -> bool:
    """``False`` when :func:`redact` would change nothing in ``text``, or in any value whose
    JSON form is ``text`` (secret-looking keys contain a trigger too). A fast pre-check."""
    return _TRIGGERS.search(text.lower()) is not None


def redact_text(text: str) -> str:
    """``text`` with every secret the patterns know replaced by ``[REDACTED]``."""
    if not may_contain_secret(text):
        return text
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def is_secret_key(key: str) -> bool:
    return bool(_SECRET_KEY_RE.match(key))


def redact(value: Any) -> Any:
    """A copy of ``value`` (str, dict, list, nested) with secrets redacted."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {
            key: (
                REDACTED
                if isinstance(key, str)
                and is_secret_key(key)
                and isinstance(val, str | int | float)
                and val != ""
                else redact(val)
            )
            for key, val in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    return value
