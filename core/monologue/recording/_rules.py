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
    from importlib.metadata import PackageNotFoundError, version

    import monologue.redact

    source = Path(monologue.redact.__file__).read_bytes()
    try:
        detectors = version("detect-secrets")
    except PackageNotFoundError:  # redact loads its detectors only when a pre-check hits
        detectors = "none"
    return hashlib.sha256(source + b"\0" + detectors.encode()).hexdigest()[:16]
