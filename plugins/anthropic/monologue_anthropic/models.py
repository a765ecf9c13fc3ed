"""Model aliases: ``haiku`` means the newest Haiku the installed SDK knows.

The SDK lists the model ids it knows in the ``Literal`` of
``anthropic.types.model_param.ModelParam``; upgrading the SDK is how a new Haiku arrives.
A family name (``haiku``, ``sonnet``, ``opus``...) resolves to the newest id of that family;
any other string is used verbatim as the model id.
"""

from __future__ import annotations

import functools
import re
import typing
from typing import Any

# Used only when the SDK carries no model list (very old or stripped-down versions).
FALLBACK = {"haiku": "claude-haiku-4-5", "sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-5"}

# claude-haiku-5-5, claude-sonnet-5, claude-haiku-4-5-20251001 (current naming)
_FAMILY_FIRST = re.compile(
    r"^claude-(?P<family>[a-z]+)-(?P<major>\d{1,2})(?:-(?P<minor>\d{1,2}))?(?:-(?P<date>\d{8}))?$"
)
# claude-3-5-haiku-20241022, claude-3-haiku-latest (earlier naming)
_VERSION_FIRST = re.compile(
    r"^claude-(?P<major>\d{1,2})(?:-(?P<minor>\d{1,2}))?-(?P<family>[a-z]+)"
    r"(?:-(?P<date>\d{8}|latest))?$"
)


def _literal_strings(annotation: Any) -> list[str]:
    """Every string in the ``Literal`` members of ``annotation`` (through unions)."""
    if typing.get_origin(annotation) is typing.Literal:
        return [arg for arg in typing.get_args(annotation) if isinstance(arg, str)]
    return [found for arg in typing.get_args(annotation) for found in _literal_strings(arg)]


def sdk_model_ids() -> list[str]:
    """The model ids the installed ``anthropic`` SDK declares (empty when it declares none)."""
    try:
        from anthropic.types.model_param import ModelParam
    except ImportError:
        return []
    return _literal_strings(ModelParam)


def _version_key(model_id: str) -> tuple[str, tuple[int, int, int, int]] | None:
    """``(family, sort key)``, newest sorting last; ``None`` for ids without a version."""
    match = _FAMILY_FIRST.match(model_id) or _VERSION_FIRST.match(model_id)
    if match is None:
        return None
    date = match["date"]
    # An undated id is the moving alias of the newest snapshot: prefer it to a dated one.
    dated = 0 if date in (None, "latest") else 1
    stamp = int(date) if dated else 0
    return match["family"], (int(match["major"]), int(match["minor"] or 0), -dated, stamp)


def newest_by_family(model_ids: list[str]) -> dict[str, str]:
    """The newest id of every model family in ``model_ids``."""
    best: dict[str, tuple[tuple[int, int, int, int], str]] = {}
    for model_id in model_ids:
        parsed = _version_key(model_id)
        if parsed is None:
            continue
        family, key = parsed
        if family not in best or key > best[family][0]:
            best[family] = (key, model_id)
    return {family: model_id for family, (_, model_id) in best.items()}


@functools.cache
def aliases() -> dict[str, str]:
    """Alias to model id for the installed SDK (``{"haiku": "claude-haiku-5-5", ...}``)."""
    return {**FALLBACK, **newest_by_family(sdk_model_ids())}


def resolve_model(name: str) -> str:
    """The model id ``name`` stands for: an alias's newest id, else ``name`` itself."""
    wanted = name.strip()
    return aliases().get(wanted.lower(), wanted)
