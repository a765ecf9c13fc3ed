"""Secret redaction, applied before tool inputs and outputs leave the process or hit disk.

The narrator (before a prompt is sent), the recorder (before a line is written) and every
other writer use this one module, so a secret that never reaches the model never reaches the
disk either. This module is the one place the pattern set lives. It combines:

- the format detectors of ``detect-secrets`` (a maintained catalogue of vendor token shapes:
  GitLab, Stripe, Slack, SendGrid, npm, PyPI, Twilio, JWT, AWS...), loaded on first use;
- the project's own patterns for what those detectors do not cover: assignments
  (``password=``, ``"pass": ...``, ``TOKEN: ...``), command-line forms (``--password x``,
  ``mysql -phunter2``), prose (``my password is hunter2``), ``Authorization`` headers, bearer
  tokens, credentials in URLs, private key blocks and vendor keys (Anthropic, Google);
- in structured data, any value under a secret-looking key is replaced whole.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["REDACTED", "is_secret_key", "may_contain_secret", "redact", "redact_text"]

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
_SHORT_KEY = r"pass|pw"
_KEY = rf"(?:[\w-]*(?:{_LONG_KEY})|(?:[\w-]*[_-])?(?:{_SHORT_KEY}))"
_SECRET_KEY_RE = re.compile(rf"^{_KEY}$|^authorization$", re.IGNORECASE)

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
    # mysql -phunter2 / mysqldump -u root -phunter2 (the password glued to -p)
    (
        r"(\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?\s-p)([^\s-][^\s]*)",
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
    # scheme://user:password@host
    (r"(\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:)[^\s@/]+(@)", rf"\g<1>{REDACTED}\g<2>"),
]

# detect-secrets' format detectors used here. Keyword and entropy detectors are left out:
# the project's own assignment patterns cover keywords, and entropy flags hashes and ids
# that narration needs to name (commit shas, tool-use ids).
_DETECT_SECRETS_PLUGINS = (
    "aws",
    "azure_storage_key",
    "github_token",
    "gitlab_token",
    "jwt",
    "npm",
    "openai",
    "pypi_token",
    "sendgrid",
    "slack",
    "square_oauth",
    "stripe",
)

# Cheap pre-check: most strings contain none of these, and skip the regex pass entirely.
# Every pattern above and every detect-secrets detector used contains one. Matched against
# the lower-cased text: an (?i) pattern defeats the engine's first-character skipping and
# costs about ten times more, on every tool output the recorder writes. The alternatives are
# grouped by first letter because the engine tries each alternative at every position: the
# flat list of these same words costs four times more. "passw", not "pass", and "api_key",
# not "key": test output ("41 passed") and code ("keys") would trigger too often; the short
# keys are matched only with their separator ("pass=", "pw:").
_TRIGGERS = re.compile(
    r"""(?:
     a(?:pi[_ -]?key|ccess[_ -]?key|kia|sia|3t|bia|cca|iza|uthoriz|ccountkey)
    |p(?:rivate[_ -]?key|ass(?:w|phrase|code|\\?["']?\s*[:=])|w(?:d|\\?["']?\s*[:=])
      |in\ (?:is|was)|ypi-)
    |s(?:k-|ecret|g\.|q0csp)
    |k_(?:live|test)
    |g(?:h[pousr]_|ithub_pat|l(?:pat|dt|ft|soat|rt|cbt|imt)|r1348941)
    |xox|eyj[\w=-]*\.|bearer|token|credential|mysql|mariadb|npm_|hooks\.slack
    |--[\w-]*pass
    |://[^\s/]*@
    )""",
    re.VERBOSE,
)

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
    return _redact_group if pattern.groups else REDACTED


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
    return _TRIGGERS.search(text.lower()) is not None


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


def redact(value: Any) -> Any:
    """A copy of ``value`` (str, dict, list, nested) with secrets redacted; the values of
    id keys (``covers``, ``tool_use_id``...) are kept as they are."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {
            key: (
                val
                if key in _ID_KEYS
                else REDACTED
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
