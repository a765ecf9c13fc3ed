"""Which redaction rules a recording's lines were redacted under, so that a reader can tell
whether its events need redacting again."""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["redaction_rules"]


@functools.cache
def redaction_rules() -> str:
    """A digest of the redaction rules in effect: the source of :mod:`monologue.redact` (its
    patterns, its pre-check, its secret keys) and the version of ``detect-secrets``, whose
    detectors it uses.

    A recording's header carries the digest its lines were redacted under (``"redaction"``).
    Its events are read as :attr:`~monologue.events.Event.already_redacted`, and the
    pipeline skips them, only when that is the digest in effect: a recording made before a
    rule was added, or written by another program, is redacted again when it is replayed.
    """
    import hashlib

    import monologue.redact

    try:
        source = Path(monologue.redact.__file__).read_bytes()
    except OSError:  # imported from an archive, say: the release stands for its source
        source = f"monologue-core {_version('monologue-core')}".encode()
    detectors = _version("detect-secrets")
    return hashlib.sha256(source + b"\0" + detectors.encode()).hexdigest()[:16]


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:  # redact loads its detectors only when a pre-check hits
        return "none"
